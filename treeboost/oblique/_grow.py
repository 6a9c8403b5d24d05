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

from ..engine import inlined, internal, kernel, stopping_allows
from ._projections import node_fill, projection_work, sporf_split
from ._search import side_impurity, side_weight
from ._splitters import (
    AXIS,
    OC1,
    SPORF,
    best_axis,
    gather,
    linear_split,
    oc1_split,
    row_weights_into,
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
    #: bins of a projection's search above this many rows (SPORF); 0: always exact
    n_bins: int
    seed: int
    #: the stopping rules' weight floor (:func:`~treeboost.engine.stopping_allows`)
    min_weight_leaf: float = 0.0


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
def _linear_split(X, rows, mean, scale, S, p, w, fill):
    """OC1's, the linear model's or the best axis-parallel split of the node's rows in
    standardised units: returns ``(t, score)``, the weights in ``w`` and the node's fills
    in ``fill``."""
    m = rows.shape[0]
    k = S.shape[1]
    Sn = np.empty((m, k))
    for i in range(m):
        for c in range(k):
            Sn[i, c] = S[rows[i], c]
    wt = row_weights_into(Sn, p.crit, np.empty(m))
    Z = gather(X, rows, mean, scale, wt, fill)
    if p.splitter == AXIS:
        f, t, score = best_axis(Z, Sn, p.crit, p.min_samples_leaf)
        if f >= 0:
            w[f] = 1.0
        return t, score
    if p.splitter == OC1:
        return oc1_split(
            Z, Sn, p.crit, p.min_samples_leaf, p.n_restarts, p.n_jumps, p.max_cycles, w
        )
    return linear_split(Z, Sn, p.crit, p.min_samples_leaf, w)


@internal
def _linear_node(X, rows, mean, scale, S, p, out):
    """The node's split by :func:`_linear_split`, written to ``out`` in the units of X
    (the weights scaled so that the largest ``|w_f|`` is 1): returns ``(nnz, tau,
    score)``; ``score = inf``: none."""
    d = X.shape[1]
    w = np.zeros(d)
    fill = np.empty(d)
    t, score = _linear_split(X, rows, mean, scale, S, p, w, fill)
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
            out.feature[nnz] = f
            out.coef[nnz] = a / scale[f]
            out.fill[nnz] = mean[f] + scale[f] * fill[f]
            tau += a * mean[f] / scale[f]
            nnz += 1
    return nnz, tau, score


@inlined
def _projection_node(data, rows, start, m, node, p, work, out):
    """The node's split by sparse random projections (:func:`._projections.sporf_split`),
    written to ``out`` in the units of X, its attributes in ascending order: returns
    ``(nnz, tau, score)``; ``score = inf``: none."""
    ZT, mean, scale = data.ZT, data.mean, data.scale
    t, score, nnz = sporf_split(ZT, data.has_nan, data.S, rows, start, m, node, p, work)
    if score == np.inf:
        return 0, 0.0, score
    best, sign = work.best, work.best_sign
    # ascending attributes (insertion: a handful of them)
    for i in range(1, nnz):
        f, s = best[i], sign[i]
        j = i
        while j > 0 and best[j - 1] > f:
            best[j] = best[j - 1]
            sign[j] = sign[j - 1]
            j -= 1
        best[j], sign[j] = f, s
    tau = t
    for q in range(nnz):
        f = best[q]
        if work.fill_node[f] == node:
            fill = work.fill[f]
        else:
            fill = node_fill(ZT, rows, start, m, f, work.weight)
        out.feature[q] = f
        out.coef[q] = sign[q] / scale[f]
        out.fill[q] = mean[f] + scale[f] * fill
        tau += sign[q] * mean[f] / scale[f]
    return nnz, tau, score


class GrowInputs(NamedTuple):
    """What the grower reads of the data: X, the standardised attributes one row an
    attribute (``ZT``, read by the projections), the attributes with a missing value,
    the standardisation and the per-sample statistics."""

    X: np.ndarray
    ZT: np.ndarray
    has_nan: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    S: np.ndarray


class NodeTest(NamedTuple):
    """One node's test ``sum_q coef_q x_{feature_q} <= tau`` as the splitters write it."""

    feature: np.ndarray
    coef: np.ndarray
    fill: np.ndarray


class NodeArrays(NamedTuple):
    """The grower's per-node arrays (a node's rows are ``rows[start:stop]``)."""

    left: np.ndarray
    right: np.ndarray
    threshold: np.ndarray
    depth: np.ndarray
    start: np.ndarray
    stop: np.ndarray
    gain: np.ndarray
    stats: np.ndarray
    count: np.ndarray
    ptr: np.ndarray


@internal
def node_arrays(cap, k):
    """:class:`NodeArrays` for at most ``cap`` nodes of ``k`` statistics."""
    return NodeArrays(
        np.full(cap, -1, dtype=np.int64),
        np.full(cap, -1, dtype=np.int64),
        np.zeros(cap),
        np.zeros(cap, dtype=np.int64),
        np.zeros(cap, dtype=np.int64),
        np.zeros(cap, dtype=np.int64),
        np.full(cap, -np.inf),
        np.zeros((cap, k)),
        np.zeros(cap, dtype=np.int64),
        np.zeros(cap + 1, dtype=np.int64),
    )


@internal
def _grow_buffer(a, need):
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@inlined
def _partition(X, rows, lo, hi, first, last, tests, tau, buf):
    """Reorder ``rows[lo:hi]``, those with ``sum_q coef_q x_{feature_q} <= tau`` (``q``
    in ``[first, last)`` of the :class:`NodeTest` arrays ``tests``, a missing ``x``
    replaced by ``fill_q``) first, by the stored test in the units of X, exactly as
    predict routes: returns the left count."""
    pf, pw, pfill = tests.feature, tests.coef, tests.fill
    nl = 0
    nr = 0
    for i in range(lo, hi):
        r = rows[i]
        z = 0.0
        for q in range(first, last):
            x = X[r, pf[q]]
            z += pw[q] * (pfill[q] if np.isnan(x) else x)
        if z <= tau:
            rows[lo + nl] = r
            nl += 1
        else:
            buf[nr] = r
            nr += 1
    for i in range(nr):
        rows[lo + nl + i] = buf[i]
    return nl


@inlined
def _pop_next(a, pending, n_pending, n_leaves, max_leaf_nodes):
    """The pending node to split next (the last one, depth first; the one of largest
    impurity decrease with ``max_leaf_nodes``), removed from ``pending``: ``(node,
    n_pending)``, node -1 when none may split."""
    if n_pending == 0:
        return -1, 0
    at = n_pending - 1
    if max_leaf_nodes > 0:
        if n_leaves >= max_leaf_nodes:
            return -1, 0
        for i in range(n_pending):
            if a.gain[pending[i]] > a.gain[pending[at]]:
                at = i
    node = pending[at]
    for i in range(at, n_pending - 1):
        pending[i] = pending[i + 1]
    return node, n_pending - 1


@internal
def _compact(a, n_nodes, tests):
    """The grower's output: the first ``n_nodes`` nodes, projections (``tests``, a
    :class:`NodeTest` of every node's) kept for the internal nodes only (a leaf keeps
    none, and threshold 0)."""
    pf, pw, pfill = tests.feature, tests.coef, tests.fill
    ptr = a.ptr
    out_ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    for i in range(n_nodes):
        out_ptr[i + 1] = out_ptr[i] + (ptr[i + 1] - ptr[i] if a.left[i] >= 0 else 0)
    nnz_all = out_ptr[n_nodes]
    of = np.empty(nnz_all, dtype=np.int64)
    ow = np.empty(nnz_all)
    ofill = np.empty(nnz_all)
    thr = a.threshold[:n_nodes].copy()
    for i in range(n_nodes):
        if a.left[i] >= 0:
            for q in range(ptr[i + 1] - ptr[i]):
                of[out_ptr[i] + q] = pf[ptr[i] + q]
                ow[out_ptr[i] + q] = pw[ptr[i] + q]
                ofill[out_ptr[i] + q] = pfill[ptr[i] + q]
        else:
            thr[i] = 0.0
    return (
        a.left[:n_nodes].copy(),
        a.right[:n_nodes].copy(),
        thr,
        out_ptr,
        of,
        ow,
        ofill,
        a.stats[:n_nodes].copy(),
        a.count[:n_nodes].copy(),
        a.depth[:n_nodes].copy(),
    )


@inlined
def _node_split(data, rows, node, a, p, work, out):
    """Whether node ``node`` (its statistics summed) may split, and its split:
    ``(nnz, tau, score)`` with ``score = inf`` where it stays a leaf."""
    lo, hi = a.start[node], a.stop[node]
    m = hi - lo
    imp = side_impurity(a.stats[node], p.crit)
    if not stopping_allows(a.depth[node], m, side_weight(a.stats[node], p.crit), p):
        return 0, 0.0, np.inf
    if imp <= 1e-12 * side_weight(a.stats[0], p.crit):
        return 0, 0.0, np.inf
    if p.splitter == SPORF:
        return _projection_node(data, rows, lo, m, node, p, work, out)
    return _linear_node(data.X, rows[lo:hi], data.mean, data.scale, data.S, p, out)


@kernel
def grow_tree(X, ZT, has_nan, mean, scale, S, rows, p):
    """Grow a tree on ``rows`` of ``X`` (depth first, or best first by impurity
    decrease when ``p.max_leaf_nodes > 0``).  ``rows`` is reordered in place.  ``ZT``:
    the standardised attributes, one row an attribute, and ``has_nan`` those with a
    missing value (read by the projection splitter only)."""
    # OC1's restarts and jumps draw from numba's generator; the projections from their own
    np.random.seed(p.seed)
    d = X.shape[1]
    k = S.shape[1]
    n_rows = rows.shape[0]
    a = node_arrays(max(2 * n_rows - 1, 1), k)
    work = projection_work(
        S, rows if p.splitter == SPORF else rows[:0], p.crit, p.n_bins, d, p.seed
    )
    out = NodeTest(np.empty(d, dtype=np.int64), np.empty(d), np.empty(d))
    data = GrowInputs(X, ZT, has_nan, mean, scale, S)
    pf = np.empty(64, dtype=np.int64)
    pw = np.empty(64)
    pfill = np.empty(64)
    pending = np.empty(a.left.shape[0], dtype=np.int64)
    buf = np.empty(n_rows, dtype=np.int64)
    stats = a.stats
    for i in range(n_rows):
        for c in range(k):
            stats[0, c] += S[rows[i], c]
    total_w = side_weight(stats[0], p.crit)
    a.stop[0] = n_rows
    n_nodes, n_pending, n_leaves, todo_lo = 1, 0, 1, 0
    while True:
        # evaluate the nodes created since the last pass (the root, or two children)
        for node in range(todo_lo, n_nodes):
            lo, hi = a.start[node], a.stop[node]
            a.count[node] = hi - lo
            if node > 0:
                for i in range(lo, hi):
                    for c in range(k):
                        stats[node, c] += S[rows[i], c]
            a.ptr[node + 1] = a.ptr[node]
            nnz, tau, score = _node_split(data, rows, node, a, p, work, out)
            if score == np.inf:
                continue
            decrease = (side_impurity(stats[node], p.crit) - score) / total_w
            if decrease < p.min_impurity_decrease:
                continue
            a.gain[node] = decrease
            a.threshold[node] = tau
            at = a.ptr[node]
            pf = _grow_buffer(pf, at + nnz)
            pw = _grow_buffer(pw, at + nnz)
            pfill = _grow_buffer(pfill, at + nnz)
            for q in range(nnz):
                pf[at + q] = out.feature[q]
                pw[at + q] = out.coef[q]
                pfill[at + q] = out.fill[q]
            a.ptr[node + 1] = at + nnz
            pending[n_pending] = node
            n_pending += 1
        todo_lo = n_nodes
        # the next node to split, partitioned by its stored test
        while True:
            node, n_pending = _pop_next(a, pending, n_pending, n_leaves, p.max_leaf_nodes)
            if node < 0:
                break
            lo, hi = a.start[node], a.stop[node]
            tests = NodeTest(pf, pw, pfill)
            nl = _partition(
                X, rows, lo, hi, a.ptr[node], a.ptr[node + 1], tests, a.threshold[node], buf
            )
            # rounding may move a row across the hyperplane: the node then stays a leaf
            if min(nl, hi - lo - nl) >= max(p.min_samples_leaf, 1):
                break
        if node < 0:
            break
        a.start[n_nodes], a.stop[n_nodes] = lo, lo + nl
        a.start[n_nodes + 1], a.stop[n_nodes + 1] = lo + nl, hi
        a.depth[n_nodes] = a.depth[n_nodes + 1] = a.depth[node] + 1
        a.left[node], a.right[node] = n_nodes, n_nodes + 1
        n_nodes += 2
        n_leaves += 1
    return _compact(a, n_nodes, NodeTest(pf, pw, pfill))


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
