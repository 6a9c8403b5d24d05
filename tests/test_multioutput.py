"""Multi-output regression: trees, Extra-Trees, forests and bagging on a 2-D y, against
scikit-learn where both grow the same tree, against brute force on small data, and the
refusals (other criteria, categorical features, classifiers)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from sklearn.datasets import make_regression
from sklearn.exceptions import DataConversionWarning
from sklearn.tree import DecisionTreeRegressor as SkTree

import treeboost as tb
from treeboost.engine.split.criteria import SQUARED_ERROR, node_impurity, node_term


def _data(n=400, k=3, seed=0):
    return make_regression(n_samples=n, n_features=6, n_targets=k, noise=5.0, random_state=seed)


@pytest.mark.parametrize("weighted", [False, True])
def test_same_tree_as_scikit_learn(weighted):
    X, Y = _data()
    w = np.random.RandomState(1).randint(1, 4, len(X)).astype(float) if weighted else None
    # weighted, two features split one node alike: each library draws between them with
    # its own generator, and seed 2 draws as scikit-learn's random_state=0 does (the
    # feature importances differ otherwise; the predictions do not)
    ours = tb.DecisionTreeRegressor(max_depth=4, max_bins=None, random_state=2).fit(
        X, Y, sample_weight=w
    )
    ref = SkTree(max_depth=4, random_state=0).fit(X, Y, sample_weight=w)
    assert ours.n_outputs_ == 3 and ours.predict(X).shape == (len(X), 3)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-10, atol=1e-9)
    assert ours.tree_.node_count == ref.tree_.node_count
    # scikit-learn's impurity: the mean of the outputs' variances
    np.testing.assert_allclose(
        np.sort(ours.tree_.impurity), np.sort(ref.tree_.impurity), rtol=1e-7, atol=1e-6
    )
    np.testing.assert_allclose(
        ours.feature_importances_, ref.feature_importances_, rtol=1e-6, atol=1e-9
    )


def test_copies_of_one_output_grow_the_single_output_tree():
    X, Y = _data(k=1)
    single = tb.DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, Y)
    double = tb.DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, np.c_[Y, Y])
    np.testing.assert_array_equal(double.tree_.feature, single.tree_.feature)
    np.testing.assert_allclose(double.predict(X), np.c_[single.predict(X), single.predict(X)])
    np.testing.assert_allclose(double.tree_.impurity, single.tree_.impurity, rtol=1e-12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4), st.integers(4, 12), st.integers(0, 10_000))
def test_criterion_is_the_mean_of_the_outputs_squared_errors(k, n, seed):
    """node_term / node_impurity of (w, w*y_1, .., w*y_K) against their definitions."""
    rng = np.random.RandomState(seed)
    Y = rng.normal(size=(n, k)) * rng.uniform(0.1, 10, k)
    w = rng.randint(1, 4, n).astype(float)
    s = np.r_[w.sum(), (w[:, None] * Y).sum(axis=0), n]
    W = w.sum()
    means = (w[:, None] * Y).sum(axis=0) / W
    var = ((w[:, None] * (Y - means) ** 2).sum(axis=0) / W).mean()
    sq = float((w[:, None] * Y * Y).sum())
    assert node_impurity(s, sq, SQUARED_ERROR, k + 1, 0.0, 0.0) == pytest.approx(
        var, rel=1e-9, abs=1e-12
    )
    # T(s) + sum w y^2 / K is W times the mean variance
    assert node_term(s, SQUARED_ERROR, k + 1, 0.0, 0.0) + sq / k == pytest.approx(
        W * var, rel=1e-8, abs=1e-9
    )


def test_the_best_split_is_the_brute_force_one():
    rng = np.random.RandomState(3)
    X = rng.rand(40, 2)
    Y = np.c_[X[:, 0] > 0.5, X[:, 1] * 3] + 0.1 * rng.rand(40, 2)
    tree = tb.DecisionTreeRegressor(max_depth=1, max_bins=None).fit(X, Y)

    def sse(rows):
        return ((Y[rows] - Y[rows].mean(axis=0)) ** 2).sum()

    best = min(
        (sse(X[:, f] <= t) + sse(X[:, f] > t), f) for f in range(2) for t in np.unique(X[:, f])[:-1]
    )
    f = tree.tree_.feature[0]
    left = X[:, f] <= tree.tree_.threshold[0]
    assert f == best[1]
    assert sse(left) + sse(~left) == pytest.approx(best[0])


@pytest.mark.parametrize("cls", [tb.RandomForestRegressor, tb.ExtraTreesRegressor])
def test_forests_take_several_outputs(cls):
    X, Y = _data(n=600)
    forest = cls(30, oob_score=True, bootstrap=True, random_state=0).fit(X[:400], Y[:400])
    assert forest.n_outputs_ == 3
    assert forest.predict(X[400:]).shape == (200, 3)
    assert forest.oob_prediction_.shape == (400, 3)
    assert forest.score(X[400:], Y[400:]) > 0.6
    np.testing.assert_allclose(
        forest.predict(X[400:]), np.mean([t.predict(X[400:]) for t in forest.estimators_], axis=0)
    )


def test_bagging_takes_several_outputs():
    from sklearn.linear_model import Ridge

    X, Y = _data(n=600)
    bag = tb.BaggingRegressor(n_estimators=10, oob_score=True, random_state=0).fit(X, Y)
    assert bag.predict(X).shape == (600, 3) and bag.oob_prediction_.shape == (600, 3)
    ridge = tb.BaggingRegressor(Ridge(), n_estimators=3, random_state=0).fit(X, Y)
    assert ridge.predict(X).shape == (600, 3)


@pytest.mark.parametrize(
    "make",
    [
        lambda: tb.DecisionTreeRegressor(max_depth=4),
        lambda: tb.RandomForestRegressor(5, random_state=0),
        lambda: tb.BaggingRegressor(n_estimators=3, random_state=0),
    ],
)
def test_model_files_round_trip(tmp_path, make):
    X, Y = _data()
    est = make().fit(X, Y)
    back = tb.load(est.save(tmp_path / "m.tbm"))
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    assert back.predict(X).shape == (len(X), 3)


def test_a_column_y_is_one_output_with_scikit_learns_warning():
    X, Y = _data(k=1)
    with pytest.warns(DataConversionWarning):
        est = tb.DecisionTreeRegressor(max_depth=3).fit(X, Y[:, None])
    assert est.predict(X).shape == (len(X),) and est.n_outputs_ == 1


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(criterion="poisson"), "criterion='poisson' does not take a multi-output y"),
        (dict(criterion="absolute_error"), "criterion='absolute_error' does not take"),
    ],
)
def test_other_criteria_are_refused_by_name(kw, message):
    X, Y = _data()
    with pytest.raises(ValueError, match=message):
        tb.DecisionTreeRegressor(**kw).fit(X, np.abs(Y))
    with pytest.raises(ValueError, match=message):
        tb.RandomForestRegressor(3, **kw).fit(X, np.abs(Y))


def test_categorical_features_and_bad_targets_are_refused():
    pd = pytest.importorskip("pandas")
    X, Y = _data(n=60)
    frame = pd.DataFrame({"a": X[:, 0], "c": pd.Categorical(np.arange(60) % 3)})
    with pytest.raises(ValueError, match="multi-output y needs numeric features"):
        tb.DecisionTreeRegressor().fit(frame, Y)
    Y_bad = Y.copy()
    Y_bad[0, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        tb.DecisionTreeRegressor().fit(X, Y_bad)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        tb.DecisionTreeRegressor().fit(X, Y[:-1])
    # a multi-output classifier grows on the Gini index only, numeric features only
    with pytest.raises(ValueError, match="criterion='entropy' does not take a multi-output"):
        tb.DecisionTreeClassifier(criterion="entropy").fit(X, (Y > 0).astype(int))
    with pytest.raises(ValueError, match="multi-output y needs numeric features"):
        tb.DecisionTreeClassifier().fit(frame, (Y > 0).astype(int))


def _classification_data():
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=500, n_features=6, n_informative=4, n_classes=3, random_state=0
    )
    labels = np.where(X[:, 1] > 0.5, "high", "low")
    return X, np.column_stack([y.astype(str), (X[:, 0] > 0).astype(str), labels])


def test_a_multi_output_classifier_is_the_mean_gini_tree_of_scikit_learn():
    from sklearn.tree import DecisionTreeClassifier as SkClf

    X, Y = _classification_data()
    ours = tb.DecisionTreeClassifier(max_depth=3, max_bins=None).fit(X, Y)
    ref = SkClf(max_depth=3, random_state=0).fit(X, Y)
    assert ours.n_outputs_ == 3 and isinstance(ours.classes_, list)
    for a, b in zip(ours.classes_, ref.classes_):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ours.n_classes_, ref.n_classes_)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    for a, b in zip(ours.predict_proba(X), ref.predict_proba(X)):
        np.testing.assert_allclose(a, b, atol=1e-12)
    # scikit-learn's numbers: the impurity is the mean of the outputs' Gini indices
    np.testing.assert_allclose(np.sort(ours.tree_.impurity), np.sort(ref.tree_.impurity), rtol=1e-9)
    np.testing.assert_allclose(
        ours.feature_importances_, ref.feature_importances_, rtol=1e-7, atol=1e-12
    )


def test_multi_output_class_weight_is_a_list_of_dicts(tmp_path):
    X, Y = _classification_data()
    Y = np.column_stack([Y[:, 0].astype(int), Y[:, 1] == "True", Y[:, 2] == "high"]).astype(int)
    cw = [{0: 1.0, 1: 3.0, 2: 1.0}, {0: 1.0, 1: 2.0}, {0: 1.0, 1: 1.0}]
    a = tb.DecisionTreeClassifier(max_depth=4, class_weight=cw, random_state=0).fit(X, Y)
    w = np.where(Y[:, 0] == 1, 3.0, 1.0) * np.where(Y[:, 1] == 1, 2.0, 1.0)
    b = tb.DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, Y, sample_weight=w)
    for p, q in zip(a.predict_proba(X), b.predict_proba(X)):
        np.testing.assert_allclose(p, q)
    back = tb.load(a.save(tmp_path / "c.tbm"))
    np.testing.assert_array_equal(back.predict(X), a.predict(X))
    assert [list(c) for c in back.classes_] == [list(c) for c in a.classes_]
    logp = back.predict_log_proba(X)
    assert isinstance(logp, list) and len(logp) == 3


@pytest.mark.parametrize("cls", [tb.RandomForestClassifier, tb.ExtraTreesClassifier])
def test_forest_classifiers_take_several_outputs(tmp_path, cls):
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=600, n_features=6, n_informative=4, n_classes=3, random_state=0
    )
    Y = np.column_stack([y > 0, X[:, 0] > 0]).astype(int)  # two binary outputs
    forest = cls(20, oob_score=True, bootstrap=True, random_state=0).fit(X[:400], Y[:400])
    proba = forest.predict_proba(X[400:])
    assert isinstance(proba, list) and [p.shape for p in proba] == [(200, 2), (200, 2)]
    mean = [
        np.mean([t.predict_proba(X[400:])[k] for t in forest.estimators_], axis=0) for k in range(2)
    ]
    for p, q in zip(proba, mean):
        np.testing.assert_allclose(p, q)
    assert forest.predict(X[400:]).shape == (200, 2)
    assert np.mean(forest.predict(X[400:]) == Y[400:]) > 0.85
    # scikit-learn's out-of-bag shapes: (n, classes, outputs), the mean accuracy
    assert forest.oob_decision_function_.shape == (400, 2, 2)
    # the subset accuracy, as scikit-learn and ClassifierMixin.score
    assert forest.oob_score_ == pytest.approx(
        np.mean(np.all(np.argmax(forest.oob_decision_function_, axis=1) == Y[:400], axis=1))
    )
    back = tb.load(forest.save(tmp_path / "f.tbm"))
    np.testing.assert_array_equal(back.predict(X), forest.predict(X))
    # more than two classes in an output: scikit-learn's refusal of an out-of-bag score
    Y3 = np.column_stack([y, X[:, 0] > 0]).astype(int)
    with pytest.raises(ValueError, match="cannot be used to compute OOB estimates"):
        cls(5, oob_score=True, bootstrap=True).fit(X, Y3)
    for cw in ("balanced", "balanced_subsample"):
        assert cls(5, class_weight=cw, random_state=0).fit(X, Y3).predict(X).shape == (600, 2)


def test_exports_refuse_a_multi_output_model_by_name():
    from treeboost.inspection import export_rules, export_text

    X, Y = _data(n=100)
    for model in (
        tb.DecisionTreeRegressor(max_depth=2).fit(X, Y),
        tb.RandomForestClassifier(3, random_state=0).fit(X, (Y > 0).astype(int)),
    ):
        for export in (export_text, export_rules):
            with pytest.raises(ValueError, match="fitted on a multi-output y"):
                export(model)
