"""The grower's workspace: reusing it, and regrowing a tree that outgrows it, changes
nothing in the trees."""

import numpy as np
import pytest

import treeboost.engine.grow.grower as grower_module
from treeboost import DecisionTreeClassifier, DecisionTreeRegressor


def _same_tree(a, b):
    assert a.node_count == b.node_count
    for name in a._arrays:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.parametrize("Tree", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_a_tree_that_outgrows_the_first_capacity_is_regrown_whole(Tree, monkeypatch):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(600, 4))
    y = rng.randint(0, 2, 600)  # noise: the full tree has hundreds of nodes
    big = Tree(random_state=0).fit(X, y)
    assert big.tree_.node_count > 100
    monkeypatch.setattr(grower_module, "_FIRST_CAPACITY", 3)
    small = Tree(random_state=0).fit(X, y)
    _same_tree(big.tree_, small.tree_)


def test_a_reused_workspace_grows_the_same_trees_as_fresh_ones():
    """A workspace shared by trees of different sizes is reset between them."""
    rng = np.random.RandomState(1)
    X = rng.normal(size=(800, 5))
    y = (X[:, 0] + rng.normal(size=800) > 0).astype(int)
    ws = grower_module.GrowerWorkspace()
    shallow = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    deep = DecisionTreeClassifier(random_state=0).fit(X, y)
    for est in (deep, shallow, deep):
        g = est._grower(X.shape[0], float(X.shape[0]), 0, parallel=False)
        stats = est._stats(np.searchsorted(est.classes_, y), np.ones(X.shape[0]))
        Xb = est.bin_mapper_.transform(est._encoder.transform(X))
        tree, _ = g.grow(Xb, stats, None, None, ws)
        fresh, _ = g.grow(Xb, stats, None, None, None)
        _same_tree(tree, fresh)


@pytest.mark.parametrize("kind", ["classes", "regression"])
@pytest.mark.parametrize("max_features", [None, 2])
def test_statistics_derived_in_the_kernel_equal_the_materialised_rows(kind, max_features):
    """SampleStatistics.classes / .regression grow exactly the tree the same rows, given
    as an array, grow (the kernels derive the rows where they read them)."""
    from treeboost.engine.binning.mapper import BinMapper
    from treeboost.engine.split.criteria import GINI, SQUARED_ERROR
    from treeboost.engine.statistics.samples import SampleStatistics

    rng = np.random.RandomState(3)
    n = 700
    X = rng.normal(size=(n, 5))
    w = rng.randint(0, 4, n).astype(float) * rng.uniform(0.5, 2.0, n)  # zeros included
    if kind == "classes":
        y = rng.randint(0, 3, n)
        derived = SampleStatistics.classes(y, w, 3)
        crit, n_stats = GINI, 3
    else:
        y = X[:, 0] * 3 + rng.normal(size=n)
        derived = SampleStatistics.regression(y, w)
        crit, n_stats = SQUARED_ERROR, 2
    stats, sq = derived.materialize()
    # the materialised rows are the documented ones
    assert stats.shape == (n, n_stats + 1)
    np.testing.assert_array_equal(stats[:, -1], w > 0)
    np.testing.assert_array_equal(
        stats[:, :-1].sum(axis=1) if kind == "classes" else stats[:, 0], w
    )
    bm = BinMapper(255, np.zeros(5, bool)).fit(X)
    Xb = bm.transform(X)
    rows = np.flatnonzero(w > 0)
    grower = grower_module.TreeGrower(
        bm, crit, n_stats, max_features=max_features, random_state=0, parallel=False
    )
    a, _ = grower.grow(Xb, derived, None, rows)
    b, _ = grower.grow(Xb, stats, sq, rows)
    assert a.node_count > 10
    _same_tree(a, b)
    with pytest.raises(TypeError, match="sq"):
        grower.grow(Xb, derived, np.zeros(n), rows)
    with pytest.raises(ValueError, match="samples"):
        grower.grow(Xb[:, :10], derived, None, rows[rows < 10])
