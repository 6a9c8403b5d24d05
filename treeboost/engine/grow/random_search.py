"""Extra-Trees' split search at a node: one random cut per numeric feature drawn
(:mod:`..random_cuts`), scored from the node's sums or, with ``absolute_error``, from
its samples (:mod:`..median_split`)."""

import numpy as np

from .. import median_split
from .._jit import inlined, internal
from ..constraints import MonotonicCheck
from ..random_cuts import (
    code_range,
    coded_cut_counts,
    count_node_codes,
    cut_counts,
    cut_decrease,
    cut_range,
    cut_sums,
    draw_cut,
    draw_cut_from_table,
    score_cut,
)
from ..splitting import sparse_histogram, thread_scratch
from .sampling import rand


@inlined
def random_search_body(g, view, nt, exact, ranges=None, sparse=False):
    """Extra-Trees' search at a node: features in random order until ``max_features`` of
    them are not constant in the node (constant ones do not count, as in Geurts et al.
    2006 and scikit-learn), each numeric one with one random cut (:mod:`..random_cuts`),
    the features drawn in batches (all the draws of a batch's features, then those of
    their cuts, in the order of the features).  Returns the best numeric feature (-1:
    none), its score, and how many categorical features were drawn: they are in
    ``sampler.sorted_draw[:n]``, for the caller to search for their best subset (with
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
    found = 0
    n_cat = 0
    i = 0
    while i < n and found < max_features:
        nb = 0
        while i < n and found + nb < max_features:
            j = i + np.int64(rand(sampler.state) % np.uint64(n - i))
            f = perm[j]
            perm[j] = perm[i]
            perm[i] = f
            i += 1
            if data.is_categorical[f]:
                sampler.sorted_draw[n_cat] = f
                n_cat += 1
                found += 1
            else:
                cuts.feature[nb] = f
                nb += 1
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
                if hi <= lo:
                    cuts.n_missing[j] = -1  # constant in the node: no cut
                    continue
                found += 1
                draw = np.int64(rand(sampler.state) >> np.uint64(2))
                cuts.n_missing[j] = n_missing
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
                    f, cuts.cut[j], left, miss, n_missing, view, params, scratch_all, cands
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
            if hi <= lo:
                continue
            found += 1
            draw = np.int64(rand(sampler.state) >> np.uint64(2))
            cuts.n_missing[j] = n_missing
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
                    f, cuts.cut[j], left, miss, n_missing, view, params, scratch_all, cands
                )
            if cands.score[f] > best_score:
                best_score = cands.score[f]
                best = f
    if best >= 0 and not exact:
        cut_decrease(best, view, params, scratch_all.right[0], cands)
    return best, best_score, n_cat


@inlined
def score_random_cut(f, cut, left, miss, n_missing, view, params, scratch_all, cands):
    """Feature ``f``'s random cut ``cut``, whose sides sum to ``left`` and ``miss``
    (missing values), scored into ``cands``."""
    check = MonotonicCheck(params.monotonic, params.monotonic_cst[f], view.lower, view.upper)
    sc, ml, mid = score_cut(
        left,
        miss,
        n_missing > 0,
        view.total,
        check,
        params.criterion,
        params.n_stats,
        params.l2,
        params.min_samples_leaf,
        params.min_weight_leaf,
        scratch_all.tmp[0],
        cands.left_stats[f],
    )
    cands.score[f] = sc
    if sc > -np.inf:
        cands.mid[f] = mid
        cands.bin_threshold[f] = cut
        cands.missing_go_left[f] = ml


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
