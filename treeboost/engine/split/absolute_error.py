"""The split search of ``absolute_error``: no sum over a histogram gives it.

A child's impurity is the absolute deviation of its targets around their weighted median,
``AE = sum w |y - median|``, and the best split minimises ``AE_L + AE_R`` (its impurity
decrease is ``AE_P - AE_L - AE_R``).  For one node and feature the node's samples are
ordered by bin code (numeric) or by their category's position in the order of the
categories' mean targets (categorical: the order the histogram search uses), and swept
once in each direction.

The sweep activates the samples one at a time in a Fenwick tree indexed by the rank of
their target in the node (the node's targets are sorted once, :func:`sort_node`); the
tree holds the weight and ``w*y`` of the activated ranks.  The weighted median is the
first rank whose cumulative weight exceeds half the total, or the midpoint of two ranks
when a cumulative weight equals half exactly (scikit-learn's rule and search), and

    AE = (WY_right - m W_right) + (m W_left - WY_left)

follows from the prefix sums below the median, in O(log n) per sample, O(n log n) per
feature and node (scikit-learn's MAE criterion works the same way).  The forward sweep
gives every prefix of the groups of equal key its AE, the backward sweep every suffix.
Missing values are tried on both sides, with two more sweeps that start from them, and
alone on the right ("is missing"): the candidates, their order and their tie-breaking are
those of :func:`~.splitting.scan_feature`.

Extra-Trees' random cut (:func:`score_cut`) needs the AE of given sides only: one pass
per side over the node's samples in target order, O(n).

Everything here is compiled only into the grower of ``absolute_error`` (see
:mod:`.grow.loop`): the other criteria's growers do not hold it.
"""

from collections import namedtuple

import numpy as np

from .constraints import MonotonicCheck, ordered_in_interval
from ..binning.sparse_codes import feature_code
from .._numba.jit import internal, kernel


#: the node's targets sorted once for all its features
NodeTargets = namedtuple(
    "NodeTargets",
    [
        "y",  # (n,) the node's targets, ascending
        "w",  # (n,) their weights
        "rank",  # (n,) rank in ``y`` of the node's sample ``idx[start + o]``
        "order",  # (n,) the node sample ``o`` of each rank (inverse of ``rank``)
        "deviation",  # (1,) the node's own AE around its median
    ],
)

#: rows of the per-feature float work array: the AE of the sweeps forward and backward
#: without the missing values, then with them (sweep ``k`` goes forward for even ``k``
#: and starts from the missing values for ``k >= 2``), then the Fenwick tree, then the
#: medians of the four sweeps (row ``k + _MEDIAN``: the monotonic constraints read them)
_FWD, _BWD, _FWD_MISS, _BWD_MISS, _TREE_W, _TREE_WY, _MEDIAN, _N_FLOAT_ROWS = (
    0,
    1,
    2,
    3,
    4,
    5,
    6,
    10,
)
#: sides of a sample at a random cut
_LEFT, _RIGHT, _MISSING = 0, 1, 2


@kernel
def weighted_median(y, w, n):
    """``(median, AE)`` of the ``n`` targets ``y`` sorted ascending with weights ``w``:
    the first target whose cumulative weight exceeds half the total, the midpoint with
    the previous one when a cumulative weight equals half exactly; ``AE`` is
    ``sum w |y - median|``.  ``(0, 0)`` without weight."""
    total = 0.0
    for r in range(n):
        total += w[r]
    if not total > 0.0:
        return 0.0, 0.0
    half = 0.5 * total
    acc = 0.0
    prev = -1
    med = y[n - 1]
    for r in range(n):
        if w[r] <= 0.0:
            continue
        if acc + w[r] > half:
            med = 0.5 * (y[prev] + y[r]) if prev >= 0 and acc == half else y[r]
            break
        acc += w[r]
        prev = r
    dev = 0.0
    for r in range(n):
        dev += w[r] * abs(y[r] - med)
    return med, dev


@internal
def sort_node(src, idx, start, end):
    """The :class:`NodeTargets` of the samples ``idx[start:end]`` (a
    :class:`~.statistics.StatisticSource` of regression targets)."""
    n = end - start
    y = np.empty(n)
    for o in range(n):
        y[o] = src.targets[idx[start + o]]
    order = np.argsort(y, kind="mergesort")
    sy = np.empty(n)
    sw = np.empty(n)
    rank = np.empty(n, np.int64)
    for r in range(n):
        o = order[r]
        rank[o] = r
        sy[r] = y[o]
        sw[r] = src.weights[idx[start + o]]
    dev = np.empty(1)
    dev[0] = weighted_median(sy, sw, n)[1]
    return NodeTargets(sy, sw, rank, order, dev)


