"""The one-dimensional search under every oblique split.

An oblique test sends a row left when ``v = w . x - t <= 0``.  Moving the hyperplane
along a direction ``d`` by a step ``alpha`` gives ``v_j(alpha) = v_j + alpha d_j``: each
row crosses the hyperplane once, at ``alpha_j = -v_j / d_j``.  Sorting the ``alpha_j``
and sweeping them in order visits every partition reachable along the direction, each
once, so the best step is found exactly in ``O(m log m)``.  OC1's coordinate
perturbation (``d = x_m``, or ``d = -1`` for the threshold), its random jumps (``d = r .
x``) and a plain threshold search on a projection (``v = z``, ``d = -1``) are all this
one search.
"""

from __future__ import annotations

import numpy as np

from ..engine import inlined, internal

#: criterion codes of the kernels
GINI, ENTROPY, SQUARED_ERROR = 0, 1, 2


@inlined
def side_impurity(s, crit):
    """The weighted impurity ``W * I(side)`` of a side whose statistics sum to ``s``:
    Gini ``W - sum_k s_k^2 / W``, entropy ``W ln W - sum_k s_k ln s_k`` (natural log),
    squared error ``sum w y^2 - (sum w y)^2 / sum w`` (``s = (w, w y, w y^2)``)."""
    if crit == SQUARED_ERROR:
        if s[0] <= 0.0:
            return 0.0
        v = s[2] - s[1] * s[1] / s[0]
        return v if v > 0.0 else 0.0
    total = 0.0
    for c in range(s.shape[0]):
        total += s[c]
    if total <= 0.0:
        return 0.0
    if crit == GINI:
        sq = 0.0
        for c in range(s.shape[0]):
            sq += s[c] * s[c]
        return total - sq / total
    ent = total * np.log(total)
    for c in range(s.shape[0]):
        if s[c] > 0.0:
            ent -= s[c] * np.log(s[c])
    return ent if ent > 0.0 else 0.0


@inlined
def side_weight(s, crit):
    if crit == SQUARED_ERROR:
        return s[0]
    total = 0.0
    for c in range(s.shape[0]):
        total += s[c]
    return total


@internal
def line_search(v, d, S, crit, min_leaf):
    """The step ``alpha`` along ``d`` whose partition ``{j: v_j + alpha d_j <= 0}``
    has the least weighted impurity, each side holding at least ``min_leaf`` rows and a
    positive weight.

    Parameters
    ----------
    v, d : ndarray of shape (m,)
    S : ndarray of shape (m, k)
        The rows' statistics (class weights, or ``(w, w y, w y^2)``).

    Returns
    -------
    (alpha, score) : the step (a midpoint between crossings) and ``W_L I_L + W_R I_R``;
    ``score = inf`` when no partition is allowed.
    """
    m, k = S.shape
    left = np.zeros(k)
    right = np.zeros(k)
    keys = np.empty(m)
    moving = np.empty(m, dtype=np.int64)
    n_moving = 0
    n_left = 0
    for j in range(m):
        if d[j] == 0.0:
            if v[j] <= 0.0:
                for c in range(k):
                    left[c] += S[j, c]
                n_left += 1
            else:
                for c in range(k):
                    right[c] += S[j, c]
            continue
        keys[n_moving] = -v[j] / d[j]
        moving[n_moving] = j
        n_moving += 1
        # at alpha = -inf a row with d > 0 is on the left
        if d[j] > 0.0:
            for c in range(k):
                left[c] += S[j, c]
            n_left += 1
        else:
            for c in range(k):
                right[c] += S[j, c]
    order = np.argsort(keys[:n_moving])
    best = np.inf
    best_alpha = 0.0
    if n_moving == 0:
        return 0.0, best
    first = keys[order[0]]
    last = keys[order[n_moving - 1]]
    # the partition before the first crossing
    if n_left >= min_leaf and m - n_left >= min_leaf:
        if side_weight(left, crit) > 0.0 and side_weight(right, crit) > 0.0:
            best = side_impurity(left, crit) + side_impurity(right, crit)
            best_alpha = first - 1.0 - abs(first)
    for i in range(n_moving):
        j = moving[order[i]]
        if d[j] > 0.0:
            for c in range(k):
                left[c] -= S[j, c]
                right[c] += S[j, c]
            n_left -= 1
        else:
            for c in range(k):
                left[c] += S[j, c]
                right[c] -= S[j, c]
            n_left += 1
        here = keys[order[i]]
        if i + 1 < n_moving:
            nxt = keys[order[i + 1]]
            if not nxt > here:
                continue
            alpha = 0.5 * (here + nxt)
            if not (alpha > here and alpha < nxt):
                continue
        else:
            alpha = last + 1.0 + abs(last)
        if n_left < min_leaf or m - n_left < min_leaf:
            continue
        if side_weight(left, crit) <= 0.0 or side_weight(right, crit) <= 0.0:
            continue
        score = side_impurity(left, crit) + side_impurity(right, crit)
        if score < best:
            best = score
            best_alpha = alpha
    return best_alpha, best


