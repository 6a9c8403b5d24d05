"""Gradient boosting's scikit-learn parameters and attributes: min_samples_split,
min_impurity_decrease, min_weight_fraction_leaf, init, loss="exponential", estimators_,
max_features_, the out-of-bag attributes, monitor, the verbose table, train_score_'s scale,
early stopping by n_iter_no_change, and the HistGradientBoosting classes."""

import numpy as np
import pytest
from scipy.special import expit
from sklearn.datasets import make_classification, make_regression
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LinearRegression
from sklearn.metrics import log_loss, mean_squared_error

from treeboost import (
    DecisionTreeRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
)
from treeboost.losses import ExponentialLoss

X, y = make_classification(n_samples=200, n_features=5, random_state=0)
Xr, yr = make_regression(n_samples=200, n_features=5, noise=5, random_state=0)


def test_scikit_learn_defaults():
    for cls in (GradientBoostingClassifier, GradientBoostingRegressor):
        p = cls().get_params()
        assert (
            p["max_depth"],
            p["max_leaf_nodes"],
            p["min_samples_leaf"],
            p["min_samples_split"],
            p["learning_rate"],
            p["n_estimators"],
            p["subsample"],
            p["n_iter_no_change"],
            p["validation_fraction"],
            p["tol"],
        ) == (3, None, 1, 2, 0.1, 100, 1.0, None, 0.1, 1e-4)
    for cls in (HistGradientBoostingClassifier, HistGradientBoostingRegressor):
        p = cls().get_params()
        assert (
            p["max_iter"],
            p["max_leaf_nodes"],
            p["max_depth"],
            p["min_samples_leaf"],
            p["l2_regularization"],
            p["max_bins"],
            p["early_stopping"],
            p["n_iter_no_change"],
            p["tol"],
            p["scoring"],
        ) == (100, 31, None, 20, 0.0, 255, "auto", 10, 1e-7, "loss")


def test_growth_parameters_limit_the_trees():
    def leaves(**kw):
        m = GradientBoostingRegressor(n_estimators=3, max_depth=None, **kw).fit(Xr, yr)
        return max(int((t.feature < 0).sum()) for trees in m.trees_ for t in trees)

    free = leaves()
    assert leaves(min_samples_split=60) < free
    assert leaves(min_impurity_decrease=50.0) < free
    assert leaves(min_weight_fraction_leaf=0.2) <= 5
    with pytest.raises(ValueError, match="split_gain='gradient'"):
        GradientBoostingRegressor(min_weight_fraction_leaf=0.1, split_gain="hessian").fit(Xr, yr)
    with pytest.raises(ValueError, match="min_samples_split"):
        GradientBoostingRegressor(min_samples_split=1).fit(Xr, yr)


def test_init_zero_and_an_estimator():
    zero = GradientBoostingRegressor(n_estimators=5, init="zero").fit(Xr, yr)
    np.testing.assert_array_equal(zero.init_score_, [0.0])
    lin = GradientBoostingRegressor(n_estimators=5, init=LinearRegression()).fit(Xr, yr)
    # the trees start from the linear model's predictions
    start = lin.init_.predict(Xr)
    np.testing.assert_allclose(
        lin.predict(Xr), start + sum(m.predict(Xr) for m in lin.estimators_[:, 0])
    )
    prior = DummyClassifier(strategy="prior")
    # (seeded: the trees draw among tied splits)
    clf = GradientBoostingClassifier(n_estimators=3, init=prior, random_state=0).fit(X, y)
    const = GradientBoostingClassifier(n_estimators=3, random_state=0).fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), const.predict_proba(X), atol=1e-12)
    with pytest.raises(ValueError, match="predict_proba"):
        GradientBoostingClassifier(init=LinearRegression()).fit(X, y)
    with pytest.raises(ValueError, match="does not support sample weights"):
        GradientBoostingRegressor(init=_NoWeights()).fit(Xr, yr, sample_weight=np.ones(200))


