"""Step 1 of the grower's loop: a new node's impurity, whether the stopping rules let it
split, and its best split (:mod:`..splitting`, :mod:`..median_split`, or Extra-Trees'
random cuts, :mod:`.random_search`), with the rules that decide between features."""

from collections import namedtuple

import numpy as np

from ..split import absolute_error as median_split
from .._numba.jit import inlined, internal
from ..split.constraints import LOWER, MIDDLE, UPPER
from ..split.histogram import (
    build_histograms_blocked,
    build_histograms_blocked_parallel,
    hist_blocks,
)
from ..split.criteria import NEWTON, is_regression, node_impurity, node_weight
from ..records import NodeView
from ..split.search import (
    MODE_BUILD,
    MODE_BUILT,
    MODE_SORT,
    MODE_SUBTRACT,
    evaluate_features,
    evaluate_features_parallel,
)
from ..split.scoring import copy_into
from ..binning.sparse_codes import bucket_entries
from ..statistics.samples import gather_rows, gather_rows_packed, gather_rows_parallel, packed_rows
from .acceptance import (  # noqa: F401 (random_tree reads DECREASE_ATOL here)
    DECREASE_ATOL,
    NO_COST,
    better_score,
    cost_sensitive_measure,
    gain_accepted,
    stopping_allows,
)
from .histogram_pool import acquire, release
from .random_search import (
    random_search,
    random_search_exact,
    random_search_exact_sparse,
    random_search_sparse,
)
from .sampling import allowed_features, rand, sample_features

#: rows of a node per thread from which the parallel grower gathers its statistics on
#: several threads: a share of the rows, not the node's size, decides, since what a
#: thread must repay is its own wake-up (a gather costs a few nanoseconds a row)
GATHER_ROWS_PER_THREAD = 4_096


