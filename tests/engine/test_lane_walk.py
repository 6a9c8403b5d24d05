"""The lane walk (engine/predict/eight_rows.py) against a row-by-row walk in Python."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from treeboost import DecisionTreeClassifier, DecisionTreeRegressor
from treeboost.engine.predict import eight_rows as lw
from treeboost.engine.predict.tree import Tree


def _brute_leaf(tree, x):
    node = 0
    while tree.children_left[node] != -1:
        v = x[tree.feature[node]]
        go_left = tree.missing_go_left[node] if np.isnan(v) else v <= tree.threshold[node]
        node = tree.children_left[node] if go_left else tree.children_right[node]
    return node


def _tree(seed, missing_right):
    # NaN in training on both features, so that the splits send it either way
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(300, 3))
    X[rng.rand(300) < 0.2, 0] = np.nan
    X[rng.rand(300) < 0.2, 1] = np.nan
    y = np.where(np.isnan(X[:, 0]), 2.0 if missing_right else -2.0, np.nan_to_num(X[:, 0]))
    y = y + np.nan_to_num(X[:, 1]) + 0.1 * rng.normal(size=300)
    return DecisionTreeRegressor(max_depth=8, random_state=seed).fit(X, y).tree_


_VALUE = st.one_of(st.floats(-3, 3), st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.0]))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 50), st.booleans(), st.integers(0, 41), st.data())
def test_lanes_reach_the_leaves_of_the_row_walk(seed, missing_right, n_rows, data):
    tree = _tree(seed, missing_right)
    lanes = tree.lane_arrays()
    assert lanes is not None
    # values drawn, some set to the tree's own thresholds (x <= t goes left)
    X = np.array(
        data.draw(st.lists(_VALUE, min_size=3 * n_rows, max_size=3 * n_rows)), dtype=np.float64
    ).reshape(n_rows, 3)
    internal = np.flatnonzero(tree.children_left != -1)
    for i in range(0, n_rows, 3):
        node = internal[i % internal.size]
        X[i, tree.feature[node]] = tree.threshold[node]
    want = np.array([_brute_leaf(tree, x) for x in X], dtype=np.int64)
    for walk in (lw.apply_lanes_serial, lw.apply_lanes):
        got = np.full(n_rows, -7, np.int64)
        walk(X, *lanes, got)
        np.testing.assert_array_equal(got, want)
    value = np.ascontiguousarray(tree.value)
    for walk in (lw.accumulate_lanes_serial, lw.accumulate_lanes):
        out = np.ones((n_rows, 1))
        walk(X, *lanes, value, out)
        np.testing.assert_array_equal(out, 1.0 + value[want])


def test_nan_takes_each_split_side():
    # both directions of the missing values occur, and NaN rows reach different leaves
    for missing_right in (False, True):
        tree = _tree(1, missing_right)
        assert tree.missing_go_left[tree.children_left != -1].any()
        assert not tree.missing_go_left[tree.children_left != -1].all()
        X = np.array([[np.nan, 0.0, 0.0], [0.0, np.nan, 0.0], [np.nan, np.nan, 0.0]] * 3)
        want = [_brute_leaf(tree, x) for x in X]
        np.testing.assert_array_equal(tree.apply(X, parallel=False), want)


def test_the_parallel_walks_cover_every_task():
    # more rows than one task, and a last task that ends in fewer rows than LANES
    tree = _tree(3, True)
    rng = np.random.RandomState(0)
    X = rng.normal(size=(3 * 512 + 13, 3))
    X[rng.rand(X.shape[0]) < 0.1, 0] = np.nan
    want = np.array([_brute_leaf(tree, x) for x in X])
    np.testing.assert_array_equal(tree.apply(X), want)
    out = np.zeros((X.shape[0], 1))
    tree.add_predictions(X, out)
    np.testing.assert_array_equal(out[:, 0], tree.value[want, 0])


def _swapped(tree):
    # the same tree with the ids of the root's two children exchanged: the right child
    # (now node 1) no longer follows the left one (now node 2)
    n = tree.node_count
    assert (tree.children_left[0], tree.children_right[0]) == (1, 2)
    order = np.concatenate([[0, 2, 1], np.arange(3, n)])
    new_id = np.empty(n, np.int64)
    new_id[order] = np.arange(n)
    arrays = {}
    for name in Tree._arrays:
        arr = getattr(tree, name)[order]
        if name in ("children_left", "children_right"):
            arr = np.where(arr == -1, -1, new_id[np.maximum(arr, 0)]).astype(np.int32)
        arrays[name] = arr
    swapped = Tree(tree.n_features, tree.n_outputs, **arrays)
    swapped._validate_state()
    return swapped, new_id


def test_a_tree_the_lanes_cannot_take_is_walked_row_by_row():
    tree = _tree(4, True)
    swapped, new_id = _swapped(tree)
    assert swapped.lane_arrays() is None
    X = np.random.RandomState(1).normal(size=(100, 3))
    X[::5, 0] = np.nan
    np.testing.assert_array_equal(swapped.apply(X), new_id[tree.apply(X)])
    out = np.zeros((100, 1))
    swapped.add_predictions(X, out, parallel=False)
    np.testing.assert_array_equal(out, tree.predict(X))


def test_a_categorical_split_has_no_lane_arrays():
    rng = np.random.RandomState(0)
    X = np.column_stack([rng.randint(0, 6, 400), rng.normal(size=400)]).astype(float)
    y = np.isin(X[:, 0], [1, 4]).astype(int)
    est = DecisionTreeClassifier(max_depth=3, categorical_features=[0]).fit(X, y)
    assert est.tree_.is_categorical.any()
    assert est.tree_.lane_arrays() is None
    assert est.score(X, y) == 1.0


def test_the_split_word_holds_feature_and_side():
    tree = _tree(2, True)
    lanes = tree.lane_arrays()
    internal = tree.children_left != -1
    np.testing.assert_array_equal(lanes.split[internal] & 0x7FFFFFFF, tree.feature[internal])
    np.testing.assert_array_equal(
        (lanes.split[internal] >> 31) == 1, ~tree.missing_go_left[internal]
    )
    assert lanes.split.dtype == np.uint32 and lanes.left.dtype == np.int32


@pytest.mark.parametrize(
    "est", [DecisionTreeClassifier(random_state=0), DecisionTreeRegressor(max_depth=6)]
)
def test_every_grown_tree_keeps_its_children_side_by_side(est):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(500, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    assert est.fit(X, y).tree_.lane_arrays() is not None


@pytest.mark.parametrize("categorical", [False, True])
def test_packed_trees_walk_in_lanes_as_row_by_row(categorical):
    from treeboost import GradientBoostingClassifier
    from treeboost.engine.predict.tree import _predict_packed

    rng = np.random.RandomState(0)
    X = rng.normal(size=(700, 4))
    X[rng.rand(700) < 0.15, 1] = np.nan
    X[:, 3] = rng.randint(0, 6, 700)
    y = (np.nan_to_num(X[:, 0]) + np.isnan(X[:, 1]) + np.isin(X[:, 3], [1, 4]) > 1) + (
        X[:, 2] > 0.5
    )
    gb = GradientBoostingClassifier(
        n_estimators=6,
        max_depth=4,
        random_state=0,
        categorical_features=[3] if categorical else None,
    )
    gb.fit(X, y)
    gb.decision_function(X)
    packed = gb._packed[1]
    assert (packed.lanes is None) == categorical
    Xe = gb._encode_X(X, reset=False)
    Xt = np.vstack([Xe, [[np.nan, np.nan, np.inf, -0.0]] * 11])
    want = np.zeros((Xt.shape[0], packed.n_outputs_used))
    _predict_packed(Xt, packed.splits(), packed.value, packed.roots, packed.output, want)
    np.testing.assert_array_equal(packed.predict(Xt, packed.n_outputs_used), want)


def test_serial_and_parallel_copies_of_one_source():
    """engine._numba.jit.serial_and_parallel: one copy without a parallel region, one with,
    told apart by numba's cache key (the closure's loop: range or prange)."""
    from numba import prange

    from treeboost.engine.predict import tree

    pairs = [
        (lw.accumulate_lanes_serial, lw.accumulate_lanes),
        (lw.apply_lanes_serial, lw.apply_lanes),
        (lw.predict_packed_lanes_serial, lw.predict_packed_lanes),
        (lw.accumulate_forest_lanes_serial, lw.accumulate_forest_lanes),
        (tree._apply_raw_serial, tree._apply_raw),
        (tree._accumulate_raw_serial, tree._accumulate_raw),
        (tree._predict_packed_serial, tree._predict_packed),
    ]
    for serial, parallel in pairs:
        assert not serial.targetoptions.get("parallel")
        assert parallel.targetoptions.get("parallel")
        assert serial.py_func.__code__ is parallel.py_func.__code__
        loops = [f.py_func.__closure__[0].cell_contents for f in (serial, parallel)]
        assert loops == [range, prange]
