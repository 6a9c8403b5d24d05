"""The data-parallel trainer's tree loop, with its shards in this process: whatever the
partitioning, it grows the one-machine model's trees (same splits; leaf values equal
within the summation order)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.datasets import make_classification, make_regression

from treeboost import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from treeboost.dask._boosting import (
    _Shards,
    DaskHistGradientBoostingClassifier,
    DaskHistGradientBoostingRegressor,
)
from treeboost.dask._shard import BoostingShard


def _slice(obj, rows):
    if obj is None:
        return None
    return obj.iloc[rows] if hasattr(obj, "iloc") else obj[rows]


def fit_partitioned(est, X, y, bounds, sample_weight=None, X_val=None, y_val=None):
    """``est`` fitted on the row partitions ``X[bounds[i]:bounds[i + 1]]``, two
    partitions a shard."""
    parts = [np.arange(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
    triples = [(_slice(X, p), _slice(y, p), _slice(sample_weight, p)) for p in parts]
    val = [] if X_val is None else [(X_val, y_val, None)]
    shards = [
        BoostingShard(triples[i : i + 2], val if i == 0 else []) for i in range(0, len(triples), 2)
    ]
    est._check_supported()
    est._fit_shards(_Shards.in_process(shards, 10), X_val is not None)
    return est


def canonical(tree, node=0):
    """A tree's splits as nested tuples, whatever its node numbering."""
    if tree.children_left[node] == -1:
        return None
    cats = tuple(tree.categories_left[node]) if tree.is_categorical[node] else ()
    return (
        int(tree.feature[node]),
        int(tree.bin_threshold[node]),
        bool(tree.missing_go_left[node]),
        cats,
        canonical(tree, tree.children_left[node]),
        canonical(tree, tree.children_right[node]),
    )


def assert_same_model(one, dist, X, rtol=1e-9):
    assert len(one.trees_) == len(dist.trees_)
    for a, b in zip(one.trees_, dist.trees_):
        for ta, tb in zip(a, b):
            assert canonical(ta) == canonical(tb)
    raw_one = one._raw_predict(X)
    raw_dist = dist._raw_predict(X)
    np.testing.assert_allclose(raw_dist, raw_one, rtol=rtol, atol=1e-9)


def _classification(n=3000, n_classes=2, seed=0):
    X, y = make_classification(n, 8, n_informative=5, n_classes=n_classes, random_state=seed)
    X[::7, 1] = np.nan
    return X, y


@pytest.mark.parametrize("n_classes", [2, 3])
def test_classifier_grows_the_one_machine_trees(n_classes):
    X, y = _classification(n_classes=n_classes)
    kw = dict(max_iter=8, early_stopping=False)
    one = HistGradientBoostingClassifier(**kw).fit(X, y)
    dist = fit_partitioned(
        DaskHistGradientBoostingClassifier(**kw), X, y, [0, 500, 1400, 1401, 2500, 3000]
    )
    assert_same_model(one, dist, X)
    np.testing.assert_array_equal(dist.classes_, one.classes_)
    np.testing.assert_allclose(dist.predict_proba(X), one.predict_proba(X), atol=1e-9)


@pytest.mark.parametrize("loss", ["squared_error", "poisson", "gamma"])
def test_regressor_grows_the_one_machine_trees(loss):
    X, y = make_regression(2000, 6, noise=5.0, random_state=1)
    if loss != "squared_error":
        y = np.exp(y / y.std())
    kw = dict(loss=loss, max_iter=6, early_stopping=False)
    one = HistGradientBoostingRegressor(**kw).fit(X, y)
    dist = fit_partitioned(DaskHistGradientBoostingRegressor(**kw), X, y, [0, 700, 2000])
    assert_same_model(one, dist, X)


def test_small_nodes_and_leaf_rules_as_the_one_machine_grower():
    """Few rows: nodes under dense_min_samples are read from their rows (exact
    counts) and min_samples_leaf binds; depth-first growth without max_leaf_nodes."""
    X, y = _classification(n=400, seed=3)
    for kw in (
        dict(min_samples_leaf=15),
        dict(max_leaf_nodes=None, max_depth=4),
        dict(min_samples_leaf=1, l2_regularization=0.5),
    ):
        kw.update(max_iter=5, early_stopping=False)
        one = HistGradientBoostingClassifier(**kw).fit(X, y)
        dist = fit_partitioned(DaskHistGradientBoostingClassifier(**kw), X, y, [0, 150, 151, 400])
        assert_same_model(one, dist, X)


def test_sample_weight_and_zero_weights():
    X, y = _classification(n=2000, seed=4)
    w = np.random.default_rng(0).uniform(0, 3, X.shape[0])
    w[::5] = 0.0
    kw = dict(max_iter=5, early_stopping=False)
    one = HistGradientBoostingClassifier(**kw).fit(X, y, sample_weight=w)
    dist = fit_partitioned(
        DaskHistGradientBoostingClassifier(**kw), X, y, [0, 1000, 2000], sample_weight=w
    )
    assert_same_model(one, dist, X)


