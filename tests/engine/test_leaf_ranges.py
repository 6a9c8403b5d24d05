"""LeafRanges: a grown tree's leaves as ranges of its partitioned samples."""

import numpy as np
import pytest

from treeboost.engine.criteria import NEWTON
from treeboost.engine import StoppingRules, TreeGrower
from treeboost.engine.tree import add_leaf_values

from .test_grower import _problem


@pytest.mark.parametrize("every, threaded", [(1, False), (3, False), (1, True), (3, True)])
def test_ranges_give_each_row_its_leaf_and_update(every, threaded, monkeypatch):
    if threaded:  # the positions shared among threads, as on a large training set
        import numba
        from treeboost.engine import leaf_ranges

        monkeypatch.setattr(leaf_ranges, "PARALLEL_MIN_SAMPLES", 100)
        monkeypatch.setattr(numba, "get_num_threads", lambda: 4)
    bm, Xb, stats, n_stats = _problem(NEWTON, 3000, seed=4)
    n = Xb.shape[1]
    rows = np.arange(0, n, every)
    tree, leaves = TreeGrower(
        bm, NEWTON, n_stats, StoppingRules(max_leaf_nodes=12), parallel=False
    ).grow(Xb, stats, sample_indices=rows)
    applied = tree.apply_binned(Xb, bm.missing_values_code_)
    expected = np.full(n, -1)
    expected[rows] = applied[rows]
    np.testing.assert_array_equal(leaves.leaf_of_sample, expected)
    np.testing.assert_array_equal(leaves[rows], applied[rows])
    assert tree.children_left[leaves.leaves].max() == -1  # leaves only

    rng = np.random.default_rng(0)
    value = rng.normal(size=tree.node_count)
    raw = rng.normal(size=(n, 2))
    by_array = raw.copy()
    seen = np.zeros(n, bool)
    seen[rows] = True
    # the rows the tree saw move by their leaf's value, the others do not
    add_leaf_values(by_array, 1, value, np.where(seen, applied, 0))
    by_array[~seen, 1] = raw[~seen, 1]
    leaves.add_values(raw, 1, value)
    np.testing.assert_array_equal(raw, by_array)


def test_add_values_refuses_what_it_cannot_index():
    bm, Xb, stats, n_stats = _problem(NEWTON, 500, seed=5)
    tree, leaves = TreeGrower(bm, NEWTON, n_stats, StoppingRules(max_depth=3), parallel=False).grow(
        Xb, stats
    )
    n = Xb.shape[1]
    value = np.zeros(tree.node_count)
    for raw, k, val in [
        (np.zeros((n - 1, 1)), 0, value),
        (np.zeros((n, 1)), 1, value),
        (np.zeros((n, 1)), -1, value),
        (np.zeros((n, 1)), 0, value[:1]),
        (np.zeros((n, 1), np.float32), 0, value),
    ]:
        with pytest.raises(ValueError, match="raw must be"):
            leaves.add_values(raw, k, val)


@pytest.mark.parametrize("max_depth", [None, 1, 2, 7])
def test_lean_counted_tree_gives_each_row_its_leaf(max_depth):
    # two classes with unit weights and random cuts: the lean grower moves the rows from
    # one pair of buffers to the other at each depth (random_tree._partition_counted);
    # the leaves of odd depth bring their samples back to idx
    from sklearn.datasets import make_classification
    from treeboost.engine.binning import BinMapper
    from treeboost.engine.criteria import GINI
    from treeboost.engine.statistics import SampleStatistics

    X, y = make_classification(2000, 6, random_state=3)
    bm = BinMapper(255).fit(X)
    Xb = bm.transform(X)
    stats = SampleStatistics.classes(y, np.ones(len(y)), 2)
    rows = np.arange(0, len(y), 2)
    tree, leaves = TreeGrower(
        bm,
        GINI,
        2,
        StoppingRules(max_depth=max_depth),
        max_features=3,
        splitter="random",
        parallel=False,
        random_state=4,
    ).grow(Xb, stats, sample_indices=rows)
    applied = tree.apply_binned(Xb, bm.missing_values_code_)
    np.testing.assert_array_equal(leaves[rows], applied[rows])
    assert (tree.depth[tree.children_left == -1] % 2 == 1).any() or max_depth == 2
