"""Extra-Trees' random cuts: a node's split without a histogram.

Geurts, Ernst & Wehenkel (2006) draw, for each candidate feature, one cut uniformly
between the feature's smallest and largest value in the node, and keep the best of those
cuts.  No histogram is needed, only two passes over the node's samples for a whole batch
of features: their range of codes (:func:`cut_ranges`), then each side's statistics
(:func:`cut_sums`).  Both passes read the codes sample-major (``BinnedData.codes_rows``):
the features of one sample share a cache line, where the feature-major codes would cost
one cache miss per feature and sample in the scattered samples of a deep node.

The cut is drawn in value, between the *centers* of the node's smallest and largest bin
(:meth:`~treeboost.engine.binning.BinMapper.bin_centers`); when a bin holds one distinct
value its center is that value, so with up to ``max_bins`` distinct values the cut is
exactly the textbook one.
"""
import numpy as np
from numba import njit

from .constraints import MonotonicCheck, constrained_score, newton_decrease
from .criteria import NEWTON
from .splitting import _score, copy_into, decrease_from_left, nan_goes_left

#: the 53 random bits of a draw that make a uniform number in [0, 1)
_UNIT_BITS = np.int64((1 << 53) - 1)
_UNIT_SCALE = 1.0 / (1 << 53)

internal = njit(nogil=True, cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)


@internal
def cut_ranges(cuts, nb, start, end, data, idx):
    """``cuts.lo/hi/n_missing[j]`` of the ``nb`` features ``cuts.feature[:nb]`` over
    the samples ``idx[start:end]``."""
    mc = np.int64(data.missing_code)
    rows = data.codes_rows
    for j in range(nb):
        cuts.lo[j] = mc
        cuts.hi[j] = -1
        cuts.n_missing[j] = 0
    for i in range(start, end):
        r = rows[idx[i]]
        for j in range(nb):
            c = np.int64(r[cuts.feature[j]])
            # selects rather than branches: a node's codes follow no pattern a branch
            # predictor could learn
            is_miss = c == mc
            cuts.n_missing[j] += is_miss
            cuts.lo[j] = min(cuts.lo[j], c)
            cuts.hi[j] = max(cuts.hi[j], -1 if is_miss else c)


@internal
def draw_cut(centers, lo, hi, draw):
    """The last code in ``[lo, hi - 1]`` whose center lies below
    ``u = c_lo + U (c_hi - c_lo)``, ``U`` uniform in [0, 1) from the 53 low bits of
    ``draw`` (at least ``lo``): those codes go left."""
    u = centers[lo] + (draw & _UNIT_BITS) * _UNIT_SCALE * (centers[hi] - centers[lo])
    a = lo
    b = hi - 1
    while a < b:
        mid = (a + b + 1) >> 1
        if centers[mid] < u:
            a = mid
        else:
            b = mid - 1
    return a


@internal
def cut_sums(cuts, nb, start, end, data, idx, ostats):
    """``cuts.left[j]`` (codes ``<= cuts.cut[j]``) and ``cuts.missing[j]`` of the ``nb``
    features of the batch; ``ostats`` holds the node's statistics in node order."""
    mc = np.int64(data.missing_code)
    rows = data.codes_rows
    n_cols = ostats.shape[1]
    any_missing = False
    for j in range(nb):
        any_missing |= cuts.n_missing[j] > 0
        for c in range(n_cols):
            cuts.left[j, c] = 0.0
            cuts.missing[j, c] = 0.0
    if n_cols == 3 and not any_missing:
        # the usual statistics, (w_0, w_1, count) or (w, w y, count), without branches
        for i in range(start, end):
            r = rows[idx[i]]
            o = i - start
            s0 = ostats[o, 0]
            s1 = ostats[o, 1]
            s2 = ostats[o, 2]
            for j in range(nb):
                x = 1.0 if np.int64(r[cuts.feature[j]]) <= cuts.cut[j] else 0.0
                cuts.left[j, 0] += x * s0
                cuts.left[j, 1] += x * s1
                cuts.left[j, 2] += x * s2
        return
    for i in range(start, end):
        r = rows[idx[i]]
        o = i - start
        for j in range(nb):
            c = np.int64(r[cuts.feature[j]])
            if c <= cuts.cut[j]:
                for k in range(n_cols):
                    cuts.left[j, k] += ostats[o, k]
            elif c == mc:
                for k in range(n_cols):
                    cuts.missing[j, k] += ostats[o, k]


@internal
def score_cut(cuts, j, view, params, scratch, cands):
    """Write feature ``cuts.feature[j]``'s split (its cut, the missing values on the
    better side) to ``cands`` for the node ``view``: score ``-inf`` when a child breaks
    the leaf constraints or the feature's monotonic constraint."""
    f = cuts.feature[j]
    total = view.total
    check = MonotonicCheck(params.monotonic, params.monotonic_cst[f], view.lower,
                           view.upper)
    crit = params.criterion
    n_stats = params.n_stats
    l2 = params.l2
    left = cuts.left[j]
    miss = cuts.missing[j]
    out_left = cands.left_stats[f]
    ml = False
    copy_into(out_left, left)
    n_cols = total.shape[0]
    has_miss = cuts.n_missing[j] > 0
    tmp = scratch.tmp
    best = -np.inf
    mid = 0.0
    # the missing values right, then left: one call site of each scoring function
    for with_miss in range(2 if has_miss else 1):
        cand = left
        if with_miss == 1:
            for c in range(n_cols):
                tmp[c] = left[c] + miss[c]
            cand = tmp
        sc = _score(cand, total, crit, n_stats, l2, params.min_samples_leaf,
                    params.min_weight_leaf)
        cand_mid = 0.0
        if sc > best and check.active:
            sc, cand_mid = constrained_score(sc, cand, total, crit, l2, check)
        if sc > best:
            best = sc
            mid = cand_mid
            ml = with_miss == 1
            copy_into(out_left, cand)
    cands.score[f] = best
    cands.decrease[f] = 0.0
    if best == -np.inf:
        return
    if not has_miss:
        ml = nan_goes_left(out_left, total, crit)
    cands.mid[f] = mid
    if crit == NEWTON and check.active:
        cands.decrease[f] = newton_decrease(best, total, l2, check)
    else:
        cands.decrease[f] = decrease_from_left(out_left, total, scratch.right, crit,
                                               n_stats, l2)
    cands.bin_threshold[f] = cuts.cut[j]
    cands.missing_go_left[f] = ml
