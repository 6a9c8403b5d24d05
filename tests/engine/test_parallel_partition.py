"""The parallel partition puts a node's samples in the serial partition's order, whatever
the number of shares, gathers the smaller child's statistics on the way, and the
parallel grower that uses it grows the serial grower's trees."""

import numpy as np
import pytest

from treeboost.engine.split.criteria import GINI, NEWTON
from treeboost.engine.grow.examine import GATHER_ROWS_PER_THREAD, gather_chunks
from treeboost.engine.grow.grower import StoppingRules, TreeGrower
from treeboost.engine.grow.leaf_ranges import COPY_PARALLEL_MIN_SAMPLES, copied_ids
from treeboost.engine.grow.partition import (
    PARALLEL_PARTITION_ROWS,
    BinnedSplit,
    partition_parallel,
    partition_serial,
)
from treeboost.engine.statistics.samples import SampleStatistics, gather_rows

from .test_grower import _problem, _same_tree


def _split(kind, missing_go_left, threshold=100):
    cats = np.zeros((2, 4), np.uint64)
    for c in (1, 5, 70, 200):
        cats[1, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    if kind == "numeric":
        return BinnedSplit(255, missing_go_left, False, cats, 0, threshold)
    return BinnedSplit(255, missing_go_left, True, cats, 1, 0)


@pytest.mark.parametrize("kind", ["numeric", "categorical"])
@pytest.mark.parametrize("missing_go_left", [False, True])
@pytest.mark.parametrize("n_chunks", [1, 2, 3, 7, 16])
def test_parallel_partition_is_the_serial_one(kind, missing_go_left, n_chunks):
    rng = np.random.RandomState(n_chunks)
    n = 1000
    col = rng.choice([1, 5, 70, 99, 100, 101, 200, 254, 255], n).astype(np.uint8)
    idx = rng.permutation(n).astype(np.int32)
    stats = rng.normal(size=(n, 3))
    src = SampleStatistics.given(stats).arrays
    s0, e0 = 17, 901
    split = _split(kind, missing_go_left)
    want = idx.copy()
    n_left = partition_serial(want, s0, e0, col, split, np.empty(n, np.int32))
    buf = np.full(n, -1, np.int32)
    ostats = np.full((n, 3), np.nan)
    got = partition_parallel(idx, s0, e0, col, split, buf, n_chunks, ostats, src, np.bool_(True))
    assert got == n_left
    np.testing.assert_array_equal(idx, want)  # the node in order, the rest untouched
    # the child with fewer rows had its statistics gathered
    m = e0 - s0
    lo, k = (s0, n_left) if n_left <= m - n_left else (s0 + n_left, m - n_left)
    expected = np.empty((k, 3))
    gather_rows(expected, src, want, lo, k)
    np.testing.assert_array_equal(ostats[:k], expected)
    assert np.isnan(ostats[k:]).all()


@pytest.mark.parametrize("threshold", [-1, 100, 254])
def test_one_sided_and_tied_partitions(threshold):
    # every sample left, none, and a tie (the left child is then the one gathered)
    n = 64
    col = np.repeat(np.array([50, 200], np.uint8), n // 2)
    if threshold == -1:
        col[:] = 200
        threshold = 100
    idx = np.arange(n, dtype=np.int32)[::-1].copy()
    stats = np.arange(3 * n, dtype=float).reshape(n, 3)
    src = SampleStatistics.given(stats).arrays
    split = _split("numeric", False, threshold)
    want = idx.copy()
    n_left = partition_serial(want, 0, n, col, split, np.empty(n, np.int32))
    ostats = np.zeros((n, 3))
    got = partition_parallel(
        idx, 0, n, col, split, np.empty(n, np.int32), 5, ostats, src, np.bool_(True)
    )
    assert got == n_left
    np.testing.assert_array_equal(idx, want)
    small = n_left if n_left <= n - n_left else n - n_left
    at = 0 if n_left <= n - n_left else n_left
    np.testing.assert_array_equal(ostats[:small], stats[want[at : at + small]])


@pytest.mark.parametrize("criterion", [GINI, NEWTON])
@pytest.mark.parametrize("max_depth", [None, 3])
def test_the_parallel_grower_on_many_shares_grows_the_serial_trees(
    criterion, max_depth, monkeypatch
):
    """Nodes of several times PARALLEL_PARTITION_ROWS rows are partitioned in shares
    (as many as the threads the grower is told it has, here more than numba's) and
    their smaller child's statistics gathered there; best-first and depth-first."""
    n = 6 * PARALLEL_PARTITION_ROWS
    bm, Xb, stats, n_stats = _problem(criterion, n, seed=3)
    serial_trees, parallel_trees = [], []
    for max_leaf_nodes in (None, 8):
        rules = StoppingRules(max_depth=max_depth or 12, max_leaf_nodes=max_leaf_nodes)
        serial = TreeGrower(bm, criterion, n_stats, rules, parallel=False)
        serial_trees.append(serial.grow(Xb, stats))
    # more threads than its work would take (engine.region_threads gives this tree 7)
    monkeypatch.setattr(TreeGrower, "_n_threads", lambda self, n_rows, n_features: 16)
    for max_leaf_nodes in (None, 8):
        rules = StoppingRules(max_depth=max_depth or 12, max_leaf_nodes=max_leaf_nodes)
        grower = TreeGrower(bm, criterion, n_stats, rules, parallel=True)
        parallel_trees.append(grower.grow(Xb, stats))
    for (a, leaves_a), (b, leaves_b) in zip(serial_trees, parallel_trees):
        assert a.node_count > 7
        _same_tree(a, b)
        np.testing.assert_array_equal(leaves_a.leaf_of_sample, leaves_b.leaf_of_sample)


@pytest.mark.parametrize("n_threads", [1, 3, 16])
def test_copied_ids_is_a_copy(n_threads):
    idx = np.random.RandomState(0).permutation(2 * COPY_PARALLEL_MIN_SAMPLES + 7).astype(np.int32)
    out = copied_ids(idx, n_threads)
    assert out.dtype == idx.dtype and not np.shares_memory(out, idx)
    np.testing.assert_array_equal(out, idx)


@pytest.mark.parametrize(
    "n_rows, n_threads, chunks",
    [
        (0, 16, 1),
        (2 * GATHER_ROWS_PER_THREAD - 1, 16, 1),
        # a node shares its gather by the rows each thread gets, not by its own size
        (2 * GATHER_ROWS_PER_THREAD, 16, 2),
        (5 * GATHER_ROWS_PER_THREAD + 7, 16, 5),
        (16 * GATHER_ROWS_PER_THREAD, 16, 16),
        (10**7, 16, 16),
        (10**7, 2, 2),
        (10**7, 1, 1),
    ],
)
def test_a_gather_is_shared_by_rows_per_thread(n_rows, n_threads, chunks):
    assert gather_chunks(n_rows, n_threads) == chunks
