"""The split search of the projection forests (SPORF; Tomita et al., JMLR 2020): a
node's sparse random projections and the best cut of each.

A node draws ``n_projections`` directions ``a`` of the standardised attributes, each
with ``1 + Poisson(density - 1)`` non-zero weights (at most the number of attributes),
+1 or -1, on attributes drawn without replacement.  It projects its rows, ``z_i = a .
z(x_i)``, orders them by ``z`` and sweeps the order once, scoring every cut between two
different values (exactly: a node of at most ``n_bins`` rows, or every node when
``n_bins = 0``) or between two of ``n_bins`` equal-width bins of the projection's range
(a larger node, as a histogram would).

Each step costs O(1) a row, so that the many small nodes of a forest's deep trees cost
little more than their rows:

* **order**: the rows are dealt into buckets of ``z``'s range (a counting sort; two
  buckets a row for an exact search, then finished by insertion, which moves a row only
  past the others of its bucket) instead of a comparison sort;
* **score**: a cut's weighted impurity ``W_L I_L + W_R I_R`` is updated as each row
  crosses from the right side to the left, not recomputed per class.  Gini's
  ``W I = W - Q / W`` through the sum of squares ``Q = sum_c s_c^2``, which a row of
  class ``c`` and weight ``w`` changes by ``w (2 s_c + w)`` on the side it joins and by
  ``w (w - 2 s_c)`` on the side it leaves; entropy's ``W ln W - sum_c s_c ln s_c``
  through the one class term that changes; squared error's ``sum w y^2 - (sum w
  y)^2 / W`` through its sums;
* **randomness**: the engine's explicit-state generator (``rand``), seeded once a tree.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engine import inlined, internal, rand
from ._search import ENTROPY, GINI, SQUARED_ERROR

#: a node of at most this many rows orders a projection by insertion alone
INSERTION_ROWS = 32
#: buckets a row of an exact search: two different values rarely share one
BUCKETS_PER_ROW = 2
#: an insertion pass that has moved rows more than this many times their number (many
#: different values in a few buckets: a skewed projection) gives way to a sort
SHIFTS_PER_ROW = 4


class ProjectionWork(NamedTuple):
    """A tree's work arrays for its nodes' projection searches, allocated once a tree
    (:func:`projection_work`): a node of ``m`` rows uses their first ``m`` entries; the
    ``row_`` arrays are indexed by the training set's rows."""

    #: (n_samples,) int64, (n_samples,) and (n_samples,): each training row's class,
    #: weight and centred target, read from the statistics once a tree
    row_label: np.ndarray
    row_weight: np.ndarray
    row_target: np.ndarray

    #: (n,) int64: the class of each of the node's rows (classification)
    label: np.ndarray
    #: (n,) each row's weight
    weight: np.ndarray
    #: (n,) each row's centred target (regression)
    target: np.ndarray
    #: (n,) a projection of the node's rows
    z: np.ndarray
    #: (n,) int64: each row's bucket
    key: np.ndarray
    #: (n,) int64: the rows in the order of ``z``
    order: np.ndarray
    #: (n_buckets + 1,) int64: the buckets' counts, then their starts
    count: np.ndarray
    #: (n_bins,) the least ``z`` of each bin
    low: np.ndarray
    #: (2, k) a sweep's left and right sums per class
    sides: np.ndarray
    #: (k,) the node's sums per class
    total: np.ndarray
    #: (d,) int64: the attributes, the first ``nnz`` those a projection drew
    draw: np.ndarray
    #: (d,) the drawn attributes' weights, +1 or -1
    sign: np.ndarray
    #: (d,) int64 and (d,): the best projection's attributes and weights
    best: np.ndarray
    best_sign: np.ndarray
    #: (d,) each attribute's fill for a missing value at a node (standardised)
    fill: np.ndarray
    #: (d,) int64: the node whose fill ``fill`` holds (-1: none yet)
    fill_node: np.ndarray
    #: (1,) uint64: the tree's generator
    state: np.ndarray


