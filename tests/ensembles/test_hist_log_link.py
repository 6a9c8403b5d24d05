"""HistGradientBoostingRegressor's Poisson and Gamma losses (log link): scikit-learn's
trees after one iteration, better deviance than squared error on their own data, the
target checks, and model files."""

import numpy as np
import pytest
from sklearn.datasets import make_low_rank_matrix
from sklearn.ensemble import HistGradientBoostingRegressor as SkHGB
from sklearn.metrics import mean_gamma_deviance, mean_poisson_deviance

import treeboost
from treeboost import HistGradientBoostingRegressor


def _data(loss, seed=42):
    rng = np.random.RandomState(seed)
    X = make_low_rank_matrix(n_samples=600, n_features=20, random_state=rng)
    eta = X @ (rng.uniform(-2, 2, 20) / np.max(X, axis=0))
    y = (
        rng.poisson(np.exp(eta)).astype(float)
        if loss == "poisson"
        else rng.gamma(2.0, 0.5 * np.exp(eta))
    )
    return X[:500], y[:500], X[500:], y[500:]


@pytest.mark.parametrize("loss", ["poisson", "gamma"])
def test_first_iteration_is_scikit_learns(loss):
    X, y, _, _ = _data(loss)
    ours = HistGradientBoostingRegressor(loss=loss, max_iter=1).fit(X, y)
    ref = SkHGB(loss=loss, max_iter=1).fit(X, y)
    # the same baseline log(mean y), root split and Newton values of its children; deeper
    # nodes may pick another of two near-equal splits (bin edges differ slightly)
    assert float(np.ravel(ours._init_raw)[0]) == pytest.approx(
        float(ref._baseline_prediction[0, 0])
    )
    tree = ours.estimators_[0][0].tree_
    nodes = ref._predictors[0][0].nodes
    assert tree.feature[0] == nodes["feature_idx"][0]
    left = tree.children_left[0]
    ref_left = nodes["left"][0]
    assert tree.n_node_samples[left] == nodes["count"][ref_left]
    np.testing.assert_allclose(
        tree.value[left].ravel()[0], 0.1 * nodes["value"][ref_left], rtol=1e-6
    )
    assert np.corrcoef(np.log(ours.predict(X)), ref._raw_predict(X)[:, 0])[0, 1] > 0.8


@pytest.mark.parametrize(
    "loss, deviance", [("poisson", mean_poisson_deviance), ("gamma", mean_gamma_deviance)]
)
def test_log_link_beats_squared_error_in_its_deviance(loss, deviance):
    X, y, Xt, yt = _data(loss)
    ours = HistGradientBoostingRegressor(loss=loss, random_state=0).fit(X, y)
    ls = HistGradientBoostingRegressor(random_state=0).fit(X, y)
    assert np.all(ours.predict(Xt) > 0)
    for A, b in ((X, y), (Xt, yt)):
        assert deviance(b, ours.predict(A)) < deviance(
            b, np.maximum(ls.predict(A), max(y.min(), 1e-15))
        )
    staged = list(ours.staged_predict(Xt))
    np.testing.assert_allclose(staged[-1], ours.predict(Xt))


@pytest.mark.parametrize(
    "loss, y, msg",
    [
        ("poisson", [1.0, -1.0, 2.0], r"non-negative y and sum\(y\) > 0"),
        ("poisson", [0.0, 0.0, 0.0], r"non-negative y and sum\(y\) > 0"),
        ("gamma", [1.0, 0.0, 2.0], "strictly positive y"),
    ],
)
def test_targets_outside_the_domain_are_refused(loss, y, msg):
    with pytest.raises(ValueError, match=msg):
        HistGradientBoostingRegressor(loss=loss).fit(np.arange(3.0)[:, None], y)


@pytest.mark.parametrize("loss", ["poisson", "gamma"])
def test_model_file_round_trip(tmp_path, loss):
    X, y, Xt, _ = _data(loss)
    est = HistGradientBoostingRegressor(loss=loss, max_iter=5).fit(X, y)
    back = treeboost.load(treeboost.save(est, tmp_path / "m.tbm"))
    np.testing.assert_array_equal(back.predict(Xt), est.predict(Xt))


@pytest.mark.parametrize("frame", [False, True])
def test_hist_refuses_more_categories_than_bins_as_scikit_learn(frame):
    pd = pytest.importorskip("pandas")
    X = np.array([[0.0, 1.0, 2.0]]).T
    X = pd.DataFrame({"f0": X[:, 0]}) if frame else X
    name = "'f0'" if frame else "at index 0"
    est = HistGradientBoostingRegressor(categorical_features=[True], max_bins=2)
    with pytest.raises(
        ValueError,
        match=f"Categorical feature {name} is expected to have "
        f"a cardinality <= 2 but actually has a "
        f"cardinality of 3",
    ):
        est.fit(X, np.arange(3.0))
    est.fit(np.array([[0.0, 1.0, np.nan]]).T, np.arange(3.0))  # NaN is not counted
    # treeboost's own boosting groups the rare categories of a wide column instead
    many = pd.DataFrame({"c": pd.Series((np.arange(600) % 300).astype(str), dtype="category")})
    y = np.arange(600) % 2
    with pytest.raises(ValueError, match="cardinality of 300"):
        treeboost.HistGradientBoostingClassifier().fit(many, y)
    treeboost.GradientBoostingClassifier(n_estimators=2).fit(many, y)


