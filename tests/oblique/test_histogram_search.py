"""The oblique forest's histogram search of a projection's threshold against the exact
sorted search and a brute force over every cut."""

import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treeboost.oblique import ObliqueRandomForestClassifier, _search
from treeboost.oblique._search import GINI, SQUARED_ERROR


@numba.njit
def _histogram(z, S, crit, min_leaf, n_bins, exact):
    k = S.shape[1]
    return _search.histogram_search(
        z,
        S,
        crit,
        min_leaf,
        n_bins,
        exact,
        np.empty((n_bins, k)),
        np.empty(n_bins, np.int64),
        np.empty(n_bins),
        np.empty(n_bins),
        np.empty((3, k)),
    )


@numba.njit
def _sorted(z, S, crit, min_leaf):
    return _search.line_search(z, -np.ones(z.shape[0]), S, crit, min_leaf)


def _impurity(S, crit):
    s = S.sum(axis=0)
    if crit == SQUARED_ERROR:
        return max(s[2] - s[1] ** 2 / s[0], 0.0) if s[0] > 0 else 0.0
    total = s.sum()
    return total - (s**2).sum() / total if total > 0 else 0.0


def _brute(z, S, crit, min_leaf):
    """The least ``W_L I_L + W_R I_R`` over every cut between distinct values."""
    best = np.inf
    for t in np.unique(z)[:-1]:
        left = z <= t
        if left.sum() < min_leaf or (~left).sum() < min_leaf:
            continue
        best = min(best, _impurity(S[left], crit) + _impurity(S[~left], crit))
    return best


@st.composite
def _node(draw):
    m = draw(st.integers(2, 60))
    levels = draw(st.integers(1, 12))
    z = np.array(draw(st.lists(st.integers(0, levels), min_size=m, max_size=m)), float)
    z = z * draw(st.sampled_from([1.0, 0.1, 1e-3, 37.5])) - draw(st.floats(-5, 5))
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=m, max_size=m)))
    w = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=m, max_size=m)))
    S = np.zeros((m, 3))
    S[np.arange(m), y] = w
    return z, S, draw(st.integers(1, 3))


@settings(max_examples=300, deadline=None)
@given(_node(), st.integers(2, 300))
def test_histogram_search_is_exact_or_says_so(node, n_bins):
    z, S, min_leaf = node
    t, score = _histogram(z, S, GINI, min_leaf, n_bins, True)
    exact = _brute(z, S, GINI, min_leaf)
    if np.isnan(score):
        # two different values shared a bin: the caller sorts
        lo, hi = z.min(), z.max()
        codes = np.minimum(((z - lo) * (n_bins / (hi - lo))).astype(int), n_bins - 1)
        assert any(len(np.unique(z[codes == b])) > 1 for b in np.unique(codes))
        return
    np.testing.assert_allclose(score, exact, rtol=1e-9, atol=1e-9)
    if np.isfinite(score):
        left = z <= t
        got = _impurity(S[left], GINI) + _impurity(S[~left], GINI)
        np.testing.assert_allclose(got, score, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(_sorted(z, S, GINI, min_leaf)[1], exact, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(_node(), st.integers(2, 40))
def test_coarse_histogram_routes_rows_as_it_counted_them(node, n_bins):
    """Without the exact promise the cut is among the bins' boundaries: its score is
    the score of the partition its threshold makes, and no better than the exact."""
    z, S, min_leaf = node
    t, score = _histogram(z, S, GINI, min_leaf, n_bins, False)
    exact = _brute(z, S, GINI, min_leaf)
    assert np.isinf(score) == np.isinf(exact) or np.isinf(score)
    if np.isfinite(score):
        left = z <= t
        assert left.sum() >= min_leaf and (~left).sum() >= min_leaf
        got = _impurity(S[left], GINI) + _impurity(S[~left], GINI)
        np.testing.assert_allclose(got, score, rtol=1e-9, atol=1e-9)
        assert score >= exact - 1e-9


def test_regression_statistics():
    rng = np.random.default_rng(0)
    z = rng.integers(0, 20, 200).astype(float)
    y = np.sin(z) + rng.normal(0, 0.1, 200)
    S = np.c_[np.ones(200), y, y * y]
    t, score = _histogram(z, S, SQUARED_ERROR, 1, 256, True)
    assert np.isclose(score, _brute(z, S, SQUARED_ERROR, 1))


def test_max_bins_none_is_the_exact_search():
    """``max_bins=None`` sorts at every node; on integer data a histogram of at most
    256 bins finds the same cuts, so the forests agree."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 6, size=(400, 5)).astype(float)
    y = (X[:, 0] + X[:, 1] > X[:, 2] + 2).astype(int)
    a = ObliqueRandomForestClassifier(10, random_state=0, max_bins=None).fit(X, y)
    b = ObliqueRandomForestClassifier(10, random_state=0).fit(X, y)
    assert a.score(X, y) > 0.95 and b.score(X, y) > 0.95
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
