"""Extra-Trees' random cuts: a node's split without a histogram.

Geurts, Ernst & Wehenkel (2006) draw, for each candidate feature, one cut uniformly
between the feature's smallest and largest value in the node, and keep the best of those
cuts.  No histogram is needed, only two passes over the node's samples per feature: its
range of codes (:func:`cut_range`), then each side's statistics (:func:`cut_sums`), the
second while the node's codes are still in cache from the first.  Both read the codes
sample-major (``BinnedData.codes_rows``): the features of one sample share a cache line,
so that the passes of the node's next features find it in cache, where the feature-major
codes would cost one cache miss per feature and sample in the scattered samples of a
deep node.

The cut is drawn in value, between the *centers* of the node's smallest and largest bin
(:meth:`~treeboost.engine.binning.mapper.BinMapper.bin_centers`); when a bin holds one distinct
value its center is that value, so with up to ``max_bins`` distinct values the cut is
exactly the textbook one.
"""

from collections import namedtuple

import numpy as np

from .constraints import MonotonicCheck, newton_decrease
from .criteria import NEWTON
from .search import copy_into, decrease_from_left, nan_goes_left, score_sides
from .._numba.bits import sign_bit
from .._numba.jit import inlined, internal, kernel

#: the 53 random bits of a draw that make a uniform number in [0, 1)
_UNIT_BITS = np.int64((1 << 53) - 1)
_UNIT_SCALE = 1.0 / (1 << 53)


#: how the lean grower (:mod:`.grow.random_tree`) reads a node for its search
#: (:func:`~.grow.random_search.random_search_body`): the codes of the node's samples in node order,
#: and the tables that replace passes or searches
LeanNode = namedtuple(
    "LeanNode",
    [
        "lo",
        "hi",  # (codes per row,) every feature's smallest and largest code in the
        # node, when ``whole`` (._rows.rows_min_max)
        "whole",  # bool: lo and hi hold the ranges
        "codes",  # (n_rows, > n_features) the samples' codes in node order, then their
        # class with ``counts``
        "counts",  # bool: two classes with unit weights, sums counted (cut_counts)
        "by_codes",  # bool: the drawn features' samples counted by code (count_codes)
        "by_code",  # (features at a time, number of codes) int64: count_codes' counts
        "columns",  # bool: the node's samples are read through ``idx`` from the
        # feature-major codes ``codes_T``, their classes from ``labels`` (a large node
        # of counts: count_codes_columns), not from ``codes``
        "idx",  # the node's samples' ids at their positions (with ``columns``)
        "codes_T",  # (n_features, n_samples) the codes feature-major (with ``columns``)
        "labels",  # (n_samples,) uint8 classes 0 and 1 (with ``columns``)
        "cut_table",  # (n_features, n_cells) int32, "cut_base", "cut_scale" (n_features,):
        "cut_base",  # each feature's table of random cuts (build_cut_tables)
        "cut_scale",
    ],
)


# the per-feature kernels are inlined into the search: they run once per feature and
# node, mostly on a few samples, where passing their arrays would cost more than their body
@inlined
def cut_range(rows, idx, start, end, f, mc):
    """The smallest and largest code of feature ``f`` over the samples ``idx[start:end]``
    (``rows``: sample-major codes) and how many of them are missing (code ``mc``).  With
    ``idx`` None, ``rows`` are in node order: ``rows[i]`` is the codes of the node's
    ``i``-th sample (the lean grower's, :mod:`.grow.random_tree`).  ``idx is None`` is decided
    by its type when the caller is compiled: each compiled copy keeps one of the two
    reads (written out at each read: a further inlined step would cost compile time)."""
    lo = mc
    hi = np.int64(-1)
    n_missing = np.int64(0)
    # unsigned indices: numba wraps a signed index around when it is negative, three
    # instructions per access in a loop of a few
    uf = np.uint64(f)
    for i in range(np.uint64(start), np.uint64(end)):
        c = np.int64(rows[i, uf]) if idx is None else np.int64(rows[np.uint64(idx[i]), uf])
        # selects rather than branches: a node's codes follow no pattern a branch
        # predictor could learn
        is_miss = c == mc
        n_missing += is_miss
        lo = min(lo, c)
        hi = max(hi, -1 if is_miss else c)
    return lo, hi, n_missing


