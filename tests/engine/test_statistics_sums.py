"""statistics.sum_rows against a sequential sum in the samples' order (the same bits):
the two-class path in registers and the general class path."""

import numpy as np
import pytest

from treeboost.engine.statistics import SampleStatistics, sum_rows


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
    from treeboost.engine.statistics import gather_rows

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
