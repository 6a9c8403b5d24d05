"""The split of one node: OC1's search or a linear classifier's direction (the sparse
random projections of the forests are :mod:`._projections`).

Each splitter sees the node's rows standardised (``z = (x - mean) / scale``, the
training set's mean and standard deviation) with a missing value replaced by the node's
weighted mean of that attribute, and returns a hyperplane ``w . z <= t`` in that space.
"""

from __future__ import annotations

import numpy as np

from ..engine import internal
from ._search import SQUARED_ERROR, line_search

#: splitter codes of the kernels
AXIS, OC1, LINEAR, SPORF = 0, 1, 2, 3


@internal
def row_weights(S, crit):
    return row_weights_into(S, crit, np.empty(S.shape[0]))


@internal
def row_weights_into(S, crit, w):
    """Each row's weight into ``w`` (returned): ``w`` of ``(w, w y, w y^2)``, or the sum
    of a row's class weights."""
    for i in range(S.shape[0]):
        if crit == SQUARED_ERROR:
            w[i] = S[i, 0]
        else:
            t = 0.0
            for c in range(S.shape[1]):
                t += S[i, c]
            w[i] = t
    return w


@internal
def node_fill(X, rows, f, mean, scale, w):
    """The node's weighted mean of attribute ``f`` (standardised) over its non-missing
    rows; 0 (the training mean) when the node has none."""
    num = 0.0
    den = 0.0
    for i in range(rows.shape[0]):
        x = X[rows[i], f]
        if not np.isnan(x):
            num += w[i] * (x - mean[f]) / scale[f]
            den += w[i]
    return num / den if den > 0.0 else 0.0


@internal
def gather(X, rows, mean, scale, w, fill):
    """The node's standardised rows, missing values filled (``fill`` receives the fills)."""
    m, d = rows.shape[0], X.shape[1]
    Z = np.empty((m, d))
    for f in range(d):
        fill[f] = node_fill(X, rows, f, mean, scale, w)
        for i in range(m):
            x = X[rows[i], f]
            Z[i, f] = fill[f] if np.isnan(x) else (x - mean[f]) / scale[f]
    return Z


@internal
def best_axis(Z, S, crit, min_leaf):
    """The best single-attribute split: ``(feature, threshold, score)``."""
    m, d = Z.shape
    minus = -np.ones(m)
    best, bf, bt = np.inf, -1, 0.0
    for f in range(d):
        t, sc = line_search(Z[:, f].copy(), minus, S, crit, min_leaf)
        if sc < best:
            best, bf, bt = sc, f, t
    return bf, bt, best


@internal
def perturb(Z, S, crit, min_leaf, w, t, score, n_jumps, max_cycles):
    """OC1's local search from the hyperplane ``(w, t)``, improved in place.

    One cycle perturbs each coefficient in turn, ``w_1 .. w_d`` then ``t``: with the
    others fixed, the best value of ``w_m`` is one of the ``U_j = w_m - v_j / z_jm``
    (``v_j = w . z_j - t``), found by :func:`line_search`.  A strictly better value is
    always taken; an equal one with probability ``exp(-n_stagnant)`` (Murthy et al.'s
    ``P_move``), to drift along plateaus.  At a local minimum up to ``n_jumps`` random
    directions ``r`` are tried (a step along ``r`` optimised the same way); a jump that
    improves restarts the cycles.  Returns ``(t, score)``."""
    m, d = Z.shape
    v = Z @ w - t
    minus = -np.ones(m)
    stagnant = 0
    for _cycle in range(max_cycles):
        improved = False
        for c in range(d + 1):
            dirv = minus if c == d else Z[:, c].copy()
            alpha, sc = line_search(v, dirv, S, crit, min_leaf)
            if sc == np.inf:
                continue
            take = False
            if sc < score - 1e-12 * abs(score):
                take = True
                stagnant = 0
                improved = True
            elif sc <= score and alpha != 0.0 and np.random.random() < np.exp(-stagnant):
                take = True
                stagnant += 1
            if take:
                if c == d:
                    t += alpha
                else:
                    w[c] += alpha
                v += alpha * dirv
                score = min(sc, score)
        if improved:
            continue
        jumped = False
        for _j in range(n_jumps):
            r = np.random.uniform(-1.0, 1.0, d)
            dirv = Z @ r
            alpha, sc = line_search(v, dirv, S, crit, min_leaf)
            if sc < score - 1e-12 * abs(score):
                w += alpha * r
                v += alpha * dirv
                score = sc
                jumped = True
                break
        if not jumped:
            break
    return t, score