@internal
def projection_work(S, rows, crit, n_bins, d, seed):
    """The :class:`ProjectionWork` of a tree grown on ``rows`` of the statistics ``S``
    (``d`` attributes) whose projections are cut on ``n_bins`` bins above ``n_bins``
    rows (0: never), its generator seeded with ``seed``."""
    n = rows.shape[0]
    k = S.shape[1]
    row_label = np.zeros(S.shape[0], dtype=np.int64)
    row_weight = np.zeros(S.shape[0])
    row_target = np.zeros(S.shape[0])
    for i in range(n):
        r = rows[i]
        if crit == SQUARED_ERROR:
            w = S[r, 0]
            row_target[r] = S[r, 1] / w if w > 0.0 else 0.0
        else:
            # a classifier's row holds its weight at its class (one non-zero entry)
            c = 0
            for j in range(k):
                if S[r, j] != 0.0:
                    c = j
            w = S[r, c]
            row_label[r] = c
        row_weight[r] = w
    exact_rows = n if n_bins <= 0 else min(n, n_bins)
    n_buckets = max(BUCKETS_PER_ROW * exact_rows, n_bins, 1)
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    return ProjectionWork(
        row_label,
        row_weight,
        row_target,
        np.zeros(n, dtype=np.int64),
        np.empty(n),
        np.empty(n),
        np.empty(n),
        np.empty(n, dtype=np.int64),
        np.empty(n, dtype=np.int64),
        np.empty(n_buckets + 1, dtype=np.int64),
        np.empty(max(n_bins, 1)),
        np.empty((2, k)),
        np.empty(k),
        np.arange(d),
        np.empty(d),
        np.empty(d, dtype=np.int64),
        np.empty(d),
        np.zeros(d),
        np.full(d, -1, dtype=np.int64),
        state,
    )


