"""Growing an oblique tree in one compiled call, and routing rows through one.

The node's hyperplane is found in standardised units (:mod:`._splitters`) and stored in
the units of X: ``sum_f a_f x_f <= tau`` with ``a_f = w_f / s_f`` and ``tau = t + sum_f
w_f mu_f / s_f`` (``mu``, ``s``: the training mean and standard deviation), the weights
scaled so that the largest ``|w_f|`` is 1.  A missing ``x_f`` is replaced by the node's
training mean of attribute ``f`` (``fill``), in training and in prediction alike, so the
rows are partitioned by exactly the test that predict applies.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engine import internal, kernel
from ._search import side_impurity
from ._splitters import (
    AXIS,
    OC1,
    SPORF,
    best_axis,
    gather,
    linear_split,
    oc1_split,
    row_weights_into,
    sporf_split,
    sporf_work,
)


class GrowParams(NamedTuple):
    """What the grower reads besides the data (ints and floats only)."""

    crit: int
    splitter: int
    max_depth: int
    min_samples_split: int
    min_samples_leaf: int
    min_impurity_decrease: float
    max_leaf_nodes: int
    n_restarts: int
    n_jumps: int
    max_cycles: int
    n_projections: int
    density: float
    #: bins of a projection's histogram search (SPORF); 0: the exact sorted search
    n_bins: int
    seed: int


class GrownArrays(NamedTuple):
    """The grower's output, one row per node (projections as compressed rows)."""

    children_left: np.ndarray
    children_right: np.ndarray
    threshold: np.ndarray
    proj_ptr: np.ndarray
    proj_feature: np.ndarray
    proj_weight: np.ndarray
    proj_fill: np.ndarray
    node_stats: np.ndarray
    n_node_samples: np.ndarray
    depth: np.ndarray


@internal
def _split_node(X, rows, mean, scale, S, p, feats, coefs, fills, work):
    """The node's split written to ``feats/coefs/fills`` (raw units): returns ``(nnz,
    tau, score)``; ``score = inf``: none."""
    d = X.shape[1]
    m = rows.shape[0]
    k = S.shape[1]
    Sn = work.stats[:m]
    wt = work.weight[:m]
    for i in range(m):
        for c in range(k):
            Sn[i, c] = S[rows[i], c]
    row_weights_into(Sn, p.crit, wt)
    w = work.node_w
    w[:] = 0.0
    fill = work.fill
    fill[:] = np.nan
    if p.splitter == SPORF:
        t, score = sporf_split(
            X,
            rows,
            mean,
            scale,
            wt,
            Sn,
            p.crit,
            p.min_samples_leaf,
            p.n_projections,
            p.density,
            p.n_bins,
            fill,
            w,
            work,
        )
    else:
        Z = gather(X, rows, mean, scale, wt, fill)
        if p.splitter == AXIS:
            f, t, score = best_axis(Z, Sn, p.crit, p.min_samples_leaf)
            if f >= 0:
                w[f] = 1.0
        elif p.splitter == OC1:
            t, score = oc1_split(
                Z, Sn, p.crit, p.min_samples_leaf, p.n_restarts, p.n_jumps, p.max_cycles, w
            )
        else:
            t, score = linear_split(Z, Sn, p.crit, p.min_samples_leaf, w)
    if score == np.inf:
        return 0, 0.0, score
    top = np.abs(w).max()
    if not top > 0.0:
        return 0, 0.0, np.inf
    nnz = 0
    tau = t / top
    for f in range(d):
        if w[f] != 0.0:
            a = w[f] / top
            feats[nnz] = f
            coefs[nnz] = a / scale[f]
            fills[nnz] = mean[f] + scale[f] * (0.0 if np.isnan(fill[f]) else fill[f])
            tau += a * mean[f] / scale[f]
            nnz += 1
    return nnz, tau, score