@inlined
def _cut_value(centers, lo, hi, draw):
    """``u = c_lo + U (c_hi - c_lo)``, ``U`` uniform in [0, 1) from the 53 low bits of
    ``draw``: the value of a random cut (both searches for its code read this one)."""
    return centers[lo] + (draw & _UNIT_BITS) * _UNIT_SCALE * (centers[hi] - centers[lo])


@inlined
def draw_cut(centers, lo, hi, draw):
    """The last code in ``[lo, hi - 1]`` whose center lies below the random value
    ``u`` of :func:`_cut_value` (at least ``lo``): those codes go left.

    The centers hold no ``-0.0`` (:meth:`BinMapper.bin_centers` adds ``+0.0``): the
    sign of ``-0.0 - 0.0`` would read as ``-0.0 < 0.0``.  Then ``u`` is never ``-0.0``
    either, and the sign bit of ``c - u`` is ``c < u`` for every pair of finite values.
    """
    u = _cut_value(centers, lo, hi, draw)
    # halving the candidates [base, base + n) by arithmetic on the test, not a branch:
    # the test goes either way at random, and a mispredicted branch per step would cost
    # more than the search.  ``centers[m] < u`` is the sign of ``centers[m] - u`` (see
    # ._bits: a comparison would become a branch again); unsigned as in cut_range
    base = np.uint64(lo)
    n = np.uint64(hi - lo)
    while n > 1:
        half = n >> np.uint64(1)
        base += half * sign_bit(centers[base + half] - u)
        n -= half
    return np.int64(base)


@inlined
def _cell(x, base, scale, n_cells):
    """The cell of value ``x >= base`` in a feature's table of cuts: ``floor((x - base)
    * scale)`` up to ``n_cells - 1``, a non-decreasing function of ``x`` in floating
    point as in exact arithmetic (each step is); 0 with ``scale`` 0."""
    if scale == 0.0:
        return np.int64(0)
    return np.int64(min((x - base) * scale, n_cells - 1.0))


@kernel
def build_cut_tables(centers, n_bins, table, base, scale):
    """For each feature ``f``, ``table[f, k]``: the last code whose center's cell
    (:func:`_cell` over the feature's centers, ``n_cells = table.shape[1]`` cells from
    its first to its last center) is below ``k``, -1 when there is none.  A value ``u``
    of cell ``k`` then lies above the centers of every code up to ``table[f, k]``:
    :func:`draw_cut_from_table` starts there, not at a binary search."""
    n_cells = table.shape[1]
    for f in range(table.shape[0]):
        nb = n_bins[f]
        if nb < 1:
            base[f] = 0.0
            scale[f] = 0.0
            for k in range(n_cells):
                table[f, k] = -1
            continue
        lo = centers[f, 0]
        width = centers[f, nb - 1] - lo
        base[f] = lo
        # (one cell when the centers span no width, or one too wide for a double)
        scale[f] = n_cells / width if 0.0 < width < np.inf else 0.0
        last = np.int64(-1)
        for k in range(n_cells):
            while last + 1 < nb and _cell(centers[f, last + 1], lo, scale[f], n_cells) < k:
                last += 1
            table[f, k] = last


@inlined
def draw_cut_from_table(centers, table, base, scale, lo, hi, draw):
    """:func:`draw_cut` (the same code for the same draw) from the feature's table of
    :func:`build_cut_tables`: the search starts at the last code whose center is
    certainly below ``u`` and steps up to the others below it, usually none or one, where
    the binary search takes a chain of dependent loads per halving."""
    u = _cut_value(centers, lo, hi, draw)
    c = max(np.int64(table[_cell(u, base, scale, table.shape[0])]), lo)
    while c + 1 < hi and centers[c + 1] < u:
        c += 1
    return c