@internal
def _fenwick_add(tw, twy, n, r, w, wy):
    i = r + 1
    while i <= n:
        tw[i] += w
        twy[i] += wy
        i += i & -i


@internal
def _fenwick_deviation(tw, twy, n, top, total_w, total_wy, y):
    """``(AE, median)`` of the activated ranks around their weighted median: scikit-learn's
    search (``WeightedFenwickTree.search``), which subtracts the weights of the subtrees
    it passes from the target half weight, so that its exact ties are found alike."""
    if not total_w > 0.0:
        return 0.0, 0.0
    target = 0.5 * total_w
    cur = 0
    cw = 0.0
    cwy = 0.0
    bit = top
    equal_bit = 0
    while bit != 0:
        nxt = cur + bit
        if nxt <= n:
            nw = tw[nxt]
            if target == nw:
                equal_bit = bit
                break
            if target > nw:
                target -= nw
                cur = nxt
                cw += nw
                cwy += twy[nxt]
        bit >>= 1
    if equal_bit == 0:
        med = y[min(cur, n - 1)]
    else:
        # the cumulative weight hits half exactly: the median is the midpoint of the rank
        # that reaches it and the next activated one
        equal_target = target
        prev = cur
        bit = equal_bit
        while bit != 0:
            nxt = prev + bit
            if nxt <= n and target > tw[nxt]:
                target -= tw[nxt]
                prev = nxt
            bit >>= 1
        target = equal_target
        bit = equal_bit
        while bit != 0:
            nxt = cur + bit
            if nxt <= n and target >= tw[nxt]:
                target -= tw[nxt]
                cur = nxt
                cw += tw[nxt]
                cwy += twy[nxt]
            bit >>= 1
        med = 0.5 * (y[prev] + y[min(cur, n - 1)])
    wr = total_w - cw
    wyr = total_wy - cwy
    return (wyr - med * wr) + (med * cw - cwy), med


@internal
def _sweep(perm, group_end, n_groups, n_present, n, forward, with_missing, nt, fl, out):
    """``fl[out, g]`` = AE of groups ``0..g`` (``forward``) or of groups ``g..`` (else, and
    ``fl[out, n_groups]`` = that of none), the missing values ``perm[n_present:n]``
    included when ``with_missing``."""
    tw = fl[_TREE_W]
    twy = fl[_TREE_WY]
    for i in range(n + 1):
        tw[i] = 0.0
        twy[i] = 0.0
    top = 1
    while top <= n:
        top <<= 1
    top >>= 1
    total_w = 0.0
    total_wy = 0.0
    if with_missing:
        for p in range(n_present, n):
            r = nt.rank[perm[p]]
            wy = nt.w[r] * nt.y[r]
            _fenwick_add(tw, twy, n, r, nt.w[r], wy)
            total_w += nt.w[r]
            total_wy += wy
    if not forward:
        fl[out, n_groups], fl[out + _MEDIAN, n_groups] = _fenwick_deviation(
            tw, twy, n, top, total_w, total_wy, nt.y
        )
    for k in range(n_groups):
        g = k if forward else n_groups - 1 - k
        lo = group_end[g - 1] if g > 0 else 0
        for p in range(lo, group_end[g]):
            r = nt.rank[perm[p]]
            wy = nt.w[r] * nt.y[r]
            _fenwick_add(tw, twy, n, r, nt.w[r], wy)
            total_w += nt.w[r]
            total_wy += wy
        fl[out, g], fl[out + _MEDIAN, g] = _fenwick_deviation(
            tw, twy, n, top, total_w, total_wy, nt.y
        )


@internal
def _keys(f, start, n, data, idx, nt, key):
    """Each node sample's sort key for feature ``f`` into ``key``: its code (numeric) or
    its category's position in the order of the categories' mean targets; missing
    values get the missing code, which sorts last.  Returns the categories in that order
    (an empty array for a numeric feature) and the number of missing values."""
    mc = np.int64(data.missing_code)
    n_miss = 0
    for o in range(n):
        c = feature_code(data, f, idx[start + o])
        key[o] = c
        n_miss += c == mc
    if not data.is_categorical[f]:
        return np.empty(0, np.int64), n_miss
    n_codes = np.int64(data.n_bins[f])
    cw = np.zeros(n_codes)
    cwy = np.zeros(n_codes)
    seen = np.zeros(n_codes, np.bool_)
    for o in range(n):
        c = np.int64(key[o])
        if c != mc:
            r = nt.rank[o]
            cw[c] += nt.w[r]
            cwy[c] += nt.w[r] * nt.y[r]
            seen[c] = True
    present = np.flatnonzero(seen)
    means = np.empty(present.shape[0])
    for j in range(present.shape[0]):
        c = present[j]
        means[j] = cwy[c] / cw[c] if cw[c] > 0.0 else 0.0
    cats = present[np.argsort(means, kind="mergesort")]
    pos = np.empty(n_codes, np.int64)
    for j in range(cats.shape[0]):
        pos[cats[j]] = j
    for o in range(n):
        if key[o] != mc:
            key[o] = pos[np.int64(key[o])]
    return cats, n_miss


