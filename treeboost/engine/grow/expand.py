"""Steps 2 to 4 of the grower's loop: the open node to expand, the partition of its
samples between its children (:mod:`..partition`) with the children's statistics and
constraints, and how each child's histograms will be had (built, gathered, or the
parent's minus the sibling's)."""

import numpy as np

from .._numba.jit import inlined, internal
from ..split.constraints import LOWER, MIDDLE, UPPER
from ..split.criteria import NEWTON, is_regression, node_weight
from .partition import (
    PARALLEL_PARTITION_ROWS,
    BinnedSplit,
    partition_parallel,
    partition_serial,
    partition_sparse,
)
from ..split.search import MODE_BUILD, MODE_SORT, MODE_SUBTRACT
from ..statistics.samples import sum_rows, sum_sq
from .histogram_pool import acquire, release


@internal
def child_constraints(iv, allowed, cst, sets_of_f, node, lc, rc):
    """The children's intervals ``iv`` (monotonic constraints; ``cst`` the split
    feature's) and open interaction sets ``allowed`` (``sets_of_f``: the split feature's
    sets) after ``node`` splits (:mod:`..constraints`).  (Compiled on its own with array
    arguments, as :func:`.sampling.allowed_features`.)"""
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
def pick_next(nodes, open_nodes, n_open, best_first):
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
def partition_node(data, src, rows, nodes, params, node, sparse, parallel, n_threads):
    """The samples of ``node`` that go left first, both sides in their order; returns
    the left count and whether the statistics of the child with fewer rows were
    gathered into ``rows.ostats`` on the way.

    The parallel grower partitions a node of at least :data:`~..partition.PARALLEL_PARTITION_ROWS`
    rows per thread on several threads (:func:`~..partition.partition_parallel`), and
    gathers there the statistics of the child it examines first, unless that child is
    at ``max_depth``; smaller nodes, sparse codes and the serial growers take the
    branch-free serial pass.  The order is the same either way."""
    idx = rows.idx
    s0 = nodes.start[node]
    e0 = nodes.end[node]
    f = nodes.feature[node]
    col = data.codes_T[f]
    catf = data.is_categorical[f]
    # a tree without categorical splits has one row of categories: read it only then
    split = BinnedSplit(
        data.missing_code,
        nodes.missing_go_left[node],
        catf,
        nodes.categories,
        node if catf else 0,
        nodes.bin_threshold[node],
    )
    if sparse:
        return partition_sparse(idx, s0, e0, data, f, split, rows.buf, rows.position), False
    if parallel:
        n_chunks = min(n_threads, (e0 - s0) // PARALLEL_PARTITION_ROWS)
        if n_chunks > 1:
            gather = params.max_depth < 0 or nodes.depth[node] + 1 < params.max_depth
            nl = partition_parallel(
                idx, s0, e0, col, split, rows.buf, n_chunks, rows.ostats, src, np.bool_(gather)
            )
            return nl, gather
    return partition_serial(idx, s0, e0, col, split, rows.buf), False


@inlined
def split_node(data, src, rows, nodes, params, node, lc, rc, sparse, parallel, n_threads):
    """Step 3: partition the samples of ``node`` between its children ``lc`` and ``rc``
    and give the children their statistics; returns the child whose statistics the
    partition gathered into ``rows.ostats`` (the one with fewer rows, the left one on a
    tie), -1 for none."""
    idx = rows.idx
    s0 = nodes.start[node]
    e0 = nodes.end[node]
    nl, gathered = partition_node(data, src, rows, nodes, params, node, sparse, parallel, n_threads)
    if params.criterion == NEWTON or params.packed_counts:
        # the children's sums from the split search (no second read of the statistics):
        # boosting's (G, H), or the integer sums of packed counts (statistics.packable),
        # exact in any order, which a pass over the left child's samples would add
        for c in range(nodes.stats.shape[1]):
            nodes.stats[lc, c] = nodes.left_stats[node, c]
            nodes.stats[rc, c] = nodes.stats[node, c] - nodes.left_stats[node, c]
        if params.criterion == NEWTON:
            # boosting's search estimates its counts from the hessian: the exact ones
            last = nodes.stats.shape[1] - 1
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
        child_constraints(
            nodes.interval,
            nodes.allowed,
            params.monotonic_cst[f],
            params.interaction[f],
            node,
            lc,
            rc,
        )
    if not gathered:
        return np.int64(-1)
    return lc if nl <= e0 - s0 - nl else rc


@inlined
def schedule_children(nodes, node, lc, rc, params, pool, pending):
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
        sslot = acquire(pool)
    if sslot >= 0:
        pending.mode[0] = MODE_BUILD
        pending.slot[0] = sslot
        pending.sibling_slot[0] = -1
        pending.mode[1] = MODE_SUBTRACT
        pending.slot[1] = pslot
        pending.sibling_slot[1] = sslot
        return
    release(pool, pslot)
    for t in range(2):
        child = pending.node[t]
        n_child = nodes.end[child] - nodes.start[child]
        pending.mode[t] = MODE_BUILD if n_child >= dense_min_samples else MODE_SORT
        pending.slot[t] = -1
        pending.sibling_slot[t] = -1