class _NoWeights(LinearRegression):
    def fit(self, X, y):
        return super().fit(X, y)


def test_exponential_loss():
    loss = ExponentialLoss()
    yb = np.array([0, 1, 1])
    raw = np.array([0.5, -0.2, 1.0])
    u = 2 * yb - 1
    np.testing.assert_allclose(loss.pointwise(yb, raw), np.exp(-u * raw))
    g, h = loss.gradient_hessian(yb, raw)
    np.testing.assert_allclose(g, -u * np.exp(-u * raw))
    np.testing.assert_allclose(h, np.exp(-u * raw))
    assert loss.init_raw(yb, np.ones(3)) == pytest.approx(0.5 * np.log(2))
    m = GradientBoostingClassifier(loss="exponential", n_estimators=20).fit(X, y)
    assert m.score(X, y) > 0.9
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], expit(2 * m.decision_function(X)))
    with pytest.raises(ValueError, match="only suitable for a binary"):
        GradientBoostingClassifier(loss="exponential").fit(X, y + (X[:, 0] > 1))


def test_estimators_are_lazy_trees_sharing_the_engine_trees():
    m = GradientBoostingClassifier(n_estimators=4).fit(X, y)
    assert "_estimators" not in vars(m)
    est = m.estimators_
    assert est.shape == (4, 1) and isinstance(est[0, 0], DecisionTreeRegressor)
    assert est[2, 0].tree_ is m.trees_[2][0] and m.estimators_ is est
    np.testing.assert_allclose(
        m.decision_function(X), m.init_score_[0] + sum(e.predict(X) for e in est[:, 0])
    )
    assert m.max_features_ == 5 and len(m) == 4
    K = GradientBoostingClassifier(n_estimators=2).fit(X, y + (X[:, 0] > 1)).estimators_
    assert K.shape == (2, 3)


def test_out_of_bag_attributes_only_with_subsampling():
    m = GradientBoostingRegressor(n_estimators=20, subsample=0.5, random_state=0).fit(Xr, yr)
    assert m.oob_scores_.shape == m.oob_improvement_.shape == (20,)
    assert m.oob_score_ == m.oob_scores_[-1]
    assert m.oob_improvement_[0] > 0
    m.set_params(subsample=1.0).fit(Xr, yr)
    assert not hasattr(m, "oob_scores_") and not hasattr(m, "oob_score_")


def test_monitor_stops_and_sees_the_estimator():
    seen = []

    def monitor(i, est, local):
        seen.append((i, len(est.trees_), "raw" in local))
        return i == 4

    m = GradientBoostingClassifier(n_estimators=20).fit(X, y, monitor=monitor)
    assert m.n_estimators_ == 5 and m.train_score_.shape == (5,)
    assert seen[-1] == (4, 5, True)


def test_verbose_prints_scikit_learns_table(capsys):
    GradientBoostingClassifier(n_estimators=3, subsample=0.5, verbose=2).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["Iter", "Train", "Loss", "OOB", "Improve", "Remaining", "Time"]
    assert [line.split()[0] for line in lines[1:]] == ["1", "2", "3"]


def test_train_score_is_scikit_learns_loss():
    m = GradientBoostingRegressor(n_estimators=5).fit(Xr, yr)
    assert m.train_score_[-1] == pytest.approx(mean_squared_error(yr, m.predict(Xr)))
    c = GradientBoostingClassifier(n_estimators=5).fit(X, y)
    assert c.train_score_[-1] == pytest.approx(2 * log_loss(y, c.predict_proba(X)))


def test_errors_scikit_learn_raises():
    with pytest.raises(ValueError, match="1 class after sample_weight"):
        GradientBoostingClassifier().fit(X, y, sample_weight=(y == 1).astype(float))
    with pytest.raises(ValueError, match="n_iter_no_change"):
        GradientBoostingClassifier(n_iter_no_change=0).fit(X, y)


