"""Numba kernels that find the best split of a node (the categorical search is in
:mod:`.categorical`, the scores of a split in :mod:`.scoring`).

The search works on a *compressed histogram* of one feature: the bin codes present in
the node in ascending order, their summed statistics, and the statistics of the
node's missing values.  A numeric feature is cut between two consecutive codes; the
missing values are tried on both sides (and alone on the right: "is missing").  A
categorical feature is split into a subset of categories (left) and the rest: the
categories are ordered by their statistic (the positive-class rate, the mean target,
or ``G/(H+lambda)``) and every prefix of that order is tried, which finds the optimal
subset for two classes, regression and boosting (Fisher 1958; Breiman et al. 1984).
With ``K > 2`` classes the search tries the ``K`` orders by each class's rate and keeps
the best prefix of any of them, a heuristic (the optimal subset is NP-hard in general).
"""

from collections import namedtuple

import numpy as np
from numba import prange

from .constraints import MonotonicCheck, constrained_score, newton_constrained, newton_decrease
from .criteria import (
    newton_gain_term,
    NEWTON,
    SQUARED_ERROR,
    GINI,
    ENTROPY,
)
from .histogram import (
    SMALL_NODE_SORT,
    build_histogram,
    build_histogram_pair,
    compress_histogram,
    gather_bitmap,
    gather_bitmap_packed,
    gather_entries,
    gather_sorted,
    insertion_order,
    subtract_histogram,
)
from ..records import GAP_UNKNOWN, NodeView, Scratch
from ..binning.sparse_codes import node_entries
from ..statistics.samples import packed_rows
from .._numba.borrowed_views import flat
from .._numba.jit import compiled, inlined, internal, kernel
from .categorical import (
    MAX_CAT_EXACT,
    _category_keys,
    missing_side_codes,
    scan_categories_newton,
    set_aside_rare,
)
from .scoring import (
    _pure_class,
    copy_into,
    decrease_from_left,
    hessian_goes_left,
    nan_goes_left,
    rule_score,
    score_sides,
    split_rule,
)

#: how a node's histogram of a feature is obtained
MODE_SORT = 0  # compressed histogram by gathering the node's codes
MODE_BUILD = 1  # dense histogram built from the node's samples
MODE_SUBTRACT = 2  # dense histogram = parent - sibling (in the parent's buffer)
MODE_BUILT = 3  # dense histogram already built (two features a pass, boosting)


#: a node's compressed histogram of one feature, the input of :func:`scan_histogram`
FeatureHistogram = namedtuple(
    "FeatureHistogram",
    [
        "codes",  # (>= m,) int64: the codes present in the node, ascending
        "cstats",  # (>= m, n_cols): their summed statistics (count last)
        "m",  # int: how many codes are present
        "miss",  # (n_cols,): the statistics of the node's missing values
        "total",  # (n_cols,): the node's statistics
    ],
)