@inlined
def uniform(state):
    """A uniform draw in [0, 1) from the top 53 bits of the generator."""
    return np.float64(rand(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@internal
def draw_projection(state, draw, sign, lam, p0):
    """Draw a projection into ``draw[:nnz]`` / ``sign[:nnz]``: ``nnz = 1 + Poisson(lam)``
    (by inversion of its distribution function, ``p0 = exp(-lam)``), at most the number
    of attributes, on attributes drawn without replacement (a partial Fisher-Yates
    shuffle of ``draw``), each weight +1 or -1.  Returns ``nnz``."""
    d = draw.shape[0]
    nnz = 1
    if lam > 0.0:
        u = uniform(state)
        p = p0
        cdf = p0
        extra = 0
        while u > cdf and extra < d:
            extra += 1
            p *= lam / extra
            cdf += p
        nnz += extra
    if nnz > d:
        nnz = d
    for i in range(nnz):
        j = i + np.int64(rand(state) % np.uint64(d - i))
        f = draw[i]
        draw[i] = draw[j]
        draw[j] = f
        sign[i] = 1.0 if (rand(state) >> np.uint64(63)) == np.uint64(1) else -1.0
    return nnz


@inlined
def node_fill(ZT, rows, start, m, f, weight):
    """The node's weighted mean of standardised attribute ``f`` over its rows where it
    is present; 0 (the training mean) where it is missing from all of them."""
    col = ZT[f]
    num = 0.0
    den = 0.0
    for i in range(m):
        v = col[rows[start + i]]
        if not np.isnan(v):
            num += weight[i] * v
            den += weight[i]
    return num / den if den > 0.0 else 0.0


@internal
def project(ZT, has_nan, rows, start, m, node, nnz, work):
    """``z_i = sum_q sign_q z_{draw_q}(x_i)`` for the node's rows into ``work.z``, a
    missing value replaced by the node's fill (computed once a node and attribute)."""
    z = work.z
    for q in range(nnz):
        f = work.draw[q]
        s = work.sign[q]
        col = ZT[f]
        if has_nan[f]:
            if work.fill_node[f] != node:
                work.fill[f] = node_fill(ZT, rows, start, m, f, work.weight)
                work.fill_node[f] = node
            fv = work.fill[f]
            for i in range(m):
                v = col[rows[start + i]]
                v = fv if np.isnan(v) else v
                z[i] = s * v if q == 0 else z[i] + s * v
        elif q == 0:
            for i in range(m):
                z[i] = s * col[rows[start + i]]
        else:
            for i in range(m):
                z[i] += s * col[rows[start + i]]


@internal
def deal_into_buckets(z, m, lo, hi, n_buckets, key, count, order):
    """A counting sort of the rows by their bucket of ``[lo, hi]`` (``n_buckets`` of
    equal width): ``order`` lists them bucket by bucket, ``key`` holds each row's."""
    per = n_buckets / (hi - lo)
    for b in range(n_buckets + 1):
        count[b] = 0
    for i in range(m):
        b = np.int64((z[i] - lo) * per)
        if b >= n_buckets:
            b = n_buckets - 1
        key[i] = b
        count[b + 1] += 1
    for b in range(n_buckets):
        count[b + 1] += count[b]
    for i in range(m):
        b = key[i]
        order[count[b]] = i
        count[b] += 1


@internal
def insertion_sort(z, order, m, max_shifts):
    """Finish ``order`` into ascending ``z`` by insertion; False if that took more than
    ``max_shifts`` moves (``order`` then still a permutation, for a sort to finish)."""
    shifts = 0
    for i in range(1, m):
        o = order[i]
        v = z[o]
        j = i
        while j > 0 and z[order[j - 1]] > v:
            order[j] = order[j - 1]
            j -= 1
        order[j] = o
        shifts += i - j
        if shifts > max_shifts:
            return False
    return True


@internal
def shell_sort(z, order, m):
    """Finish ``order[:m]`` into ascending ``z`` by Shell's sort (Ciura's gaps): the
    rare case that buckets do not spread the values (numpy's sort, written into the
    node's loop, costs its set-up at every node whether it runs or not)."""
    for gap in (701, 301, 132, 57, 23, 10, 4, 1):
        for i in range(gap, m):
            o = order[i]
            v = z[o]
            j = i
            while j >= gap and z[order[j - gap]] > v:
                order[j] = order[j - gap]
                j -= gap
            order[j] = o


@internal
def order_small(z, order, m):
    """``order[:m]``: the rows in ascending ``z`` by insertion alone."""
    for i in range(m):
        order[i] = i
    insertion_sort(z, order, m, m * m)


@internal
def order_exact(z, order, m, lo, hi, key, count):
    """``order[:m]``: the rows in ascending ``z``, dealt into two buckets a row of
    ``[lo, hi]`` and finished by insertion (by Shell's sort where that takes long)."""
    deal_into_buckets(z, m, lo, hi, BUCKETS_PER_ROW * m, key, count, order)
    if not insertion_sort(z, order, m, SHIFTS_PER_ROW * m):
        shell_sort(z, order, m)


@internal
def order_binned(z, order, m, lo, hi, n_bins, key, count, low):
    """``order[:m]``: the rows bin by bin (``n_bins`` of ``[lo, hi]``, ``key`` each
    row's), each bin's least value in ``low``."""
    deal_into_buckets(z, m, lo, hi, n_bins, key, count, order)
    for b in range(n_bins):
        low[b] = np.inf
    for i in range(m):
        if z[i] < low[key[i]]:
            low[key[i]] = z[i]


@inlined
def order_rows(m, n_bins, lo, hi, work):
    """The node's rows in ascending ``z`` or, above ``n_bins`` rows, bin by bin into
    ``work.order`` (each bin's least value in ``work.low``).  Returns whether binned.
    Each way is a function of its own: numba compiles a function's loops best when it
    has few (one with all three ran ten times slower on a node of eight rows)."""
    if m <= INSERTION_ROWS:
        order_small(work.z, work.order, m)
        return False
    if n_bins <= 0 or m <= n_bins:
        order_exact(work.z, work.order, m, lo, hi, work.key, work.count)
        return False
    order_binned(work.z, work.order, m, lo, hi, n_bins, work.key, work.count, work.low)
    return True


@inlined
def _xlogx(x):
    return x * np.log(x) if x > 0.0 else 0.0


@inlined
def midpoint(low, high):
    """The threshold between two adjacent values: their midpoint, or ``low`` where the
    midpoint of adjacent floats rounds onto ``high``."""
    t = 0.5 * (low + high)
    return t if t < high else low


@internal
def sweep_cuts(m, binned, crit, min_leaf, work, node_weight, node_sum, node_square):
    """The best cut of the ordered rows: ``(threshold, score)`` with ``score = W_L I_L +
    W_R I_R`` the least over the cuts between two different values (``binned``: two
    bins) that leave at least ``min_leaf`` rows and a positive weight on each side;
    ``score = inf`` when there is none.  ``node_weight`` is the node's weight, and for
    squared error ``node_sum`` / ``node_square`` its ``sum w y`` / ``sum w y^2``.  The
    threshold is the midpoint of the largest value left of the cut and the smallest
    right of it."""
    z, order, key, low = work.z, work.order, work.key, work.low
    label, weight, target = work.label, work.weight, work.target
    left, right = work.sides[0], work.sides[1]
    k = left.shape[0]
    q_left = 0.0
    q_right = 0.0
    e_left = 0.0
    e_right = 0.0
    if crit != SQUARED_ERROR:
        for c in range(k):
            left[c] = 0.0
            right[c] = work.total[c]
            q_right += right[c] * right[c]
            e_right += _xlogx(right[c])
    w_left = 0.0
    s_left = 0.0
    left_max = -np.inf
    best = np.inf
    best_t = 0.0
    for i in range(m - 1):
        o = order[i]
        w = weight[o]
        if crit == SQUARED_ERROR:
            s_left += w * target[o]
        else:
            c = label[o]
            if crit == GINI:
                q_left += w * (2.0 * left[c] + w)
                q_right += w * (w - 2.0 * right[c])
            else:
                e_left -= _xlogx(left[c])
                e_right -= _xlogx(right[c])
            left[c] += w
            right[c] -= w
            if crit == ENTROPY:
                e_left += _xlogx(left[c])
                e_right += _xlogx(right[c])
        w_left += w
        if z[o] > left_max:
            left_max = z[o]
        if i + 1 < min_leaf or m - i - 1 < min_leaf:
            continue
        nxt = order[i + 1]
        if binned:
            if key[nxt] == key[o]:
                continue
            upper = low[key[nxt]]
        else:
            upper = z[nxt]
            if not upper > z[o]:
                continue
        w_right = node_weight - w_left
        if not (w_left > 0.0 and w_right > 0.0):
            continue
        if crit == GINI:
            score = w_left - q_left / w_left + w_right - q_right / w_right
        elif crit == ENTROPY:
            score = _xlogx(w_left) - e_left + _xlogx(w_right) - e_right
        else:
            s_right = node_sum - s_left
            score = node_square - s_left * s_left / w_left - s_right * s_right / w_right
        if score < best:
            best = score
            best_t = midpoint(left_max, upper)
    return best_t, best


@internal
def node_rows(S, rows, start, m, crit, work):
    """The node's rows' classes (or centred targets) and weights into ``work``, its
    sums per class into ``work.total``; returns ``(W, sum w y, sum w y^2)`` (the last
    two for squared error only, where ``S`` holds ``(w, w y, w y^2)``)."""
    total = work.total
    for c in range(total.shape[0]):
        total[c] = 0.0
    node_weight = 0.0
    node_sum = 0.0
    node_square = 0.0
    # the records' arrays read into names first: an array taken from a record inside a
    # loop costs a reference count each time
    row_weight, row_target, row_label = work.row_weight, work.row_target, work.row_label
    weight, target, label = work.weight, work.target, work.label
    for i in range(m):
        r = rows[start + i]
        w = row_weight[r]
        weight[i] = w
        node_weight += w
        if crit == SQUARED_ERROR:
            target[i] = row_target[r]
            node_sum += S[r, 1]
            node_square += S[r, 2]
        else:
            c = row_label[r]
            label[i] = c
            total[c] += w
    return node_weight, node_sum, node_square


@internal
def sporf_split(ZT, has_nan, S, rows, start, m, node, p, work):
    """The best of ``p.n_projections`` sparse random projections of the node's rows ``rows[start
    : start + m]`` and its best cut: returns ``(threshold, score, nnz)`` in standardised
    units, the projection in ``work.best[:nnz]`` / ``work.best_sign[:nnz]`` (``score =
    inf``: no cut).  ``ZT``: the standardised attributes, one row an attribute (missing
    values NaN, ``has_nan`` the attributes that have any); ``p``: the grower's
    :class:`~._grow.GrowParams` (``crit``, ``min_samples_leaf``, ``density``,
    ``n_bins``)."""
    crit = p.crit
    node_weight, node_sum, node_square = node_rows(S, rows, start, m, crit, work)
    lam = p.density - 1.0 if p.density > 1.0 else 0.0
    p0 = np.exp(-lam)
    z = work.z
    best, best_t, best_nnz = np.inf, 0.0, 0
    for _p in range(p.n_projections):
        nnz = draw_projection(work.state, work.draw, work.sign, lam, p0)
        project(ZT, has_nan, rows, start, m, node, nnz, work)
        lo = np.inf
        hi = -np.inf
        for i in range(m):
            if z[i] < lo:
                lo = z[i]
            if z[i] > hi:
                hi = z[i]
        if not hi > lo:
            continue
        binned = order_rows(m, p.n_bins, lo, hi, work)
        t, score = sweep_cuts(
            m, binned, crit, p.min_samples_leaf, work, node_weight, node_sum, node_square
        )
        if score < best:
            best, best_t, best_nnz = score, t, nnz
            for q in range(nnz):
                work.best[q] = work.draw[q]
                work.best_sign[q] = work.sign[q]
    return best_t, best, best_nnz
