"""TreeGrower: grows one tree on binned data from per-sample statistics.

The whole growth runs in one numba function, :func:`grow_tree`, so a fully grown tree
with thousands of nodes pays no Python overhead per node.  The loop is four steps, each
its own function, inlined into the grower (see Compilation below):

1. :func:`_examine_node`: a node just created gets its impurity and, when the stopping
   rules allow, the best split of its features (:mod:`.splitting`); a node with a split
   joins the open nodes;
2. :func:`_pick_next`: the open node to expand, depth-first (a stack) or, when
   ``max_leaf_nodes`` is set, best-first (largest gain first, as LightGBM's leaf-wise
   growth and scikit-learn's best-first builder);
3. :func:`_split_node`: its samples are partitioned between the two children
   (:mod:`.partition`) and the children get their statistics;
4. :func:`_schedule_children`: how each child's histograms will be obtained.

Histograms: a node with at least ``dense_min_samples`` samples gets a dense histogram;
of two children the smaller one's is built from its samples and the larger one's is the
parent's minus the smaller one's, in the parent's buffer.  Small nodes gather a
compressed histogram instead (cheaper than zeroing and scanning every bin).  With
per-node feature sampling (``max_features``) no subtraction is possible (the parent's
histogram would not cover the child's features), so every node gathers compressed
histograms of its sampled features straight from its samples.

State: the arrays travel in the named records of :mod:`.layout`.  :func:`grow_tree` works
in a :class:`~.layout.Workspace` that consecutive trees reuse, on borrowed views of it
(:mod:`._borrow`) so that the kernels it calls do not reference-count the arrays it
passes them.

Reference counting: the histogram growers are compiled without numba's runtime
(``_nrt=False``), and so is every kernel they call that does not ask for it
(``_nrt=True``: numba passes the flag down to the kernels it compiles for a caller).
With it, numba increments and decrements the count of every array of a record each time
the record is copied, which is at each step, each field read and each call: tens of
thousands of instructions in the grower's intermediate code, which LLVM then spends
seconds removing again, and calls that cost time per node at run time.  Nothing in these
kernels allocates (the work arrays come from the workspace), and the caller holds every
array it passes for the whole call.  ``absolute_error``'s copy, whose search allocates
per node (:mod:`.median_split`), keeps the runtime.

Compilation: one compiled grower serves every statistics source (:mod:`.statistics`) and
every criterion.  It is compiled in two copies from one source (:func:`_make_grow_tree`):
:func:`grow_tree_serial`, which holds no parallel region at all (small data, and the
workers of a forest, which is parallel over trees already), and
:func:`grow_tree_parallel`, which evaluates the features of large nodes on several
threads and is compiled only when a tree is large enough to use it
(:data:`PARALLEL_GROWER_MIN_WORK`).  The steps are inlined into the copy that calls
them: numba compiles each kernel once and then again inside every kernel that calls it,
so a chain of small compiled steps would compile the split search once per link.

``absolute_error`` has a third copy, :func:`grow_tree_exact` (serial), whose split search
reads the node's samples (:mod:`.median_split`) instead of histograms: the two others
hold none of that search, and it is compiled only the first time a tree uses it.  The
three have twins for sparse codes (:mod:`.sparse_codes`; ``grow_tree_*_sparse``), so
that a fit on dense codes compiles none of their search, partition and buckets.

The constants ``parallel``, ``exact`` and ``sparse`` are variables of the closures
that :func:`_make_grow_tree` (and, for the kernels compiled on their own,
:func:`_make_random_search` and :func:`.splitting._make_eval_feature`) returns, and the
loop is the closure's own body: numba folds a closure variable before it types the
body, so each copy compiles only its branches.  (An argument, even a literal one, is
not folded inside the kernel that takes it; and inlining a step copies its whole
intermediate representation, which costs as much as compiling a small kernel.)
"""
import contextlib
import threading
from collections import namedtuple

import numba
import numpy as np

from ._borrow import borrow
from . import median_split
from .constraints import (LOWER, MIDDLE, UPPER, Constraints, MonotonicCheck,
                          clip_node_values, interaction_masks)
from .criteria import (ABSOLUTE_ERROR, NEWTON, POISSON, REGRESSION_CRITERIA, is_regression,
                       node_impurity, node_weight)
from .layout import (BinnedData, FeatureSampler, GrowthParams, HistogramPool, NodeArrays,
                     NodeView, Pending, RandomCuts, RowBuffers, SplitCandidates, Workspace)
from .gap_thresholds import NO_ROWS, center_thresholds
from .partition import BinnedSplit, partition_serial, partition_sparse
from .random_cuts import (code_range, coded_cut_counts, count_codes, cut_counts, cut_decrease,
                          cut_range, cut_sums, draw_cut, draw_cut_from_table, score_cut)
from ._jit import compiled, inlined, internal
from .splitting import (MODE_BUILD, MODE_SORT, MODE_SUBTRACT, copy_into,
                        evaluate_features, evaluate_features_parallel, make_scratch,
                        sparse_histogram, thread_scratch)
from .node_targets import node_target_values
from .sparse_codes import SparseCodes, bucket_entries
from .statistics import (SOURCE_REGRESSION, SampleStatistics, gather_rows,
                         gather_rows_parallel, sum_rows, sum_sq)
from .leaf_ranges import LeafRanges
from .tree_arrays import VALUES_CLASSES, VALUES_MEANS, VALUES_NEWTON, tree_arrays
from .tree import Tree

#: node samples from which the parallel grower gathers a node's statistics on several
#: threads: a gather costs a few nanoseconds a sample, and a parallel region's wake-up
#: as much as a node of some ten thousand samples
PARALLEL_GATHER_MIN_ROWS = 50_000
#: rows x features of a tree from which :class:`TreeGrower` uses the parallel grower:
#: smaller trees take milliseconds, which thread start-ups would only add to, and they
#: then never pay for compiling the parallel copy
PARALLEL_GROWER_MIN_WORK = 50_000
#: a regularised second-order gain must exceed this fraction of the split's score
#: ``G_L^2/(H_L+l) + G_R^2/(H_R+l)``: below it the gain is rounding error, at any scale
#: of the gradients
NEWTON_GAIN_RTOL = 1e-12
#: an impurity decrease within this fraction of the root weight of zero still counts
#: (ties of exactly equal impurity must not be lost to rounding)
DECREASE_ATOL = 1e-12
#: scores of two features' best splits within this fraction of each other are a tie
#: (the same partition from two features sums its statistics in another order)
TIE_RTOL = 1e-15
#: scores closer than this (relative) are equal when ties go to the lowest feature index
SCORE_RTOL = 1e-10
#: a regression node is pure when its variance is this small relative to its mean
#: squared target
PURE_RTOL = 1e-12


#: what :func:`_examine_node` found
UNSPLITTABLE, NO_SPLIT, OPENED = 0, 1, 2

#: everything the steps of the grower read: the inputs, the workspace's records, the
#: feature sampler and the number of threads the parallel grower may use
GrowContext = namedtuple("GrowContext", ["data", "src", "rows", "nodes", "candidates",
                                         "scratch", "params", "sampler", "n_threads",
                                         "random_cuts"])


