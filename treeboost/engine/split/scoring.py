"""The score of a candidate split from its left side's sums, and the side of its missing
values: the functions every split search of a histogram shares (numeric, categorical,
and the second-order scans of boosting)."""

from collections import namedtuple

import numpy as np

from .constraints import constrained_score
from .criteria import (
    newton_gain_term,
    node_term,
    NEWTON,
    SQUARED_ERROR,
    FRIEDMAN_MSE,
    POISSON,
    POISSON_MIN_SUM,
    POISSON_SUM_RTOL,
    GINI,
    ENTROPY,
    _LOG2,
)
from .._numba.jit import inlined, internal, kernel


#: what scores a candidate split, read from the tree's :class:`~..records.GrowthParams`
#: once per feature (:func:`split_rule`): the criterion and its statistics, the
#: regularisation and the leaf constraints that :func:`_score` applies
SplitRule = namedtuple(
    "SplitRule",
    [
        "criterion",  # int: the criterion's code (.criteria)
        "n_stats",  # int: statistics per sample before the count column
        "l1",  # float: L1 regularisation of the leaf values (boosting)
        "l2",  # float: L2 regularisation (boosting's lambda; the categories' own, higher)
        "min_leaf",  # int: min_samples_leaf
        "min_weight",  # float: min_weight_leaf (the hessian sum for boosting)
    ],
)


@inlined
def split_rule(params):
    """The :class:`SplitRule` of a tree's :class:`~..records.GrowthParams` (inlined: its
    fields are the params' own scalars, no record is built at run time)."""
    return SplitRule(
        params.criterion,
        params.n_stats,
        params.l1,
        params.l2,
        params.min_samples_leaf,
        params.min_weight_leaf,
    )


@kernel
def _score(left, total, crit, n_stats, l1, l2, min_leaf, min_w):
    """Score of sending ``left`` left and ``total - left`` right, ``-inf`` if a child
    breaks ``min_samples_leaf`` / ``min_weight_leaf``.

    Within one node the score is a monotone function of the impurity decrease
    (:func:`decrease_from_score` recovers it), so no child array is written here:
    gini ``sum_k l_k^2/W_L + sum_k r_k^2/W_R``; entropy ``-(T(L) + T(R))``; squared
    error ``S_L^2/W_L + S_R^2/W_R``; Friedman's ``(W_R S_L - W_L S_R)^2 / (W_L W_R)``
    (his improvement times ``W``); Poisson ``S_L log(S_L/W_L) + S_R log(S_R/W_R)``, ``-inf``
    when a child's sum of targets is not positive (scikit-learn's rule, with a tolerance
    for the rounding of the difference ``S - S_L``); newton
    ``T(G_L)^2/(H_L+l) + T(G_R)^2/(H_R+l)`` (``T`` the L1 threshold,
    :func:`~.criteria.newton_gain_term`), computed as ``T (T/(H+l))`` so that huge
    gradients (sample weights near 1e300) do not overflow;
    gain ratio: the ratio itself.  (``absolute_error`` has its own search,
    :mod:`.median_split`.)
    """
    cnt = total.shape[0] - 1
    nl = left[cnt]
    if nl < min_leaf or total[cnt] - nl < min_leaf:
        return -np.inf
    if crit == NEWTON:
        hl = left[1]
        hr = total[1] - hl
        if hl < min_w or hr < min_w:
            return -np.inf
        gl = left[0]
        gr = total[0] - gl
        return newton_gain_term(gl, hl, l1, l2) + newton_gain_term(gr, hr, l1, l2)
    if crit == SQUARED_ERROR:
        wl = left[0]
        wr = total[0] - wl
        if wl < min_w or wr < min_w or wl <= 0.0 or wr <= 0.0:
            return -np.inf
        sc = 0.0
        for k in range(1, n_stats):  # one (w*y) sum per output
            sl = left[k]
            sr = total[k] - sl
            sc += sl * sl / wl + sr * sr / wr
        return sc
    if crit == FRIEDMAN_MSE or crit == POISSON:
        wl = left[0]
        wr = total[0] - wl
        if wl < min_w or wr < min_w or wl <= 0.0 or wr <= 0.0:
            return -np.inf
        sl = left[1]
        sr = total[1] - sl
        if crit == FRIEDMAN_MSE:
            diff = wr * sl - wl * sr
            return diff * diff / (wl * wr)
        floor = POISSON_SUM_RTOL * total[1]
        if sl <= floor or sr <= floor or sl <= POISSON_MIN_SUM or sr <= POISSON_MIN_SUM:
            return -np.inf
        return sl * np.log(sl / wl) + sr * np.log(sr / wr)
    wl = 0.0
    wr = 0.0
    for k in range(n_stats):
        wl += left[k]
        wr += total[k] - left[k]
    if wl < min_w or wr < min_w or wl <= 0.0 or wr <= 0.0:
        return -np.inf
    if crit == GINI:
        ql = 0.0
        qr = 0.0
        for k in range(n_stats):
            r = total[k] - left[k]
            ql += left[k] * left[k]
            qr += r * r
        return ql / wl + qr / wr
    tl = wl * np.log(wl)
    tr = wr * np.log(wr)
    for k in range(n_stats):
        r = total[k] - left[k]
        if left[k] > 0.0:
            tl -= left[k] * np.log(left[k])
        if r > 0.0:
            tr -= r * np.log(r)
    if crit == ENTROPY:
        return -(tl + tr)
    # gain ratio
    w = wl + wr
    ig = (node_term(total, crit, n_stats, l1, l2) - (tl + tr) / _LOG2) / w
    pl = wl / w
    pr = wr / w
    iv = -(pl * np.log(pl) + pr * np.log(pr)) / _LOG2
    return ig / iv