@internal
def _grow_buffer(a, need):
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@kernel
def grow_tree(X, mean, scale, S, rows, p):
    """Grow a tree on ``rows`` of ``X`` (depth first, or best first by impurity
    decrease when ``p.max_leaf_nodes > 0``).  ``rows`` is reordered in place."""
    np.random.seed(p.seed)
    n, d = X.shape
    k = S.shape[1]
    cap = max(2 * rows.shape[0] - 1, 1)
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    thr = np.zeros(cap)
    depth = np.zeros(cap, dtype=np.int64)
    start = np.zeros(cap, dtype=np.int64)
    stop = np.zeros(cap, dtype=np.int64)
    gain = np.full(cap, -np.inf)
    stats = np.zeros((cap, k))
    count = np.zeros(cap, dtype=np.int64)
    ptr = np.zeros(cap + 1, dtype=np.int64)
    pf = np.empty(64, dtype=np.int64)
    pw = np.empty(64)
    pfill = np.empty(64)
    feats = np.empty(d, dtype=np.int64)
    coefs = np.empty(d)
    fills = np.empty(d)
    pending = np.empty(cap, dtype=np.int64)
    work = sporf_work(rows.shape[0], d, k, p.n_bins)
    total_w = 0.0
    for i in range(rows.shape[0]):
        for c in range(k):
            stats[0, c] += S[rows[i], c]
    s0 = stats[0]
    total_w = s0[0] if p.crit == 2 else s0.sum()
    n_nodes = 0
    n_pending = 0
    n_leaves = 1
    buf = np.empty(rows.shape[0], dtype=np.int64)
    # node 0: the root
    start[0], stop[0], depth[0] = 0, rows.shape[0], 0
    n_nodes = 1
    todo_lo = 0
    while True:
        # evaluate the nodes created since the last pass (the root, or two children)
        for node in range(todo_lo, n_nodes):
            seg = rows[start[node] : stop[node]]
            m = seg.shape[0]
            count[node] = m
            if node > 0:
                for i in range(m):
                    for c in range(k):
                        stats[node, c] += S[seg[i], c]
            imp = side_impurity(stats[node], p.crit)
            ptr[node + 1] = ptr[node]
            if (
                m < p.min_samples_split
                or m < 2 * p.min_samples_leaf
                or (p.max_depth >= 0 and depth[node] >= p.max_depth)
                or imp <= 1e-12 * total_w
            ):
                continue
            nnz, tau, score = _split_node(X, seg, mean, scale, S, p, feats, coefs, fills, work)
            if score == np.inf:
                continue
            decrease = (imp - score) / total_w
            if decrease < p.min_impurity_decrease:
                continue
            gain[node] = decrease
            thr[node] = tau
            pf = _grow_buffer(pf, ptr[node] + nnz)
            pw = _grow_buffer(pw, ptr[node] + nnz)
            pfill = _grow_buffer(pfill, ptr[node] + nnz)
            for q in range(nnz):
                pf[ptr[node] + q] = feats[q]
                pw[ptr[node] + q] = coefs[q]
                pfill[ptr[node] + q] = fills[q]
            ptr[node + 1] = ptr[node] + nnz
            pending[n_pending] = node
            n_pending += 1
        todo_lo = n_nodes
        # the next node to split
        chosen = -1
        while n_pending > 0 and chosen < 0:
            at = n_pending - 1
            if p.max_leaf_nodes > 0:
                for i in range(n_pending):
                    if gain[pending[i]] > gain[pending[at]]:
                        at = i
                if n_leaves >= p.max_leaf_nodes:
                    n_pending = 0
                    break
            node = pending[at]
            for i in range(at, n_pending - 1):
                pending[i] = pending[i + 1]
            n_pending -= 1
            # partition by the stored (raw) test, as predict routes
            lo, hi = start[node], stop[node]
            nl = 0
            nr = 0
            for i in range(lo, hi):
                r = rows[i]
                z = 0.0
                for q in range(ptr[node], ptr[node + 1]):
                    x = X[r, pf[q]]
                    z += pw[q] * (pfill[q] if np.isnan(x) else x)
                if z <= thr[node]:
                    rows[lo + nl] = r
                    nl += 1
                else:
                    buf[nr] = r
                    nr += 1
            rows[lo + nl : hi] = buf[:nr]
            if nl < p.min_samples_leaf or nr < p.min_samples_leaf or nl == 0 or nr == 0:
                # rounding moved a row across the hyperplane: the node stays a leaf
                continue
            chosen = node
        if chosen < 0:
            break
        node = chosen
        start[n_nodes], stop[n_nodes] = start[node], start[node] + nl
        start[n_nodes + 1], stop[n_nodes + 1] = start[node] + nl, stop[node]
        depth[n_nodes] = depth[n_nodes + 1] = depth[node] + 1
        left[node], right[node] = n_nodes, n_nodes + 1
        n_nodes += 2
        n_leaves += 1
    # a leaf keeps no projection
    out_ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    for i in range(n_nodes):
        out_ptr[i + 1] = out_ptr[i] + (ptr[i + 1] - ptr[i] if left[i] >= 0 else 0)
    nnz_all = out_ptr[n_nodes]
    of = np.empty(nnz_all, dtype=np.int64)
    ow = np.empty(nnz_all)
    ofill = np.empty(nnz_all)
    for i in range(n_nodes):
        if left[i] >= 0:
            span = ptr[i + 1] - ptr[i]
            of[out_ptr[i] : out_ptr[i] + span] = pf[ptr[i] : ptr[i + 1]]
            ow[out_ptr[i] : out_ptr[i] + span] = pw[ptr[i] : ptr[i + 1]]
            ofill[out_ptr[i] : out_ptr[i] + span] = pfill[ptr[i] : ptr[i + 1]]
        else:
            thr[i] = 0.0
    return (
        left[:n_nodes].copy(),
        right[:n_nodes].copy(),
        thr[:n_nodes].copy(),
        out_ptr,
        of,
        ow,
        ofill,
        stats[:n_nodes].copy(),
        count[:n_nodes].copy(),
        depth[:n_nodes].copy(),
    )


@kernel
def apply_rows(X, left, right, thr, ptr, feat, coef, fill):
    """The leaf each row of X reaches: left when ``sum_q coef_q x_{feat_q} <= thr``
    (a missing ``x`` replaced by the node's ``fill``)."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    for r in range(n):
        node = 0
        while left[node] >= 0:
            z = 0.0
            for q in range(ptr[node], ptr[node + 1]):
                x = X[r, feat[q]]
                z += coef[q] * (fill[q] if np.isnan(x) else x)
            node = left[node] if z <= thr[node] else right[node]
        out[r] = node
    return out


@kernel
def path_rows(X, left, right, thr, ptr, feat, coef, fill, max_depth):
    """The nodes each row visits, root first, padded with -1: ``(n, max_depth + 1)``."""
    n = X.shape[0]
    out = np.full((n, max_depth + 1), -1, dtype=np.int64)
    for r in range(n):
        node = 0
        at = 0
        out[r, 0] = 0
        while left[node] >= 0:
            z = 0.0
            for q in range(ptr[node], ptr[node + 1]):
                x = X[r, feat[q]]
                z += coef[q] * (fill[q] if np.isnan(x) else x)
            node = left[node] if z <= thr[node] else right[node]
            at += 1
            out[r, at] = node
    return out