@inlined
def gather_chunks(n_rows, n_threads):
    """Threads among which the parallel grower shares the gather of ``n_rows`` rows:
    one per :data:`GATHER_ROWS_PER_THREAD` rows, at most ``n_threads`` (1: serial)."""
    return max(np.int64(1), min(np.int64(n_threads), n_rows // GATHER_ROWS_PER_THREAD))


#: scores of two features' best splits within this fraction of each other are a tie
#: (the same partition from two features sums its statistics in another order)
TIE_RTOL = 1e-15
#: a regression node is pure when its variance is this small relative to its mean
#: squared target
PURE_RTOL = 1e-12

#: what :func:`examine_node` found
UNSPLITTABLE, NO_SPLIT, OPENED = 0, 1, 2


@internal
def is_pure(total, sq_sum, impurity, params):
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
def splittable(nodes, node, params):
    """A new node's impurity (into ``nodes.impurity``), and whether the stopping rules
    let it split: not pure, and :func:`~.acceptance.stopping_allows`."""
    total = nodes.stats[node]
    n_node = nodes.end[node] - nodes.start[node]
    crit = params.criterion
    nodes.impurity[node] = node_impurity(
        total, nodes.sq_sum[node], crit, params.n_stats, params.l1, params.l2
    )
    w_node = node_weight(total, crit, params.n_stats)
    return not is_pure(total, nodes.sq_sum[node], nodes.impurity[node], params) and (
        stopping_allows(nodes.depth[node], n_node, w_node, params)
    )


#: a node created and not yet examined, as the loop hands it to :func:`examine_node`:
#: its histogram's mode (``..split.search.MODE_*``), its buffer and its sibling's (-1:
#: none), and whether ``rows.ostats`` already holds its statistics (its parent's
#: partition gathered them)
NodeTask = namedtuple("NodeTask", ["node", "mode", "slot", "sibling_slot", "gathered"])

#: the best feature so far among a node's (:func:`choose_feature`): its index (-1:
#: none), its score, the score ties are measured against (the largest) and how many
#: features tie at it
FeatureChoice = namedtuple("FeatureChoice", ["best", "score", "tie_score", "n_tied"])


@inlined
def examine_node(g, task, pool, root_w, parallel, exact, sparse):
    """Step 1: the impurity of a new node (``task``, a :class:`NodeTask`) and, if the
    stopping rules let it split, its best split.  Returns its status:
    :data:`UNSPLITTABLE` (its histogram was not built), :data:`NO_SPLIT` or
    :data:`OPENED` (it joins the open nodes).

    ``parallel`` and ``exact`` are constants of the compiled grower
    (:func:`.loop.make_grow_tree`): with ``parallel``, large nodes evaluate their features on
    ``g.n_threads`` threads; with ``exact``, the split search reads the node's samples
    (``absolute_error``, :mod:`..median_split`).
    """
    # each record read from the context once: every read of the context loads all of it
    # (hundreds of fields), which LLVM then splits and discards again
    data = g.data
    src = g.src
    rows = g.rows
    nodes = g.nodes
    cands = g.candidates
    params = g.params
    sampler = g.sampler
    n_threads = g.n_threads
    node = task.node
    slot = task.slot
    start = nodes.start[node]
    end = nodes.end[node]
    total = nodes.stats[node]
    n_node = end - start
    can_split = splittable(nodes, node, params)
    nodes.feature[node] = -1
    if not can_split:
        release(pool, slot)
        return UNSPLITTABLE
    n_features = data.codes_T.shape[0]
    sampling = params.max_features < n_features
    mode, slot = search_mode(data, params, task.mode, slot, sampling, pool, exact, sparse)
    gather_statistics(src, rows, params, start, n_node, mode, task.gathered, n_threads, parallel)
    view = NodeView(
        start,
        end,
        total,
        mode,
        pool.buffers[max(slot, 0)],
        pool.buffers[max(task.sibling_slot, 0)],
        nodes.interval[node, LOWER],
        nodes.interval[node, UPPER],
    )
    if exact:
        nt = median_split.sort_node(src, rows.idx, start, end)
    if params.random_split:
        # the numeric features drawn get a random cut each; the categorical ones drawn
        # are searched below like any feature
        if exact and sparse:
            best, best_score, n_cat = random_search_exact_sparse(g, view, nt)
        elif exact:
            best, best_score, n_cat = random_search_exact(g, view, nt)
        elif sparse:
            best, best_score, n_cat = random_search_sparse(g, view, None)
        else:
            best, best_score, n_cat = random_search(g, view, None)
        feats, rest = sampler.sorted_draw[:n_cat], sampler.no_features
    else:
        best = np.int64(-1)
        best_score = -np.inf
        feats, rest, sampling = searched_features(
            nodes, node, params, sampler, sampling, n_features
        )
    # a large boosting node's histograms by blocks of its rows (..histogram), on the
    # threads or not: the same sums either way
    n_blocks = hist_blocks(n_node, g.hist_partials)
    blocked = (
        mode == MODE_BUILD
        and params.criterion == NEWTON
        and n_blocks >= 2
        and not (params.random_split or exact or sparse)
        and rows.ostats.shape[1] == 3
    )
    if blocked:
        built = NodeView(
            start, end, total, MODE_BUILT, view.hist, view.sibling_hist, view.lower, view.upper
        )
    else:
        built = view
    # the node's weight: a gain per unit of it is what attribute costs weigh
    w_node = max(node_weight(total, params.criterion, params.n_stats), 1e-300)
    choice = FeatureChoice(best, best_score, best_score, np.int64(1 if best >= 0 else 0))
    for attempt in range(2):
        fs = feats if attempt == 0 else rest
        if fs.shape[0] == 0:
            continue
        # (the flag as np.bool_: a literal True / False would compile the kernel twice)
        bucketed = (
            sparse
            and not exact
            and bucket_entries(fs, data, rows.idx, start, end, rows, np.bool_(False))
        )
        if blocked:
            build_blocked(g, fs, view, n_blocks, parallel)
        if exact:
            median_split.evaluate_features(fs, view, data, rows.idx, params, nt, cands)
        elif parallel:
            evaluate_features_parallel(
                n_threads, fs, built, data, rows, params, g.scratch, cands, sparse
            )
        else:
            evaluate_features(fs, built, data, rows, params, g.scratch, cands, sparse)
        if bucketed:
            bucket_entries(fs, data, rows.idx, start, end, rows, np.bool_(True))
        choice = choose_feature(fs, cands, params, sampler, choice, w_node)
        if choice.best >= 0:
            break
    return open_node(g, node, choice, slot, sampling, pool, root_w, exact)


@inlined
def search_mode(data, params, mode, slot, sampling, pool, exact, sparse):
    """How a splittable node's histograms are obtained, and its buffer: ``(mode, slot)``
    from the mode and buffer the loop scheduled (a buffer is taken from ``pool`` for a
    histogram built, gathered compressed when none is free)."""
    if params.random_split or exact or sparse:
        # a random cut and the exact search read the node's samples, not a histogram;
        # sparse codes gather each feature's entries in the node
        mode = MODE_SORT
    elif sampling and mode == MODE_BUILD and params.criterion != NEWTON and data.missing_code < 256:
        # sampled features: no child subtracts this histogram, and the 8-bit codes'
        # gather touches only the bins present, where a dense one is zeroed and scanned
        # whole (boosting keeps its dense scan, whose counts are estimated)
        mode = MODE_SORT
    elif mode == MODE_BUILD and slot < 0:
        slot = acquire(pool)
        if slot < 0:
            mode = MODE_SORT
    return mode, slot


@inlined
def gather_statistics(src, rows, params, start, n_node, mode, gathered, n_threads, parallel):
    """The statistics of the node's ``n_node`` samples from ``start`` into
    ``rows.ostats`` in node order (packed counts for a search from the samples), unless
    the histogram is subtracted or they are there already (``gathered``)."""
    if params.packed_counts and mode == MODE_SORT:
        # (over rows.ostats' memory: a node read from its samples reads no other row)
        gather_rows_packed(packed_rows(rows.ostats), src, rows.idx, start, n_node)
    elif mode != MODE_SUBTRACT and not gathered:
        n_chunks = gather_chunks(n_node, n_threads) if parallel else np.int64(1)
        if n_chunks > 1:
            gather_rows_parallel(rows.ostats, src, rows.idx, start, n_node, n_chunks)
        else:
            gather_rows(rows.ostats, src, rows.idx, start, n_node)


@inlined
def searched_features(nodes, node, params, sampler, sampling, n_features):
    """The features a node searches first and the rest (searched when none of the first
    splits): the tree's drawn or all of them, within the node's interaction sets; and
    whether its histogram then covers only some features (``sampling``)."""
    if sampling:
        feats, rest = sample_features(sampler, params.max_features)
    else:
        feats, rest = sampler.all_features, sampler.no_features
    if params.interaction.shape[1] > 0:
        feats, rest = allowed_features(
            nodes.allowed[node], params.interaction, feats, rest, sampler.allowed
        )
        # a histogram of some features only cannot be subtracted from, unless every
        # node of the tree searches the same ones (a tree's drawn features)
        sampling = sampling or (
            not params.fixed_features and feats.shape[0] + rest.shape[0] < n_features
        )
    return feats, rest, sampling


@inlined
def build_blocked(g, fs, view, n_blocks, parallel):
    """A large boosting node's histograms of the features ``fs`` by blocks of its rows
    (:func:`~..split.histogram.build_histograms_blocked`), on the threads or not."""
    rows = g.rows
    data = g.data
    # one list of arguments for the two copies (on the threads, or not)
    args = (
        fs,
        view.hist,
        g.hist_partials,
        n_blocks,
        data.codes_T,
        data.is_categorical,
        rows.idx,
        view.start,
        view.end,
        rows.ostats,
    )
    if parallel and g.n_threads > 1:
        build_histograms_blocked_parallel(*args)
    else:
        build_histograms_blocked(*args)


@inlined
def choose_feature(fs, cands, params, sampler, choice, w_node):
    """The best of ``choice`` (a :class:`FeatureChoice`) and the features ``fs`` whose
    splits are in ``cands``, serial, in the order of ``fs``, after every score is in: the
    draws below do not depend on the threads that evaluated the features.  Scores are
    weighed by the attribute costs; ties go to the lowest index or, with
    ``params.random_ties``, to one of the tied features drawn uniformly."""
    best, best_score, tie_score, n_tied = choice
    random_ties = params.random_ties
    for i in range(fs.shape[0]):
        f = fs[i]
        sc = cands.score[f]
        if params.cost_measure != NO_COST and sc > -np.inf:
            sc = cost_sensitive_measure(
                cands.decrease[f] / w_node,
                params.feature_cost[f],
                params.cost_measure,
                params.cost_weight,
            )
        if not random_ties:
            # scores equal within rounding go to the lowest index (.acceptance)
            if better_score(sc, best_score, best):
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
            if rand(sampler.state) % np.uint64(n_tied) == np.uint64(0):
                best_score = sc
                best = f
    return FeatureChoice(best, best_score, tie_score, n_tied)


@inlined
def open_node(g, node, choice, slot, sampling, pool, root_w, exact):
    """The node's split, if its best feature's (``choice``) gain is accepted
    (:func:`~.acceptance.gain_accepted`), written to its row of ``g.nodes``; its
    histogram kept for its children when they can subtract from it.  Returns
    :data:`OPENED` or :data:`NO_SPLIT`."""
    nodes = g.nodes
    cands = g.candidates
    params = g.params
    best = choice.best
    ok = best >= 0
    if ok:
        gain = cands.decrease[best]
        ok = gain_accepted(gain, choice.score, params, root_w)
    if ok:
        nodes.feature[node] = best
        nodes.bin_threshold[node] = cands.bin_threshold[best]
        nodes.missing_go_left[node] = cands.missing_go_left[best]
        if g.data.is_categorical[best]:
            copy_into(nodes.categories[node], cands.categories[best])
        if params.criterion == NEWTON or params.packed_counts:
            copy_into(nodes.left_stats[node], cands.left_stats[best])
        nodes.interval[node, MIDDLE] = cands.mid[best]
        nodes.gain[node] = gain
        if not (params.random_split or exact):
            # (a random cut's search records no gap in the candidates)
            nodes.gap[node, 0] = cands.gap[best, 0]
            nodes.gap[node, 1] = cands.gap[best, 1]
        # a histogram of sampled features cannot be subtracted from
        keep = slot >= 0 and not sampling
        nodes.hist_slot[node] = slot if keep else -1
        nodes.hist_complete[node] = keep
        if not keep:
            release(pool, slot)
        return OPENED
    release(pool, slot)
    return NO_SPLIT