@internal
def _rand(state):
    """xorshift64*: a small explicit-state generator, the same on every thread."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@internal
def _sample_features(sampler, k):
    """Draw ``k`` features; returns them in ascending order (as without sampling: ties
    between equal scores are drawn at random in :func:`_examine_node`, or go to the
    lowest feature index without ``random_ties``), and the others, searched only
    when none of the drawn ones splits, as a view in draw order."""
    perm = sampler.perm
    n = perm.shape[0]
    for i in range(k):
        j = i + np.int64(_rand(sampler.state) % np.uint64(n - i))
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
    # ascending order by marking: O(n_features), no sort per node
    drawn = sampler.drawn
    for i in range(k):
        drawn[perm[i]] = True
    out = sampler.sorted_draw
    m = 0
    for f in range(n):
        if drawn[f]:
            out[m] = f
            m += 1
            drawn[f] = False
    return out[:k], perm[k:]


@inlined
def _random_search_body(g, view, nt, exact, ranges=None, sparse=False):
    """Extra-Trees' search at a node: features in random order until ``max_features`` of
    them are not constant in the node (constant ones do not count, as in Geurts et al.
    2006 and scikit-learn), each numeric one with one random cut (:mod:`.random_cuts`),
    the features drawn in batches (all the draws of a batch's features, then those of
    their cuts, in the order of the features).  Returns the best numeric feature (-1:
    none), its score, and how many categorical features were drawn: they are in
    ``sampler.sorted_draw[:n]``, for the caller to search for their best subset (with
    the split search it compiles anyway).

    ``exact`` is a constant of the compiled copy: with True the cuts are scored by the
    absolute error over the node's samples (``nt``, :func:`.median_split.sort_node`),
    else from their sums (``nt`` unused).  ``ranges``, when given, is the lean
    grower's :class:`~.random_cuts.LeanNode` (:mod:`.random_tree`): how the node's
    ranges, cuts and sums are read from its codes in node order."""
    # each record read from the context once (see _examine_node)
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
            j = i + np.int64(_rand(sampler.state) % np.uint64(n - i))
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
                        lo, hi, n_missing = cut_range(ranges.codes, None, view.start,
                                                      view.end, f, mc)
                else:
                    lo, hi, n_missing = cut_range(ranges.codes, None, view.start,
                                                  view.end, f, mc)
                if hi <= lo:
                    cuts.n_missing[j] = -1          # constant in the node: no cut
                    continue
                found += 1
                draw = np.int64(_rand(sampler.state) >> np.uint64(2))
                cuts.n_missing[j] = n_missing
                cuts.cut[j] = draw_cut_from_table(data.bin_centers[f], ranges.cut_table[f],
                                                  ranges.cut_base[f], ranges.cut_scale[f],
                                                  lo, hi, draw)
            for j in range(nb):
                n_missing = cuts.n_missing[j]
                if n_missing < 0:
                    continue
                f = cuts.feature[j]
                left = cuts.left[j]
                miss = cuts.missing[j]
                if ranges.counts:
                    cut_counts(ranges.codes, view.start, view.end, f, cuts.cut[j],
                               n_missing > 0, mc, n, left, miss)
                else:
                    cut_sums(ranges.codes, None, view.start, view.end, f, cuts.cut[j],
                             n_missing > 0, mc, rows.ostats, left, miss)
                _score_random_cut(f, cuts.cut[j], left, miss, n_missing, view, params,
                                  scratch_all, cands)
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
                    count_codes(ranges.codes, view.start, view.end, cuts.feature, j,
                                group, n, mc, ranges.by_code)
            cands.score[f] = -np.inf
            m = np.int64(0)
            if sparse:
                # the compressed histogram of the node's entries gives the range, then
                # the sums of the cut (.sparse_codes)
                m = sparse_histogram(f, view.start, view.end, view.total, data, rows,
                                     scratch)
                lo = np.int64(scratch.codes[0]) if m > 0 else np.int64(0)
                hi = np.int64(scratch.codes[m - 1]) if m > 0 else np.int64(-1)
                n_missing = np.int64(scratch.missing[count_col] + 0.5) if m >= 0 else \
                    np.int64(0)
            elif ranges is None:
                lo, hi, n_missing = cut_range(data.codes_rows, idx, view.start, view.end,
                                              f, mc)
            else:
                # the lean grower's large node (its small ones are drawn above): the
                # counts by code give the range, then the cut's sums
                lo, hi, n_missing = code_range(
                    ranges.by_code[j % ranges.by_code.shape[0]], mc)
            if hi <= lo:
                continue
            found += 1
            draw = np.int64(_rand(sampler.state) >> np.uint64(2))
            cuts.n_missing[j] = n_missing
            if ranges is None:
                cuts.cut[j] = draw_cut(data.bin_centers[f], lo, hi, draw)
            else:
                cuts.cut[j] = draw_cut_from_table(data.bin_centers[f], ranges.cut_table[f],
                                                  ranges.cut_base[f], ranges.cut_scale[f],
                                                  lo, hi, draw)
            if exact:
                median_split.score_cut(cuts, j, view, data, idx, params, nt, cands)
            else:
                left = cuts.left[j]
                miss = cuts.missing[j]
                if sparse:
                    _histogram_cut_sums(scratch, m, cuts.cut[j], left, miss)
                elif ranges is None:
                    cut_sums(data.codes_rows, idx, view.start, view.end, f, cuts.cut[j],
                             n_missing > 0, mc, rows.ostats, left, miss)
                else:
                    coded_cut_counts(ranges.by_code[j % ranges.by_code.shape[0]],
                                     cuts.cut[j], mc, left, miss)
                _score_random_cut(f, cuts.cut[j], left, miss, n_missing, view, params,
                                  scratch_all, cands)
            if cands.score[f] > best_score:
                best_score = cands.score[f]
                best = f
    if best >= 0 and not exact:
        cut_decrease(best, view, params, scratch_all.right[0], cands)
    return best, best_score, n_cat


@inlined
def _score_random_cut(f, cut, left, miss, n_missing, view, params, scratch_all, cands):
    """Feature ``f``'s random cut ``cut``, whose sides sum to ``left`` and ``miss``
    (missing values), scored into ``cands``."""
    check = MonotonicCheck(params.monotonic, params.monotonic_cst[f], view.lower,
                           view.upper)
    sc, ml, mid = score_cut(left, miss, n_missing > 0, view.total, check,
                            params.criterion, params.n_stats, params.l2,
                            params.min_samples_leaf, params.min_weight_leaf,
                            scratch_all.tmp[0], cands.left_stats[f])
    cands.score[f] = sc
    if sc > -np.inf:
        cands.mid[f] = mid
        cands.bin_threshold[f] = cut
        cands.missing_go_left[f] = ml


@inlined
def _histogram_cut_sums(scratch, m, cut, left, miss):
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


def _make_random_search(exact, sparse):
    """:func:`_random_search_body` compiled on its own with the constants ``exact``
    (the cuts scored by the absolute error over the node's samples ``nt``, else from
    their sums, ``nt`` unused) and ``sparse``, variables of the closure that numba folds
    before it types the body (arguments, even literal ones, would compile every
    branch)."""

    @internal
    def random_search(g, view, nt):
        return _random_search_body(g, view, nt, exact, None, sparse)
    return random_search


_random_search = _make_random_search(False, False)
_random_search_sparse = _make_random_search(False, True)
_random_search_exact = _make_random_search(True, False)
_random_search_exact_sparse = _make_random_search(True, True)


@internal
def _acquire(pool):
    """A free histogram buffer, or -1 when every buffer is taken: the node then gathers
    compressed histograms instead (the same sums; only its children lose the subtraction).
    A pool that never grows is never reallocated inside the loop, so its views stay
    borrowed (see ._borrow)."""
    if pool.n_free[0] == 0:
        return np.int64(-1)
    pool.n_free[0] -= 1
    return pool.free[pool.n_free[0]]


@internal
def _release(pool, slot):
    if slot >= 0:
        pool.free[pool.n_free[0]] = slot
        pool.n_free[0] += 1


@internal
def _is_pure(total, sq_sum, impurity, params):
    """A node nothing can improve: one class, or a regression target with no variance
    (boosting nodes never are: their gain decides)."""
    crit = params.criterion
    if crit == NEWTON:
        return False
    if is_regression(crit):
        # the impurity of a growing regression node is its variance (criteria.node_impurity)
        return impurity <= PURE_RTOL * (sq_sum / max(total[0], 1e-300))
    n_nonzero = 0
    for k in range(params.n_stats):
        if total[k] > 0.0:
            n_nonzero += 1
    return n_nonzero <= 1


@inlined
def _splittable(nodes, node, params):
    """A new node's impurity (into ``nodes.impurity``), and whether the stopping rules
    let it split: not pure, above ``max_depth``, at least ``min_samples_split`` samples
    and room for two leaves of ``min_samples_leaf`` samples and ``min_weight_leaf``."""
    total = nodes.stats[node]
    n_node = nodes.end[node] - nodes.start[node]
    crit = params.criterion
    nodes.impurity[node] = node_impurity(total, nodes.sq_sum[node], crit, params.n_stats,
                                         params.l2)
    w_node = node_weight(total, crit, params.n_stats)
    return (not _is_pure(total, nodes.sq_sum[node], nodes.impurity[node], params)
            and (params.max_depth < 0 or nodes.depth[node] < params.max_depth)
            and n_node >= params.min_samples_split
            and n_node >= 2 * params.min_samples_leaf
            and w_node >= 2 * params.min_weight_leaf)


@inlined
def _examine_node(g, node, mode, slot, sib_slot, pool, root_w, parallel, exact, sparse):
    """Step 1: the impurity of a new node and, if the stopping rules let it split, its
    best split.  Returns its status: :data:`UNSPLITTABLE` (its histogram was not
    built), :data:`NO_SPLIT` or :data:`OPENED` (it joins the open nodes).

    ``parallel`` and ``exact`` are constants of the compiled grower
    (:func:`_make_grow_tree`): with ``parallel``, large nodes evaluate their features on
    ``g.n_threads`` threads; with ``exact``, the split search reads the node's samples
    (``absolute_error``, :mod:`.median_split`).
    """
    # each record read from the context once: every read of the context loads all of it
    # (hundreds of fields), which LLVM then splits and discards again
    data = g.data
    src = g.src
    rows = g.rows
    nodes = g.nodes
    cands = g.candidates
    scratch = g.scratch
    params = g.params
    sampler = g.sampler
    n_threads = g.n_threads
    crit = params.criterion
    start = nodes.start[node]
    end = nodes.end[node]
    total = nodes.stats[node]
    n_node = end - start
    splittable = _splittable(nodes, node, params)
    nodes.feature[node] = -1
    if not splittable:
        _release(pool, slot)
        return UNSPLITTABLE
    n_features = data.codes_T.shape[0]
    sampling = params.max_features < n_features
    if params.random_split or exact or sparse:
        # a random cut and the exact search read the node's samples, not a histogram;
        # sparse codes gather each feature's entries in the node
        mode = MODE_SORT
    elif (sampling and mode == MODE_BUILD and crit != NEWTON
          and data.missing_code < 256):
        # sampled features: no child subtracts this histogram, and the 8-bit codes'
        # gather touches only the bins present, where a dense one is zeroed and scanned
        # whole (boosting keeps its dense scan, whose counts are estimated)
        mode = MODE_SORT
    elif mode == MODE_BUILD and slot < 0:
        slot = _acquire(pool)
        if slot < 0:
            mode = MODE_SORT
    if mode != MODE_SUBTRACT:
        if parallel and n_threads > 1 and n_node >= PARALLEL_GATHER_MIN_ROWS:
            gather_rows_parallel(rows.ostats, src, rows.idx, start, n_node, n_threads)
        else:
            gather_rows(rows.ostats, src, rows.idx, start, n_node)
    view = NodeView(start, end, total, mode, pool.buffers[max(slot, 0)],
                    pool.buffers[max(sib_slot, 0)], nodes.interval[node, LOWER],
                    nodes.interval[node, UPPER])
    if exact:
        nt = median_split.sort_node(src, rows.idx, start, end)
    if params.random_split:
        # the numeric features drawn get a random cut each; the categorical ones drawn
        # are searched below like any feature
        if exact and sparse:
            best, best_score, n_cat = _random_search_exact_sparse(g, view, nt)
        elif exact:
            best, best_score, n_cat = _random_search_exact(g, view, nt)
        elif sparse:
            best, best_score, n_cat = _random_search_sparse(g, view, None)
        else:
            best, best_score, n_cat = _random_search(g, view, None)
        feats, rest = sampler.sorted_draw[:n_cat], sampler.no_features
    else:
        best = np.int64(-1)
        best_score = -np.inf
        if sampling:
            feats, rest = _sample_features(sampler, params.max_features)
        else:
            feats, rest = sampler.all_features, sampler.no_features
        if params.interaction.shape[1] > 0:
            feats, rest = _allowed_features(nodes.allowed[node], params.interaction, feats,
                                            rest, sampler.allowed)
            # a histogram of some features only cannot be subtracted from
            sampling = sampling or feats.shape[0] + rest.shape[0] < n_features
    random_ties = params.random_ties
    # the score the ties are measured against (the largest), and how many features tie
    tie_score = best_score
    n_tied = np.int64(1 if best >= 0 else 0)
    for attempt in range(2):
        fs = feats if attempt == 0 else rest
        if fs.shape[0] == 0:
            continue
        # (the flag as np.bool_: a literal True / False would compile the kernel twice)
        bucketed = sparse and not exact and bucket_entries(
            fs, data, rows.idx, start, end, rows, np.bool_(False))
        if exact:
            median_split.evaluate_features(fs, view, data, rows.idx, params, nt, cands)
        elif parallel:
            evaluate_features_parallel(n_threads, fs, view, data, rows, params, scratch,
                                       cands, sparse)
        else:
            evaluate_features(fs, view, data, rows, params, scratch, cands, sparse)
        if bucketed:
            bucket_entries(fs, data, rows.idx, start, end, rows, np.bool_(True))
        # serial, in the order of fs, after every score is in: the draws below do not
        # depend on the threads that evaluated the features
        for i in range(fs.shape[0]):
            f = fs[i]
            sc = cands.score[f]
            if not random_ties:
                # scores equal within the rounding of their sums are a tie, which the
                # lowest index wins: the choice must not depend on the order the
                # histograms were summed in (threads, or the data-parallel trainer)
                if sc > best_score and (best < 0 or sc - best_score
                                        > SCORE_RTOL * abs(best_score)):
                    best_score = sc
                    best = f
            elif sc == -np.inf:
                continue
            elif n_tied == 0 or sc > tie_score + TIE_RTOL * abs(tie_score):
                best_score = sc
                tie_score = sc
                best = f
                n_tied = 1
            elif sc >= tie_score - TIE_RTOL * abs(tie_score):
                # as good as the best within rounding: each of the n_tied equal features
                # is kept with probability 1 / n_tied (reservoir sampling), drawn only at
                # a tie, so that a tree without ties is the one lowest-index order grows
                n_tied += 1
                if _rand(sampler.state) % np.uint64(n_tied) == np.uint64(0):
                    best_score = sc
                    best = f
        if best >= 0:
            break
    ok = best >= 0
    if ok:
        gain = cands.decrease[best]
        if crit == NEWTON:
            ok = gain > NEWTON_GAIN_RTOL * best_score and gain >= params.min_decrease
        else:
            ok = gain + DECREASE_ATOL * root_w >= params.min_decrease * root_w
    if ok:
        nodes.feature[node] = best
        nodes.bin_threshold[node] = cands.bin_threshold[best]
        nodes.missing_go_left[node] = cands.missing_go_left[best]
        if data.is_categorical[best]:
            copy_into(nodes.categories[node], cands.categories[best])
        if crit == NEWTON:
            copy_into(nodes.left_stats[node], cands.left_stats[best])
        nodes.interval[node, MIDDLE] = cands.mid[best]
        nodes.gain[node] = gain
        # a histogram of sampled features cannot be subtracted from
        keep = slot >= 0 and not sampling
        nodes.hist_slot[node] = slot if keep else -1
        nodes.hist_complete[node] = keep
        if not keep:
            _release(pool, slot)
        return OPENED
    _release(pool, slot)
    return NO_SPLIT


@internal
def _allowed_features(open_sets, sets_of, feats, rest, out):
    """``feats`` and ``rest`` without the features that none of the interaction sets
    ``open_sets`` (a node's) holds (``sets_of``: each feature's sets), into ``out`` in
    their order.  (Compiled on its own with array arguments: a step taking the grow
    context would pass all of its records.)"""
    n_words = open_sets.shape[0]
    a = 0
    n_feats = 0
    for part in range(2):
        fs = feats if part == 0 else rest
        for i in range(fs.shape[0]):
            f = fs[i]
            for w in range(n_words):
                if open_sets[w] & sets_of[f, w]:
                    out[a] = f
                    a += 1
                    break
        if part == 0:
            n_feats = a
    return out[:n_feats], out[n_feats:a]


@internal
def _child_constraints(iv, allowed, cst, sets_of_f, node, lc, rc):
    """The children's intervals ``iv`` (monotonic constraints; ``cst`` the split
    feature's) and open interaction sets ``allowed`` (``sets_of_f``: the split feature's
    sets) after ``node`` splits (:mod:`.constraints`).  (Compiled on its own with array
    arguments, as :func:`_allowed_features`.)"""
    lo = iv[node, LOWER]
    hi = iv[node, UPPER]
    # the child that must predict less (left for +1) is bounded above by the middle
    low, high = (lc, rc) if cst > 0 else (rc, lc)
    iv[low, LOWER] = lo
    iv[low, UPPER] = iv[node, MIDDLE] if cst != 0 else hi
    iv[high, LOWER] = iv[node, MIDDLE] if cst != 0 else lo
    iv[high, UPPER] = hi
    for w in range(allowed.shape[1]):
        open_sets = allowed[node, w] & sets_of_f[w]
        allowed[lc, w] = open_sets
        allowed[rc, w] = open_sets


@inlined
def _pick_next(nodes, open_nodes, n_open, best_first):
    """Step 2: the position in ``open_nodes`` of the node to expand: the last one
    (depth-first) or the one of largest gain, the lowest id among equals (best-first)."""
    pos = n_open - 1
    if best_first:
        for j in range(n_open):
            a = open_nodes[j]
            b = open_nodes[pos]
            if nodes.gain[a] > nodes.gain[b] or (nodes.gain[a] == nodes.gain[b] and a < b):
                pos = j
    return pos


@inlined
def _partition(data, rows, nodes, node, sparse):
    """The samples of ``node`` that go left first, both sides in their order; returns
    the left count.  On one thread in every grower: the branch-free serial pass is
    faster than a partition on two threads (a counting pass, a scattering pass and the
    copy back, three wake-ups of the workers) at every node size (benchmarks/README.md)."""
    idx = rows.idx
    s0 = nodes.start[node]
    e0 = nodes.end[node]
    f = nodes.feature[node]
    col = data.codes_T[f]
    catf = data.is_categorical[f]
    # a tree without categorical splits has one row of categories: read it only then
    split = BinnedSplit(data.missing_code, nodes.missing_go_left[node], catf,
                        nodes.categories, node if catf else 0, nodes.bin_threshold[node])
    if sparse:
        return partition_sparse(idx, s0, e0, data, f, split, rows.buf, rows.position)
    return partition_serial(idx, s0, e0, col, split, rows.buf)


@inlined
def _split_node(data, src, rows, nodes, params, node, lc, rc, sparse):
    """Step 3: partition the samples of ``node`` between its children ``lc`` and ``rc``
    and give the children their statistics; returns the left child's sample count."""
    idx = rows.idx
    s0 = nodes.start[node]
    e0 = nodes.end[node]
    nl = _partition(data, rows, nodes, node, sparse)
    if params.criterion == NEWTON:
        # boosting takes the children's (G, H) from the split search (no second read of
        # the statistics); counts are exact
        last = nodes.stats.shape[1] - 1
        for c in range(last):
            nodes.stats[lc, c] = nodes.left_stats[node, c]
            nodes.stats[rc, c] = nodes.stats[node, c] - nodes.left_stats[node, c]
        nodes.stats[lc, last] = nl
        nodes.stats[rc, last] = e0 - s0 - nl
    else:
        # the trees sum their children exactly, which keeps the purity tests exact
        sum_rows(nodes.stats[lc], src, idx, s0, s0 + nl)
        sum_rows(nodes.stats[rc], src, idx, s0 + nl, e0)
        if is_regression(params.criterion):
            nodes.sq_sum[lc] = sum_sq(src, idx, s0, s0 + nl)
            nodes.sq_sum[rc] = sum_sq(src, idx, s0 + nl, e0)
    nodes.start[lc] = s0
    nodes.end[lc] = s0 + nl
    nodes.start[rc] = s0 + nl
    nodes.end[rc] = e0
    nodes.depth[lc] = nodes.depth[node] + 1
    nodes.depth[rc] = nodes.depth[node] + 1
    nodes.children_left[node] = lc
    nodes.children_right[node] = rc
    f = nodes.feature[node]
    if params.monotonic or nodes.allowed.shape[1] > 0:
        _child_constraints(nodes.interval, nodes.allowed, params.monotonic_cst[f],
                           params.interaction[f], node, lc, rc)
    return nl


