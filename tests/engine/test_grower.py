"""The grower's execution paths grow the same tree: dense histograms built or subtracted,
compressed histograms gathered, and the serial and parallel growers.

The statistics are small integers, so that every order of summation gives the same bits
and the trees must be equal to the last bit.
"""

import numpy as np
import pytest

import treeboost.engine.grow.grower as grower_module
from treeboost.engine.binning.mapper import BinMapper
from treeboost.engine.split.criteria import ENTROPY, GINI, NEWTON, SQUARED_ERROR
from treeboost.engine.grow.grower import StoppingRules, TreeGrower
from treeboost.engine.statistics.samples import SampleStatistics


def _same_tree(a, b):
    assert a.node_count == b.node_count
    for name in a._arrays:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def _problem(criterion, n, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 40, (n, 4)).astype(float)
    X[rng.rand(n) < 0.05, 1] = np.nan
    X[:, 3] = rng.randint(0, 6, n)  # categorical
    signal = X[:, 0] + 3 * (X[:, 3] % 2) + rng.randint(0, 20, n)
    w = rng.randint(1, 4, n).astype(float)
    bm = BinMapper(255, np.array([False, False, False, True])).fit(X)
    Xb = bm.transform(X)
    if criterion in (GINI, ENTROPY):
        stats, n_stats = SampleStatistics.classes((signal > 30).astype(int), w, 2), 2
    elif criterion == SQUARED_ERROR:
        stats, n_stats = SampleStatistics.regression(np.floor(signal), w), 2
    else:
        g = rng.randint(-3, 4, n).astype(float) + (signal > 30)
        h = rng.randint(1, 3, n).astype(float)
        stats, n_stats = np.column_stack([g, h, np.ones(n)]), 2
    return bm, Xb, stats, n_stats


@pytest.mark.parametrize("criterion", [GINI, ENTROPY, SQUARED_ERROR, NEWTON])
@pytest.mark.parametrize("max_leaf_nodes", [None, 12])
def test_histogram_modes_grow_the_same_tree(criterion, max_leaf_nodes):
    """dense_min_samples=1: every node builds or subtracts a dense histogram;
    n + 1: every node gathers a compressed one; the default mixes both.

    Boosting's dense scan estimates a child's sample count from its hessian (as
    LightGBM does) where a gathered histogram counts the samples, so for it the modes
    agree when ``min_samples_leaf`` does not bind."""
    bm, Xb, stats, n_stats = _problem(criterion, 3000)
    min_leaf = 0 if criterion == NEWTON else 3
    trees = []
    for dense_min in (1, None, 3001):
        rules = StoppingRules(max_depth=8, max_leaf_nodes=max_leaf_nodes, min_samples_leaf=min_leaf)
        g = TreeGrower(bm, criterion, n_stats, rules, parallel=False, dense_min_samples=dense_min)
        trees.append(g.grow(Xb, stats)[0])
    assert trees[0].node_count > 15
    _same_tree(trees[0], trees[1])
    _same_tree(trees[0], trees[2])


@pytest.mark.parametrize("criterion", [GINI, SQUARED_ERROR, NEWTON])
def test_parallel_and_serial_growers_grow_the_same_tree(criterion, monkeypatch):
    """25k rows: large nodes evaluate their features in parallel (when numba has more
    than one thread), each thread's share of boosting's features built two a pass
    where both are numeric (feature 3 is categorical)."""
    bm, Xb, stats, n_stats = _problem(criterion, 25_000, seed=1)
    serial = TreeGrower(bm, criterion, n_stats, StoppingRules(max_depth=10), parallel=False)
    parallel = TreeGrower(bm, criterion, n_stats, StoppingRules(max_depth=10), parallel=True)
    monkeypatch.setattr(grower_module, "PARALLEL_GROWER_MIN_WORK", 0)
    a, leaves_a = serial.grow(Xb, stats)
    b, leaves_b = parallel.grow(Xb, stats)
    _same_tree(a, b)
    np.testing.assert_array_equal(leaves_a.leaf_of_sample, leaves_b.leaf_of_sample)


def test_feature_sampling_reuses_no_histogram_and_matches_a_fresh_workspace():
    bm, Xb, stats, n_stats = _problem(GINI, 2000, seed=2)
    g = TreeGrower(bm, GINI, n_stats, max_features=2, random_state=5, parallel=False)
    ws = grower_module.GrowerWorkspace()
    first = g.grow(Xb, stats, workspace=ws)[0]
    again = g.grow(Xb, stats, workspace=ws)[0]
    fresh = g.grow(Xb, stats)[0]
    _same_tree(first, again)
    _same_tree(first, fresh)


def test_leaf_of_sample_matches_apply():
    bm, Xb, stats, n_stats = _problem(GINI, 2000, seed=3)
    rows = np.arange(0, 2000, 2)
    tree, leaf = TreeGrower(bm, GINI, n_stats, StoppingRules(max_depth=6), parallel=False).grow(
        Xb, stats, sample_indices=rows
    )
    np.testing.assert_array_equal(leaf[rows], tree.apply_binned(Xb, bm.missing_values_code_)[rows])
    assert (leaf[1::2] == -1).all()


def test_an_outgrown_workspace_is_made_with_room_for_the_next_trees():
    from treeboost.engine.grow.workspace import _CAPACITY_HEADROOM, GrowerWorkspace

    ws = GrowerWorkspace(min_rows=100)
    dims = (100, 40, 3, 256, 1, False, False)
    first = ws.get(dims[0], 1000, *dims[1:])
    assert ws.capacity == 1000 and ws.get(dims[0], 990, *dims[1:]) is first
    grown = ws.get(dims[0], 1001, *dims[1:])
    assert grown is not first and ws.capacity == 1001 + 1001 // _CAPACITY_HEADROOM
    # a tree that asks a little more than the last one does not reallocate
    assert ws.get(dims[0], 1001 + 1001 // _CAPACITY_HEADROOM, *dims[1:]) is grown