def test_early_stopping_by_n_iter_no_change():
    m = GradientBoostingRegressor(
        n_estimators=500, learning_rate=0.5, n_iter_no_change=3, random_state=0
    ).fit(Xr, yr)
    assert m.n_estimators_ < 500 and m.validation_score_.shape == (m.n_estimators_,)
    assert not GradientBoostingRegressor(n_estimators=5).fit(Xr, yr).validation_score_.size


def test_hist_gradient_boosting_is_the_former_default_booster():
    hist = HistGradientBoostingClassifier(max_iter=10, random_state=0).fit(X, y)
    same = GradientBoostingClassifier(
        n_estimators=10,
        max_depth=None,
        max_leaf_nodes=31,
        min_samples_leaf=20,
        split_gain="hessian",
        random_state=0,
    ).fit(X, y)
    np.testing.assert_array_equal(hist.predict_proba(X), same.predict_proba(X))
    assert hist.n_iter_ == 10
    big = np.repeat(Xr, 51, axis=0)
    auto = HistGradientBoostingRegressor(max_iter=200, learning_rate=0.5, n_iter_no_change=2)
    assert auto.fit(big, np.repeat(yr, 51)).n_iter_ < 200  # "auto": on above 10,000 rows
    with pytest.raises(ValueError, match="quantile must be set"):
        HistGradientBoostingRegressor(loss="quantile").fit(Xr, yr)
    q = HistGradientBoostingRegressor(loss="quantile", quantile=0.8, max_iter=30).fit(Xr, yr)
    assert 0.7 < np.mean(yr <= q.predict(Xr)) < 0.95


def test_shap_refuses_an_initial_estimator():
    from treeboost.inspection import shap_values

    m = GradientBoostingRegressor(n_estimators=3, init=LinearRegression()).fit(Xr, yr)
    with pytest.raises(ValueError, match="LinearRegression .*not a sum of tree values"):
        shap_values(m, Xr)
    zero = GradientBoostingRegressor(n_estimators=3, init="zero").fit(Xr, yr)
    values, expected = shap_values(zero, Xr)
    np.testing.assert_allclose(values.sum(axis=1) + expected, zero.predict(Xr), atol=1e-8)


def test_hist_and_initialised_boosters_save_and_load(tmp_path):
    import treeboost

    for model, data in (
        (HistGradientBoostingClassifier(max_iter=5, max_features=1), (X, y)),
        (
            GradientBoostingRegressor(n_estimators=5, subsample=0.7, init="zero", random_state=0),
            (Xr, yr),
        ),
    ):
        model.fit(*data)
        model.save(tmp_path / "m.tbm")
        loaded = treeboost.load(tmp_path / "m.tbm")
        assert loaded.get_params() == model.get_params()
        np.testing.assert_array_equal(loaded.predict(data[0]), model.predict(data[0]))
    np.testing.assert_array_equal(loaded.oob_scores_, model.oob_scores_)


def test_hist_is_categorical_():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": Xr[:, 0], "b": pd.Categorical(np.where(Xr[:, 1] > 0, "x", "y"))})
    m = HistGradientBoostingRegressor(max_iter=3).fit(frame, yr)
    np.testing.assert_array_equal(m.is_categorical_, [False, True])
    assert HistGradientBoostingRegressor(max_iter=3).fit(Xr, yr).is_categorical_ is None


