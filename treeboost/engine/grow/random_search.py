"""Extra-Trees' split search at a node: one random cut per numeric feature drawn
(:mod:`..random_cuts`), scored from the node's sums or, with ``absolute_error``, from
its samples (:mod:`..median_split`)."""

import numpy as np

from ..split import absolute_error as median_split
from .._numba.jit import inlined, internal
from ..split.constraints import MonotonicCheck
from ..split.random_cuts import (
    code_range,
    coded_cut_counts,
    count_node_codes,
    cut_counts,
    cut_decrease,
    cut_range,
    cut_sums,
    draw_cut,
    draw_cut_from_table,
    cut_score,
)
from ..split.categorical import MAX_CAT_EXACT, category_searched
from ..split.scoring import split_rule
from ..split.search import sparse_histogram, thread_scratch
from .sampling import rand

#: the bit of a cut's draw that gives its missing values' side (the cut reads the 53 low
#: bits: one draw, so that the lean grower and this search draw alike)
_SIDE_BIT = np.int64(61)


@inlined
def random_search_body(g, view, nt, exact, ranges=None, sparse=False):
    """Extra-Trees' search at a node, as scikit-learn's random splitter draws it:
    features in random order, every drawn feature counted toward ``max_features``
    (constant ones too), and past ``max_features`` one more at a time until one of them
    is not constant in the node (or none is left).  Each numeric one gets one random cut
    (:mod:`..random_cuts`) and its missing values a random side; each categorical one a
    random subset of the node's categories (:func:`random_subset`), the features drawn in
    batches (all the draws of a batch's features, then those of their cuts, in the order
    of the features).  A feature is constant when all its values are missing, or one
    value and none missing.  Returns the best feature (-1: none), its score, and how many
    categorical features were left to the caller: with ``exact`` or ``sparse`` they are
    in ``sampler.sorted_draw[:n]``, for the caller to search for their best subset (with
    the split search it compiles anyway).

    ``exact`` is a constant of the compiled copy: with True the cuts are scored by the
    absolute error over the node's samples (``nt``, :func:`.median_split.sort_node`),
    else from their sums (``nt`` unused).  ``ranges``, when given, is the lean
    grower's :class:`~..random_cuts.LeanNode` (:mod:`.random_tree`): how the node's
    ranges, cuts and sums are read from its codes in node order."""
    # each record read from the context once (see .examine.examine_node)
    sampler = g.sampler
    cands = g.candidates
    cuts = g.random_cuts
    data = g.data
    rows = g.rows
    scratch_all = g.scratch
    idx = rows.idx
    mc = np.int64(data.missing_code)
    perm = sampler.perm
    n = perm.shape[0]
    params = g.params
    max_features = params.max_features
    scratch = thread_scratch(scratch_all, 0)
    count_col = view.total.shape[0] - 1
    best = np.int64(-1)
    best_score = -np.inf
    # the drawn features not constant in the node; ``i`` counts every drawn one
    found = 0
    n_cat = 0
    i = 0
    while i < n and (i < max_features or found == 0):
        nb = 0
        n_batch = 0
        while i < n and (i < max_features or (found == 0 and n_batch == 0)):
            j = i + np.int64(rand(sampler.state) % np.uint64(n - i))
            f = perm[j]
            perm[j] = perm[i]
            perm[i] = f
            i += 1
            n_batch += 1
            if not data.is_categorical[f]:
                cuts.feature[nb] = f
                nb += 1
            elif exact or sparse or ranges is not None:
                sampler.sorted_draw[n_cat] = f
                n_cat += 1
                found += 1
            elif random_subset(f, view, data, rows, mc, params, scratch_all, cands, sampler.state):
                found += 1
                if cands.score[f] > best_score:
                    best_score = cands.score[f]
                    best = f
        if nb == 0:
            continue
        if ranges is not None and not ranges.by_codes and not exact and not sparse:
            # the lean grower's small nodes: every cut of the batch drawn first (the
            # same draws in the same order), then their sums and scores.  The draws'
            # chains of dependent loads (.random_cuts.draw_cut_from_table) then overlap
            # instead of waiting each for a pass over the node
            for j in range(nb):
                f = cuts.feature[j]
                cands.score[f] = -np.inf
                if ranges.whole:
                    lo = np.int64(ranges.lo[f])
                    hi = np.int64(ranges.hi[f])
                    n_missing = np.int64(0)
                    if hi == mc:
                        # some value is missing: the range of the others, and their count
                        lo, hi, n_missing = cut_range(
                            ranges.codes, None, view.start, view.end, f, mc
                        )
                else:
                    lo, hi, n_missing = cut_range(ranges.codes, None, view.start, view.end, f, mc)
                if constant(lo, hi, n_missing):
                    cuts.n_missing[j] = -1  # constant in the node: no cut
                    continue
                found += 1
                draw = np.int64(rand(sampler.state) >> np.uint64(2))
                cuts.n_missing[j] = n_missing
                cuts.nan_left[j] = (draw >> _SIDE_BIT) & 1
                cuts.cut[j] = draw_cut_from_table(
                    data.bin_centers[f],
                    ranges.cut_table[f],
                    ranges.cut_base[f],
                    ranges.cut_scale[f],
                    lo,
                    hi,
                    draw,
                )
            for j in range(nb):
                n_missing = cuts.n_missing[j]
                if n_missing < 0:
                    continue
                f = cuts.feature[j]
                left = cuts.left[j]
                miss = cuts.missing[j]
                if ranges.counts:
                    cut_counts(
                        ranges.codes,
                        view.start,
                        view.end,
                        f,
                        cuts.cut[j],
                        n_missing > 0,
                        mc,
                        n,
                        left,
                        miss,
                    )
                else:
                    cut_sums(
                        ranges.codes,
                        None,
                        view.start,
                        view.end,
                        f,
                        cuts.cut[j],
                        n_missing > 0,
                        mc,
                        rows.ostats,
                        left,
                        miss,
                    )
                score_random_cut(
                    f,
                    cuts.cut[j],
                    left,
                    miss,
                    n_missing,
                    cuts.nan_left[j],
                    view,
                    params,
                    scratch_all,
                    cands,
                )
                if cands.score[f] > best_score:
                    best_score = cands.score[f]
                    best = f
            continue
        # each feature in turn: its range, its cut, its sums while its codes are in cache
        # (the cuts are drawn in the order of the features, after the batch's draws)
        group = np.int64(0)
        for j in range(nb):
            f = cuts.feature[j]
            if ranges is not None:
                # (a large node of the lean grower) the features counted by code in one
                # pass, as many at a time as by_code holds
                if j % ranges.by_code.shape[0] == 0:
                    group = min(ranges.by_code.shape[0], nb - j)
                    count_node_codes(ranges, view.start, view.end, cuts.feature, j, group, n, mc)
            cands.score[f] = -np.inf
            m = np.int64(0)
            if sparse:
                # the compressed histogram of the node's entries gives the range, then
                # the sums of the cut (.sparse_codes)
                m = sparse_histogram(f, view.start, view.end, view.total, data, rows, scratch)
                lo = np.int64(scratch.codes[0]) if m > 0 else np.int64(0)
                hi = np.int64(scratch.codes[m - 1]) if m > 0 else np.int64(-1)
                n_missing = np.int64(scratch.missing[count_col] + 0.5) if m >= 0 else np.int64(0)
            elif ranges is None:
                lo, hi, n_missing = cut_range(data.codes_rows, idx, view.start, view.end, f, mc)
            else:
                # the lean grower's large node (its small ones are drawn above): the
                # counts by code give the range, then the cut's sums
                lo, hi, n_missing = code_range(ranges.by_code[j % ranges.by_code.shape[0]], mc)
            if constant(lo, hi, n_missing):
                continue
            found += 1
            draw = np.int64(rand(sampler.state) >> np.uint64(2))
            cuts.n_missing[j] = n_missing
            cuts.nan_left[j] = (draw >> _SIDE_BIT) & 1
            if ranges is None:
                cuts.cut[j] = draw_cut(data.bin_centers[f], lo, hi, draw)
            else:
                cuts.cut[j] = draw_cut_from_table(
                    data.bin_centers[f],
                    ranges.cut_table[f],
                    ranges.cut_base[f],
                    ranges.cut_scale[f],
                    lo,
                    hi,
                    draw,
                )
            if exact:
                median_split.score_cut(cuts, j, view, data, idx, params, nt, cands)
            else:
                left = cuts.left[j]
                miss = cuts.missing[j]
                if sparse:
                    histogram_cut_sums(scratch, m, cuts.cut[j], left, miss)
                elif ranges is None:
                    cut_sums(
                        data.codes_rows,
                        idx,
                        view.start,
                        view.end,
                        f,
                        cuts.cut[j],
                        n_missing > 0,
                        mc,
                        rows.ostats,
                        left,
                        miss,
                    )
                else:
                    coded_cut_counts(
                        ranges.by_code[j % ranges.by_code.shape[0]], cuts.cut[j], mc, left, miss
                    )
                score_random_cut(
                    f,
                    cuts.cut[j],
                    left,
                    miss,
                    n_missing,
                    cuts.nan_left[j],
                    view,
                    params,
                    scratch_all,
                    cands,
                )
            if cands.score[f] > best_score:
                best_score = cands.score[f]
                best = f
    if best >= 0 and not exact:
        cut_decrease(best, view, params, scratch_all.right[0], cands)
    return best, best_score, n_cat


