"""Weighted quantiles by selection (engine/quantile.py) against the definition computed by
a stable sort and a cumulative sum, on values with many ties and weights with zeros."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from treeboost.losses.base import grouped_weighted_quantile, weighted_quantile


def _by_sorting(values, weights, alpha):
    order = np.argsort(values, kind="stable")
    cw = np.cumsum(weights[order])
    i = np.searchsorted(cw, alpha * cw[-1], side="left")
    return values[order[min(i, values.size - 1)]]


@st.composite
def _sample(draw):
    n = draw(st.integers(1, 300))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    distinct = draw(st.sampled_from([1, 2, 5, 40, 10**6]))
    values = rng.integers(0, distinct, n).astype(float) - distinct / 2
    if draw(st.booleans()):
        weights = rng.integers(0, 4, n).astype(float)  # zeros and exact sums
    else:
        weights = rng.uniform(0.0, 2.0, n)
    if weights.sum() == 0:
        weights[0] = 1.0
    alpha = draw(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0]))
    return values, weights, alpha, rng.integers(0, 7, n)


@settings(max_examples=300, deadline=None)
@given(_sample())
def test_selection_equals_the_sorted_definition(sample):
    values, weights, alpha, groups = sample
    before = values.copy()
    assert weighted_quantile(values, weights, alpha) == _by_sorting(values, weights, alpha)
    np.testing.assert_array_equal(values, before)  # the input is not reordered
    got = grouped_weighted_quantile(groups, values, weights, alpha, 8)
    for g in range(8):
        m = groups == g
        assert got[g] == (_by_sorting(values[m], weights[m], alpha) if m.any() else 0.0)


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="one weight per value"):
        weighted_quantile(np.arange(3.0), np.ones(2), 0.5)
    with pytest.raises(ValueError, match="one length"):
        grouped_weighted_quantile(np.zeros(3, int), np.arange(3.0), np.ones(2), 0.5, 1)