@inlined
def _schedule_children(nodes, node, lc, rc, params, pool, pending):
    """Step 4: how each child's histograms will be had.  With the parent's complete
    dense histogram at hand, the smaller child builds its own and the larger one
    subtracts it from the parent's; otherwise each child builds (large) or gathers
    (small) its own.  The smaller child is examined first."""
    nl = nodes.end[lc] - nodes.start[lc]
    nr = nodes.end[rc] - nodes.start[rc]
    # the lighter child (by sample weight, not rows) is examined first: the order of the
    # draws (sampled features, random cuts, ties) is then the one a fit on rows repeated
    # as their weights say makes; with unit weights it is the child of fewer rows
    # (boosting's statistics hold no sample weight: its children go by rows)
    if params.criterion == NEWTON:
        w_left, w_right = np.float64(nl), np.float64(nr)
    else:
        w_left = node_weight(nodes.stats[lc], params.criterion, params.n_stats)
        w_right = node_weight(nodes.stats[rc], params.criterion, params.n_stats)
    small, large = (lc, rc) if w_left <= w_right else (rc, lc)
    pslot = nodes.hist_slot[node]
    nodes.hist_slot[node] = -1
    pending.node[0] = small
    pending.node[1] = large
    sslot = np.int64(-1)
    dense_min_samples = params.dense_min_samples
    if pslot >= 0 and nodes.hist_complete[node] and max(nl, nr) >= dense_min_samples:
        sslot = _acquire(pool)
    if sslot >= 0:
        pending.mode[0] = MODE_BUILD
        pending.slot[0] = sslot
        pending.sibling_slot[0] = -1
        pending.mode[1] = MODE_SUBTRACT
        pending.slot[1] = pslot
        pending.sibling_slot[1] = sslot
        return
    _release(pool, pslot)
    for t in range(2):
        child = pending.node[t]
        n_child = nodes.end[child] - nodes.start[child]
        pending.mode[t] = MODE_BUILD if n_child >= dense_min_samples else MODE_SORT
        pending.slot[t] = -1
        pending.sibling_slot[t] = -1