@internal
def _scan(f, view, data, idx, params, nt, fl, key, group_end, cands):
    """The best split of feature ``f`` at the node into row ``f`` of ``cands``."""
    start = view.start
    n = view.end - start
    total = view.total
    cnt = total.shape[0] - 1
    min_leaf = params.min_samples_leaf
    min_w = params.min_weight_leaf
    cats, n_miss = _keys(f, start, n, data, idx, nt, key)
    perm = np.argsort(key[:n], kind="mergesort")
    n_present = n - n_miss
    has_miss = n_miss > 0
    cands.score[f] = -np.inf
    cands.decrease[f] = 0.0
    n_groups = 0
    for p in range(n_present):
        if p == n_present - 1 or key[perm[p + 1]] != key[perm[p]]:
            group_end[n_groups] = p + 1
            n_groups += 1
    if n_groups < 2 and not has_miss or n_groups < 1:
        return
    # one call site with run-time arguments: constant ones would compile the sweep once
    # per combination
    for k in range(4 if has_miss else 2):
        _sweep(perm, group_end, n_groups, n_present, n, k % 2 == 0, k >= 2, nt, fl, k)
    fwd_miss = _FWD_MISS if has_miss else _FWD
    bwd_miss = _BWD_MISS if has_miss else _BWD
    mw = 0.0
    mwy = 0.0
    mcount = 0.0
    if has_miss:
        for p in range(n_present, n):
            r = nt.rank[perm[p]]
            mw += nt.w[r]
            mwy += nt.w[r] * nt.y[r]
            mcount += nt.w[r] > 0.0
    check = MonotonicCheck(params.monotonic, params.monotonic_cst[f], view.lower, view.upper)
    best = -np.inf
    best_g = -1
    best_ml = False
    best_mid = 0.0
    bw = 0.0
    bwy = 0.0
    bc = 0.0
    lw = 0.0
    lwy = 0.0
    lc = 0.0
    for g in range(n_groups):
        lo = group_end[g - 1] if g > 0 else 0
        for p in range(lo, group_end[g]):
            r = nt.rank[perm[p]]
            lw += nt.w[r]
            lwy += nt.w[r] * nt.y[r]
            lc += nt.w[r] > 0.0
        last = g == n_groups - 1
        # cuts after group g: the missing values right, then left; after the last group,
        # only "is missing" (every present value left, the missing ones right)
        for with_miss in range(1 if last else (2 if has_miss else 1)):
            if last and not has_miss:
                break
            if with_miss == 0:
                fwd, bwd = _FWD, bwd_miss
                w, wy, c = lw, lwy, lc
            else:
                fwd, bwd = fwd_miss, _BWD
                w, wy, c = lw + mw, lwy + mwy, lc + mcount
            dev = fl[fwd, g] + fl[bwd, g + 1]
            if c < min_leaf or total[cnt] - c < min_leaf:
                continue
            wr = total[0] - w
            if w < min_w or wr < min_w or w <= 0.0 or wr <= 0.0:
                continue
            mid = 0.0
            if -dev > best and check.active:
                ok, mid = ordered_in_interval(fl[fwd + _MEDIAN, g], fl[bwd + _MEDIAN, g + 1], check)
                if not ok:
                    continue
            if -dev > best:
                best, best_g, best_ml, bw, bwy, bc = -dev, g, with_miss == 1, w, wy, c
                best_mid = mid
    if best_g < 0:
        return
    cands.mid[f] = best_mid
    out_left = cands.left_stats[f]
    out_left[0] = bw
    out_left[1] = bwy
    out_left[cnt] = bc
    if not has_miss:
        best_ml = bc > total[cnt] - bc
    cands.score[f] = best
    cands.decrease[f] = nt.deviation[0] + best
    cands.missing_go_left[f] = best_ml
    if data.is_categorical[f]:
        bits = cands.categories[f]
        bits[:] = 0
        for j in range(best_g + 1):
            b = cats[j]
            bits[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
        cands.bin_threshold[f] = 0
    else:
        cands.bin_threshold[f] = np.int64(key[perm[group_end[best_g] - 1]])


@internal
def evaluate_features(feats, view, data, idx, params, nt, cands):
    """The best split of each feature of ``feats`` at ``view`` (a
    :class:`~.layout.NodeView`) into ``cands`` (:class:`~.layout.SplitCandidates`);
    ``nt`` is the node's :class:`NodeTargets`."""
    n = view.end - view.start
    fl = np.empty((_N_FLOAT_ROWS, n + 1))
    # float keys (codes and category positions are small integers, exact in float64):
    # the same argsort as the targets', compiled once
    key = np.empty(n)
    group_end = np.empty(n, np.int64)
    for i in range(feats.shape[0]):
        _scan(feats[i], view, data, idx, params, nt, fl, key, group_end, cands)


@internal
def _side_deviation(nt, side, a, b):
    """``(AE, median)`` of the node samples whose side is ``a`` or ``b``."""
    n = nt.y.shape[0]
    total = 0.0
    for r in range(n):
        s = side[nt.order[r]]
        if s == a or s == b:
            total += nt.w[r]
    if not total > 0.0:
        return 0.0, 0.0
    half = 0.5 * total
    acc = 0.0
    prev = -1
    med = 0.0
    for r in range(n):
        s = side[nt.order[r]]
        if (s == a or s == b) and nt.w[r] > 0.0:
            if acc + nt.w[r] > half:
                med = 0.5 * (nt.y[prev] + nt.y[r]) if prev >= 0 and acc == half else nt.y[r]
                break
            acc += nt.w[r]
            prev = r
    dev = 0.0
    for r in range(n):
        s = side[nt.order[r]]
        if s == a or s == b:
            dev += nt.w[r] * abs(nt.y[r] - med)
    return dev, med


@internal
def score_cut(cuts, j, view, data, idx, params, nt, cands):
    """Extra-Trees' random cut ``cuts.cut[j]`` of feature ``cuts.feature[j]`` scored by
    the absolute error (the missing values on the better side), into ``cands``; score
    ``-inf`` when a child breaks the leaf constraints."""
    f = cuts.feature[j]
    cut = cuts.cut[j]
    start = view.start
    n = view.end - start
    total = view.total
    cnt = total.shape[0] - 1
    mc = np.int64(data.missing_code)
    side = np.empty(n, np.int8)
    lw = 0.0
    lwy = 0.0
    lc = 0.0
    mw = 0.0
    mwy = 0.0
    mcount = 0.0
    for o in range(n):
        c = feature_code(data, f, idx[start + o])
        r = nt.rank[o]
        if c == mc:
            side[o] = _MISSING
            mw += nt.w[r]
            mwy += nt.w[r] * nt.y[r]
            mcount += nt.w[r] > 0.0
        elif c <= cut:
            side[o] = _LEFT
            lw += nt.w[r]
            lwy += nt.w[r] * nt.y[r]
            lc += nt.w[r] > 0.0
        else:
            side[o] = _RIGHT
    has_miss = cuts.n_missing[j] > 0
    check = MonotonicCheck(params.monotonic, params.monotonic_cst[f], view.lower, view.upper)
    best = -np.inf
    best_ml = False
    best_mid = 0.0
    for with_miss in range(2 if has_miss else 1):
        w = lw + mw if with_miss == 1 else lw
        c = lc + mcount if with_miss == 1 else lc
        if c < params.min_samples_leaf or total[cnt] - c < params.min_samples_leaf:
            continue
        wr = total[0] - w
        if w < params.min_weight_leaf or wr < params.min_weight_leaf or w <= 0.0 or wr <= 0.0:
            continue
        # the missing values join the right side, then the left one; the sides are
        # run-time values, so that the deviation compiles once
        miss_left = np.int8(_MISSING if with_miss == 1 else _LEFT)
        miss_right = np.int8(_RIGHT if with_miss == 1 else _MISSING)
        dev = 0.0
        med_left = 0.0
        med_right = 0.0
        for t in range(2):
            if t == 0:
                d, med_left = _side_deviation(nt, side, np.int8(_LEFT), miss_left)
            else:
                d, med_right = _side_deviation(nt, side, np.int8(_RIGHT), miss_right)
            dev += d
        mid = 0.0
        if check.active:
            ok, mid = ordered_in_interval(med_left, med_right, check)
            if not ok:
                continue
        if -dev > best:
            best = -dev
            best_ml = with_miss == 1
            best_mid = mid
    cands.score[f] = best
    cands.decrease[f] = 0.0
    if best == -np.inf:
        return
    out_left = cands.left_stats[f]
    out_left[0] = lw + mw if best_ml else lw
    out_left[1] = lwy + mwy if best_ml else lwy
    out_left[cnt] = lc + mcount if best_ml else lc
    if not has_miss:
        best_ml = lc > total[cnt] - lc
    cands.decrease[f] = nt.deviation[0] + best
    cands.mid[f] = best_mid
    cands.bin_threshold[f] = cut
    cands.missing_go_left[f] = best_ml
