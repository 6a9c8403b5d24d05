"""PackedForest (engine/predict/packed_forest.py): one walk of many trees, against the trees
added one at a time in Python, bit for bit."""

import numba
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from treeboost import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreesRegressor,
    RandomForestClassifier,
)
from treeboost.engine import PackedForest
from treeboost.engine.predict import packed_forest
from treeboost.engine.predict.packed_forest import (
    FOREST_BLOCK_MAX_ROWS,
    FOREST_BLOCK_MIN_ROWS,
    forest_block_rows,
)


def _data(seed, n=400, p=4):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, p))
    X[rng.rand(n) < 0.15, 1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _one_at_a_time(trees, X):
    """The sum of the trees' predictions, added in their order (as the forest sums)."""
    out = np.zeros((X.shape[0], trees[0].value.shape[1]))
    for tree in trees:
        out += tree.predict(X)
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 30), st.integers(1, 9), st.integers(0, 300), st.integers(1, 3))
def test_packed_forest_adds_every_tree_in_order(seed, n_trees, n_rows, threads):
    X, y = _data(seed)
    trees = [
        DecisionTreeClassifier(max_depth=6, max_features=2, random_state=seed + k).fit(X, y).tree_
        for k in range(n_trees)
    ]
    packed = PackedForest.of(trees)
    assert packed is not None
    rng = np.random.RandomState(seed + 1)
    Xt = rng.normal(size=(n_rows, 4))
    Xt[rng.rand(n_rows) < 0.2, 1] = np.nan
    # on each row a threshold of the trees exactly (x <= t goes left)
    internal = np.flatnonzero(trees[0].children_left != -1)
    for i in range(0, n_rows, 4):
        node = internal[i % internal.size]
        Xt[i, trees[0].feature[node]] = trees[0].threshold[node]
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        got = packed.add_predictions(Xt, np.zeros((n_rows, 2)))
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(got, _one_at_a_time(trees, Xt))


@pytest.mark.parametrize("on_pool", [False, True])
def test_packed_forest_places_each_tree_after_the_ones_before(monkeypatch, on_pool):
    """Serial or on the engine's pool (each tree writes its own nodes), the packed arrays
    are the trees' lane arrays end to end, children shifted by the tree's first node."""
    monkeypatch.setattr(packed_forest, "PACK_PARALLEL_NODES", 0 if on_pool else 10**12)
    X, y = _data(3)
    trees = [
        DecisionTreeClassifier(max_features=2, random_state=k).fit(X, y).tree_ for k in range(7)
    ]
    # a tree of one leaf reads no feature; one that splits only on feature 0
    trees.insert(2, DecisionTreeClassifier(min_impurity_decrease=1.0).fit(X, y).tree_)
    trees.append(DecisionTreeClassifier(max_depth=2).fit(X[:, :1], y).tree_)
    before = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    try:
        packed = PackedForest.of(trees)
    finally:
        numba.set_num_threads(before)
    each = [t.lane_arrays() for t in trees]
    roots = np.cumsum([0] + [t.node_count for t in trees[:-1]])
    np.testing.assert_array_equal(packed.roots, roots)
    want_left = np.concatenate(
        [np.where(la.left >= 0, la.left + r, -1) for la, r in zip(each, roots)]
    )
    np.testing.assert_array_equal(packed.lanes.left, want_left)
    np.testing.assert_array_equal(packed.lanes.split, np.concatenate([la.split for la in each]))
    np.testing.assert_array_equal(
        packed.lanes.threshold, np.concatenate([la.threshold for la in each])
    )
    np.testing.assert_array_equal(packed.value, np.concatenate([t.value for t in trees]))
    features = np.concatenate([t.feature[t.children_left != -1] for t in trees])
    assert packed.n_features_used == features.max() + 1
    assert PackedForest.of(trees[2:3]).n_features_used == 0
    assert PackedForest.of(trees[-1:]).n_features_used == 1
    np.testing.assert_array_equal(
        packed.add_predictions(X, np.zeros((400, 2))), _one_at_a_time(trees, X)
    )


def test_packed_forest_none_for_a_categorical_split_on_the_pool(monkeypatch):
    monkeypatch.setattr(packed_forest, "PACK_PARALLEL_NODES", 0)
    rng = np.random.RandomState(0)
    X = np.c_[rng.randint(0, 6, 500), rng.normal(size=500)]
    y = np.isin(X[:, 0], [1, 4]).astype(int)
    numeric = [
        DecisionTreeClassifier(max_depth=3, random_state=k).fit(X[:, 1:], y).tree_ for k in range(5)
    ]
    categorical = DecisionTreeClassifier(categorical_features=[0]).fit(X, y).tree_
    assert PackedForest.of(numeric + [categorical] + numeric) is None