def test_hist_validation_data_given_or_the_training_rows():
    Xt, Xv, yt, yv = Xr[:150], Xr[150:], yr[:150], yr[150:]
    m = HistGradientBoostingRegressor(max_iter=50, early_stopping=True, min_samples_leaf=5)
    m.fit(Xt, yt, X_val=Xv, y_val=yv)
    last = np.mean((yv - m.predict(Xv)) ** 2) / 2
    # scikit-learn's scores: minus the loss, the initial one first
    assert m.validation_score_[-1] == pytest.approx(-last)
    assert m.validation_score_.shape == m.train_score_.shape == (m.n_iter_ + 1,)
    on_train = HistGradientBoostingRegressor(
        max_iter=5, early_stopping=True, validation_fraction=None
    ).fit(Xt, yt)
    assert on_train.validation_score_.size == 0 and on_train.train_score_.size == 6
    assert not HistGradientBoostingRegressor(max_iter=3).fit(Xt, yt).train_score_.size
    scored = HistGradientBoostingClassifier(
        max_iter=30, early_stopping=True, scoring="accuracy", n_iter_no_change=2
    )
    scored.fit(X, y)
    assert np.all((scored.validation_score_ >= 0) & (scored.validation_score_ <= 1))
    with pytest.raises(ValueError, match="y_val was not provided"):
        m.fit(Xt, yt, X_val=Xv)
    with pytest.raises(ValueError, match="early_stopping is False"):
        m.set_params(early_stopping=False).fit(Xt, yt, X_val=Xv, y_val=yv)
    clf = HistGradientBoostingClassifier(max_iter=5, early_stopping=True)
    labels = np.array(["a", "b"])[y]
    clf.fit(X[:150], labels[:150], X_val=X[150:], y_val=labels[150:])
    with pytest.raises(ValueError, match="classes not in y"):
        clf.fit(X[:150], labels[:150], X_val=X[150:], y_val=np.full(50, "c"))


def test_hist_with_a_scorer_saves_and_loads(tmp_path):
    import treeboost

    m = HistGradientBoostingClassifier(max_iter=5, early_stopping=True, scoring="accuracy")
    m.fit(X, y).save(tmp_path / "m.tbm")
    loaded = treeboost.load(tmp_path / "m.tbm")
    np.testing.assert_array_equal(loaded.validation_score_, m.validation_score_)


def test_deprecated_criterion_warns_and_changes_nothing():
    with pytest.warns(FutureWarning, match="criterion"):
        warned = GradientBoostingRegressor(n_estimators=3, criterion="friedman_mse").fit(Xr, yr)
    plain = GradientBoostingRegressor(n_estimators=3).fit(Xr, yr)
    np.testing.assert_array_equal(warned.predict(Xr), plain.predict(Xr))
    with pytest.raises(ValueError, match="criterion"):
        GradientBoostingRegressor(criterion="gini").fit(Xr, yr)
    with pytest.raises(ValueError, match="scoring"):
        HistGradientBoostingRegressor(scoring=3).fit(Xr, yr)


def test_subsample_rows_are_scikit_learns_draws():
    """The subsample of every iteration comes from random_state as scikit-learn draws it
    (uniforms then selection sampling, one tree seed per tree), so the first iteration's
    in-bag loss is scikit-learn's."""
    from sklearn.datasets import make_hastie_10_2
    from sklearn.ensemble import GradientBoostingClassifier as SkGBC
    from treeboost.ensembles._bootstrap import selection_sample

    sk_mask = pytest.importorskip("sklearn.ensemble._gradient_boosting")._random_sample_mask
    for n, k, seed in [(100, 50, 1), (37, 5, 2), (10, 10, 0), (10, 1, 3)]:
        ours = np.zeros(n, bool)
        selection_sample(np.random.RandomState(seed).uniform(size=n), k, ours)
        np.testing.assert_array_equal(ours, sk_mask(n, k, np.random.RandomState(seed)))
        assert ours.sum() == k
    X, y = make_hastie_10_2(n_samples=100, random_state=1)
    a = GradientBoostingClassifier(n_estimators=2, subsample=0.5, random_state=1).fit(X, y)
    b = SkGBC(n_estimators=2, subsample=0.5, random_state=1).fit(X, y)
    assert a.estimators_[0, 0].tree_.n_node_samples[0] == 50
    assert a.train_score_[0] == pytest.approx(b.train_score_[0], rel=1e-9)