@kernel
def scan_histogram(hist, is_cat, n_codes, params, check, scratch, out_bitset, out_left):
    """Best split of one feature from its compressed histogram ``hist`` (a
    :class:`FeatureHistogram`).

    A tree's categorical feature with more than ``MAX_CAT_EXACT`` categories in the node
    is searched under the category guard (boosting's is
    :func:`scan_categories_newton`): a category of fewer than
    ``params.min_samples_per_category`` rows is treated as a missing value
    (:func:`set_aside_rare`), and the others are ordered by their smoothed mean
    (:func:`category_key`, ``params.cat_smooth``, the node's mean as the prior).  At
    every categorical split of a tree, the codes below ``n_codes`` (the feature's
    categories at fit) that the search did not see (absent from the node, or set aside)
    go with the missing values: left when they go left (:func:`missing_side_codes`),
    where they are learned if the node has any, else to the larger child (boosting's go
    right, as LightGBM's).

    Returns ``(score, decrease, bin_threshold, missing_left, middle)``; ``score`` is
    ``-inf`` when no split satisfies the leaf constraints.  ``check`` is the feature's
    :class:`~.constraints.MonotonicCheck`: with ``check.active`` every candidate that
    would be the best so far is scored under the constraints
    (:func:`~.constraints.constrained_score`), and ``middle`` is where the children's
    intervals meet.  A numeric split sends codes
    ``<= bin_threshold`` left; a categorical split sends the categories set in
    ``out_bitset`` left.  ``out_left`` receives the left child's statistics.
    Ties keep the first candidate found (lowest code, missing values right first).

    (Extra-Trees' numeric features draw their cut in :func:`random_cut` instead.)

    ``params`` is the tree's :class:`~.layout.GrowthParams`, ``scratch`` the thread's
    :class:`~.layout.Scratch` (its ``keys``, ``left``, ``right`` and ``tmp`` are used).
    """
    codes, cstats, m, miss, total = hist
    rule = split_rule(params)
    if is_cat and rule.criterion == NEWTON and m > MAX_CAT_EXACT:
        return scan_categories_newton(
            codes, cstats, m, miss, total, params, scratch, out_bitset, out_left
        )
    smooth = 0.0
    if is_cat and m > MAX_CAT_EXACT:
        smooth = params.cat_smooth
        m = set_aside_rare(codes, cstats, m, miss, params.min_samples_per_category)
    # (the codes present now: the rare categories set aside are no longer among them)
    present = FeatureHistogram(codes, cstats, m, miss, total)
    has_miss = miss[total.shape[0] - 1] > 0.5
    best_score, best_ml, best_ord, best_pos, best_mid = scan_prefixes(
        present, has_miss, is_cat, smooth, rule, check, scratch, out_left
    )
    if has_miss and m >= 1:
        # every present code left, the missing values alone right ("is missing")
        tmp = scratch.tmp
        for c in range(total.shape[0]):
            tmp[c] = total[c] - miss[c]
        sc = rule_score(tmp, total, rule)
        mid = 0.0
        if sc > best_score and check.active:
            sc, mid = constrained_score(sc, tmp, total, rule.criterion, rule.l1, rule.l2, check)
        if sc > best_score:
            best_score, best_ml, best_ord, best_pos, best_mid = sc, False, -1, m - 1, mid
            copy_into(out_left, tmp)
    best_bin = -1
    if is_cat:
        best_bin = category_set(present, best_ord, best_pos, smooth, rule, scratch, out_bitset)
    elif best_pos >= 0:
        best_bin = codes[best_pos]
    best_dec = 0.0
    if best_score > -np.inf:
        best_dec, best_ml = split_decrease(
            best_score, best_ml, has_miss, total, rule, check, scratch, out_left
        )
        if is_cat and best_ml and rule.criterion != NEWTON:
            # a tree's categories that the search did not see go with the missing values
            # (boosting's go right, as in scan_categories_newton)
            missing_side_codes(out_bitset, codes, m, n_codes)
    return best_score, best_dec, best_bin, best_ml, best_mid


@inlined
def scan_feature(
    codes, cstats, m, miss, total, is_cat, n_codes, params, check, scratch, out_bitset, out_left
):
    """:func:`scan_histogram` of the histogram given array by array: the form
    :func:`~..grow.stepped.best_node_split` calls (until it passes a
    :class:`FeatureHistogram`, when this goes)."""
    hist = FeatureHistogram(codes, cstats, m, miss, total)
    return scan_histogram(hist, is_cat, n_codes, params, check, scratch, out_bitset, out_left)


@inlined
def order_codes(hist, o, smooth, rule, scratch):
    """The ``o``-th order of a categorical feature's ``m`` codes (one per class for
    ``K > 2`` classes, else the only one) into ``scratch.rank``, by their statistic
    (:func:`_category_keys`)."""
    n_stats = rule.n_stats
    _category_keys(
        hist.cstats,
        hist.m,
        rule.criterion,
        n_stats,
        rule.l2,
        o if n_stats > 2 else 1,
        hist.total,
        smooth,
        scratch.keys,
    )
    insertion_order(scratch.keys, hist.m, scratch.rank)


@inlined
def scan_prefixes(hist, has_miss, is_cat, smooth, rule, check, scratch, out_left):
    """The best cut after a prefix of the ``m`` codes present (the prefix goes left), the
    missing values on either side (:func:`score_sides`): ``(score, missing_left,
    order, position, middle)``, ``position`` -1 when no cut scores."""
    cstats = hist.cstats
    m = hist.m
    miss = hist.miss
    total = hist.total
    crit = rule.criterion
    n_stats = rule.n_stats
    order = scratch.rank
    left = scratch.left
    n_cols = total.shape[0]
    # Every kind of feature is the same search: the codes present in some order, and a
    # cut after each prefix of it (the prefix goes left).  Numeric codes keep their
    # order; categories are ordered by their statistic (one order per class for K > 2
    # classes).
    n_orders = 1
    if is_cat and crit != NEWTON and crit != SQUARED_ERROR and n_stats > 2:
        n_orders = n_stats
    # Gini and entropy are concave along a run of samples of one class, so the best
    # numeric cut lies at a class boundary (Fayyad & Irani, 1992): cuts between two runs
    # that hold the same single class are skipped, unless leaf constraints could bind.
    # (under monotonic constraints the best valid cut may lie inside a run)
    skip_ok = (
        not is_cat
        and (crit == GINI or crit == ENTROPY)
        and rule.min_leaf <= 1
        and rule.min_weight <= 0.0
        and not check.active
    )
    best_score = -np.inf
    best_ml = False
    best_ord = 0
    best_pos = -1
    mid = 0.0
    best_mid = 0.0
    for o in range(n_orders):
        if is_cat:
            order_codes(hist, o, smooth, rule, scratch)
        next_class = _pure_class(cstats, 0, n_stats) if skip_ok and m > 0 else -1
        for c in range(n_cols):
            left[c] = 0.0
        for p in range(m - 1):
            j = order[p] if is_cat else p
            for c in range(n_cols):
                left[c] += cstats[j, c]
            if skip_ok:
                this_class = next_class
                next_class = _pure_class(cstats, p + 1, n_stats)
                if this_class >= 0 and this_class == next_class:
                    continue
            sc, ml, mid = score_sides(
                left, miss, has_miss, total, check, rule, scratch.tmp, best_score, out_left
            )
            if sc > best_score:
                best_score, best_ml, best_ord, best_pos, best_mid = sc, ml, o, p, mid
    return best_score, best_ml, best_ord, best_pos, best_mid


