"""The oblique forest's search of a projection's threshold (the order of the rows by
buckets and insertion, the sweep's O(1) updates of each criterion) against a brute force
over every cut, and its random projections against their definition."""

import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treeboost.oblique import ObliqueRandomForestClassifier, _projections
from treeboost.oblique._search import ENTROPY, GINI, SQUARED_ERROR


@numba.njit
def _search(z, S, crit, min_leaf, n_bins):
    m = z.shape[0]
    rows = np.arange(m)
    if not z.max() > z.min():  # sporf_split skips a constant projection
        return 0.0, np.inf, False, rows
    work = _projections.projection_work(S, rows, crit, n_bins, 1, 0)
    node_weight, node_sum, node_square = _projections.node_rows(S, rows, 0, m, crit, work)
    for i in range(m):
        work.z[i] = z[i]
    binned = _projections.order_rows(m, n_bins, z.min(), z.max(), work)
    t, score = _projections.sweep_cuts(
        m, binned, crit, min_leaf, work, node_weight, node_sum, node_square
    )
    return t, score, binned, work.order[:m].copy()


@numba.njit
def _draws(seed, d, lam, n):
    rows = np.arange(1)
    work = _projections.projection_work(np.ones((1, 2)), rows, GINI, 0, d, seed)
    nnz = np.empty(n, np.int64)
    used = np.zeros((n, d))
    for r in range(n):
        q = _projections.draw_projection(work.state, work.draw, work.sign, lam, np.exp(-lam))
        nnz[r] = q
        for j in range(q):
            used[r, work.draw[j]] = work.sign[j]
    return nnz, used


def _impurity(S, crit):
    s = S.sum(axis=0)
    if crit == SQUARED_ERROR:
        return max(s[2] - s[1] ** 2 / s[0], 0.0) if s[0] > 0 else 0.0
    total = s.sum()
    if total <= 0:
        return 0.0
    if crit == GINI:
        return total - (s**2).sum() / total
    p = s[s > 0]
    return total * np.log(total) - (p * np.log(p)).sum()


def _brute(z, S, crit, min_leaf, cuts=None):
    """The least ``W_L I_L + W_R I_R`` over every cut between distinct values (or the
    given cut values)."""
    best = np.inf
    for t in np.unique(z)[:-1] if cuts is None else cuts:
        left = z <= t
        if left.sum() < min_leaf or (~left).sum() < min_leaf:
            continue
        best = min(best, _impurity(S[left], crit) + _impurity(S[~left], crit))
    return best


@st.composite
def _node(draw, regression=False):
    m = draw(st.integers(2, 300))
    levels = draw(st.integers(1, 400))
    z = np.array(draw(st.lists(st.integers(0, levels), min_size=m, max_size=m)), float)
    z = z * draw(st.sampled_from([1.0, 0.1, 1e-3, 37.5])) - draw(st.floats(-5, 5))
    if draw(st.booleans()):  # a far outlier: the buckets do not spread the others
        z[0] += 1e6
    w = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=m, max_size=m)))
    if regression:
        y = np.array(draw(st.lists(st.floats(-3, 3), min_size=m, max_size=m)))
        S = np.c_[w, w * y, w * y * y]
    else:
        y = np.array(draw(st.lists(st.integers(0, 2), min_size=m, max_size=m)))
        S = np.zeros((m, 3))
        S[np.arange(m), y] = w
    return z, S, draw(st.integers(1, 3))


def _check_exact(z, S, crit, min_leaf, n_bins):
    t, score, binned, order = _search(z, S, crit, min_leaf, n_bins)
    assert not binned
    assert np.all(np.diff(z[order]) >= 0)
    exact = _brute(z, S, crit, min_leaf)
    np.testing.assert_allclose(score, exact, rtol=1e-9, atol=1e-9)
    if np.isfinite(score):
        left = z <= t
        got = _impurity(S[left], crit) + _impurity(S[~left], crit)
        np.testing.assert_allclose(got, score, rtol=1e-9, atol=1e-9)


@settings(max_examples=200, deadline=None)
@given(_node(), st.sampled_from([GINI, ENTROPY]), st.sampled_from([0, 300, 512]))
def test_exact_search_equals_the_brute_force(node, crit, n_bins):
    z, S, min_leaf = node
    _check_exact(z, S, crit, min_leaf, n_bins)


@settings(max_examples=100, deadline=None)
@given(_node(regression=True), st.sampled_from([0, 300]))
def test_exact_search_of_squared_error(node, n_bins):
    z, S, min_leaf = node
    _check_exact(z, S, SQUARED_ERROR, min_leaf, n_bins)


@settings(max_examples=150, deadline=None)
@given(_node(), st.integers(2, 40))
def test_binned_search_routes_rows_as_it_counted_them(node, n_bins):
    """Above ``n_bins`` rows the cut is among the bins' boundaries: its score is the
    score of the partition its threshold makes, the best among those boundaries, and no
    better than the exact."""
    z, S, min_leaf = node
    if z.shape[0] <= max(n_bins, _projections.INSERTION_ROWS) or not z.max() > z.min():
        return
    t, score, binned, order = _search(z, S, GINI, min_leaf, n_bins)
    assert binned
    lo, hi = z.min(), z.max()
    codes = np.minimum(((z - lo) * (n_bins / (hi - lo))).astype(np.int64), n_bins - 1)
    assert np.all(np.diff(codes[order]) >= 0)
    tops = [z[codes == b].max() for b in np.unique(codes)[:-1]]
    np.testing.assert_allclose(score, _brute(z, S, GINI, min_leaf, tops), rtol=1e-9, atol=1e-9)
    if np.isfinite(score):
        left = z <= t
        got = _impurity(S[left], GINI) + _impurity(S[~left], GINI)
        np.testing.assert_allclose(got, score, rtol=1e-9, atol=1e-9)
        assert score >= _brute(z, S, GINI, min_leaf) - 1e-9


def test_projections_are_sparse_signed_and_poisson():
    """``1 + Poisson(lam)`` distinct attributes (at most d), each +1 or -1, every
    attribute drawn alike."""
    d, lam, n = 6, 0.5, 20000
    nnz, used = _draws(3, d, lam, n)
    assert nnz.min() >= 1 and nnz.max() <= d
    assert np.array_equal((used != 0).sum(axis=1), nnz)
    assert set(np.unique(used)) <= {-1.0, 0.0, 1.0}
    assert abs(nnz.mean() - (1 + lam)) < 0.03
    share = (used != 0).mean(axis=0)
    assert np.allclose(share, share.mean(), atol=0.02)
    assert abs((used > 0).sum() / (used != 0).sum() - 0.5) < 0.02
    again, used_again = _draws(3, d, lam, 50)
    assert np.array_equal(again, nnz[:50]) and np.array_equal(used_again, used[:50])


def test_max_bins_none_is_the_exact_search():
    """``max_bins=None`` searches every cut at every node; on integer data 256 bins
    find the same cuts, so the forests agree."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 6, size=(400, 5)).astype(float)
    y = (X[:, 0] + X[:, 1] > X[:, 2] + 2).astype(int)
    a = ObliqueRandomForestClassifier(10, random_state=0, max_bins=None).fit(X, y)
    b = ObliqueRandomForestClassifier(10, random_state=0).fit(X, y)
    assert a.score(X, y) > 0.95 and b.score(X, y) > 0.95
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
