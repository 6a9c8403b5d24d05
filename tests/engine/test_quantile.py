"""Weighted quantiles by selection (engine/statistics/quantile.py) against the definition
computed by a stable sort and a cumulative sum, on values with many ties and weights with zeros."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from treeboost.engine.statistics.quantile import RADIX_MIN_VALUES
from treeboost.losses.base import grouped_weighted_quantile, weighted_quantile


def _by_sorting(values, weights, alpha):
    order = np.argsort(values, kind="stable")
    cw = np.cumsum(weights[order])
    i = np.searchsorted(cw, alpha * cw[-1], side="left")
    return values[order[min(i, values.size - 1)]]


@st.composite
def _sample(draw):
    # above RADIX_MIN_VALUES the selection narrows the range by radix rounds first
    n = draw(st.one_of(st.integers(1, 300), st.integers(RADIX_MIN_VALUES + 1, 3000)))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    distinct = draw(st.sampled_from([1, 2, 5, 40, 10**6, "spread"]))
    if distinct == "spread":
        # heavy tails, tiny and huge magnitudes, both zeros: many rounds of the radix
        values = rng.standard_t(1, n) * 10.0 ** rng.integers(-300, 300, n)
        values[rng.random(n) < 0.1] = 0.0
        values[rng.random(n) < 0.1] = -0.0
    else:
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


def _select_across(values, weights, alpha, cuts):
    """The radix selection of engine.statistics.quantile with the rows split into shards at
    ``cuts``: each shard sums its own rows' weights by digit, the sums are added."""
    from treeboost.engine import KEY_DIGIT_BITS, KEY_ROUNDS, next_digits
    from treeboost.engine.statistics.quantile import (
        key_digit_weights,
        key_values,
        order_keys,
        first_digit_weights,
    )

    bounds = [0, *sorted(cuts), values.size]
    shards = []
    w = np.zeros((1, 256))
    for a, b in zip(bounds[:-1], bounds[1:]):
        rows = np.arange(a, b)
        n = rows.size
        keys, kw, cand = np.empty(n, np.uint64), np.empty(n), np.empty(n, np.int64)
        starts, ends = np.zeros(1, np.int64), np.full(1, n, np.int64)
        part = np.empty((1, 256))
        row_keys = np.empty(values.size, np.uint64)
        order_keys(values, np.zeros_like(values), row_keys)
        unit = bool(np.all(weights == 1.0))
        first_digit_weights(row_keys, weights, unit, rows, starts, ends, keys, kw, cand, part)
        w += part
        shards.append((keys, kw, starts, ends - starts, cand))

    def digit_weights(prefix, shift):
        out = np.zeros((1, 256))
        for keys, kw, starts, counts, cand in shards:
            part = np.empty((1, 256))
            key_digit_weights(keys, kw, starts, counts, cand, prefix, shift, part)
            out += part
        return out

    prefix = np.zeros(1, np.uint64)
    target = alpha * w.sum(axis=1)
    below = np.zeros(1)
    for r in range(KEY_ROUNDS):
        shift = 64 - KEY_DIGIT_BITS * (r + 1)
        if r:
            w = digit_weights(prefix, shift)
        digit, below = next_digits(w, below, target)
        prefix = (prefix << np.uint64(KEY_DIGIT_BITS)) | digit
    return key_values(prefix)[0]


@settings(max_examples=200, deadline=None)
@given(_sample(), st.lists(st.integers(0, 300), max_size=4), st.booleans())
def test_selection_across_shards_equals_the_one_place_selection(sample, cuts, spread):
    """Digit by digit over keys of the values' order (negative values, -0.0 and 0.0,
    magnitudes far apart): the quantile of all the shards' rows, as one selection finds
    it.  Integer weights: the sums are exact in any order."""
    values, weights, alpha, _ = sample
    weights = np.floor(weights) + 1.0  # positive, as the shards' rows are
    if spread:
        values = values * 10.0 ** np.arange(-3, 4)[np.arange(values.size) % 7]
        values[::5] = -0.0
    cuts = [c for c in cuts if c <= values.size]
    assert _select_across(values, weights, alpha, cuts) == weighted_quantile(values, weights, alpha)