def test_categorical_names_errors_say_what_scikit_learn_says():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"f0": range(10), "f1": range(10), "f2": [1.0] * 10})
    y = [0, 1] * 5
    with pytest.raises(ValueError, match="item value 'f3' which is not a valid feature name"):
        treeboost.HistGradientBoostingClassifier(categorical_features=["f0", "f3"]).fit(X, y)
    with pytest.raises(
        ValueError, match="should be passed as an array of integers or as a boolean mask"
    ):
        treeboost.HistGradientBoostingClassifier(categorical_features=["f0"]).fit(X.to_numpy(), y)


def test_hist_class_weight_multiplies_sample_weight(tmp_path):
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=255,
        n_features=2,
        n_informative=2,
        n_redundant=0,
        n_clusters_per_class=1,
        random_state=0,
    )
    sw = np.where(y == 1, 3.0, 1.0)
    kw = dict(min_samples_leaf=2, max_depth=2, random_state=0)
    by_weight = treeboost.HistGradientBoostingClassifier(**kw).fit(X, y, sample_weight=sw**2)
    by_class = treeboost.HistGradientBoostingClassifier(class_weight={0: 1.0, 1: 3.0}, **kw).fit(
        X, y, sample_weight=sw
    )
    np.testing.assert_allclose(by_weight.decision_function(X), by_class.decision_function(X))
    keep = np.concatenate([np.flatnonzero(y == 0), np.flatnonzero(y == 1)[:10]])
    Xi, yi = X[keep], y[keep]
    balanced = treeboost.HistGradientBoostingClassifier(class_weight="balanced", **kw).fit(Xi, yi)
    manual = treeboost.HistGradientBoostingClassifier(**kw).fit(
        Xi, yi, sample_weight=(len(yi) / (2 * np.bincount(yi)))[yi]
    )
    np.testing.assert_allclose(balanced.decision_function(Xi), manual.decision_function(Xi))
    unweighted = treeboost.HistGradientBoostingClassifier(**kw).fit(Xi, yi)
    assert not np.allclose(balanced.decision_function(Xi), unweighted.decision_function(Xi))
    back = treeboost.load(treeboost.save(balanced, tmp_path / "m.tbm"))
    assert back.class_weight == "balanced"


def test_a_hist_classifier_file_without_class_weight_loads(tmp_path):
    from tests._model_files import read_parts, used_only, write_parts

    X, y = _data("poisson")[:2]
    y = (y > np.median(y)).astype(int)
    model = treeboost.HistGradientBoostingClassifier(max_iter=3).fit(X, y)
    doc, arrays = read_parts(model.save(tmp_path / "new.tbm"))
    assert "class_weight" in doc["model"]["state"]
    del doc["model"]["state"]["class_weight"]
    write_parts(tmp_path / "old.tbm", doc, used_only(doc, arrays))
    old = treeboost.load(tmp_path / "old.tbm")
    assert old.class_weight is None
    np.testing.assert_array_equal(old.predict_proba(X), model.predict_proba(X))


def test_hist_takes_infinite_values_in_the_end_bins(tmp_path):
    X = np.array([-np.inf, 0, 1, np.inf]).reshape(-1, 1)
    y = np.array([0.0, 0.0, 1.0, 1.0])
    est = HistGradientBoostingRegressor(min_samples_leaf=1).fit(X, y)
    np.testing.assert_allclose(est.predict(X), y, atol=1e-4)
    # the edges of a model file stay finite: -inf has the lowest float above it
    assert all(np.isfinite(e).all() for e in est.bin_mapper_.bin_thresholds_)
    back = treeboost.load(treeboost.save(est, tmp_path / "m.tbm"))
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    # treeboost's other estimators refuse infinity, as scikit-learn's trees do
    with pytest.raises(ValueError, match="infinity"):
        treeboost.DecisionTreeRegressor().fit(X, y)
    with pytest.raises(ValueError, match="infinity"):
        treeboost.GradientBoostingRegressor().fit(X, y)


def test_an_encoder_file_without_allow_infinite_loads(tmp_path):
    from tests._model_files import read_parts, used_only, write_parts

    X, y, _, _ = _data("gamma")
    model = treeboost.DecisionTreeRegressor(max_depth=3).fit(X, y)
    doc, arrays = read_parts(model.save(tmp_path / "new.tbm"))
    stack, dropped = [doc["model"]], 0
    while stack:
        obj = stack.pop()
        if isinstance(obj, dict):
            if isinstance(obj.get("state"), dict) and "allow_infinite" in obj["state"]:
                del obj["state"]["allow_infinite"]
                dropped += 1
            stack.extend(obj.values())
        elif isinstance(obj, list):
            stack.extend(obj)
    assert dropped == 1
    write_parts(tmp_path / "old.tbm", doc, used_only(doc, arrays))
    old = treeboost.load(tmp_path / "old.tbm")
    assert old._encoder.allow_infinite is False
    np.testing.assert_array_equal(old.predict(X), model.predict(X))
