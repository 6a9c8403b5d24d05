"""LeafRanges: a grown tree's leaves as ranges of its partitioned samples."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treeboost.engine.split.criteria import NEWTON
from treeboost.engine import LeafRanges, StoppingRules, TreeGrower, grouped_weighted_quantile
from treeboost.engine.predict.tree import add_leaf_values

from .test_grower import _problem


@pytest.mark.parametrize("every, threaded", [(1, False), (3, False), (1, True), (3, True)])
def test_ranges_give_each_row_its_leaf_and_update(every, threaded, monkeypatch):
    if threaded:  # the positions shared among threads, as on a large training set
        import numba
        from treeboost.engine.grow import leaf_ranges

        monkeypatch.setattr(leaf_ranges, "COPY_PARALLEL_MIN_SAMPLES", 100)
        monkeypatch.setattr(leaf_ranges, "ADD_PARALLEL_MIN_SAMPLES", 100)
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
    from treeboost.engine.binning.mapper import BinMapper
    from treeboost.engine.split.criteria import GINI
    from treeboost.engine.statistics.samples import SampleStatistics

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


@settings(max_examples=60, deadline=None)
@given(
    n_leaves=st.integers(1, 8),
    n_rows=st.integers(1, 300),
    seed=st.integers(0, 2**31 - 1),
    alpha=st.sampled_from([0.1, 0.5, 0.9]),
    integer_weights=st.booleans(),
)
def test_residual_quantiles_are_the_grouped_quantiles(
    n_leaves, n_rows, seed, alpha, integer_weights
):
    # a tree of n_leaves leaves over a subset of the rows, each leaf's range in
    # ascending row order (as the partition leaves them), some leaves empty
    rng = np.random.default_rng(seed)
    n_samples = n_rows + 5
    rows = np.sort(rng.choice(n_samples, n_rows, replace=False))
    leaf_of_row = rng.integers(0, n_leaves, n_rows)
    nodes = np.sort(rng.choice(3 * n_leaves, n_leaves, replace=False))
    order = np.argsort(leaf_of_row, kind="stable")
    idx = rows[order].astype(np.int32)
    counts = np.bincount(leaf_of_row, minlength=n_leaves)
    end = np.cumsum(counts)
    ranges = LeafRanges(idx, nodes, end - counts, end, n_samples)
    y = rng.normal(size=n_samples).round(1)  # ties too
    raw = rng.normal(size=n_samples)
    w = rng.integers(1, 4, n_samples) * 1.0 if integer_weights else rng.random(n_samples) + 0.1
    got = ranges.residual_quantiles(y, raw, w, alpha, 3 * n_leaves)
    want = grouped_weighted_quantile(
        nodes[leaf_of_row], y[rows] - raw[rows], w[rows], alpha, 3 * n_leaves
    )
    np.testing.assert_array_equal(got, want)
    # and the brute force: the smallest residual whose cumulative weight reaches alpha
    for j in range(n_leaves):
        member = rows[leaf_of_row == j]
        if member.size == 0:
            assert got[nodes[j]] == 0.0
            continue
        r = y[member] - raw[member]
        o = np.argsort(r, kind="stable")
        cum = np.cumsum(w[member][o])
        k = min(np.searchsorted(cum, alpha * cum[-1] * (1 - 1e-12)), r.size - 1)
        assert abs(got[nodes[j]] - r[o][k]) <= 1e-12 or np.isclose(cum[k], alpha * cum[-1])


def test_residual_quantiles_refuse_arrays_that_miss_rows():
    ranges = LeafRanges(np.array([0, 2], np.int32), np.array([1]), np.array([0]), np.array([2]), 3)
    with pytest.raises(ValueError, match="training rows"):
        ranges.residual_quantiles(np.zeros(2), np.zeros(3), np.ones(3), 0.5, 2)
    with pytest.raises(ValueError, match="nodes"):
        ranges.residual_quantiles(np.zeros(3), np.zeros(3), np.ones(3), 0.5, 1)


@settings(max_examples=100, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 10_000), min_size=0, max_size=40),
    n_bins=st.integers(1, 16),
)
def test_leaves_go_to_threads_largest_first(sizes, n_bins):
    # every leaf to one thread, largest first within each; no thread's samples above the
    # mean share plus the largest leaf (any greedy sharing), nor above 4/3 of the best
    # sharing's (Graham's bound for the largest-first rule; brute force on small cases)
    import itertools
    from treeboost.engine.statistics.quantile import largest_first

    sizes = np.array(sizes, np.int64)
    first, order = largest_first(sizes, n_bins)
    assert first[0] == 0 and first[-1] == sizes.size and (np.diff(first) >= 0).all()
    np.testing.assert_array_equal(np.sort(order), np.arange(sizes.size))
    loads = [sizes[order[first[b] : first[b + 1]]].sum() for b in range(n_bins)]
    if not sizes.size:
        return
    assert max(loads) <= sizes.sum() / n_bins + sizes.max()
    for b in range(n_bins):
        part = sizes[order[first[b] : first[b + 1]]]
        assert (np.diff(part) <= 0).all()
    if sizes.size <= 7 and n_bins <= 3:
        best = min(
            max(np.bincount(a, weights=sizes, minlength=n_bins))
            for a in itertools.product(range(n_bins), repeat=sizes.size)
        )
        assert max(loads) <= 4 / 3 * best + 1e-9