@inlined
def cut_sums(rows, idx, start, end, f, cut, has_missing, mc, ostats, left, miss):
    """``left`` (codes ``<= cut``) and ``miss`` (missing values) of feature ``f`` over the
    samples ``idx[start:end]``; ``ostats`` holds their statistics in node order.  With
    ``idx`` None, ``rows`` are in node order too (as in :func:`cut_range`)."""
    n_cols = ostats.shape[1]
    uf = np.uint64(f)
    ustart = np.uint64(start)
    if n_cols == 3 and not has_missing:
        # the usual statistics, (w_0, w_1, count) or (w, w y, count): sums in registers,
        # without branches
        l0 = 0.0
        l1 = 0.0
        l2 = 0.0
        for i in range(ustart, np.uint64(end)):
            o = i - ustart
            c = np.int64(rows[i, uf]) if idx is None else np.int64(rows[np.uint64(idx[i]), uf])
            x = 1.0 if c <= cut else 0.0
            l0 += x * ostats[o, 0]
            l1 += x * ostats[o, 1]
            l2 += x * ostats[o, 2]
        left[0] = l0
        left[1] = l1
        left[2] = l2
        for c in range(n_cols):
            miss[c] = 0.0
        return
    for c in range(n_cols):
        left[c] = 0.0
        miss[c] = 0.0
    for i in range(ustart, np.uint64(end)):
        o = i - ustart
        c = np.int64(rows[i, uf]) if idx is None else np.int64(rows[np.uint64(idx[i]), uf])
        if c <= cut:
            for k in range(n_cols):
                left[k] += ostats[o, k]
        elif c == mc:
            for k in range(n_cols):
                miss[k] += ostats[o, k]


@inlined
def set_counts(out, n, pos):
    """``out``: the sums ``(w_0, w_1, count)`` of ``n`` samples of unit weight, ``pos``
    of them of class 1."""
    out[0] = n - pos
    out[1] = pos
    out[2] = n


@inlined
def cut_counts(rows, start, end, f, cut, has_missing, mc, label, left, miss):
    """:func:`cut_sums` of two classes with unit weights, from the class of each sample,
    ``rows[i, label]`` (0 or 1), beside its codes in node order (``rows``: as in
    :func:`cut_range` with no ``idx``).  The rows of statistics are then ``(1 - y, y,
    1)``, whose sums are counts: integers that sum without a rounding in any order, and
    without the chain of floating-point additions (each waits for the last) that bounds
    :func:`cut_sums`."""
    uf = np.uint64(f)
    ul = np.uint64(label)
    n = np.int64(0)
    pos = np.int64(0)
    n_miss = np.int64(0)
    pos_miss = np.int64(0)
    # two loops, so that the usual one (no missing value) is the shortest
    if has_missing:
        for i in range(np.uint64(start), np.uint64(end)):
            c = np.int64(rows[i, uf])
            y = np.int64(rows[i, ul])
            goes = np.int64(c <= cut)
            n += goes
            pos += goes & y
            is_miss = np.int64(c == mc)
            n_miss += is_miss
            pos_miss += is_miss & y
    else:
        for i in range(np.uint64(start), np.uint64(end)):
            goes = np.int64(np.int64(rows[i, uf]) <= cut)
            n += goes
            pos += goes & np.int64(rows[i, ul])
    set_counts(left, n, pos)
    set_counts(miss, n_miss, pos_miss)


@inlined
def count_codes(rows, start, end, features, first, nb, label, mc, by_code):
    """The samples ``start:end`` counted by code for each of the features
    ``features[first:first + nb]``, for two classes with unit weights (``rows`` and
    ``label`` as in :func:`cut_counts`): ``by_code[j, c]`` gets the count of code ``c`` of
    feature ``features[first + j]`` in its low 32 bits and how many of those are of
    class 1 in its high 32 bits.  One pass over the node's rows for all the features,
    one addition per sample and feature, where :func:`cut_range` and :func:`cut_counts`
    take two passes per feature: a large node's rows are read once, not once per
    feature.  ``by_code`` has at least ``nb`` rows of ``mc + 1`` counts
    (:func:`code_range` reads them)."""
    for j in range(nb):
        for c in range(mc + 1):
            by_code[j, c] = 0
    ul = np.uint64(label)
    for i in range(np.uint64(start), np.uint64(end)):
        one = np.int64(1) + (np.int64(rows[i, ul]) << 32)
        for j in range(nb):
            by_code[j, np.uint64(rows[i, np.uint64(features[first + j])])] += one


