"""Kernels of the stepped grower (engine/grow/stepped.py) that the data-parallel trainer adds:
their sums are those of the one-machine kernels, in the same order."""

import numpy as np
import pytest

from treeboost.engine import SampleStatistics, feature_pairs, node_histograms, sum_rows


def test_sum_rows_adds_the_rows_in_their_order():
    """The trainer's root total is the grower's sum_rows over given rows."""
    rng = np.random.default_rng(0)
    stats = rng.standard_normal((1000, 3)) * np.array([1e8, 1.0, 1e-8])
    idx = rng.permutation(1000).astype(np.int32)
    source = SampleStatistics.given(stats).arrays
    out = np.zeros(3)
    sum_rows(out, source, idx, 100, 900)
    # the sequential sums, bit for bit (cumsum adds in order)
    np.testing.assert_array_equal(out, np.cumsum(stats[idx[100:900]], axis=0)[-1])
    out = np.zeros(3)
    sum_rows(out, source, idx, 5, 5)
    np.testing.assert_array_equal(out, np.zeros(3))


@pytest.mark.parametrize("n_features", [1, 4, 7])
def test_two_column_histograms_are_the_count_less_ones(n_features):
    """Into histograms of two columns, node_histograms builds, bit for bit, the (w g,
    w h) columns of its count-less histograms, for several nodes (one of them empty)
    and an odd number of features (one built alone)."""
    rng = np.random.default_rng(n_features)
    n, n_bins = 3000, 17
    codes = rng.integers(0, n_bins, (n_features, n)).astype(np.uint8)
    stats = rng.standard_normal((n, 3)) * np.array([1e6, 1.0, 0.0]) + np.array([0, 0, 1])
    idx = rng.permutation(n).astype(np.int32)
    starts = np.array([0, 1000, 1000, 2500], np.int64)
    ends = np.array([1000, 1000, 2500, 3000], np.int64)
    numeric = np.zeros(n_features, np.bool_)
    pairs = feature_pairs(numeric)

    def histograms(width):
        out = np.full((4, n_features, n_bins, width), np.nan)
        no_counts = np.zeros(4, np.bool_)
        scratch = np.empty_like(stats)
        node_histograms(codes, idx, starts, ends, no_counts, numeric, pairs, stats, scratch, out)
        return out

    two = histograms(2)
    np.testing.assert_array_equal(two, histograms(3)[..., :2])
    assert not two[1].any()  # the empty node