def test_categorical_column_from_pandas():
    rng = np.random.default_rng(5)
    n = 2400
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.normal(size=n),
            "c": pd.Categorical(rng.choice(list("pqrstu"), n)),
        }
    )
    X.loc[::11, "a"] = np.nan
    y = ((X["c"].isin(["p", "s", "t"])) ^ (X["b"] > 0.3)).astype(int).to_numpy()
    kw = dict(max_iter=6, early_stopping=False)
    one = HistGradientBoostingClassifier(**kw).fit(X, y)
    dist = fit_partitioned(DaskHistGradientBoostingClassifier(**kw), X, y, [0, 600, 1200, 2400])
    assert any(t[0].is_categorical.any() for t in dist.trees_)
    assert_same_model(one, dist, X)


def test_early_stopping_on_validation_data():
    X, y = _classification(n=3000, seed=6)
    kw = dict(max_iter=200, early_stopping=True, n_iter_no_change=3, learning_rate=0.5)
    one = HistGradientBoostingClassifier(**kw).fit(
        X[:2000], y[:2000], X_val=X[2000:], y_val=y[2000:]
    )
    dist = fit_partitioned(
        DaskHistGradientBoostingClassifier(**kw),
        X[:2000],
        y[:2000],
        [0, 1000, 2000],
        X_val=X[2000:],
        y_val=y[2000:],
    )
    assert dist.n_estimators_ < 200
    assert dist.n_estimators_ == one.n_estimators_
    np.testing.assert_allclose(dist.validation_score_, one.validation_score_, rtol=1e-9)
    np.testing.assert_allclose(dist.train_score_, one.train_score_, rtol=1e-9)


def _branch_features(tree, node=0, above=()):
    """The sets of features split on along each root-to-leaf path."""
    if tree.children_left[node] == -1:
        return [set(above)]
    here = above + (int(tree.feature[node]),)
    return _branch_features(tree, tree.children_left[node], here) + _branch_features(
        tree, tree.children_right[node], here
    )


@pytest.mark.parametrize(
    "kw",
    [
        dict(monotonic_cst=[1, -1, 0, 0, 1, 0, 0, 0]),
        dict(interaction_cst=[{0, 1}, {2, 3, 4}]),
        dict(interaction_cst="pairwise", max_leaf_nodes=None, max_depth=4),
        dict(monotonic_cst=[1, 0, 0, -1, 0, 0, 0, 0], interaction_cst=[{0, 3}, {1, 2}]),
        dict(class_weight="balanced"),
        dict(class_weight={0: 2.0, 1: 0.5}),
    ],
)
def test_constraints_and_class_weight_as_the_one_machine_model(kw):
    """Each node's interval and open interaction sets follow the one-machine rules, and
    class weights multiply the rows' weights: the same trees.  The constraint or
    weight must bind, else the test could not fail."""
    X, y = _classification(n=3000, seed=2)
    y = y.copy()
    y[:2000][y[:2000] == 1] = 0  # unbalanced classes: class_weight changes the model
    kw = dict(kw, max_iter=6, early_stopping=False)
    one = HistGradientBoostingClassifier(**kw).fit(X, y)
    free = HistGradientBoostingClassifier(max_iter=6, early_stopping=False).fit(X, y)
    assert any(canonical(a[0]) != canonical(b[0]) for a, b in zip(one.trees_, free.trees_)), (
        "the parameter does not bind on this data"
    )
    dist = fit_partitioned(
        DaskHistGradientBoostingClassifier(**kw), X, y, [0, 500, 1400, 1401, 2500, 3000]
    )
    assert_same_model(one, dist, X)
    sets = dist._check_interaction_cst(X.shape[1])
    if sets is not None:
        for trees in dist.trees_:
            for branch in _branch_features(trees[0]):
                assert any(branch <= set(s) for s in sets)
    if "monotonic_cst" in kw:
        grid = np.repeat(X[:50], 20, axis=0)
        for f, cst in enumerate(kw["monotonic_cst"]):
            if cst:
                grid[:, f] = np.tile(np.linspace(-3, 3, 20), 50)
                p = dist.decision_function(grid).reshape(50, 20)
                assert np.all(cst * np.diff(p, axis=1) >= -1e-12)
                grid[:, f] = np.repeat(X[:50, f], 20)


