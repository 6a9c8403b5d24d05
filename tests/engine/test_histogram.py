"""Histogram kernels against numpy references: build, subtract, compress, and the two
gathers (bitmap for 8-bit codes, sorting for wider ones) give the same compressed
histogram; the orders they sort with equal numpy's stable argsort."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from treeboost.engine.split.histogram import (
    build_histogram,
    build_histogram_pair,
    compress_histogram,
    gather_bitmap,
    gather_sorted,
    insertion_order,
    subtract_histogram,
    _radix_order,
)
from treeboost.engine.records import Scratch
from treeboost.engine.split.search import make_scratch


def _node(seed, n_rows, n_codes, missing_code):
    rng = np.random.RandomState(seed)
    dtype = np.uint8 if missing_code < 256 else np.uint16 if missing_code < 65536 else np.uint32
    col = rng.randint(0, n_codes, n_rows).astype(dtype)
    col[rng.rand(n_rows) < 0.1] = missing_code
    idx = rng.permutation(n_rows).astype(np.int32)
    start, end = 3, n_rows - 2
    # integer statistics: every summation order gives the same bits; the last column
    # counts the sample (a gather sees the codes present, a dense histogram the counts)
    ostats = rng.randint(0, 4, (end - start, 3)).astype(float)
    ostats[:, 2] = 1.0
    return col, idx, start, end, ostats


def _reference(col, idx, start, end, ostats, n_hist_bins):
    hist = np.zeros((n_hist_bins, ostats.shape[1]))
    np.add.at(hist, col[idx[start:end]], ostats)
    return hist


@pytest.mark.parametrize("missing_code", [40, 255, 600])
def test_build_and_subtract_equal_the_reference(missing_code):
    col, idx, start, end, ostats = _node(0, 300, min(missing_code, 50), missing_code)
    hist = np.empty((missing_code + 1, 3))
    build_histogram(hist, col, idx, start, end, ostats, True)
    ref = _reference(col, idx, start, end, ostats, missing_code + 1)
    np.testing.assert_array_equal(hist, ref)
    # without the count column (boosting) only the last column stays 0
    build_histogram(hist, col, idx, start, end, ostats, False)
    np.testing.assert_array_equal(hist[:, :2], ref[:, :2])
    assert not hist[:, 2].any()
    child = _reference(col, idx, start, start + 100, ostats[:100], missing_code + 1)
    parent = ref.copy()
    subtract_histogram(parent, child)
    np.testing.assert_array_equal(parent, ref - child)


@pytest.mark.parametrize("n_rows", [5, 7, 301, 1000])
def test_boosting_build_adds_in_the_samples_order(n_rows):
    """Float statistics, whose sums depend on their order: the boosting build (no count
    column, each sample's (g, h) as one two-lane addition) gives the bits of adding the
    node's samples one at a time (np.add.at adds in index order), whatever the length
    of its unrolled tail."""
    rng = np.random.RandomState(n_rows)
    col = rng.randint(0, 6, n_rows + 9).astype(np.uint8)  # few bins: many repeats
    idx = rng.permutation(n_rows + 9).astype(np.int32)
    start, end = 4, 4 + n_rows
    ostats = rng.standard_normal((n_rows, 3)) * 10.0 ** rng.randint(-8, 8, (n_rows, 1))
    hist = np.full((7, 3), np.nan)
    build_histogram(hist, col, idx, start, end, ostats, False)
    ref = np.zeros((7, 2))
    np.add.at(ref, col[idx[start:end]], ostats[:, :2])
    np.testing.assert_array_equal(hist[:, :2], ref)
    assert not hist[:, 2].any()


@pytest.mark.parametrize("n_rows", [1, 6, 301])
def test_pair_build_equals_two_builds(n_rows):
    """Two features' boosting histograms in one pass: the bits of each feature's own
    build (float statistics, so a changed order of additions would show)."""
    rng = np.random.RandomState(n_rows)
    cols = rng.randint(0, 9, (2, n_rows + 5)).astype(np.uint8)
    idx = rng.permutation(n_rows + 5).astype(np.int32)
    start, end = 2, 2 + n_rows
    ostats = rng.standard_normal((n_rows, 3)) * 10.0 ** rng.randint(-8, 8, (n_rows, 1))
    pair = np.full((2, 10, 3), np.nan)
    build_histogram_pair(pair[0], pair[1], cols[0], cols[1], idx, start, end, ostats)
    for f in range(2):
        one = np.full((10, 3), np.nan)
        build_histogram(one, cols[f], idx, start, end, ostats, False)
        np.testing.assert_array_equal(pair[f], one)


def test_add_pair_adds_two_adjacent_values():
    from numba import njit
    from treeboost.engine._numba.pairs import add_pair

    @njit
    def run(dst, a, src, b):
        add_pair(dst, a, src, b)

    dst = np.arange(7.0)
    src = np.array([0.5, -1.25, 3.0, 1e-17, 8.0])
    run(dst, 3, src, 2)  # odd offsets: a pair need not be 16-byte aligned
    np.testing.assert_array_equal(dst, [0.0, 1.0, 2.0, 6.0, 4.0 + 1e-17, 5.0, 6.0])


@pytest.mark.parametrize("missing_code", [40, 255, 600, 70_000])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gathers_equal_the_compressed_dense_histogram(missing_code, seed):
    n_codes = min(missing_code, 90) if missing_code < 65536 else missing_code - 1
    col, idx, start, end, ostats = _node(seed, 400, n_codes, missing_code)
    n_hist = missing_code + 1
    hist = _reference(col, idx, start, end, ostats, n_hist)
    width = max(400, n_hist) + 1
    codes, cstats, miss = np.empty(width, np.int64), np.empty((width, 3)), np.empty(3)
    m = compress_histogram(hist, n_codes, missing_code, 2, codes, cstats, miss)
    scratch = Scratch(*(a[0] for a in make_scratch(1, 400, n_hist, 3)))
    codes2, cstats2, miss2 = np.empty(width, np.int64), np.empty((width, 3)), np.empty(3)
    if missing_code < 256:
        m2 = gather_bitmap(
            col,
            idx,
            start,
            end,
            ostats,
            missing_code,
            scratch.sparse_hist,
            scratch.bits,
            scratch.rank,
            codes2,
            cstats2,
            miss2,
        )
        # the bitmap gather leaves its scratch as it found it: all zeros
        assert not scratch.sparse_hist.any() and not scratch.bits.any()
    else:
        m2 = gather_sorted(
            col, idx, start, end, ostats, missing_code, scratch, codes2, cstats2, miss2
        )
    assert m2 == m
    np.testing.assert_array_equal(codes2[:m], codes[:m])
    np.testing.assert_array_equal(cstats2[:m], cstats[:m])
    np.testing.assert_array_equal(miss2, miss)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 2**20), min_size=0, max_size=300)
    | st.lists(st.integers(0, 255), min_size=0, max_size=300)
)
def test_radix_order_is_the_stable_argsort(values):
    """One to three byte passes (exact binning's codes can exceed 16 bits)."""
    keys = np.array(values, np.int64)
    n = keys.shape[0]
    order, tmp = np.empty(n + 1, np.int64), np.empty(n + 1, np.int64)
    _radix_order(keys, n, order, tmp, np.empty(257, np.int64))
    np.testing.assert_array_equal(order[:n], np.argsort(keys, kind="stable"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.integers(-3, 3).map(float), st.just(np.nan)), max_size=40))
def test_insertion_order_is_the_stable_argsort_with_nan_last(values):
    keys = np.array(values, float)
    order = np.empty(len(values) + 1, np.int64)
    insertion_order(keys, len(values), order)
    np.testing.assert_array_equal(order[: len(values)], np.argsort(keys, kind="stable"))


@pytest.mark.parametrize("n_rows", [500, 100])
@pytest.mark.parametrize("n_cols", [3, 4])
@pytest.mark.parametrize("with_missing", [True, False])
def test_bitmap_gather_with_and_without_missing_values(n_cols, with_missing, n_rows):
    # the unrolled three-column path and the general one; a node whose codes span all
    # four words of the set, with the missing code (the largest, emitted last) or not
    rng = np.random.RandomState(7)
    # (500 rows: three columns mark the bins they touch, 100: the bit set)
    missing_code = 255
    col = rng.randint(0, 255, n_rows).astype(np.uint8)
    if with_missing:
        col[rng.rand(n_rows) < 0.1] = missing_code
    idx = rng.permutation(n_rows).astype(np.int32)
    start, end = 3, n_rows - 2
    ostats = rng.randint(0, 4, (end - start, n_cols)).astype(float)
    hist = _reference(col, idx, start, end, ostats, missing_code + 1)
    present = np.flatnonzero(np.bincount(col[idx[start:end]], minlength=256)[:missing_code])
    sparse_hist, bits = np.zeros((256, n_cols)), np.zeros(4, np.uint64)
    codes, cstats, miss = np.empty(257, np.int64), np.empty((257, n_cols)), np.full(n_cols, 9.0)
    touched = np.full(257, 5, np.int64)  # any values on entry
    m = gather_bitmap(
        col, idx, start, end, ostats, missing_code, sparse_hist, bits, touched, codes, cstats, miss
    )
    assert m == present.size
    np.testing.assert_array_equal(codes[:m], present)
    np.testing.assert_array_equal(cstats[:m], hist[present])
    np.testing.assert_array_equal(miss, hist[missing_code])
    assert not sparse_hist.any() and not bits.any()


def test_trailing_zeros_of_every_bit():
    from numba import njit
    from treeboost.engine.split.histogram import _ctz

    @njit
    def ctz(x):
        return _ctz(x)

    for k in range(64):
        low = 1 << k
        for high in (0, ~((low << 1) - 1) & (2**64 - 1), (2**64 - 1) & ~(low - 1)):
            assert ctz(np.uint64(low | high)) == k


# -- boosting's large nodes by blocks of rows (build_histograms_blocked) -----------------


def _blocked_node(seed, n_blocks, n_features=5, missing_code=40):
    from treeboost.engine.split.histogram import HIST_BLOCK_ROWS

    rng = np.random.RandomState(seed)
    n_rows = n_blocks * HIST_BLOCK_ROWS + 123
    codes_T = rng.randint(0, missing_code + 1, (n_features, n_rows)).astype(np.uint8)
    idx = rng.permutation(n_rows).astype(np.int32)
    start, end = 50, n_rows - 7
    # real-valued statistics: the sums' order shows in their last bits
    ostats = rng.normal(size=(end - start, 3))
    ostats[:, 2] = rng.randint(1, 3, end - start)
    is_cat = np.zeros(n_features, np.bool_)
    is_cat[1] = True
    return codes_T, idx, start, end, ostats, is_cat


@pytest.mark.parametrize("n_blocks", [2, 3])
def test_blocked_histograms_are_the_block_sums_in_block_order(n_blocks):
    from treeboost.engine.split.histogram import (
        build_histograms_blocked,
        build_histograms_blocked_parallel,
    )

    codes_T, idx, start, end, ostats, is_cat = _blocked_node(n_blocks, n_blocks)
    n_features, n_hist_bins = codes_T.shape[0], 41
    feats = np.array([4, 1, 0, 3], np.int64)  # a subset, out of order (feature 2 left out)
    n = end - start
    size = -(-n // n_blocks)
    # numpy's reference: each block summed row by row (np.add.at is unbuffered, in
    # order), then the blocks added in order; a numeric feature gets no count column
    want = np.zeros((n_features, n_hist_bins, 3))
    for f in feats:
        for b in range(n_blocks):
            lo, hi = b * size, min(n, (b + 1) * size)
            part = np.zeros((n_hist_bins, 3))
            np.add.at(part, codes_T[f, idx[start + lo : start + hi]], ostats[lo:hi])
            if not is_cat[f]:
                part[:, 2] = 0.0
            want[f] = part if b == 0 else want[f] + part
    for build in (build_histograms_blocked, build_histograms_blocked_parallel):
        hist = np.full((n_features, n_hist_bins, 3), 7.0)
        partials = np.full((n_blocks, n_features, n_hist_bins, 3), np.nan)
        build(feats, hist, partials, n_blocks, codes_T, is_cat, idx, start, end, ostats)
        np.testing.assert_array_equal(hist[feats], want[feats])
        assert (hist[2] == 7.0).all()  # a feature not asked for is left alone
    # and the whole node's sums, to rounding
    ref = _reference(codes_T[1], idx, start, end, ostats, n_hist_bins)
    np.testing.assert_allclose(hist[1], ref, rtol=1e-9, atol=1e-9)


def test_a_node_is_blocked_by_its_rows_never_by_the_threads():
    from treeboost.engine.split.histogram import (
        HIST_BLOCK_ROWS,
        HIST_MAX_BLOCKS,
        max_hist_blocks,
    )

    assert max_hist_blocks(40, 256, 3) == HIST_MAX_BLOCKS
    assert max_hist_blocks(5000, 256, 3) == 1  # wide data: no blocks (no partials' memory)
    assert 2 <= max_hist_blocks(300, 256, 3) < HIST_MAX_BLOCKS
    partials = np.empty((HIST_MAX_BLOCKS, 1, 1, 3))
    from treeboost.engine.split.histogram import hist_blocks

    blocks = [
        hist_blocks.py_func(n, partials) for n in (HIST_BLOCK_ROWS - 1, 2 * HIST_BLOCK_ROWS, 10**8)
    ]
    assert blocks == [0, 2, HIST_MAX_BLOCKS]
