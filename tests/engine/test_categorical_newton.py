"""Boosting's categorical split search (splitting.scan_categories_newton) against a
brute-force reading of LightGBM's rules: categories of at least CAT_SMOOTH rows, ordered
by G/(H + CAT_SMOOTH), a prefix of at most MAX_CAT_THRESHOLD of them from either end of
the order, min(MIN_DATA_PER_GROUP, MIN_DATA_PER_GROUP_SHARE n) rows each side, the gain
with l2 + CAT_L2."""

import numpy as np
from hypothesis import given, settings, strategies as st

from treeboost.engine.split.constraints import MonotonicCheck
from treeboost.engine.split.criteria import NEWTON
from treeboost.engine.records import Scratch
from treeboost.engine.split.categorical import (
    CAT_L2,
    CAT_SMOOTH,
    MAX_CAT_EXACT,
    MAX_CAT_THRESHOLD,
    MIN_DATA_PER_GROUP,
    MIN_DATA_PER_GROUP_SHARE,
)
from treeboost.engine.split.search import make_scratch, scan_feature

from tests._helpers import search_params

#: no monotonic constraint
NO_CHECK = MonotonicCheck(False, np.int8(0), -np.inf, np.inf)


def _brute_force(cstats, miss, total, l2, min_leaf, min_w):
    """The best (score, left set, missing left) by enumerating the rules' candidates."""
    m = cstats.shape[0]
    used = [j for j in range(m) if cstats[j, 2] >= CAT_SMOOTH]
    key = {j: cstats[j, 0] / (cstats[j, 1] + CAT_SMOOTH) for j in used}
    order = sorted(used, key=lambda j: (key[j], j))
    best = (-np.inf, None, None)
    lam = l2 + CAT_L2
    for end in (order, order[::-1]):
        for size in range(1, min(MAX_CAT_THRESHOLD, (len(used) + 1) // 2) + 1):
            left_set = end[:size]
            for with_miss in (False, True) if miss[2] > 0.5 else (False,):
                left = cstats[left_set].sum(axis=0) + (miss if with_miss else 0.0)
                right = total - left
                if (
                    min(left[2], right[2])
                    < max(min(MIN_DATA_PER_GROUP, MIN_DATA_PER_GROUP_SHARE * total[2]), min_leaf)
                    or min(left[1], right[1]) < min_w
                ):
                    continue
                sc = left[0] ** 2 / (left[1] + lam) + right[0] ** 2 / (right[1] + lam)
                if sc > best[0] + 1e-9 * abs(sc):
                    best = (sc, sorted(left_set), with_miss)
    return best


@st.composite
def _node(draw):
    m = draw(st.integers(MAX_CAT_EXACT + 1, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    counts = rng.integers(0, 80, m).astype(float)
    counts[counts == 0] = 1.0
    h = counts * rng.uniform(0.1, 0.25, m)
    g = rng.normal(size=m) * counts * 0.3
    cstats = np.column_stack([g, h, counts])
    n_miss = float(draw(st.sampled_from([0, 0, 5, 150])))
    miss = np.array([rng.normal() * n_miss * 0.3, n_miss * 0.2, n_miss])
    return cstats, miss, draw(st.sampled_from([1, 20])), draw(st.sampled_from([0.0, 1.0]))


@settings(max_examples=200, deadline=None)
@given(_node())
def test_scan_equals_brute_force(node):
    cstats, miss, min_leaf, min_w = node
    m = cstats.shape[0]
    total = cstats.sum(axis=0) + miss
    l2 = 1.0
    params = search_params(NEWTON, l2=l2, min_samples_leaf=min_leaf, min_weight_leaf=min_w)
    scratch = Scratch(*(a[0] for a in make_scratch(1, m + 1, 256, 3)))
    codes = np.arange(m, dtype=np.int64) * 3  # codes need not be consecutive
    bits = np.zeros(4, np.uint64)
    left = np.zeros(3)
    s, dec, b, ml, _ = scan_feature(
        codes, cstats.copy(), m, miss, total, True, 256, params, NO_CHECK, scratch, bits, left
    )
    want, left_set, want_ml = _brute_force(cstats, miss, total, l2, min_leaf, min_w)
    if want == -np.inf:
        assert s == -np.inf and not bits.any()
        return
    np.testing.assert_allclose(s, want, rtol=1e-9)
    chosen = [j for j in range(m) if (int(bits[codes[j] >> 6]) >> int(codes[j] & 63)) & 1]
    # a prefix from one end and one from the other can be the same partition, sides
    # swapped (equal scores up to rounding): either is right
    swapped = sorted(set(range(m)) - set(left_set)) == chosen and all(
        cstats[j, 2] >= CAT_SMOOTH for j in range(m)
    )
    assert chosen == left_set or swapped
    if miss[2] > 0.5:
        assert ml == (want_ml if chosen == left_set else not want_ml)
    np.testing.assert_allclose(left, cstats[chosen].sum(axis=0) + (miss if ml else 0.0))
    # the decrease is half the penalised score less the parent's term without CAT_L2
    np.testing.assert_allclose(dec, 0.5 * s - 0.5 * total[0] ** 2 / (total[1] + l2))


def test_few_categories_keep_the_exact_subset_scan():
    """With at most MAX_CAT_EXACT categories in the node the optimal subset is searched
    without the rules: a 12-row node of 3 rows a category splits, which the rules (at
    least CAT_SMOOTH rows a category) would forbid."""
    cstats = np.array([[3.0, 1.0, 3.0], [-3.0, 1.0, 3.0], [2.0, 1.0, 3.0], [-2.0, 1.0, 3.0]])
    miss = np.zeros(3)
    total = cstats.sum(axis=0)
    params = search_params(NEWTON)
    scratch = Scratch(*(a[0] for a in make_scratch(1, 5, 256, 3)))
    bits = np.zeros(4, np.uint64)
    s, dec, b, ml, _ = scan_feature(
        np.arange(4, dtype=np.int64),
        cstats,
        4,
        miss,
        total,
        True,
        4,
        params,
        NO_CHECK,
        scratch,
        bits,
        np.zeros(3),
    )
    assert s > -np.inf and int(bits[0]) in (0b0101, 0b1010)
