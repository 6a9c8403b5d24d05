"""The booster's per-tree kernels against their numpy formulas."""

import numpy as np
import pytest

from treeboost.engine.statistics.samples import SampleStatistics, boosting_rows, sum_rows
from treeboost.engine.predict.tree import add_leaf_values


@pytest.mark.parametrize("newton", [True, False])
def test_boosting_rows_are_the_numpy_columns(newton):
    rng = np.random.RandomState(0)
    n, K = 50, 3
    w = rng.rand(n)
    g = rng.normal(size=(K, n))
    h = rng.rand(K, n)
    for k in range(K):
        stats = np.full((n, 3), 7.0)
        sq = boosting_rows(stats, w, g, h, k, newton)
        if newton:
            np.testing.assert_array_equal(stats[:, 0], w * g[k])
            np.testing.assert_array_equal(stats[:, 1], w * h[k])
            assert sq.shape == (0,)
        else:
            np.testing.assert_array_equal(stats[:, 0], w)
            np.testing.assert_array_equal(stats[:, 1], -w * g[k])
            np.testing.assert_array_equal(sq, w * g[k] ** 2)
        np.testing.assert_array_equal(stats[:, 2], 7.0)  # the count column is left


def test_add_leaf_values_is_the_fancy_indexed_update():
    rng = np.random.RandomState(1)
    raw = rng.normal(size=(30, 4))
    expected = raw.copy()
    value = rng.normal(size=7)
    leaf = rng.randint(0, 7, size=30).astype(np.int64)
    expected[:, 2] += value[leaf]
    add_leaf_values(raw, 2, value, leaf)
    np.testing.assert_array_equal(raw, expected)


@pytest.mark.parametrize("n_cols", [3, 4])
def test_sum_rows_of_given_rows_adds_in_the_rows_order(n_cols):
    rng = np.random.RandomState(2)
    stats = rng.normal(size=(40, n_cols)) * 10.0 ** rng.randint(-8, 8, size=(40, 1))
    idx = rng.permutation(40).astype(np.int32)
    dst = np.ones(n_cols)
    sum_rows(dst, SampleStatistics.given(stats).arrays, idx, np.int64(5), np.int64(33))
    expected = np.ones(n_cols)
    for i in idx[5:33]:
        expected += stats[i]
    np.testing.assert_array_equal(dst, expected)