@inlined
def constant(lo, hi, n_missing):
    """Whether a feature whose present codes in the node span ``[lo, hi]`` (``hi < lo``:
    none) with ``n_missing`` missing values is constant there: all missing, or one value
    and none missing (scikit-learn's rule; one value and some missing is split into the
    two)."""
    return hi < lo or (hi == lo and n_missing == 0)


@inlined
def score_random_cut(f, cut, left, miss, n_missing, nan_left, view, params, scratch_all, cands):
    """Feature ``f``'s random cut ``cut``, whose sides sum to ``left`` and ``miss``
    (missing values), scored into ``cands`` with the missing values on the drawn side
    (``nan_left`` 1: left), not the better one, as scikit-learn's random splitter; a cut
    that saw none sends them to the larger child (:func:`..splitting.nan_goes_left`).
    ``left`` is a work row: it gets the missing values when they go left."""
    has_miss = n_missing > 0
    if has_miss and nan_left == 1:
        for c in range(left.shape[0]):
            left[c] += miss[c]
    check = MonotonicCheck(params.monotonic, params.monotonic_cst[f], view.lower, view.upper)
    sc, ml, mid = cut_score(
        left,
        miss,
        False,
        view.total,
        check,
        split_rule(params),
        scratch_all.tmp[0],
        cands.left_stats[f],
    )
    if has_miss:
        ml = nan_left == 1
    cands.score[f] = sc
    if sc > -np.inf:
        cands.mid[f] = mid
        cands.bin_threshold[f] = cut
        cands.missing_go_left[f] = ml