@internal
def oc1_split(Z, S, crit, min_leaf, n_restarts, n_jumps, max_cycles, out_w):
    """OC1 at a node: the best axis-parallel split and ``n_restarts`` random hyperplanes,
    each improved by :func:`perturb`; the best is written to ``out_w``.  Returns
    ``(t, score)``."""
    m, d = Z.shape
    f, t0, best = best_axis(Z, S, crit, min_leaf)
    if f < 0:
        return 0.0, np.inf
    w = np.zeros(d)
    w[f] = 1.0
    t, best = perturb(Z, S, crit, min_leaf, w, t0, best, n_jumps, max_cycles)
    out_w[:] = w
    best_t = t
    minus = -np.ones(m)
    for _r in range(n_restarts):
        w = np.random.uniform(-1.0, 1.0, d)
        t, sc = line_search(Z @ w, minus, S, crit, min_leaf)
        if sc == np.inf:
            continue
        t, sc = perturb(Z, S, crit, min_leaf, w, t, sc, n_jumps, max_cycles)
        if sc < best:
            best = sc
            best_t = t
            out_w[:] = w
    return best_t, best


@internal
def linear_direction(Z, S, crit, c):
    """A linear model's direction on the node: for classification Fisher's discriminant
    of class ``c`` against the rest, ``Sigma_w^{-1} (mu_c - mu_rest)`` (pooled
    within-group covariance, weighted); for regression the weighted least-squares slope
    ``(Z^T W Z)^{-1} Z^T W (y - ybar)`` on centred Z; both with a small ridge."""
    m, d = Z.shape
    wt = row_weights(S, crit)
    W = wt.sum()
    A = np.zeros((d, d))
    b = np.zeros(d)
    if crit == SQUARED_ERROR:
        y = np.empty(m)
        for i in range(m):
            y[i] = S[i, 1] / S[i, 0] if S[i, 0] > 0.0 else 0.0
        mu = (Z.T @ wt) / W
        ybar = (y * wt).sum() / W
        Zc = Z - mu
        A = (Zc.T * wt) @ Zc
        b = (Zc.T * wt) @ (y - ybar)
    else:
        g = S[:, c].copy()
        h = wt - g
        G, H = g.sum(), h.sum()
        if G <= 0.0 or H <= 0.0:
            return np.zeros(d)
        mu1 = (Z.T @ g) / G
        mu0 = (Z.T @ h) / H
        Z1 = Z - mu1
        Z0 = Z - mu0
        A = (Z1.T * g) @ Z1 + (Z0.T * h) @ Z0
        b = mu1 - mu0
        A /= W
    ridge = 1e-6 * (np.trace(A) / d + 1e-12) + 1e-12
    for i in range(d):
        A[i, i] += ridge
    return np.linalg.solve(A, b)


@internal
def linear_split(Z, S, crit, min_leaf, out_w):
    """The better of the best single-attribute split and the linear model's direction
    (one per class for more than two classes) with its best threshold."""
    m, d = Z.shape
    f, t, best = best_axis(Z, S, crit, min_leaf)
    if f < 0:
        return 0.0, np.inf
    out_w[:] = 0.0
    out_w[f] = 1.0
    minus = -np.ones(m)
    n_dir = 1 if crit == SQUARED_ERROR or S.shape[1] <= 2 else S.shape[1]
    for c in range(n_dir):
        w = linear_direction(Z, S, crit, 1 if n_dir == 1 and crit != SQUARED_ERROR else c)
        if not np.all(np.isfinite(w)) or np.abs(w).max() == 0.0:
            continue
        tc, sc = line_search(Z @ w, minus, S, crit, min_leaf)
        if sc < best:
            best, t = sc, tc
            out_w[:] = w
    return t, best