def test_packed_forest_adds_to_what_out_holds_and_reads_several_outputs():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(5000, 3))
    Y = np.c_[X[:, 0] + rng.normal(size=5000), X[:, 1] * X[:, 2]]
    trees = [DecisionTreeRegressor(max_depth=10, random_state=k).fit(X, Y).tree_ for k in range(5)]
    packed = PackedForest.of(trees)
    start = rng.normal(size=(5000, 2))
    got = packed.add_predictions(X, start.copy())
    want = start.copy()
    for tree in trees:
        want += tree.predict(X)
    np.testing.assert_array_equal(got, want)


def test_packed_forest_none_for_a_categorical_split():
    rng = np.random.RandomState(0)
    X = np.c_[rng.randint(0, 6, 500), rng.normal(size=500)]
    y = np.isin(X[:, 0], [1, 4]).astype(int)
    numeric = DecisionTreeClassifier(max_depth=3).fit(X[:, 1:], y).tree_
    categorical = DecisionTreeClassifier(categorical_features=[0]).fit(X, y).tree_
    assert categorical.is_categorical.any()
    assert PackedForest.of([numeric, categorical]) is None
    assert PackedForest.of([]) is None


def test_packed_forest_checks_what_its_kernel_indexes():
    X, y = _data(0)
    packed = PackedForest.of([DecisionTreeClassifier(random_state=0).fit(X, y).tree_])
    with pytest.raises(ValueError, match="at least 4 columns"):
        packed.add_predictions(X[:, :2], np.zeros((400, 2)))
    with pytest.raises(ValueError, match="out must be"):
        packed.add_predictions(X, np.zeros((400, 3)))
    with pytest.raises(ValueError, match="out must be"):
        packed.add_predictions(X, np.zeros((400, 2), np.float32))
    with pytest.raises(ValueError, match="one width"):
        PackedForest.of(
            [
                DecisionTreeClassifier().fit(X, y).tree_,
                DecisionTreeRegressor().fit(X, y.astype(float)).tree_,
            ]
        )


@pytest.mark.parametrize("n_samples", [0, 1, 100, 10_000, 1_000_000])
@pytest.mark.parametrize("n_features", [1, 40, 5000])
@pytest.mark.parametrize("threads", [1, 2, 16, 64])
def test_forest_block_rows(n_samples, n_features, threads):
    rows = forest_block_rows(n_samples, n_features, threads)
    assert rows % 8 == 0 and 64 <= rows <= FOREST_BLOCK_MAX_ROWS
    blocks = -(-n_samples // rows)
    # enough blocks for every thread where the rows allow, else blocks of 64 rows at least
    assert blocks >= min(4 * threads, -(-n_samples // 64))
    if n_samples >= 4 * threads * FOREST_BLOCK_MAX_ROWS:
        assert rows >= FOREST_BLOCK_MIN_ROWS


def test_forests_predict_the_sum_of_their_trees_in_order():
    """The forests' prediction (the packed walk) is the trees' mean, bit for bit as one
    tree after another adds them, and does not depend on n_jobs."""
    X, y = _data(3, n=3000)
    rf = RandomForestClassifier(n_estimators=12, random_state=0).fit(X, y)
    want = _one_at_a_time([e.tree_ for e in rf.estimators_], X) / 12
    np.testing.assert_array_equal(rf.predict_proba(X), want)
    rf.set_params(n_jobs=2)
    np.testing.assert_array_equal(rf.predict_proba(X), want)
    et = ExtraTreesRegressor(n_estimators=7, random_state=0).fit(X, y.astype(float))
    want = _one_at_a_time([e.tree_ for e in et.estimators_], X)[:, 0] / 7
    np.testing.assert_array_equal(et.predict(X), want)


def test_forest_packs_again_after_a_warm_start():
    X, y = _data(4, n=2000)
    rf = RandomForestClassifier(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    rf.predict_proba(X)
    rf.set_params(n_estimators=6).fit(X, y)
    want = _one_at_a_time([e.tree_ for e in rf.estimators_], X) / 6
    np.testing.assert_array_equal(rf.predict_proba(X), want)


def test_forest_packing_is_keyed_on_the_trees_and_dropped_with_the_forest():
    import gc
    import weakref

    from treeboost.ensembles import forest as forest_module

    X, y = _data(5, n=1500)
    a = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    b = RandomForestClassifier(n_estimators=3, random_state=1, max_depth=3).fit(X, y)
    a.predict_proba(X)
    first_a = weakref.ref(a.estimators_[0])
    packed_a = a._packed_forest(a.estimators_)
    assert packed_a is not None
    a.predict_proba(X)  # kept between predictions
    assert a._packed_forest(a.estimators_) is packed_a
    # the other forest's trees, as many of them: the kept packing must not answer for them
    a.estimators_ = b.estimators_
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert a._packed_forest(a.estimators_) is not packed_a
    # kept beside the forest, not in it, and not keeping it alive
    assert "_packed" not in vars(a)
    gone = weakref.ref(a)
    del a
    gc.collect()
    assert gone() is None
    assert first_a() is None  # its packing held the trees' arrays, not the members
    assert b.estimators_[0] in forest_module._PACKED