@inlined
def reset_node(nodes, node, start, end, depth):
    """A node's place and depth, and the initial values of what every grower writes of
    it: no children, no split, no impurity or gain yet."""
    nodes.start[node] = start
    nodes.end[node] = end
    nodes.depth[node] = depth
    nodes.children_left[node] = -1
    nodes.children_right[node] = -1
    nodes.feature[node] = -1
    nodes.bin_threshold[node] = 0
    nodes.missing_go_left[node] = False
    nodes.sq_sum[node] = 0.0
    nodes.impurity[node] = 0.0
    nodes.gain[node] = 0.0


@internal
def _reset_nodes(nodes, k):
    """Give the first ``k`` nodes (those of the previous tree) their initial values.
    (Explicit loops: each slice assignment compiles its own broadcasting code.)"""
    everything = ~np.uint64(0)
    for i in range(k):
        reset_node(nodes, i, 0, 0, 0)
        nodes.hist_slot[i] = -1
        nodes.hist_complete[i] = False
        nodes.interval[i, LOWER] = -np.inf
        nodes.interval[i, UPPER] = np.inf
        nodes.interval[i, MIDDLE] = 0.0
        for c in range(nodes.stats.shape[1]):
            nodes.stats[i, c] = 0.0
        for w in range(nodes.allowed.shape[1]):
            nodes.allowed[i, w] = everything
    for i in range(min(k, nodes.categories.shape[0])):
        for w in range(nodes.categories.shape[1]):
            nodes.categories[i, w] = 0
    for i in range(min(k, nodes.left_stats.shape[0])):
        for c in range(nodes.left_stats.shape[1]):
            nodes.left_stats[i, c] = 0.0


