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