@pytest.mark.parametrize(
    "kw",
    [
        dict(loss="absolute_error"),
        dict(loss="quantile", quantile=0.8),
        dict(loss="quantile", quantile=0.3, monotonic_cst=[1, 0, 0, 0, 0, -1]),
    ],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_quantile_losses_select_the_one_machine_leaf_values(kw, weighted):
    """The initial score and every leaf's weighted quantile of residuals whose rows lie
    on several shards (one of them holding a single row): the one-machine values."""
    X, y = make_regression(3000, 6, noise=5.0, random_state=1)
    w = None
    if weighted:
        w = np.random.default_rng(0).uniform(0, 2, 3000)
        w[::7] = 0.0
    kw = dict(kw, max_iter=6, early_stopping=False)
    one = HistGradientBoostingRegressor(**kw).fit(X, y, sample_weight=w)
    dist = fit_partitioned(
        DaskHistGradientBoostingRegressor(**kw),
        X,
        y,
        [0, 500, 1400, 1401, 2500, 3000],
        sample_weight=w,
    )
    assert dist._init_raw[0] == one._init_raw[0]
    assert_same_model(one, dist, X)
    # each tree's leaves took eight selection rounds beyond its growth
    assert min(dist.n_rounds_) >= 9


@pytest.mark.parametrize("early", [False, True])
def test_warm_start_adds_the_one_machine_trees(early):
    """A second fit with more iterations continues from the first one's trees, on its
    bins: the trees the one-machine warm start adds, and its scores."""
    X, y = _classification(n=2000, seed=7)
    kw = dict(max_iter=4, warm_start=True, early_stopping=early, n_iter_no_change=50)
    val = dict(X_val=X[1500:], y_val=y[1500:]) if early else {}
    one = HistGradientBoostingClassifier(**kw).fit(X[:1500], y[:1500], **val)
    dist = fit_partitioned(
        DaskHistGradientBoostingClassifier(**kw), X[:1500], y[:1500], [0, 700, 1500], **val
    )
    first = dist.trees_[0][0]
    one.set_params(max_iter=9).fit(X[:1500], y[:1500], **val)
    dist.set_params(max_iter=9)
    fit_partitioned(dist, X[:1500], y[:1500], [0, 700, 1500], **val)
    assert len(dist.trees_) == 9 and dist.trees_[0][0] is first
    assert len(dist.n_rounds_) == 9
    assert_same_model(one, dist, X)
    np.testing.assert_allclose(dist.train_score_, one.train_score_, rtol=1e-9)
    np.testing.assert_allclose(dist.validation_score_, one.validation_score_, rtol=1e-9)
    dist.set_params(max_iter=3)
    with pytest.raises(ValueError, match="max_iter=3"):
        fit_partitioned(dist, X[:1500], y[:1500], [0, 700, 1500], **val)


def test_monotonic_regressor_as_the_one_machine_model():
    X, y = make_regression(3000, 6, noise=5.0, random_state=1)
    kw = dict(monotonic_cst=[1, 0, -1, 0, 0, 0], max_iter=6, early_stopping=False)
    one = HistGradientBoostingRegressor(**kw).fit(X, y)
    dist = fit_partitioned(DaskHistGradientBoostingRegressor(**kw), X, y, [0, 1000, 3000])
    assert_same_model(one, dist, X)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 300), min_size=1, max_size=6), st.integers(0, 2**16))
def test_any_partitioning_grows_the_same_model(cuts, seed):
    """Brute force over partitionings (empty partitions, one row, sorted labels): the
    model of one partition."""
    X, y = make_classification(300, 4, n_informative=3, n_redundant=0, random_state=seed)
    order = np.argsort(y, kind="stable")  # labels sorted across partitions
    X, y = X[order], y[order]
    kw = dict(max_iter=3, early_stopping=False, min_samples_leaf=5)
    whole = fit_partitioned(DaskHistGradientBoostingClassifier(**kw), X, y, [0, 300])
    bounds = [0] + sorted(cuts) + [300]
    parts = fit_partitioned(DaskHistGradientBoostingClassifier(**kw), X, y, bounds)
    assert_same_model(whole, parts, X)


@pytest.mark.parametrize(
    "param, value",
    [
        ("max_features", 0.5),
        ("scoring", "accuracy"),
    ],
)
def test_unsupported_parameters_are_refused_by_name(param, value):
    est = DaskHistGradientBoostingClassifier(**{param: value})
    with pytest.raises(ValueError, match=param):
        est._check_supported()


def test_numpy_input_is_refused_with_the_one_machine_class_named():
    distributed = pytest.importorskip("distributed")
    X, y = _classification(n=100)
    with distributed.Client(
        processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None
    ):
        with pytest.raises(TypeError, match="one-machine"):
            DaskHistGradientBoostingClassifier().fit(X, y)


def test_a_shard_lost_before_a_step_ends_the_fit_with_worker_lost():
    """A Dask actor whose worker is known lost refuses the call itself (a RuntimeError
    at attribute access): the fit ends with WorkerLostError, not that error."""
    from treeboost.dask import WorkerLostError

    class LostActor:
        def __getattr__(self, name):
            raise RuntimeError("Worker holding Actor was lost.")

    with pytest.raises(WorkerLostError, match="lost before the step 'root'"):
        _Shards([LostActor()], 10).call("root", 0, False)
