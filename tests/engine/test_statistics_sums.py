"""statistics.sum_rows against a sequential sum in the samples' order (the same bits):
the two-class path in registers and the general class path."""

import numpy as np
import pytest

from treeboost.engine.statistics.samples import SampleStatistics, sum_rows


@pytest.mark.parametrize("n_classes", [2, 3])
def test_class_sums_equal_the_sequential_sums(n_classes):
    rng = np.random.default_rng(n_classes)
    n = 500
    y = rng.integers(0, n_classes, n).astype(np.int64)
    w = rng.random(n) * 10.0 ** rng.integers(-3, 4, n)
    w[::9] = 0.0  # zero weights count no sample
    stats = SampleStatistics.classes(y, w, n_classes)
    idx = rng.permutation(n).astype(np.int32)
    start, end = 17, 433
    dst = np.zeros(n_classes + 1)
    sum_rows(dst, stats.arrays, idx, start, end)
    ref = np.zeros(n_classes + 1)
    for s in idx[start:end]:
        ref[y[s]] += w[s]
        ref[-1] += w[s] > 0
    np.testing.assert_array_equal(dst, ref)
    # it adds to what dst holds
    sum_rows(dst, stats.arrays, idx, start, end)
    for s in idx[start:end]:
        ref[y[s]] += w[s]
        ref[-1] += w[s] > 0
    np.testing.assert_array_equal(dst, ref)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_gathered_class_rows_are_the_materialized_rows(n_classes):
    from treeboost.engine.statistics.samples import gather_rows

    rng = np.random.default_rng(10 + n_classes)
    n = 400
    y = rng.integers(0, n_classes, n).astype(np.int64)
    w = rng.random(n)
    w[::7] = 0.0
    stats = SampleStatistics.classes(y, w, n_classes)
    rows, _ = stats.materialize()
    idx = rng.permutation(n).astype(np.int32)
    start, count = 11, 350
    out = np.full((count, n_classes + 1), np.nan)
    gather_rows(out, stats.arrays, idx, start, count)
    np.testing.assert_array_equal(out, rows[idx[start : start + count]])


def _blocked_reference(rows, idx, start, end, block):
    """The rows ``idx[start:end]`` added block by block: each block from zero in order,
    then the blocks' sums in order."""
    out = np.zeros(rows.shape[1])
    for b in range(start, end, block):
        part = np.zeros(rows.shape[1])
        for s in idx[b : min(end, b + block)]:
            part += rows[s]  # one row's columns at a time, in the rows' order
        out += part
    return out


@pytest.mark.parametrize("kind", ["given", "classes2", "classes3", "regression"])
def test_long_ranges_add_block_by_block_and_threads_give_the_same_bits(kind):
    from treeboost.engine.statistics.samples import SUM_BLOCK, sum_rows_blocked, sum_rows_parallel

    rng = np.random.default_rng(7)
    n = 2 * SUM_BLOCK + 1234
    w = rng.random(n) * 10.0 ** rng.integers(-3, 4, n)
    w[::11] = 0.0
    if kind == "given":
        stats = SampleStatistics.given(
            rng.normal(size=(n, 3)) * 10.0 ** rng.integers(-3, 4, (n, 1))
        )
    elif kind.startswith("classes"):
        k = int(kind[-1])
        stats = SampleStatistics.classes(rng.integers(0, k, n).astype(np.int64), w, k)
    else:
        stats = SampleStatistics.regression(rng.normal(size=n) * 1e3, w)
    rows, _ = stats.materialize()
    idx = rng.permutation(n).astype(np.int32)
    start, end = 5, n - 3
    serial = np.zeros(rows.shape[1])
    parts = np.full((3, rows.shape[1]), np.nan)
    sum_rows_blocked(serial, stats.arrays, idx, start, end, parts)
    np.testing.assert_array_equal(serial, _blocked_reference(rows, idx, start, end, SUM_BLOCK))
    threaded = np.zeros(rows.shape[1])
    parts = np.full((3, rows.shape[1]), np.nan)
    sum_rows_parallel(threaded, stats.arrays, idx, start, end, parts)
    np.testing.assert_array_equal(threaded, serial)
    # sum_rows adds in the rows' order, and so does a range of one block
    short = np.zeros(rows.shape[1])
    sum_rows_blocked(short, stats.arrays, idx, start, start + SUM_BLOCK, parts)
    np.testing.assert_array_equal(
        short, _blocked_reference(rows, idx, start, start + SUM_BLOCK, SUM_BLOCK)
    )
    plain = np.zeros(rows.shape[1])
    sum_rows(plain, stats.arrays, idx, start, end)
    np.testing.assert_array_equal(plain, _blocked_reference(rows, idx, start, end, n))