def _make_grow_tree(parallel, exact=False, sparse=False):
    """The grower compiled with the constants ``parallel``, ``exact`` and ``sparse`` (see
    the module docstring)."""

    @compiled(no_cfunc_wrapper=True, _nrt=exact)
    def grow_tree(data, src, sample_idx, params, seed, cap, ws, n_threads):
        """Grow one tree in workspace ``ws`` (a :class:`~.layout.Workspace` from
        :func:`make_workspace`).

        ``data`` is the :class:`~.layout.BinnedData`, ``src`` the
        :class:`~.statistics.StatisticSource`, ``sample_idx`` the rows of the tree,
        ``params`` its :class:`~.layout.GrowthParams`; the parallel grower uses up to
        ``n_threads`` threads.  The tree stops at ``cap`` nodes, which the workspace
        must hold.

        Returns whether the tree was cut short at ``cap`` nodes, and its node count.
        The tree is in the workspace's node arrays (``ws.nodes``) and its samples in
        partition order in ``ws.rows.idx`` (node ``i`` holds ``idx[start[i]:end[i]]``),
        valid until the workspace grows the next tree.  (Nothing else is returned: boxing
        the records for Python would cost as much to compile as a step of the loop.)
        """
        n = sample_idx.shape[0]
        n_features = data.codes_T.shape[0]
        # each record read from the workspace once (see _examine_node)
        ws_rows = ws.rows
        ws_nodes = ws.nodes
        used = ws.used
        buffers = ws.buffers
        free_slots = ws.free_slots
        n_free = ws.n_free
        _reset_nodes(ws_nodes, used[0])
        for i in range(n):
            ws_rows.idx[i] = sample_idx[i]
        n_slots = buffers.shape[0]
        sampler = ws.sampler
        for f in range(n_features):
            sampler.perm[f] = f
        sampler.state[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
        for k in range(n_slots):
            free_slots[k] = k
        n_free[0] = n_slots
        # the caller holds data, src and ws for the whole call: their views need no reference
        # counting (see ._borrow)
        data_b = borrowed_data(data)
        src_b = borrow(src)
        rows_b = borrowed_rows(ws_rows, n)
        nodes = borrow(ws_nodes)
        g = GrowContext(data_b, src_b, rows_b, nodes, borrow(ws.candidates),
                        borrow(ws.scratch), params, borrow(sampler), n_threads,
                        borrow(ws.random_cuts))
        pool = HistogramPool(borrow(buffers), borrow(free_slots), borrow(n_free))
        if sparse:
            # the rows of the tree by place; the others are in no node
            position = rows_b.position
            for r in range(position.shape[0]):
                position[r] = -1
            for i in range(n):
                position[rows_b.idx[i]] = i
        open_nodes = borrow(ws.open_nodes)

        # counters start as np.int64: a literal 0 or 1 would compile every kernel they are
        # passed to once more, for the literal's own type
        zero = np.int64(0)
        sum_rows(nodes.stats[0], src_b, rows_b.idx, zero, n)
        if is_regression(params.criterion):
            nodes.sq_sum[0] = sum_sq(src_b, rows_b.idx, zero, n)
        nodes.start[0] = 0
        nodes.end[0] = n
        root_w = node_weight(nodes.stats[0], params.criterion, params.n_stats)
        node_count = np.int64(1)
        n_open = np.int64(0)
        n_leaves = np.int64(1)
        truncated = False
        best_first = params.max_leaf_nodes > 0
        pending = borrow(ws.pending)
        for t in range(2):
            pending.node[t] = 0
            pending.mode[t] = 0
            pending.slot[t] = -1
            pending.sibling_slot[t] = -1
        n_pending = np.int64(1)
        pending.mode[0] = MODE_BUILD if n >= params.dense_min_samples else MODE_SORT

        while True:
            for t in range(n_pending):
                node = pending.node[t]
                status = _examine_node(g, node, pending.mode[t], pending.slot[t],
                                       pending.sibling_slot[t], pool, root_w, parallel,
                                       exact, sparse)
                if status == OPENED:
                    open_nodes[n_open] = node
                    n_open += 1
                elif (status == UNSPLITTABLE and t == 0 and n_pending == 2
                      and pending.mode[1] == MODE_SUBTRACT):
                    # the sibling cannot subtract a histogram that was never built
                    pending.mode[1] = MODE_BUILD
                    pending.sibling_slot[1] = -1
            n_pending = zero
            if n_open == 0:
                break
            if best_first and n_leaves >= params.max_leaf_nodes:
                break
            if node_count + 2 > cap:      # never write past the node arrays
                truncated = True
                break
            pos = _pick_next(nodes, open_nodes, n_open, best_first)
            node = open_nodes[pos]
            open_nodes[pos] = open_nodes[n_open - 1]
            n_open -= 1
            lc = node_count
            rc = node_count + 1
            node_count += 2
            n_leaves += 1
            _split_node(data_b, src_b, rows_b, nodes, params, node, lc, rc, sparse)
            _schedule_children(nodes, node, lc, rc, params, pool, pending)
            n_pending = np.int64(2)

        # nodes left open become leaves
        for j in range(n_open):
            nodes.feature[open_nodes[j]] = -1
        used[0] = node_count
        return truncated, node_count
    return grow_tree


@inlined
def borrowed_data(data):
    """``data`` (a :class:`~.layout.BinnedData`) on borrowed views: the caller holds it
    for the whole growth (see ._borrow)."""
    return BinnedData(borrow(data.codes_T), borrow(data.n_bins), borrow(data.is_categorical),
                      data.missing_code, borrow(data.bin_centers), borrow(data.codes_rows),
                      data.sparse, borrow(data.zero_code), borrow(data.col_ptr),
                      borrow(data.col_rows), borrow(data.col_codes), borrow(data.row_ptr),
                      borrow(data.row_features), borrow(data.row_codes))


@inlined
def borrowed_rows(rows, n):
    """The workspace's :class:`~.layout.RowBuffers` for a tree of ``n`` samples, on
    borrowed views."""
    return RowBuffers(borrow(rows.idx[:n]), borrow(rows.buf[:n]), borrow(rows.ostats[:n]),
                      borrow(rows.position), borrow(rows.slot_of), borrow(rows.bucket_start),
                      borrow(rows.entry_pos), borrow(rows.entry_code))


#: the grower without any parallel region
grow_tree_serial = _make_grow_tree(False)
#: the grower that evaluates the features of large nodes on several threads
grow_tree_parallel = _make_grow_tree(True)
#: the grower of ``absolute_error``, whose split search reads the node's samples
grow_tree_exact = _make_grow_tree(False, exact=True)
#: the three on sparse codes (.sparse_codes): compiled only when a fit has them
grow_tree_serial_sparse = _make_grow_tree(False, sparse=True)
grow_tree_parallel_sparse = _make_grow_tree(True, sparse=True)
grow_tree_exact_sparse = _make_grow_tree(False, exact=True, sparse=True)


def node_capacity(n, crit, min_samples_leaf, max_leaf_nodes, max_depth):
    """Nodes of the largest tree the limits allow on ``n`` samples: leaves are bounded
    by the samples per leaf, ``max_leaf_nodes`` and ``2^max_depth`` (a depth-12 tree on
    2M rows needs 8191 nodes, not 4M)."""
    cap = 2 * n + 1
    if crit != NEWTON:      # boosting estimates counts: its leaves may hold fewer samples
        cap = min(cap, 2 * (n // max(min_samples_leaf, 1)) + 1)
    if max_leaf_nodes > 0:
        cap = min(cap, 2 * max_leaf_nodes + 1)
    if 0 <= max_depth < 40:
        cap = min(cap, 2 ** (max_depth + 1) - 1)
    return max(cap, 1)


def make_workspace(n_rows, cap, n_features, n_cols, n_hist_bins, n_slots, categorical,
                   newton, n_threads=1, n_words=0, sparse_dims=(0, 0, 0)):
    """A :class:`~.layout.Workspace` for trees of up to ``n_rows`` samples and ``cap``
    nodes, grown on up to ``n_threads`` threads.

    The per-node category sets (32 bytes) exist only with ``categorical`` features and
    the per-node left sums only for ``newton`` (boosting); otherwise they have one row.
    ``n_words`` 64-bit words per node hold its open interaction sets.
    Row indices are int32, 8 bytes per row less than int64 in the two row arrays
    (:meth:`TreeGrower.grow` refuses more than ``2**31 - 1`` samples).
    ``sparse_dims``, for sparse codes (:mod:`.sparse_codes`): the rows of X, its
    entries, and the entries of its fullest feature (zeros: dense codes).
    """
    cat_cap = cap if categorical else 1
    left_cap = cap if newton else 1
    n_samples, n_entries, col_entries = sparse_dims
    rows = RowBuffers(np.empty(n_rows, np.int32), np.empty(n_rows, np.int32),
                      np.empty((n_rows, n_cols)), np.full(n_samples, -1, np.int32),
                      np.full(n_features if n_entries else 0, -1, np.int64),
                      np.zeros(n_features + 1 if n_entries else 0, np.int64),
                      np.empty(n_entries, np.int32), np.empty(n_entries, np.uint8))
    nodes = NodeArrays(
        np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int32),
        np.full(cap, -1, np.int32), np.full(cap, -1, np.int32), np.full(cap, -1, np.int32),
        np.zeros(cap, np.int32), np.zeros(cap, np.bool_), np.zeros((cat_cap, 4), np.uint64),
        np.zeros((cap, n_cols)), np.zeros(cap), np.zeros(cap), np.zeros(cap),
        np.zeros((left_cap, n_cols)), np.full(cap, -1, np.int64), np.zeros(cap, np.bool_),
        np.tile([-np.inf, np.inf, 0.0], (cap, 1)),
        np.full((cap, n_words), ~np.uint64(0), np.uint64))
    cands = SplitCandidates(
        np.empty(n_features), np.empty(n_features), np.empty(n_features, np.int32),
        np.empty(n_features, np.bool_), np.zeros((n_features, 4), np.uint64),
        np.empty((n_features, n_cols)), np.zeros(n_features))
    sampler = FeatureSampler(np.arange(n_features), np.arange(n_features),
                             np.empty(0, np.int64), np.zeros(1, np.uint64),
                             np.zeros(n_features, np.bool_), np.empty(n_features, np.int64),
                             np.empty(n_features, np.int64))
    cuts = RandomCuts(*(np.zeros(n_features, np.int64) for _ in range(5)),
                      np.zeros((n_features, n_cols)), np.zeros((n_features, n_cols)))
    return Workspace(rows, nodes, cands,
                     make_scratch(n_threads, n_rows, n_hist_bins, n_cols, col_entries),
                     np.empty((n_slots, 1 if n_entries else n_features, n_hist_bins,
                               n_cols)),
                     np.arange(n_slots), np.zeros(1, np.int64), sampler,
                     np.empty(cap, np.int64), np.zeros(1, np.int64), cuts,
                     Pending(np.zeros(2, np.int64), np.zeros(2, np.int64),
                             np.zeros(2, np.int64), np.zeros(2, np.int64)))


def _same_key(a, b):
    """Whether two keys of :meth:`GrowerWorkspace.kept` are the same: tuples item by item,
    arrays by identity, the rest by ``==``."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same_key(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return a is b
    return type(a) is type(b) and a == b


class WorkspacePool:
    """The :class:`GrowerWorkspace` of each worker of one fit, kept from one chunk of trees
    to the next: a chunk borrows one (:meth:`lend`, or :meth:`take` and :meth:`give`),
    so that small chunks (which even out the workers' loads) do not each allocate a
    workspace and transpose the codes again.  Thread-safe.  Pickled (a process worker),
    a pool arrives empty: each process makes its own."""

    def __init__(self, min_rows=0):
        self.min_rows = min_rows
        self._free = []
        self._lock = threading.Lock()

    def take(self):
        """A workspace no chunk is using, or a new one."""
        with self._lock:
            if self._free:
                return self._free.pop()
        return GrowerWorkspace(min_rows=self.min_rows)

    def give(self, workspace):
        with self._lock:
            self._free.append(workspace)

    @contextlib.contextmanager
    def lend(self):
        """A workspace for the ``with`` block, given back after it."""
        workspace = self.take()
        try:
            yield workspace
        finally:
            self.give(workspace)

    def __reduce__(self):
        return (WorkspacePool, (self.min_rows,))


class GrowerWorkspace:
    """Work arrays kept from one tree to the next (a forest's worker, the boosting loop).

    Growing a tree needs arrays sized for the largest tree the data allows; allocating
    them afresh for every tree costs page faults and zeroing, and leaves the C heap
    fragmented between the trees' own arrays.  :meth:`get` returns arrays at least as large as asked for, allocating only
    when the request outgrows them.

    Parameters
    ----------
    min_rows : int, default=0
        Size the arrays for at least this many samples from the start (a forest passes
        the training set size, so that bootstrap samples of varying size never grow it).
    """

    def __init__(self, min_rows=0):
        self.min_rows = min_rows
        self._arrays = None
        self._dims = None
        self._codes_rows = None
        self._row_arrays = {}
        self._kept = {}

    def codes_rows(self, X_binned_T):
        """The codes of ``X_binned_T`` sample-major (``.T``, C-contiguous), made once for
        the trees of one estimator that reuse this workspace."""
        kept = self._codes_rows
        if kept is None or kept[0] is not X_binned_T:
            kept = self._codes_rows = (X_binned_T, np.ascontiguousarray(X_binned_T.T))
        return kept[1]

    def kept(self, name, key, make):
        """``make()``, kept under ``name`` for the next tree while ``key`` is the same
        (compared with ``==``; the arrays it derives from are compared by identity)."""
        kept = self._kept.get(name)
        if kept is None or not _same_key(kept[0], key):
            kept = self._kept[name] = (key, make())
        return kept[1]

    def row_array(self, name, n_rows, n_cols, dtype=np.float64):
        """An ``(n_rows, n_cols)`` work array of ``dtype`` (at least ``min_rows`` rows),
        kept under ``name`` for the next tree: the lean random-cut grower's buffers
        (:mod:`.random_tree`)."""
        kept = self._row_arrays.get(name)
        if (kept is None or kept.shape[0] < n_rows or kept.shape[1] != n_cols
                or kept.dtype != dtype):
            kept = self._row_arrays[name] = np.empty((max(n_rows, self.min_rows), n_cols),
                                                     dtype)
        return kept

    def get(self, n_rows, capacity, n_features, n_cols, n_hist_bins, n_slots, categorical,
            newton, n_threads=1, n_words=0, sparse_dims=(0, 0, 0)):
        """Work arrays for trees of ``n_rows`` samples and ``capacity`` nodes, at least;
        see :func:`make_workspace` for the rest."""
        d = self._dims
        if (d is None or n_rows > d[0] or capacity > d[1]
                or (n_features, n_cols, n_hist_bins) != d[2:5] or n_slots > d[5]
                or (categorical, newton) != d[6:8] or n_threads > d[8] or n_words != d[9]
                or tuple(sparse_dims) != d[10]):
            if d is not None and capacity > d[1]:
                # the next trees' bounds differ by a little (a forest's bootstrap samples
                # have more or fewer distinct rows): room for them, not for this one only
                capacity += capacity // _CAPACITY_HEADROOM
            d = (max(n_rows, self.min_rows), max(capacity, d[1] if d else 0), n_features,
                 n_cols, n_hist_bins, n_slots, categorical, newton, n_threads, n_words,
                 tuple(sparse_dims))
            self._arrays = make_workspace(*d)
            self._dims = d
        return self._arrays

    @property
    def capacity(self):
        """Nodes the arrays hold now (0 before the first tree)."""
        return self._dims[1] if self._dims else 0


#: when a node stops splitting: scikit-learn's stopping rules, in one record
StoppingRules = namedtuple("StoppingRules", [
    "max_depth",                # int or None
    "min_samples_split",        # int
    "min_samples_leaf",         # int
    "min_weight_leaf",          # float: a child's weight (hessian sum for newton)
    "min_impurity_decrease",    # float: times the root weight (the gain for newton)
    "max_leaf_nodes",           # int or None: best-first growth up to this many leaves
], defaults=(None, 2, 1, 0.0, 0.0, None))


class TreeGrower:
    """Grow a :class:`~treeboost.engine.tree.Tree` from binned data and statistics.

    Parameters
    ----------
    bin_mapper : BinMapper
        The fitted mapper that produced the binned data (gives real thresholds).
    criterion : int
        One of the codes of :mod:`treeboost.engine.criteria`.
    n_stats : int
        Number of statistic columns before the count column: the number of classes,
        2 for ``(w, w*y)`` and ``(g, h)``, ``1 + K`` for ``K`` regression outputs.
    stopping : StoppingRules, default=StoppingRules()
        ``max_depth``; ``min_samples_split``, ``min_samples_leaf``; ``min_weight_leaf``,
        the minimum weight of a child (hessian sum for ``newton``, i.e.
        ``min_child_weight``); ``min_impurity_decrease``, by which a split must decrease
        the weighted impurity times the root weight (scikit-learn's definition; for
        ``newton``, the gain itself); ``max_leaf_nodes``, best-first growth up to this
        many leaves (depth-first when None).
    max_features : int or None
        Number of features sampled at each node (all when None).
    l2_regularization : float
        The ``lambda`` of the second-order gain and leaf value.
    random_state : int
        Seed of the per-node feature sampling and of the draws between tied features.
    parallel : bool
        Evaluate the features of large nodes on several threads (False inside a forest,
        which is parallel over trees instead; ``absolute_error`` trees grow serially).
    dense_min_samples : int or None
        Nodes with at least this many samples use dense histograms (default: half the
        number of histogram bins, at least 32).
    splitter : {"best", "random"}
        "random" draws one cut per numeric feature and node (Extra-Trees, Geurts et al.
        2006) instead of searching every cut.
    constraints : Constraints, optional
        Monotonic constraints (one of -1, 0, 1 per feature; regression, binary
        classification on the positive class's rate, boosting) and interaction
        constraints (sets of feature indices that cover every feature), as
        :mod:`.constraints` describes; validated by the estimators.
    random_ties : bool, default=True
        Break a tie between features whose best splits score the same (within rounding)
        by a draw from the tree's generator (seeded with ``random_state``), as
        scikit-learn's trees do by permuting the features at each split; the generator
        draws only at a tie, so a tree without ties is the same either way.  False: the
        lowest feature index wins (histogram gradient boosting, as scikit-learn's and
        LightGBM's).  Either way the tree does not depend on the number of threads.
    centered_thresholds : bool, default=True
        Put each numeric split's threshold in the middle of the gap between the node's
        largest value that goes left and smallest that goes right, as scikit-learn's
        trees do (:mod:`.gap_thresholds`); False: at the bin edge right above the largest
        value that goes left (histogram gradient boosting, as scikit-learn's and
        LightGBM's).  Extra-Trees' random cuts (``splitter="random"``) go to a uniform
        position in the gap, drawn with ``random_state``, as scikit-learn's real-valued
        cuts fall.  The tree's samples are on the same sides either way.
    """

    def __init__(self, bin_mapper, criterion, n_stats, stopping=None, *, max_features=None,
                 l2_regularization=0.0, random_state=0, parallel=True, dense_min_samples=None,
                 splitter="best", constraints=None, random_ties=True,
                 centered_thresholds=True):
        self.bin_mapper = bin_mapper
        self.criterion = criterion
        self.n_stats = n_stats
        self.stopping = StoppingRules() if stopping is None else StoppingRules(*stopping)
        self.max_features = max_features
        self.l2_regularization = l2_regularization
        self.random_state = random_state
        self.parallel = parallel
        self.dense_min_samples = dense_min_samples
        self.splitter = splitter
        self.constraints = Constraints(None, None) if constraints is None else constraints
        self.random_ties = random_ties
        self.centered_thresholds = centered_thresholds

    # the stopping rules by name, as grow() reads them
    max_depth = property(lambda self: self.stopping.max_depth)
    min_samples_split = property(lambda self: self.stopping.min_samples_split)
    min_samples_leaf = property(lambda self: self.stopping.min_samples_leaf)
    min_weight_leaf = property(lambda self: self.stopping.min_weight_leaf)
    min_impurity_decrease = property(lambda self: self.stopping.min_impurity_decrease)
    max_leaf_nodes = property(lambda self: self.stopping.max_leaf_nodes)

    def grow(self, X_binned_T, stats, sq=None, sample_indices=None, workspace=None,
             return_leaves=True):
        """Grow the tree.

        Parameters
        ----------
        X_binned_T : ndarray of shape (n_features, n_samples)
            Feature-major codes from :meth:`BinMapper.transform`.
        stats : SampleStatistics or ndarray of shape (n_samples, n_stats + 1)
            Per-sample statistics (:mod:`.statistics`); an array is taken as given rows,
            whose last column is 1 for every sample that counts towards
            ``n_node_samples`` (the count column).
        sq : ndarray of shape (n_samples,), optional
            ``w * y**2`` for the variance a regression tree reports, with given rows
            (zeros when missing).
        sample_indices : ndarray of int, optional
            The rows the tree sees (all rows by default).
        workspace : GrowerWorkspace, optional
            Work arrays to reuse from the previous tree (fresh ones by default).
        return_leaves : bool, default=True
            Whether to map the rows to their leaves (boosting needs it; a forest does not,
            and saves an array of n_samples integers per worker).

        Returns
        -------
        tree : Tree
        leaves : LeafRanges or None
            The samples of each leaf; indexed by rows, their leaf ids, ``-1`` for rows
            not in ``sample_indices`` (None without ``return_leaves``).
        """
        bm = self.bin_mapper
        n_features, n_samples = X_binned_T.shape
        if n_samples > _MAX_ROWS:
            raise ValueError(f"X has {n_samples} samples; a tree takes at most {_MAX_ROWS} "
                             f"(its row indices are int32).")
        if sample_indices is None:
            sample_indices = np.arange(n_samples, dtype=np.int64)
        if not isinstance(stats, SampleStatistics):
            # without sq, the reported variance reads w * y^2 as 0 (sum_sq)
            stats = SampleStatistics.given(stats, sq)
        elif sq is not None:
            raise TypeError("sq goes with stats given as an array, not with "
                            "SampleStatistics.")
        if stats.n_samples != n_samples:
            raise ValueError(f"stats describe {stats.n_samples} samples, X_binned_T has "
                             f"{n_samples}.")
        by_samples = self.criterion in _SAMPLE_CRITERIA
        if by_samples and stats.source != SOURCE_REGRESSION:
            raise ValueError("The poisson and absolute_error criteria read the targets: "
                             "stats must be SampleStatistics.regression.")
        max_features = n_features if self.max_features is None else int(self.max_features)
        dense_min = self.dense_min_samples
        if dense_min is None:
            dense_min = max(32, (bm.missing_values_code_ + 1) // 2)
        max_depth = -1 if self.max_depth is None else int(self.max_depth)
        max_leaf_nodes = -1 if self.max_leaf_nodes is None else int(self.max_leaf_nodes)
        min_leaf = int(self.min_samples_leaf)
        monotonic_cst = self.constraints.monotonic_cst
        monotonic = monotonic_cst is not None and bool(np.any(monotonic_cst))
        if monotonic_cst is None:
            monotonic_cst = np.zeros(n_features, np.int8)
        monotonic_cst = np.ascontiguousarray(monotonic_cst, dtype=np.int8)
        if monotonic_cst.shape != (n_features,):
            raise ValueError(f"monotonic_cst has {monotonic_cst.shape[0]} entries for "
                             f"{n_features} features.")
        interaction = interaction_masks(self.constraints.interaction_cst, n_features)
        # every field has one type whatever the caller passed, so that one compiled
        # grower serves every estimator
        params = GrowthParams(
            int(self.criterion), int(self.n_stats), float(self.l2_regularization), max_depth,
            int(self.min_samples_split), min_leaf, float(self.min_weight_leaf),
            float(self.min_impurity_decrease), max_features, max_leaf_nodes, int(dense_min),
            bool(self.splitter == "random"), monotonic, monotonic_cst, interaction,
            bool(self.random_ties))
        exact = self.criterion == ABSOLUTE_ERROR
        sparse = isinstance(X_binned_T, SparseCodes)
        workspace = workspace or GrowerWorkspace()
        if sparse:
            codes = X_binned_T
            X_binned_T = np.empty((n_features, 0), codes.dtype)
            entries = (True, codes.zero_code, codes.col_ptr, codes.col_rows, codes.col_codes,
                       codes.row_ptr, codes.row_features, codes.row_codes)
            sparse_dims = (n_samples, codes.nnz, codes.max_column_entries)
        else:
            X_binned_T = np.ascontiguousarray(X_binned_T)
            entries = _NO_ENTRIES
            sparse_dims = (0, 0, 0)
        if params.random_split:
            centers = bm.bin_centers()
            codes_rows = workspace.codes_rows(X_binned_T)
        else:
            centers = _NO_CENTERS
            codes_rows = np.empty((0, n_features), X_binned_T.dtype)
        data = BinnedData(X_binned_T, bm.n_bins_, bm.is_categorical_,
                          int(bm.missing_values_code_), centers, codes_rows, *entries)
        n_hist_bins = bm.missing_values_code_ + 1
        n_cols = stats.n_cols
        # histogram buffers for the usual number of open nodes, within a memory bound
        # (sparse codes use none: make_workspace makes them of one feature)
        slot_bytes = (1 if sparse else n_features) * n_hist_bins * n_cols * 8
        want = max_leaf_nodes + 1 if max_leaf_nodes > 0 else _DEPTH_FIRST_SLOTS
        n_slots = max(1, min(want, _POOL_BYTES // max(slot_bytes, 1)))
        sample_indices = np.ascontiguousarray(sample_indices, dtype=np.int64)
        n = len(sample_indices)
        n_threads = 1 if exact else self._n_threads(n, n_features)
        if sparse:
            grow_tree = grow_tree_parallel_sparse if n_threads > 1 else \
                grow_tree_serial_sparse
        else:
            grow_tree = grow_tree_parallel if n_threads > 1 else grow_tree_serial
        if exact:
            grow_tree = grow_tree_exact_sparse if sparse else grow_tree_exact
            n_slots = 1         # it builds no histogram
        # the general growers' last argument is the thread count, the lean one's its work
        # arrays
        last_arg = n_threads
        if params.random_split and not sparse:
            from . import random_tree      # (which imports this module's steps)
            if random_tree.lean_tree(True, exact, self.criterion == NEWTON,
                                     max_leaf_nodes > 0, monotonic, interaction,
                                     bool(bm.is_categorical_.any())):
                grow_tree = random_tree.grow_random_tree
                n_threads = 1
                n_slots = 1
                last_arg = random_tree.lean_buffers(workspace, n, n_cols, data)
        max_nodes = node_capacity(n, self.criterion, min_leaf, max_leaf_nodes, max_depth)
        # the worst case, 2n + 1 nodes (a fully grown regression tree reaches it), when
        # it is at most _MAX_FIRST_CAPACITY; beyond, what the workspace holds (at least
        # _FIRST_CAPACITY nodes, or n / 2), and a tree that outgrows it is grown again in
        # twice the room
        cap = max_nodes if max_nodes <= _MAX_FIRST_CAPACITY else max(
            workspace.capacity, _FIRST_CAPACITY, min(n // 2, _MAX_FIRST_CAPACITY))
        while True:
            ws = workspace.get(n, cap, n_features, n_cols, n_hist_bins, n_slots,
                               bool(bm.is_categorical_.any()), self.criterion == NEWTON,
                               n_threads, interaction.shape[1], sparse_dims)
            truncated, node_count = grow_tree(
                data, stats.arrays, sample_indices, params,
                int(self.random_state) & 0x7FFFFFFFFFFFFFFF, cap, ws, last_arg)
            if not truncated or cap >= max_nodes:
                break
            cap = min(max_nodes, 2 * cap + 1)
        nodes = ws.nodes
        idx = ws.rows.idx[:n]
        centered = None
        if self.centered_thresholds:
            centered = np.empty(node_count)
            if params.random_split:
                position = np.random.default_rng(
                    [int(self.random_state) & 0x7FFFFFFFFFFFFFFF, 1]).random(node_count)
            else:
                position = np.full(node_count, 0.5)
            center_thresholds(nodes.children_left, nodes.children_right, nodes.feature,
                              nodes.bin_threshold, nodes.start, nodes.end, idx, X_binned_T,
                              codes.rows if sparse else NO_ROWS, sparse,
                              bm.is_categorical_, int(bm.missing_values_code_),
                              bm.bin_centers(), bm.edge_table(), bm.single_value_bins(),
                              node_count, position, centered)
        # the tree is in the workspace's arrays, which the next tree reuses: the tree keeps
        # copies of what it uses (.tree_arrays)
        kind = (VALUES_NEWTON if self.criterion == NEWTON else
                VALUES_MEANS if self.criterion in REGRESSION_CODES else VALUES_CLASSES)
        out = tree_arrays(nodes, node_count, bm.is_categorical_, bm.edge_table(), kind,
                          int(self.n_stats), float(self.l2_regularization))
        if centered is not None:
            moved = ~np.isnan(centered)
            out.threshold[moved] = centered[moved]
        leaf = out.children_left == -1
        is_cat = out.is_categorical
        bitset = (np.where(is_cat[:, None], nodes.categories[:node_count], np.uint64(0))
                  if is_cat.any() else np.zeros((0, 4), np.uint64))
        value, impurity = out.value, out.impurity
        if by_samples:
            # the median and the impurity of these criteria need each node's samples
            # (node i holds idx[start[i]:end[i]])
            node_target_values(self.criterion, stats.arrays.targets, stats.arrays.weights,
                               idx, nodes.start[:node_count], nodes.end[:node_count], value,
                               impurity)
        if monotonic:
            clip_node_values(value, nodes.interval[:node_count, LOWER],
                             nodes.interval[:node_count, UPPER],
                             self.criterion not in REGRESSION_CODES
                             and self.criterion != NEWTON)
        tree = Tree(n_features, value.shape[1], children_left=out.children_left,
                    children_right=out.children_right, feature=out.feature,
                    threshold=out.threshold, is_categorical=is_cat, categories_left=bitset,
                    missing_go_left=out.missing_go_left, bin_threshold=out.bin_threshold,
                    value=value, impurity=impurity, n_node_samples=out.n_node_samples,
                    weighted_n_node_samples=out.weight, gain=out.gain, depth=out.depth)
        if not return_leaves:
            return tree, None
        leaves = np.flatnonzero(leaf)
        return tree, LeafRanges(idx.copy(), leaves, nodes.start[leaves], nodes.end[leaves],
                                n_samples)

    def _n_threads(self, n_rows, n_features):
        """Threads for the tree: numba's thread count for a tree large enough to share its
        nodes' work (and ``parallel=True``), else 1 (the serial grower)."""
        n_threads = numba.get_num_threads() if self.parallel else 1
        if n_threads > 1 and n_rows * n_features >= PARALLEL_GROWER_MIN_WORK:
            return n_threads
        return 1


#: the codes of the regression criteria (statistics ``(w, w*y)``)
REGRESSION_CODES = frozenset(REGRESSION_CRITERIA.values())

#: the criteria whose leaf values or impurities need each node's samples
_SAMPLE_CRITERIA = (POISSON, ABSOLUTE_ERROR)

#: BinnedData.bin_centers of a tree that draws no random cut
_NO_CENTERS = np.zeros((1, 1))

#: BinnedData's sparse fields with dense codes (no entries)
_NO_ENTRIES = (False, np.empty(0, np.int64), np.zeros(1, np.int64), np.empty(0, np.int32),
               np.empty(0, np.uint8), np.zeros(1, np.int64), np.empty(0, np.int32),
               np.empty(0, np.uint8))

#: Most samples a tree takes: the workspace indexes rows with int32.
_MAX_ROWS = 2 ** 31 - 1

#: Node capacity of a new workspace: the trees of the usual forests and depth-limited
#: trees fit, the odd larger tree costs one regrowth per doubling.
_FIRST_CAPACITY = 16383
#: ... and the room for any tree that can hold at most this many nodes (2n + 1 for n
#: rows, fully grown): a tree that outgrows its room is grown again from its root
_MAX_FIRST_CAPACITY = 262143

#: A workspace that a tree outgrows is made again with this fraction more node room
#: than the tree asks (1 / the constant): every reallocation costs page faults and zeroing
#: of the node arrays, each tree of a forest asks for a little more or less
_CAPACITY_HEADROOM = 32

#: Histogram buffers of a depth-first grower: one per open node that keeps its histogram
#: for its children, which is about one per level of the open path; the nodes of a
#: deeper path gather compressed histograms instead (within _POOL_BYTES)
_DEPTH_FIRST_SLOTS = 32

#: Memory the initial histogram buffers may take
_POOL_BYTES = 64 << 20
