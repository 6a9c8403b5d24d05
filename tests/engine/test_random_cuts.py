"""The random cuts' kernels (engine/split/random_cuts.py) against brute force."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from numba import njit

from treeboost.engine._numba import rows as rc_rows
from treeboost.engine.split import random_cuts as rc


@njit
def _draw_both(centers, n_bins, lo, hi, draws):
    table = np.empty((1, 64), np.int32)
    base = np.empty(1)
    scale = np.empty(1)
    rc.build_cut_tables(centers.reshape(1, -1), n_bins, table, base, scale)
    out = np.empty((draws.shape[0], 2), np.int64)
    for k in range(draws.shape[0]):
        out[k, 0] = rc.draw_cut(centers, lo, hi, draws[k])
        out[k, 1] = rc.draw_cut_from_table(centers, table[0], base[0], scale[0], lo, hi, draws[k])
    return out


def _brute(centers, lo, hi, draw):
    with np.errstate(over="ignore"):  # the width beyond a double: u is inf
        u = _u(centers, lo, hi, draw)
    below = [c for c in range(lo, hi) if centers[c] < u]
    return max(below) if below else lo


def _u(centers, lo, hi, draw):
    return centers[lo] + (draw & ((1 << 53) - 1)) / (1 << 53) * (centers[hi] - centers[lo])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=40), st.data())
def test_the_table_draws_the_binary_search_cut(values, data):
    # sorted centers, some equal, some a hair apart: the table's start is never past the
    # cut, and both searches give the last code of the range whose center is below u
    # + 0.0: the centers hold no -0.0 (BinMapper.bin_centers), draw_cut's precondition
    centers = np.sort(np.array(values)) + 0.0
    n = len(centers)
    lo = data.draw(st.integers(0, n - 2))
    hi = data.draw(st.integers(lo + 1, n - 1))
    draws = np.array(
        data.draw(st.lists(st.integers(0, (1 << 62) - 1), min_size=1, max_size=20)), np.int64
    )
    got = _draw_both(centers, np.array([n]), lo, hi, draws)
    want = [_brute(centers, lo, hi, int(d)) for d in draws]
    np.testing.assert_array_equal(got[:, 0], want)
    np.testing.assert_array_equal(got[:, 1], want)


def test_a_zero_center_is_not_below_a_zero_cut():
    # centers -1, 0, 1 and the draw halfway: u = 0.0, and the center 0 is not below it.
    # From a column holding -0.0 the search read -0.0 - 0.0 as "below" and cut one code
    # later than the table's search
    from treeboost.engine.binning.mapper import BinMapper

    centers = BinMapper().fit(np.array([[-1.0], [-0.0], [1.0]])).bin_centers()[0, :3]
    draws = np.array([1 << 52], np.int64)
    assert _u(centers, 0, 2, 1 << 52) == 0.0
    np.testing.assert_array_equal(_draw_both(centers, np.array([3]), 0, 2, draws)[0], [0, 0])


@pytest.mark.parametrize(
    "centers",
    [
        np.array([3.0, 3.0, 3.0]),  # no width: one cell
        np.array([-1e308, 0.0, 1e308]),  # a width beyond a double
        np.concatenate([np.linspace(0, 1e-9, 30), [1.0]]),  # many centers in one cell
    ],
)
def test_the_table_on_degenerate_centers(centers):
    draws = np.random.RandomState(0).randint(0, 1 << 62, 200).astype(np.int64)
    n = len(centers)
    got = _draw_both(centers, np.array([n]), 0, n - 1, draws)
    want = [_brute(centers, 0, n - 1, int(d)) for d in draws]
    np.testing.assert_array_equal(got[:, 1], want)
    np.testing.assert_array_equal(got[:, 0], want)


@njit
def _count(rows, start, end, f, label, mc, cut):
    # feature f counted with another (0) in one pass, in the second row of by_code
    by_code = np.full((3, mc + 1), 7, np.int64)
    features = np.array([-1, 0, f])
    rc.count_codes(rows, start, end, features, 1, 2, label, mc, by_code)
    lo, hi, n_missing = rc.code_range(by_code[1], mc)
    left = np.empty(3)
    miss = np.empty(3)
    rc.coded_cut_counts(by_code[1], cut, mc, left, miss)
    left2 = np.empty(3)
    miss2 = np.empty(3)
    rc.cut_counts(rows, start, end, f, cut, n_missing > 0, mc, label, left2, miss2)
    return lo, hi, n_missing, left, miss, left2, miss2


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.integers(0, 10_000), st.integers(1, 9))
def test_counts_by_code_against_brute_force(n, seed, mc):
    rng = np.random.RandomState(seed)
    rows = np.zeros((n + 4, 3), np.uint8)
    rows[:, 1] = rng.randint(0, mc + 1, n + 4)  # feature 1; code mc is missing
    rows[:, 2] = rng.randint(0, 2, n + 4)  # the class
    start, end = 2, 2 + n
    cut = int(rng.randint(0, mc))
    lo, hi, n_missing, left, miss, left2, miss2 = _count(rows, start, end, 1, 2, mc, cut)
    codes, y = rows[start:end, 1].astype(int), rows[start:end, 2].astype(int)
    present = codes[codes != mc]
    assert (lo, hi) == ((present.min(), present.max()) if len(present) else (mc, -1))
    assert n_missing == np.sum(codes == mc)
    go = codes <= cut
    np.testing.assert_array_equal(left, [np.sum(go & (y == 0)), np.sum(go & (y == 1)), np.sum(go)])
    m = codes == mc
    np.testing.assert_array_equal(miss, [np.sum(m & (y == 0)), np.sum(m & (y == 1)), np.sum(m)])
    np.testing.assert_array_equal(left2, left)
    np.testing.assert_array_equal(miss2, miss)


@njit
def _min_max(codes, start, end, lo, hi):
    rc_rows.rows_min_max(codes, start, end, lo, hi)


@njit
def _copy(dst, i, src, j):
    rc_rows.copy_row(dst, i, src, j)


@pytest.mark.parametrize(
    "dtype, blocks", [(np.uint8, 1), (np.uint8, 2), (np.uint16, 1), (np.uint16, 3)]
)
def test_rows_min_max_against_numpy(dtype, blocks):
    width = blocks * 64 // np.dtype(dtype).itemsize
    rng = np.random.RandomState(blocks)
    codes = rng.randint(0, np.iinfo(dtype).max + 1, size=(40, width)).astype(dtype)
    for start, end in [(0, 1), (5, 6), (3, 40), (0, 40), (17, 29)]:
        lo = np.empty(width, dtype)
        hi = np.empty(width, dtype)
        _min_max(codes, start, end, lo, hi)
        np.testing.assert_array_equal(lo, codes[start:end].min(axis=0))
        np.testing.assert_array_equal(hi, codes[start:end].max(axis=0))


@pytest.mark.parametrize("blocks", [1, 2])
def test_copy_row_writes_its_place_only(blocks):
    rng = np.random.RandomState(blocks)
    rows = rng.randint(0, 2**63, size=(12, 8 * blocks)).astype(np.uint64)
    a = rows.copy()
    _copy(a, 2, a, 7)
    np.testing.assert_array_equal(a[2], rows[7])
    np.testing.assert_array_equal(np.delete(a, 2, axis=0), np.delete(rows, 2, axis=0))
    _copy(a, 4, a, 4)  # a row onto itself
    np.testing.assert_array_equal(a[4], rows[4])
    c = np.zeros_like(rows)
    _copy(c, 3, rows, 9)
    np.testing.assert_array_equal(c[3], rows[9])
    np.testing.assert_array_equal(np.delete(c, 3, axis=0), 0)
