"""The split of one node: OC1's search, a linear classifier's direction, or sparse
random projections (SPORF).

Each splitter sees the node's rows standardised (``z = (x - mean) / scale``, the
training set's mean and standard deviation) with a missing value replaced by the node's
weighted mean of that attribute, and returns a hyperplane ``w . z <= t`` in that space.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engine import internal
from ._search import (
    INSERTION_ROWS,
    SQUARED_ERROR,
    histogram_search,
    line_search,
    sorted_search,
)

#: splitter codes of the kernels
AXIS, OC1, LINEAR, SPORF = 0, 1, 2, 3
#: bins of a projection's histogram per row of a node of at most ``max_bins`` rows:
#: enough that two different values rarely share one (which sends the node to a sort)
HIST_BINS_PER_ROW = 4


class SporfWork(NamedTuple):
    """The work arrays of a node's split (:func:`sporf_split`'s among them), allocated
    once a tree for its root (a node takes their first ``m`` rows): a small node's
    split costs little more than their allocation would."""

    stats: np.ndarray  # (n, k) the node's rows' statistics
    weight: np.ndarray  # (n,) their weights
    z: np.ndarray  # (n,) the projection of the node's rows
    perm: np.ndarray  # (d,) int64: attributes, partly shuffled per projection
    hist: np.ndarray  # (n_hist, k) a projection's histogram
    count: np.ndarray  # (n_hist,) int64
    low: np.ndarray  # (n_hist,)
    high: np.ndarray  # (n_hist,)
    order: np.ndarray  # (n,) int64: a small node's rows in the order of z
    sides: np.ndarray  # (3, k): a search's total, left and right statistics
    proj: np.ndarray  # (d,) a projection's weights
    node_w: np.ndarray  # (d,) the node's split weights
    fill: np.ndarray  # (d,) the node's fills (NaN: not computed)


@internal
def sporf_work(n, d, k, n_bins):
    """The :class:`SporfWork` of a tree of ``n`` rows, ``d`` attributes and ``k``
    statistics whose histograms have at most ``n_bins`` bins."""
    n_hist = max(1, n_bins)
    return SporfWork(
        np.empty((n, k)),
        np.empty(n),
        np.empty(n),
        np.arange(d),
        np.empty((n_hist, k)),
        np.empty(n_hist, dtype=np.int64),
        np.empty(n_hist),
        np.empty(n_hist),
        np.empty(n, dtype=np.int64),
        np.empty((3, k)),
        np.empty(d),
        np.empty(d),
        np.empty(d),
    )


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


@internal
def sporf_split(
    X, rows, mean, scale, wt, S, crit, min_leaf, n_proj, density, n_bins, fill, out_w, work
):
    """Sparse random projections (Tomita et al. 2020): ``n_proj`` directions, each with
    ``1 + Poisson(density - 1)`` non-zero weights (at most the number of attributes) on
    attributes drawn without replacement, each weight +1 or -1; the best threshold of
    each projection by :func:`histogram_search`: over ``n_bins`` bins at a node of more
    rows than that, exactly at a smaller one (four bins a row, sorted by
    :func:`sorted_search` where two different values share a bin); by
    :func:`sorted_search` at a node of at most :data:`INSERTION_ROWS` rows (no
    histogram to clear) and at every node with ``n_bins = 0``.  Missing values take the
    node's mean (``fill``, filled for the attributes drawn; NaN marks one not
    computed).  ``work``: the tree's :class:`SporfWork`."""
    m, d = rows.shape[0], X.shape[1]
    # a node of at most n_bins rows is searched exactly: sorted by insertion up to
    # INSERTION_ROWS rows, above by a histogram of 4 bins a row (sorted where two
    # different values share a bin)
    exact = m <= n_bins
    n_hist = min(n_bins, HIST_BINS_PER_ROW * m)
    hist, count, low, high = work.hist, work.count, work.low, work.high
    perm = work.perm
    z = work.z[:m]
    w = work.proj
    best, best_t = np.inf, 0.0
    lam = density - 1.0 if density > 1.0 else 0.0
    for _p in range(n_proj):
        nnz = 1 + (np.random.poisson(lam) if lam > 0.0 else 0)
        if nnz > d:
            nnz = d
        for i in range(nnz):
            j = i + np.random.randint(d - i)
            perm[i], perm[j] = perm[j], perm[i]
        z[:] = 0.0
        w[:] = 0.0
        for q in range(nnz):
            f = perm[q]
            s = 1.0 if np.random.random() < 0.5 else -1.0
            w[f] = s
            mu = mean[f]
            inv = 1.0 / scale[f]
            if np.isnan(fill[f]):
                # the node's mean of the attribute in the pass that projects it; the
                # missing values are added once it is known
                num = 0.0
                den = 0.0
                n_missing = 0
                for i in range(m):
                    x = X[rows[i], f]
                    if np.isnan(x):
                        n_missing += 1
                    else:
                        v = (x - mu) * inv
                        z[i] += s * v
                        num += wt[i] * v
                        den += wt[i]
                fill[f] = num / den if den > 0.0 else 0.0
                if n_missing > 0:
                    for i in range(m):
                        if np.isnan(X[rows[i], f]):
                            z[i] += s * fill[f]
            else:
                for i in range(m):
                    x = X[rows[i], f]
                    z[i] += s * (fill[f] if np.isnan(x) else (x - mu) * inv)
        sc = np.nan
        if n_bins > 0 and m > INSERTION_ROWS:
            # the histogram's O(m + bins) against the sort's O(m log m)
            t, sc = histogram_search(
                z, S, crit, min_leaf, n_hist, exact, hist, count, low, high, work.sides
            )
        if np.isnan(sc):
            t, sc = sorted_search(z, S, crit, min_leaf, work.order, work.sides)
        if sc < best:
            best, best_t = sc, t
            out_w[:] = w
    return best_t, best