@inlined
def category_set(hist, best_ord, best_pos, smooth, rule, scratch, out_bitset):
    """``out_bitset``: the categories of the best prefix (``best_pos`` of order
    ``best_ord``, -1: the codes in their own order), none when no cut scored; returns
    the bin threshold of a categorical split (0, or -1 for none)."""
    for w in range(out_bitset.shape[0]):
        out_bitset[w] = 0
    if best_pos < 0:
        return -1
    order = scratch.rank
    codes = hist.codes
    if best_ord >= 0:
        order_codes(hist, best_ord, smooth, rule, scratch)
    for p in range(best_pos + 1):
        b = codes[order[p]] if best_ord >= 0 else codes[p]
        out_bitset[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
    return 0


@inlined
def split_decrease(best_score, best_ml, has_miss, total, rule, check, scratch, out_left):
    """The loss decrease of the best split (of left sums ``out_left``) and the side of
    its missing values, the larger child's when the node has none."""
    crit = rule.criterion
    if crit == NEWTON and check.active:
        best_dec = newton_decrease(best_score, total, rule.l1, rule.l2, check)
    else:
        best_dec = decrease_from_left(
            out_left, total, scratch.right, crit, rule.n_stats, rule.l1, rule.l2
        )
    if not has_miss:
        best_ml = nan_goes_left(out_left, total, crit)
    return best_dec, best_ml


#: relative rounding allowed to a child count estimated from the hessian
#: (:func:`scan_newton_dense`)
COUNT_RTOL = 1e-9


@internal
def scan_newton_dense(
    hist_f, n_bins_f, missing_code, total, l1, l2, min_leaf, min_w, check, out_left
):
    """:func:`scan_feature` specialised for the boosting hot path: a numeric feature, the
    second-order gain, read straight from the dense histogram ``(g, h, -)`` with the
    running sums in registers (no compressed copy, no per-candidate arrays).

    The histogram carries no counts: a child's count is estimated as its hessian times
    the node's samples per unit of hessian, ``n_child ~ H_child * n / H`` (LightGBM's
    estimate), for ``min_samples_leaf``.  Bins with no hessian are empty.

    ``check`` (:class:`~.constraints.MonotonicCheck`): with ``check.active`` a candidate
    that would be the best so far is scored at its clipped values
    (:func:`~.constraints.newton_constrained`).

    Returns ``(score, bin_threshold, missing_left, middle)``; ``out_left`` gets the left
    sums.
    """
    active = check.active
    mid = 0.0
    best_mid = 0.0
    mg = hist_f[missing_code, 0]
    mh = hist_f[missing_code, 1]
    tg = total[0]
    th = total[1]
    tc = total[2]
    per_h = tc / th if th > 0 else 0.0
    # an estimate within rounding of min_samples_leaf reaches it: with equal hessians
    # (a first tree) the estimates are whole numbers up to the order of the sums, and
    # a child of exactly min_samples_leaf rows must not come and go with that order
    # (the data-parallel trainer sums the same histograms in another order)
    min_leaf = min_leaf * (1.0 - COUNT_RTOL)
    has_miss = mh > 0.0
    n_miss = mh * per_h  # the missing values' count, estimated
    gl = 0.0
    hl = 0.0
    best = -np.inf
    best_bin = -1
    best_ml = False
    bg = 0.0
    bh = 0.0
    last = -1
    for b in range(n_bins_f):
        hb = hist_f[b, 1]
        if hb <= 0.0:
            continue
        if last >= 0:
            # candidate: codes <= last go left, the missing values right, then left (one
            # site of the score and of the constrained score: fewer copies to compile)
            for with_miss in range(2 if has_miss else 1):
                g2 = gl + mg if with_miss == 1 else gl
                h2 = hl + mh if with_miss == 1 else hl
                gr = tg - g2
                hr = th - h2
                c2 = h2 * per_h
                if c2 >= min_leaf and tc - c2 >= min_leaf and h2 >= min_w and hr >= min_w:
                    sc = newton_gain_term(g2, h2, l1, l2) + newton_gain_term(gr, hr, l1, l2)
                    if sc > best and active:
                        sc, mid = newton_constrained(g2, h2, gr, hr, l1, l2, check)
                    if sc > best:
                        best, best_bin, best_ml = sc, last, with_miss == 1
                        bg, bh, best_mid = g2, h2, mid
        gl += hist_f[b, 0]
        hl += hb
        last = b
    if has_miss and last >= 0:
        # every present value left, missing values right ("is missing")
        cl = hl * per_h
        if cl >= min_leaf and n_miss >= min_leaf and hl >= min_w and mh >= min_w:
            sc = newton_gain_term(gl, hl, l1, l2) + newton_gain_term(mg, mh, l1, l2)
            if sc > best and active:
                sc, mid = newton_constrained(gl, hl, mg, mh, l1, l2, check)
            if sc > best:
                best, best_bin, best_ml, bg, bh, best_mid = sc, last, False, gl, hl, mid
    out_left[0] = bg
    out_left[1] = bh
    out_left[2] = bh * per_h
    if best > -np.inf and not has_miss:
        best_ml = hessian_goes_left(bh, th)
    return best, best_bin, best_ml, best_mid


@inlined
def newton_dense_split(hist_f, n_bins_f, missing_code, total, params, check, right, out_left):
    """The best second-order split of one numeric feature read from its dense histogram
    ``hist_f`` (:func:`scan_newton_dense`) and its loss decrease: ``(score, decrease,
    bin, missing_go_left, middle)``.

    The decrease is ``T(P) - T(L) - T(R)`` with ``T = -G^2 / (H + lambda)``, or, under a
    monotonic constraint, half the score's gain over the node's own clipped value
    (:func:`~.constraints.newton_decrease`).  The grower's boosting nodes and the
    stepped search (:func:`~.steps.best_node_split`) both score a feature here.
    """
    s, b, ml, mid = scan_newton_dense(
        hist_f,
        n_bins_f,
        missing_code,
        total,
        params.l1,
        params.l2,
        params.min_samples_leaf,
        params.min_weight_leaf,
        check,
        out_left,
    )
    d = 0.0
    if s > -np.inf:
        if check.active:
            d = newton_decrease(s, total, params.l1, params.l2, check)
        else:
            d = decrease_from_left(
                out_left, total, right, NEWTON, params.n_stats, params.l1, params.l2
            )
    return s, d, b, ml, mid


@inlined
def _gini2(l0, l1, lc, t0, t1, tc, min_leaf, min_w, lean):
    """:func:`_score` for Gini with two classes on scalars, the same operations in the
    same order (so the same bits).

    ``lean``: a cut of :func:`scan_gini_binary` between two bins present, with
    ``min_leaf <= 1`` and ``min_w <= 0``, where three of the six tests cannot decide
    alone, and are left out (the scan is bound by its instructions a cut): a left count
    below ``min_leaf`` is 0, only samples of no positive weight (which count 0), so
    ``wl`` is 0; ``wl`` or ``wr`` below ``min_w <= 0`` is not positive.  The right
    count stays tested: ``wr`` is a difference, which rounding may leave above 0."""
    if not lean and lc < min_leaf:
        return -np.inf
    if tc - lc < min_leaf:
        return -np.inf
    r0 = t0 - l0
    r1 = t1 - l1
    wl = l0 + l1
    wr = r0 + r1
    if not lean and (wl < min_w or wr < min_w):
        return -np.inf
    if wl <= 0.0 or wr <= 0.0:
        return -np.inf
    return (l0 * l0 + l1 * l1) / wl + (r0 * r0 + r1 * r1) / wr


@kernel
def scan_gini_binary(rows, codes, m, dense, miss, total, min_leaf, min_w, out_left):
    """:func:`scan_feature` specialised for the forests' hot path: a numeric feature,
    Gini impurity, two classes, running sums in registers.

    ``rows`` is either a dense histogram ``(w_0, w_1, count)`` of ``m`` bins, the empty
    ones skipped (``dense``; ``codes`` is then a work array of at least ``m`` entries,
    overwritten), or the compressed rows of the codes ``codes[:m]``.  Same
    order and tie-breaking as :func:`scan_feature`, and the same choice at a node
    holding both classes: this scan also scores the cuts inside a run of bins of one
    class, which :func:`scan_feature` skips.  Along such a run the score is strictly
    convex (Fayyad & Irani, 1992), so an inner cut scores below one of the run's ends,
    which are scored, by far more than rounding (at a pure node, which the grower never
    searches, every cut scores the same).  The skip's branch follows no pattern a
    branch predictor could learn, and cost more than the scores it saved.
    Returns ``(score, bin_threshold, missing_left, right_code)``: ``right_code`` is the
    smallest code present right of the cut (``codes``' next after ``bin_threshold``;
    for the cut "every present value left" the caller's missing code, which no
    histogram row holds, so -1 here); ``out_left`` gets the left sums.
    """
    t0 = total[0]
    t1 = total[1]
    tc = total[2]
    m0 = miss[0]
    m1 = miss[1]
    n_miss = miss[2]
    has_miss = n_miss > 0.5
    # no leaf limits: the lean tests of _gini2 for the cuts between two bins
    lean = min_leaf <= 1 and min_w <= 0.0
    best = -np.inf
    best_bin = -1
    best_right = -1
    best_ml = False
    b0 = 0.0
    b1 = 0.0
    bc = 0.0
    l0 = 0.0
    l1 = 0.0
    lc = 0.0
    last = -1
    n = m
    if dense:
        # the bins present first, without a branch (whether a bin is empty follows no
        # pattern a branch predictor could learn), then the same loop as the rows
        n = 0
        for j in range(m):
            codes[n] = j
            n += rows[j, 2] > 0.5
    for i in range(n):
        j = codes[i] if dense else i
        c0 = rows[j, 0]
        c1 = rows[j, 1]
        cc = rows[j, 2]
        if last >= 0:
            sc = _gini2(l0, l1, lc, t0, t1, tc, min_leaf, min_w, lean)
            if sc > best:
                best, best_bin, best_ml, b0, b1, bc = sc, last, False, l0, l1, lc
                best_right = codes[i]
            if has_miss:
                sc = _gini2(l0 + m0, l1 + m1, lc + n_miss, t0, t1, tc, min_leaf, min_w, False)
                if sc > best:
                    best, best_bin, best_ml = sc, last, True
                    b0, b1, bc = l0 + m0, l1 + m1, lc + n_miss
                    best_right = codes[i]
        l0 += c0
        l1 += c1
        lc += cc
        last = codes[i]
    if has_miss and last >= 0:
        # every present value left, the missing ones right ("is missing")
        sc = _gini2(t0 - m0, t1 - m1, tc - n_miss, t0, t1, tc, min_leaf, min_w, False)
        if sc > best:
            best, best_bin, best_ml = sc, last, False
            b0, b1, bc = t0 - m0, t1 - m1, tc - n_miss
            best_right = -1
    out_left[0] = b0
    out_left[1] = b1
    out_left[2] = bc
    if best > -np.inf and not has_miss:
        # no missing value seen here: at predict time NaN follows the larger child
        best_ml = bc > tc - bc
    return best, best_bin, best_ml, best_right


@compiled(no_cpython_wrapper=True, no_cfunc_wrapper=True)
def sparse_histogram(f, start, end, total, data, rows, scratch):
    """Compressed histogram of feature ``f`` of sparse codes in the node of samples
    ``rows.idx[start:end]`` and statistics ``total``, into ``scratch.codes`` /
    ``cstats`` / ``missing``; returns the number of codes, -1 when the node holds no
    entry of ``f`` (every sample at the zero code).  The entries come from the node's
    buckets when it has them (:func:`~.sparse_codes.bucket_entries`), else from
    :func:`~.sparse_codes.node_entries`."""
    slot = rows.slot_of[f]
    if slot >= 0:
        e0 = rows.bucket_start[slot]
        e1 = rows.bucket_start[slot + 1]
        epos = rows.entry_pos[e0:e1]
        ecode = rows.entry_code[e0:e1]
        n_ent = e1 - e0
    else:
        epos = scratch.entry_pos
        ecode = scratch.entry_code
        n_ent = node_entries(f, data, rows.idx, start, end, rows.position, epos, ecode)
    if n_ent == 0:
        return np.int64(-1)
    return gather_entries(
        epos,
        ecode,
        n_ent,
        rows.ostats,
        total,
        data.zero_code[f],
        data.missing_code,
        scratch.sparse_hist,
        scratch.bits,
        scratch.codes,
        scratch.cstats,
        scratch.missing,
    )


def _make_eval_feature(sparse):
    """:func:`eval_feature_dense` or :func:`eval_feature_sparse`: the constant
    ``sparse`` is a variable of the closure, which numba folds before it types the body,
    so the copy for dense codes compiles none of the sparse search (an argument, even a
    literal one, would compile both branches)."""

    @compiled(no_cpython_wrapper=True, no_cfunc_wrapper=True)
    def eval_feature(first, step, feats, node, data, rows, params, scratch, cands):
        """Prepare the histogram of ``node`` (a :class:`~.layout.NodeView`) of each
        feature ``f`` of ``feats[first::step]`` in the node's mode and write its best
        split to row ``f`` of ``cands`` (:class:`~.layout.SplitCandidates`); ``data`` is
        the :class:`~.layout.BinnedData`, whose codes are :mod:`.sparse_codes` entries
        in the copy for sparse codes.

        One call a node (or a thread's share of it), not one a feature: a call passes
        every array of the records by value, hundreds of words, which cost more than a
        small node's search of a feature.

        Boosting's dense nodes build the histograms of two numeric features in one pass
        (:func:`~.histogram.build_histogram_pair`, the samples' statistics streamed once
        for both), then scan each as built (``MODE_BUILT``)."""
        nf = feats.shape[0]
        pairs = (
            not sparse
            and node.mode == MODE_BUILD
            and params.criterion == NEWTON
            and rows.ostats.shape[1] == 3
        )
        i = np.int64(first)
        second = np.int64(-1)  # the other feature of a pair just built, next
        while True:
            mode = node.mode
            if second >= 0:
                f = second
                second = -1
                mode = MODE_BUILT
            elif i < nf:
                f = feats[i]
                if pairs and i + step < nf:
                    fb = feats[i + step]
                    if data.is_categorical[f] or data.is_categorical[fb]:
                        pairs = False  # the rest one at a time, as they come
                    else:
                        build_histogram_pair(
                            node.hist[f],
                            node.hist[fb],
                            data.codes_T[f],
                            data.codes_T[fb],
                            rows.idx,
                            node.start,
                            node.end,
                            rows.ostats,
                        )
                        mode = MODE_BUILT
                        second = fb
                        i += step
                i += step
            else:
                break
            # one inlined site of the search (each site is a copy to compile)
            view = NodeView(
                node.start,
                node.end,
                node.total,
                np.int64(mode),
                node.hist,
                node.sibling_hist,
                node.lower,
                node.upper,
            )
            _eval_feature(f, view, data, rows, params, scratch, cands, sparse)

    return eval_feature


@inlined
def _eval_feature(f, node, data, rows, params, scratch, cands, sparse):
    """The search of one feature, inlined once in each copy of
    :func:`_make_eval_feature`: its histogram in the node's mode
    (:func:`_feature_histogram`), then the scan that reads it (:func:`_scan_feature`)."""
    mode = node.mode
    crit = params.criterion
    numeric = not data.is_categorical[f]
    # the two hot paths read a dense histogram directly: boosting (no count column is
    # built, counts are estimated from the hessian) and two-class Gini
    # (monotonic constraints of trees take the general scan, which checks them)
    newton_dense = (
        crit == NEWTON and numeric and mode != MODE_SORT and rows.ostats.shape[1] - 1 == 2
    )
    gini2 = crit == GINI and params.n_stats == 2 and numeric and not params.monotonic
    cands.gap[f, 0] = GAP_UNKNOWN
    m = _feature_histogram(f, node, data, rows, params, scratch, sparse, newton_dense, gini2)
    if m < 0:
        # every sample of the node has the zero code: no split, as a constant
        # feature's histogram would say (most features of a small node)
        cands.score[f] = -np.inf
        cands.decrease[f] = 0.0
        return
    _scan_feature(f, m, node, data, params, scratch, cands, sparse, newton_dense, gini2)


@inlined
def _feature_histogram(f, node, data, rows, params, scratch, sparse, newton_dense, gini2):
    """Feature ``f``'s histogram in ``node``: gathered compressed from the node's samples
    (``MODE_SORT``, and sparse codes) into ``scratch.codes`` / ``cstats`` / ``missing``,
    or dense in the node's buffer (built, subtracted, or built already), then compressed
    unless one of the dense scans reads it.  Returns the number of codes compressed, -1
    when a sparse node holds no entry of ``f``."""
    mode = node.mode
    hist = node.hist
    start = node.start
    end = node.end
    col = data.codes_T[f]
    missing_code = data.missing_code
    codes = scratch.codes
    cstats = scratch.cstats
    miss = scratch.missing
    m = np.int64(0)
    if sparse:
        m = sparse_histogram(f, start, end, node.total, data, rows, scratch)
    elif mode == MODE_SORT and params.packed_counts:
        # the node's rows packed over rows.ostats (grow.examine), summed over the
        # scratch histogram's memory (all zeros, as int64 too)
        m = gather_bitmap_packed(
            col,
            rows.idx,
            start,
            end,
            packed_rows(rows.ostats),
            missing_code,
            flat(scratch.sparse_hist).view(np.int64),
            scratch.bits,
            scratch.rank,
            codes,
            cstats,
            miss,
        )
    elif mode == MODE_SORT and missing_code < 256:
        # (scratch.rank, free until a categorical scan orders its codes, marks the bins)
        m = gather_bitmap(
            col,
            rows.idx,
            start,
            end,
            rows.ostats,
            missing_code,
            scratch.sparse_hist,
            scratch.bits,
            scratch.rank,
            codes,
            cstats,
            miss,
        )
    elif mode == MODE_SORT:
        m = gather_sorted(
            col, rows.idx, start, end, rows.ostats, missing_code, scratch, codes, cstats, miss
        )
    else:
        if mode == MODE_BUILD:
            build_histogram(hist[f], col, rows.idx, start, end, rows.ostats, not newton_dense)
        elif mode == MODE_SUBTRACT:
            subtract_histogram(hist[f], node.sibling_hist[f])
        if not (newton_dense or gini2):
            count_col = rows.ostats.shape[1] - 1
            m = compress_histogram(
                hist[f], data.n_bins[f], missing_code, count_col, codes, cstats, miss
            )
    return m


@inlined
def _scan_feature(f, m, node, data, params, scratch, cands, sparse, newton_dense, gini2):
    """Feature ``f``'s best split from the histogram :func:`_feature_histogram` left
    (``m`` codes compressed), by the scan that reads it, into row ``f`` of ``cands``."""
    mode = node.mode
    hist = node.hist
    total = node.total
    n_bins_f = data.n_bins[f]
    missing_code = data.missing_code
    numeric = not data.is_categorical[f]
    codes = scratch.codes
    # the split's gap (the largest code present left, the smallest right), where the
    # scan knows it: gap_thresholds.center_thresholds then reads no sample for it.  Only
    # the codes gathered from the node's samples know it: a dense histogram's bins of no
    # count may hold samples of no weight, and a sparse one's zero code is inferred
    codes_gathered = mode == MODE_SORT and not sparse
    # the smallest code present right of the numeric cut, -1 for none (missing values
    # alone go right)
    right_code = np.int64(-1)
    out_left = cands.left_stats[f]
    check = MonotonicCheck(params.monotonic, params.monotonic_cst[f], node.lower, node.upper)
    if newton_dense:
        s, d, b, ml, mid = newton_dense_split(
            hist[f], n_bins_f, missing_code, total, params, check, scratch.right, out_left
        )
        cands.mid[f] = mid
    elif gini2:
        # one call site: the dense histogram's rows or the compressed ones
        dense = mode != MODE_SORT
        rows_g = hist[f] if dense else scratch.cstats
        s, b, ml, right_code = scan_gini_binary(
            rows_g,
            codes,
            n_bins_f if dense else m,
            dense,
            hist[f][missing_code] if dense else scratch.missing,
            total,
            params.min_samples_leaf,
            params.min_weight_leaf,
            out_left,
        )
        d = 0.0
        if s > -np.inf:
            d = decrease_from_left(
                out_left,
                total,
                scratch.right,
                params.criterion,
                params.n_stats,
                params.l1,
                params.l2,
            )
    else:
        s, d, b, ml, mid = scan_histogram(
            FeatureHistogram(codes, scratch.cstats, m, scratch.missing, total),
            data.is_categorical[f],
            n_bins_f,
            params,
            check,
            scratch,
            cands.categories[f],
            out_left,
        )
        cands.mid[f] = mid
        if codes_gathered and numeric and b >= 0:
            # the codes present are codes[:m], ascending: the next one goes right
            p = np.searchsorted(codes[:m], b, side="right")
            if p < m:
                right_code = codes[p]
    if codes_gathered and numeric and b >= 0:
        cands.gap[f, 0] = b
        cands.gap[f, 1] = right_code if right_code >= 0 else missing_code
    cands.score[f] = s
    cands.decrease[f] = d
    cands.bin_threshold[f] = b
    cands.missing_go_left[f] = ml


#: the split search of a feature on dense codes
eval_feature_dense = _make_eval_feature(False)
#: ... and on sparse codes (.sparse_codes), compiled only when a fit has them
eval_feature_sparse = _make_eval_feature(True)


def make_scratch(n_threads, n_samples, n_hist_bins, n_cols, n_entries=0):
    """The work arrays of :func:`eval_feature` for ``n_threads`` threads and nodes of up
    to ``n_samples`` samples: a :class:`~.layout.Scratch` whose arrays have one row per
    thread (:func:`thread_scratch` takes a thread's).

    A compressed histogram holds at most one row per bin; only the sorting gather of
    codes wider than 8 bits (``max_bins=None``) needs rows for every sample of a node.
    With sparse codes, a feature's entries in a node are at most ``n_entries`` (its
    column's).
    """
    exact = n_hist_bins > 256
    width = (max(n_samples, n_hist_bins) if exact else n_hist_bins) + 1
    per_sample = n_samples + 1 if exact else 1
    t = n_threads
    return Scratch(
        np.empty((t, width), np.int64),
        np.empty((t, width, n_cols)),
        np.empty((t, n_cols)),
        np.empty((t, width)),
        np.empty((t, width), np.int64),
        np.empty((t, per_sample), np.int64),
        np.empty((t, max(per_sample, SMALL_NODE_SORT + 1)), np.int64),
        np.empty((t, per_sample), np.int64),
        np.zeros((t, 256, n_cols)),
        np.zeros((t, 4), np.uint64),
        np.empty((t, n_cols)),
        np.empty((t, n_cols)),
        np.empty((t, n_cols)),
        np.empty((t, n_entries), np.int32),
        np.empty((t, n_entries), np.uint8),
    )


@inlined
def thread_scratch(scratch, t):
    """Thread ``t``'s :class:`~.layout.Scratch` (views) of one made by
    :func:`make_scratch`."""
    return Scratch(
        scratch.codes[t],
        scratch.cstats[t],
        scratch.missing[t],
        scratch.keys[t],
        scratch.rank[t],
        scratch.tmp_codes[t],
        scratch.order[t],
        scratch.radix[t],
        scratch.sparse_hist[t],
        scratch.bits[t],
        scratch.left[t],
        scratch.right[t],
        scratch.tmp[t],
        scratch.entry_pos[t],
        scratch.entry_code[t],
    )


@inlined
def _evaluate_range(first, step, feats, node, data, rows, params, scratch, cands, sparse):
    """:func:`eval_feature_dense` (``sparse`` False) or :func:`eval_feature_sparse` for
    ``feats[first::step]``: the body both executions share.  ``sparse`` must be a
    constant where this is inlined."""
    # a value of its own (not a name for ``first``, the parallel loop's index)
    start = np.int64(first)
    if sparse:
        eval_feature_sparse(start, step, feats, node, data, rows, params, scratch, cands)
    else:
        eval_feature_dense(start, step, feats, node, data, rows, params, scratch, cands)


def _make_evaluate_parallel(sparse):
    """:func:`_evaluate_range` with one interleaved share of the features per thread,
    each thread with its own rows of ``scratch`` (see :func:`make_scratch`), for dense
    or sparse codes (the constant ``sparse``, see :func:`_make_eval_feature`)."""

    @compiled(parallel=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
    def evaluate_parallel(feats, node, data, rows, params, scratch, cands, n_threads):
        n_chunks = min(n_threads, feats.shape[0], scratch.codes.shape[0])
        for t in prange(n_chunks):
            _evaluate_range(
                t,
                n_chunks,
                feats,
                node,
                data,
                rows,
                params,
                thread_scratch(scratch, t),
                cands,
                sparse,
            )

    return evaluate_parallel


_evaluate_parallel_dense = _make_evaluate_parallel(False)
_evaluate_parallel_sparse = _make_evaluate_parallel(True)


#: a boosting node's work from which its features are evaluated on several threads (in
#: the parallel grower), counted as (samples + histogram bins) x features: building a
#: histogram costs about a sample a feature, the second-order scan about a bin a feature,
#: and starting a parallel region of OpenMP's workers (which spin between regions, its
#: default) about as much as a few thousand of either
PARALLEL_MIN_WORK = 25_000
#: ... and the samples x features of the other criteria's nodes: their scans are
#: cheaper, and a fully grown tree has thousands of small nodes, whose regions would cost
#: more than they share
PARALLEL_MIN_CELLS = 100_000


@inlined
def evaluate_features(feats, node, data, rows, params, scratch, cands, sparse=False):
    """Best split of each feature of ``feats`` at ``node`` (a :class:`~.layout.NodeView`),
    into ``cands``, in the calling thread (with row 0 of ``scratch``, see
    :func:`make_scratch`)."""
    _evaluate_range(
        np.int64(0),
        np.int64(1),
        feats,
        node,
        data,
        rows,
        params,
        thread_scratch(scratch, 0),
        cands,
        sparse,
    )


@inlined
def evaluate_features_parallel(
    n_threads, feats, node, data, rows, params, scratch, cands, sparse=False
):
    """:func:`evaluate_features` on ``n_threads`` threads when the node has enough work to
    share (:data:`PARALLEL_MIN_WORK`, :data:`PARALLEL_MIN_CELLS`), else in the calling
    thread.
    (Inlined: ``sparse``, a constant of the caller, then picks one parallel copy.)"""
    n_node = node.end - node.start
    if params.criterion == NEWTON:
        shared = (n_node + data.missing_code + 1) * feats.shape[0] >= PARALLEL_MIN_WORK
    else:
        shared = n_node * feats.shape[0] >= PARALLEL_MIN_CELLS
    if n_threads > 1 and feats.shape[0] > 1 and shared:
        if sparse:
            _evaluate_parallel_sparse(feats, node, data, rows, params, scratch, cands, n_threads)
        else:
            _evaluate_parallel_dense(feats, node, data, rows, params, scratch, cands, n_threads)
    else:
        evaluate_features(feats, node, data, rows, params, scratch, cands, sparse)