@inlined
def count_codes_columns(codes_T, labels, idx, start, end, features, first, nb, mc, by_code):
    """:func:`count_codes` of the samples ``idx[start:end]`` read from the feature-major
    codes ``codes_T`` (their classes from ``labels``): the same counts, in one pass over
    the node's sample ids, reading one code a sample and feature.  A large node's samples
    then need no rows of their own: its ids are what moves through memory."""
    for j in range(nb):
        for c in range(mc + 1):
            by_code[j, c] = 0
    for i in range(np.uint64(start), np.uint64(end)):
        s = idx[i]
        one = np.int64(1) + (np.int64(labels[s]) << 32)
        for j in range(nb):
            by_code[j, np.uint64(codes_T[features[first + j], s])] += one


@inlined
def count_node_codes(node, start, end, features, first, nb, label, mc):
    """``node.by_code``: the counts by code of the features ``features[first:first +
    nb]`` of a :class:`LeanNode`'s samples at ``[start, end)``, from its rows of codes
    (:func:`count_codes`, the class in slot ``label``) or, with ``node.columns``,
    through its ids (:func:`count_codes_columns`)."""
    if node.columns:
        count_codes_columns(
            node.codes_T, node.labels, node.idx, start, end, features, first, nb, mc, node.by_code
        )
    else:
        count_codes(node.codes, start, end, features, first, nb, label, mc, node.by_code)


@inlined
def code_range(by_code, mc):
    """What :func:`cut_range` returns, from a feature's counts by code
    (:func:`count_codes`): the smallest and largest code that is not missing (``mc``,
    and -1, when there is none) and the count of missing values."""
    lo = np.int64(0)
    while lo < mc and by_code[lo] == 0:
        lo += 1
    hi = mc - 1
    while hi >= 0 and by_code[hi] == 0:
        hi -= 1
    return lo, hi, by_code[mc] & 0xFFFFFFFF


@inlined
def coded_cut_counts(by_code, cut, mc, left, miss):
    """:func:`cut_counts` from the counts by code of :func:`count_codes` (codes up to
    ``cut`` go left)."""
    s = np.int64(0)
    for c in range(cut + 1):
        s += by_code[c]
    set_counts(left, s & 0xFFFFFFFF, s >> 32)
    m = by_code[mc]
    set_counts(miss, m & 0xFFFFFFFF, m >> 32)


@inlined
def cut_score(left, miss, has_miss, total, check, rule, tmp, out_left):
    """The score of a cut whose left side sums to ``left`` and whose missing values sum
    to ``miss``, with the missing values on the better side, under the
    :class:`~.scoring.SplitRule` ``rule``: returns the score (``-inf`` when a child breaks
    the leaf constraints or the monotonic ``check``), whether the missing values go left
    and the middle of the children's values; ``out_left`` gets the left child's sums.
    (Arrays and scalars, not the grower's records: it runs once per feature and node.)"""
    copy_into(out_left, left)
    best, ml, mid = score_sides(left, miss, has_miss, total, check, rule, tmp, -np.inf, out_left)
    if best > -np.inf and not has_miss:
        ml = nan_goes_left(out_left, total, rule.criterion)
    return best, ml, mid


@internal
def cut_decrease(f, view, params, right, cands):
    """``cands.decrease[f]`` of the split the search wrote for feature ``f``: computed
    for the best feature only."""
    total = view.total
    check = MonotonicCheck(params.monotonic, params.monotonic_cst[f], view.lower, view.upper)
    if params.criterion == NEWTON and check.active:
        cands.decrease[f] = newton_decrease(cands.score[f], total, params.l1, params.l2, check)
    else:
        cands.decrease[f] = decrease_from_left(
            cands.left_stats[f],
            total,
            right,
            params.criterion,
            params.n_stats,
            params.l1,
            params.l2,
        )
