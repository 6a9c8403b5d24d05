"""The forest's bootstrap kernel against its definition."""

import numpy as np
from hypothesis import given, settings, strategies as st

from treeboost.ensembles._base import in_bag_rows
from treeboost.ensembles._bootstrap import bootstrap_weights


def draw(seed, n, n_draws, w=None):
    w = np.ones(n) if w is None else w
    weights = np.full(n, np.nan)
    bits = np.full((n + 7) // 8, 0xFF, np.uint8)
    drawn = bootstrap_weights(seed, n_draws, w, weights, bits)
    return weights, bits, drawn


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1), n=st.integers(1, 300), frac=st.floats(0.01, 1.0), data=st.data()
)
def test_weights_are_counts_times_sample_weight(seed, n, frac, data):
    n_draws = max(1, int(frac * n))
    w = np.array(data.draw(st.lists(st.floats(0.0, 10.0), min_size=n, max_size=n)))
    counts, bits, drawn = draw(seed, n, n_draws)
    # integer counts that add up to the draws
    assert np.all(counts == np.round(counts)) and counts.min() >= 0
    assert counts.sum() == n_draws
    assert drawn == np.count_nonzero(counts)
    # the out-of-bag mask is exactly the rows never drawn, in packbits order
    np.testing.assert_array_equal(np.unpackbits(bits, count=n).astype(bool), counts == 0)
    assert not np.unpackbits(bits)[n:].any()  # padding bits stay clear
    # the same seed gives the same sample, with the sample weights multiplied in
    weighted, bits2, _ = draw(seed, n, n_draws, w)
    np.testing.assert_array_equal(weighted, counts * w)
    np.testing.assert_array_equal(bits2, bits)


def test_draws_are_uniform_and_seeds_differ():
    n, n_draws = 50, 200_000
    counts, _, _ = draw(7, n, n_draws)
    # chi-square with 49 degrees of freedom: 99.99th percentile ~ 98
    chi2 = ((counts - n_draws / n) ** 2 / (n_draws / n)).sum()
    assert chi2 < 98
    a, _, _ = draw(1, 1000, 1000)
    b, _, _ = draw(2, 1000, 1000)
    assert not np.array_equal(a, b)
    # a bootstrap of n from n leaves about 1/e of the rows out
    c, _, drawn = draw(3, 100_000, 100_000)
    assert abs(drawn / 100_000 - (1 - np.exp(-1))) < 0.005
    assert drawn <= in_bag_rows(100_000, 100_000)


def test_in_bag_bound():
    assert in_bag_rows(1, 1) == 1
    assert in_bag_rows(10, 10) == 10  # small n: the bound is n itself
    for n in (1000, 100_000):
        sizes = [draw(s, n, n)[2] for s in range(20)]
        assert max(sizes) <= in_bag_rows(n, n) < n
    assert 1000 <= in_bag_rows(100_000, 1000) < 10_000  # few draws, few rows