@inlined
def random_subset(f, view, data, rows, mc, params, scratch_all, cands, state):
    """Categorical feature ``f``'s random split at the node: each category present in
    the node goes left with probability 1/2 (drawn again until both sides get one), its
    missing values to a random side; scored into ``cands`` as a random cut
    (:func:`score_random_cut`), the subset in ``cands.categories[f]``.  Returns whether
    the feature is not constant in the node (:func:`constant`): only then is it drawn.
    Under the category guard, at a node with more than ``MAX_CAT_EXACT`` categories
    present, a category of fewer than ``params.min_samples_per_category`` rows
    (:func:`~..splitting.category_searched`) is treated as a missing value; the
    categories absent from the node, or set aside, go where the missing values go
    (:func:`~..splitting.missing_side_codes`'s rule).
    Reads the codes sample-major through ``rows.idx``, the statistics in node order
    (``rows.ostats``); ``scratch_all.bits[0]`` holds the present set meanwhile, and
    ``scratch_all.sparse_hist[0]``'s first column the categories' rows (zeros again on
    return, as the bitmap gather leaves them)."""
    present = scratch_all.bits[0]
    counts = scratch_all.sparse_hist[0]
    bits = cands.categories[f]
    for w in range(bits.shape[0]):
        present[w] = np.uint64(0)
    codes = data.codes_rows
    idx = rows.idx
    uf = np.uint64(f)
    n_missing = np.int64(0)
    for i in range(np.uint64(view.start), np.uint64(view.end)):
        c = np.int64(codes[np.uint64(idx[i]), uf])
        if c == mc:
            n_missing += 1
        else:
            present[c >> 6] |= np.uint64(1) << np.uint64(c & 63)
            counts[c, 0] += 1.0
    n_present = np.int64(0)
    for w in range(bits.shape[0]):
        x = present[w]
        while x:
            x &= x - np.uint64(1)
            n_present += 1
    # the categories set aside: out of the present set, their rows counted as missing
    guarded = n_present > MAX_CAT_EXACT
    for c in range(256 if guarded else 0):
        if present[c >> 6] >> np.uint64(c & 63) & np.uint64(1):
            if not category_searched(counts[c, 0], params.min_samples_per_category):
                present[c >> 6] &= ~(np.uint64(1) << np.uint64(c & 63))
                n_missing += np.int64(counts[c, 0])
                n_present -= 1
    for c in range(256):
        counts[c, 0] = 0.0
    if constant(np.int64(0), n_present - 1, n_missing):
        for w in range(bits.shape[0]):
            present[w] = np.uint64(0)
        cands.score[f] = -np.inf
        return False
    # a subset is kept when it holds some present category and not all of them (one
    # present category and some missing: all of it, against the missing values)
    while True:
        some = False
        every = True
        for w in range(bits.shape[0]):
            bits[w] = present[w] & rand(state) if n_present >= 2 else present[w]
            some = some or bits[w] != np.uint64(0)
            every = every and bits[w] == present[w]
        if n_present < 2 or (some and not every):
            break
    nan_left = np.int64(rand(state) >> np.uint64(63))
    left = cands.left_stats[f]
    miss = scratch_all.left[0]
    for c in range(left.shape[0]):
        left[c] = 0.0
        miss[c] = 0.0
    ostats = rows.ostats
    ustart = np.uint64(view.start)
    for i in range(ustart, np.uint64(view.end)):
        c = np.int64(codes[np.uint64(idx[i]), uf])
        o = i - ustart
        if c == mc or not (present[c >> 6] >> np.uint64(c & 63) & np.uint64(1)):
            for k in range(left.shape[0]):
                miss[k] += ostats[o, k]
        elif bits[c >> 6] >> np.uint64(c & 63) & np.uint64(1):
            for k in range(left.shape[0]):
                left[k] += ostats[o, k]
    score_random_cut(f, 0, left, miss, n_missing, nan_left, view, params, scratch_all, cands)
    if cands.score[f] > -np.inf and cands.missing_go_left[f]:
        # the categories the draw did not see go with the missing values
        for c in range(min(np.int64(data.n_bins[f]), 256)):
            if not (present[c >> 6] >> np.uint64(c & 63) & np.uint64(1)):
                bits[c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    for w in range(bits.shape[0]):
        present[w] = np.uint64(0)
    return True


@inlined
def histogram_cut_sums(scratch, m, cut, left, miss):
    """A random cut's sums from a compressed histogram (the ``m`` codes of
    ``scratch``): the codes up to ``cut`` into ``left``, the missing values into
    ``miss``."""
    for c in range(left.shape[0]):
        left[c] = 0.0
        miss[c] = scratch.missing[c]
    for k in range(m):
        if scratch.codes[k] > cut:
            break
        for c in range(left.shape[0]):
            left[c] += scratch.cstats[k, c]


def make_random_search(exact, sparse):
    """:func:`random_search_body` compiled on its own with the constants ``exact``
    (the cuts scored by the absolute error over the node's samples ``nt``, else from
    their sums, ``nt`` unused) and ``sparse``, variables of the closure that numba folds
    before it types the body (arguments, even literal ones, would compile every
    branch)."""

    @internal
    def random_search(g, view, nt):
        return random_search_body(g, view, nt, exact, None, sparse)

    return random_search


random_search = make_random_search(False, False)
random_search_sparse = make_random_search(False, True)
random_search_exact = make_random_search(True, False)
random_search_exact_sparse = make_random_search(True, True)