@inlined
def _cut_score(total, left, right, crit):
    """``W_L I_L + W_R I_R`` of a cut whose left side sums to ``left`` (``right`` is
    filled with ``total - left``); inf where a side has no weight."""
    for c in range(total.shape[0]):
        right[c] = total[c] - left[c]
    if side_weight(left, crit) > 0.0 and side_weight(right, crit) > 0.0:
        return side_impurity(left, crit) + side_impurity(right, crit)
    return np.inf


@inlined
def _midpoint(low, high):
    """The threshold between two adjacent values: their midpoint, or ``low`` where the
    midpoint of adjacent floats rounds onto ``high``."""
    t = 0.5 * (low + high)
    return t if t < high else low


@internal
def histogram_search(z, S, crit, min_leaf, n_bins, exact, hist, count, low, high, sides):
    """The best threshold on the projection ``z`` among the boundaries of ``n_bins``
    equal-width bins of its range, in ``O(m + n_bins k)`` instead of the sort's ``O(m
    log m)``.

    The rows' statistics are summed per bin (a histogram, as the engine's split search
    sums gradients per bin), with each bin's smallest and largest value; one sweep over
    the bins scores every cut between two non-empty bins, ``W_L I_L + W_R I_R``.  The
    threshold returned is the midpoint between the largest value left of the cut and
    the smallest value right of it, so the rows are routed exactly as the histogram
    counted them.  With ``exact``, a histogram in which two different values share a
    bin (a cut between them would be lost) is not swept: ``score = nan`` says so, and
    the caller sorts instead.  ``hist`` (at least ``n_bins x k``), ``count``, ``low``,
    ``high`` (at least ``n_bins``) and ``sides`` (``(3, k)``) are work arrays,
    overwritten.  Returns ``(threshold, score)``, ``score = inf`` when no cut leaves
    ``min_leaf`` rows and a positive weight on each side.
    """
    m, k = S.shape
    lo = np.inf
    hi = -np.inf
    for j in range(m):
        if z[j] < lo:
            lo = z[j]
        if z[j] > hi:
            hi = z[j]
    if not hi > lo:
        return 0.0, np.inf
    hist[:n_bins] = 0.0
    count[:n_bins] = 0
    low[:n_bins] = np.inf
    high[:n_bins] = -np.inf
    per_unit = n_bins / (hi - lo)
    for j in range(m):
        b = int((z[j] - lo) * per_unit)
        if b >= n_bins:
            b = n_bins - 1
        for c in range(k):
            hist[b, c] += S[j, c]
        count[b] += 1
        if z[j] < low[b]:
            low[b] = z[j]
        if z[j] > high[b]:
            high[b] = z[j]
    if exact:
        for b in range(n_bins):
            if low[b] < high[b]:
                return 0.0, np.nan
    total, left, right = sides[0], sides[1], sides[2]
    total[:] = 0.0
    left[:] = 0.0
    for b in range(n_bins):
        for c in range(k):
            total[c] += hist[b, c]
    n_left = 0
    prev_high = -np.inf
    best = np.inf
    best_t = 0.0
    for b in range(n_bins):
        if count[b] == 0:
            continue
        if n_left >= min_leaf and m - n_left >= min_leaf:
            score = _cut_score(total, left, right, crit)
            if score < best:
                best = score
                best_t = _midpoint(prev_high, low[b])
        for c in range(k):
            left[c] += hist[b, c]
        n_left += count[b]
        prev_high = high[b]
    return best_t, best


#: a node of at most this many rows is sorted by insertion (no allocation)
INSERTION_ROWS = 32


@internal
def sorted_search(z, S, crit, min_leaf, order, sides):
    """The best threshold of ``z`` among all ``m - 1`` cuts between its sorted values:
    the rows ordered by ``z`` (insertion sort up to :data:`INSERTION_ROWS` rows, into
    the work array ``order``), then one sweep that scores each cut between two
    different values, ``W_L I_L + W_R I_R``, each side holding at least ``min_leaf``
    rows and a positive weight.  The threshold is the midpoint of the two values (the
    left one where the midpoint rounds onto the right one), as
    :func:`histogram_search` returns it.  ``sides`` (``(3, k)``) is a work array.
    Returns ``(threshold, score)``, ``score = inf`` when no cut is allowed."""
    m, k = S.shape
    if m <= INSERTION_ROWS:
        for i in range(m):
            j = i
            v = z[i]
            while j > 0 and z[order[j - 1]] > v:
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
    else:
        order[:m] = np.argsort(z)
    total, left, right = sides[0], sides[1], sides[2]
    total[:] = 0.0
    left[:] = 0.0
    for j in range(m):
        for c in range(k):
            total[c] += S[j, c]
    best = np.inf
    best_t = 0.0
    hi = m - min_leaf
    for i in range(m - 1):
        j = order[i]
        for c in range(k):
            left[c] += S[j, c]
        here = z[j]
        nxt = z[order[i + 1]]
        if not nxt > here or i + 1 < min_leaf or i + 1 > hi:
            continue
        score = _cut_score(total, left, right, crit)
        if score < best:
            best = score
            best_t = _midpoint(here, nxt)
    return best_t, best