@inlined
def rule_score(left, total, rule):
    """:func:`_score` of sending ``left`` left under the :class:`SplitRule` ``rule``."""
    return _score(
        left,
        total,
        rule.criterion,
        rule.n_stats,
        rule.l1,
        rule.l2,
        rule.min_leaf,
        rule.min_weight,
    )


@internal
def decrease_from_left(left, total, right, crit, n_stats, l1, l2):
    """Weighted impurity decrease ``T(P) - T(L) - T(R)`` of a split."""
    for c in range(total.shape[0]):
        right[c] = total[c] - left[c]
    return (
        node_term(total, crit, n_stats, l1, l2)
        - node_term(left, crit, n_stats, l1, l2)
        - node_term(right, crit, n_stats, l1, l2)
    )


@inlined
def _pure_class(cstats, j, n_stats):
    """The only class with weight in bin ``j``, or -1 when it holds several."""
    found = -1
    for k in range(n_stats):
        if cstats[j, k] > 0.0:
            if found >= 0:
                return -1
            found = k
    return found


#: hessian sums of a node's two children within this fraction of the node's are equal
#: for the side of NaN: the sums of equal hessians (every row's at the first iteration,
#: where the scores are one constant) differ in their last bits by the order they were
#: added in, which a data-parallel fit's shards change
HESSIAN_TIE_RTOL = 1e-12


@inlined
def hessian_goes_left(left_h, total_h):
    """NaN's side at a boosting split that saw no missing value in training: the child
    of the larger hessian sum ``left_h`` or ``total_h - left_h``, left on a tie within
    :data:`HESSIAN_TIE_RTOL` of ``total_h``."""
    return left_h >= total_h - left_h - HESSIAN_TIE_RTOL * abs(total_h)


@inlined
def nan_goes_left(left, total, crit):
    """The side of NaN at a split that saw no missing value in training: the larger
    child, by samples (by hessian for boosting, as its dense scan, which has no counts).
    ``left`` and ``total`` are the left child's and the node's statistics.  On a tie a
    tree sends it right, as scikit-learn's ``n_left > n_right``; boosting left, on
    hessians equal within :data:`HESSIAN_TIE_RTOL` (their sums' order must not decide)."""
    if crit == NEWTON:
        return hessian_goes_left(left[1], total[1])
    cnt = total.shape[0] - 1
    return left[cnt] > total[cnt] - left[cnt]


@inlined
def score_sides(left, miss, has_miss, total, check, rule, tmp, best, out_left):
    """A cut whose present values on the left sum to ``left``, scored with the missing
    values (summing to ``miss``) on the right, then, ``has_miss``, on the left
    (:func:`_score` under the :class:`SplitRule` ``rule``, and under the monotonic
    ``check`` when it is active).  Returns the better score if it beats ``best`` (else
    ``best``), whether the missing values then go left, and the middle of the children's
    values; ``out_left`` gets the winning left sums only when ``best`` was beaten.
    ``tmp`` is a work row.  (Shared by the histogram scan and the random cuts: one call
    site of each scoring function per caller, each an inlined copy to compile.)"""
    ml = False
    mid = 0.0
    for with_miss in range(2 if has_miss else 1):
        cand = left
        if with_miss == 1:
            for c in range(total.shape[0]):
                tmp[c] = left[c] + miss[c]
            cand = tmp
        sc = rule_score(cand, total, rule)
        cand_mid = 0.0
        if sc > best and check.active:
            sc, cand_mid = constrained_score(
                sc, cand, total, rule.criterion, rule.l1, rule.l2, check
            )
        if sc > best:
            best = sc
            ml = with_miss == 1
            mid = cand_mid
            copy_into(out_left, cand)
    return best, ml, mid


@internal
def copy_into(dst, src):
    """``dst[:] = src`` for two vectors of one length: an explicit loop, which compiles
    to far less than numpy's broadcasting assignment and its error paths."""
    for c in range(dst.shape[0]):
        dst[c] = src[c]
