"""The compiled grower: one tree grown on binned data from per-sample statistics.

:class:`~..grower.TreeGrower` calls it.  The whole growth runs in one numba function,
:func:`grow_tree`, so a fully grown tree
with thousands of nodes pays no Python overhead per node.  The loop is four steps, each
its own function, inlined into the grower (see Compilation below):

1. :func:`.examine.examine_node`: a node just created gets its impurity and, when the stopping
   rules allow, the best split of its features (:mod:`..splitting`); a node with a split
   joins the open nodes;
2. :func:`.expand.pick_next`: the open node to expand, depth-first (a stack) or, when
   ``max_leaf_nodes`` is set, best-first (largest gain first, as LightGBM's leaf-wise
   growth and scikit-learn's best-first builder);
3. :func:`.expand.split_node`: its samples are partitioned between the two children
   (:mod:`..partition`) and the children get their statistics;
4. :func:`.expand.schedule_children`: how each child's histograms will be obtained.

Histograms: a node with at least ``dense_min_samples`` samples gets a dense histogram;
of two children the smaller one's is built from its samples and the larger one's is the
parent's minus the smaller one's, in the parent's buffer.  Small nodes gather a
compressed histogram instead (cheaper than zeroing and scanning every bin).  With
per-node feature sampling (``max_features``) no subtraction is possible (the parent's
histogram would not cover the child's features), so every node gathers compressed
histograms of its sampled features straight from its samples.

Threads (the parallel copy): a large node shares its features among the threads
(:func:`..splitting.evaluate_features_parallel`); a node of many rows per thread is
partitioned in shares of its rows (:func:`..partition.partition_parallel`), which also
gather the statistics of the child examined next, and the root's rows and statistics
are gathered in shares too.  What stays on one thread: the sums of the root and, outside
boosting, of each split's children (in row order, which every thread count and the
data-parallel trainer reproduce), the choice between the features' best splits, and
the small nodes.

State: the arrays travel in the named records of :mod:`..layout`.  :func:`grow_tree` works
in a :class:`~..layout.Workspace` that consecutive trees reuse, on borrowed views of it
(:mod:`.._borrow`) so that the kernels it calls do not reference-count the arrays it
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
per node (:mod:`..median_split`), keeps the runtime.

Compilation: one compiled grower serves every statistics source (:mod:`..statistics`) and
every criterion.  It is compiled in two copies from one source (:func:`make_grow_tree`):
:func:`grow_tree_serial`, which holds no parallel region at all (small data, and the
workers of a forest, which is parallel over trees already), and
:func:`grow_tree_parallel`, which evaluates the features of large nodes on several
threads and is compiled only when a tree is large enough to use it
(:data:`~..grower.PARALLEL_GROWER_MIN_WORK`).  The steps are inlined into the copy that calls
them: numba compiles each kernel once and then again inside every kernel that calls it,
so a chain of small compiled steps would compile the split search once per link.

``absolute_error`` has a third copy, :func:`grow_tree_exact` (serial), whose split search
reads the node's samples (:mod:`..median_split`) instead of histograms: the two others
hold none of that search, and it is compiled only the first time a tree uses it.  The
three have twins for sparse codes (:mod:`..sparse_codes`; ``grow_tree_*_sparse``), so
that a fit on dense codes compiles none of their search, partition and buckets.

The constants ``parallel``, ``exact`` and ``sparse`` are variables of the closures
that :func:`make_grow_tree` (and, for the kernels compiled on their own,
:func:`.random_search.make_random_search` and
:func:`..splitting._make_eval_feature`) returns, and the loop is the closure's own body: numba
folds a closure variable before it types the
body, so each copy compiles only its branches.  (An argument, even a literal one, is
not folded inside the kernel that takes it; and inlining a step copies its whole
intermediate representation, which costs as much as compiling a small kernel.)
"""

import numpy as np

from .._numba.borrowed_views import borrow
from .._numba.jit import compiled, inlined
from ..split.constraints import LOWER, UPPER
from ..split.criteria import is_regression, node_weight
from ..records import HistogramPool
from ..split.search import MODE_BUILD, MODE_SORT, MODE_SUBTRACT
from ..statistics.samples import (
    copy_gather_rows_parallel,
    sum_rows_blocked,
    sum_rows_parallel,
    sum_sq,
)
from .context import GrowContext, borrowed_data, borrowed_rows
from .examine import OPENED, UNSPLITTABLE, NodeTask, examine_node, gather_chunks
from .expand import pick_next, schedule_children, split_node
from .nodes import ready_nodes, reset_nodes


def make_grow_tree(parallel, exact=False, sparse=False):
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
        # each record read from the workspace once (see examine_node)
        ws_nodes = ws.nodes
        used = ws.used
        start_tree(ws_nodes, used, ws.sampler, ws.free_slots, ws.n_free, params, seed, n_features)
        # the caller holds data, src and ws for the whole call: their views need no reference
        # counting (see ._borrow)
        data_b = borrowed_data(data)
        src_b = borrow(src)
        rows_b = borrowed_rows(ws.rows, n)
        root_chunks = gather_chunks(n, n_threads) if parallel else np.int64(1)
        # the node whose statistics rows.ostats holds (gathered on the way), or -1
        gathered = root_rows(rows_b, src_b, sample_idx, root_chunks, sparse)
        nodes = borrow(ws_nodes)
        g = grow_context(ws, data_b, src_b, rows_b, nodes, params, n_threads)
        pool = HistogramPool(borrow(ws.buffers), borrow(ws.free_slots), borrow(ws.n_free))
        open_nodes = borrow(ws.open_nodes)
        root_w = root_sums(nodes, src_b, rows_b, n, params, borrow(ws.block_sums), root_chunks)
        # counters start as np.int64: a literal 0 or 1 would compile every kernel they are
        # passed to once more, for the literal's own type
        zero = np.int64(0)
        node_count = np.int64(1)
        n_open = np.int64(0)
        n_leaves = np.int64(1)
        truncated = False
        best_first = params.max_leaf_nodes > 0
        pending = borrow(ws.pending)
        n_pending = first_pending(pending, n, params)

        while True:
            for t in range(n_pending):
                node = pending.node[t]
                task = NodeTask(
                    node,
                    pending.mode[t],
                    pending.slot[t],
                    pending.sibling_slot[t],
                    node == gathered,
                )
                status = examine_node(g, task, pool, root_w, parallel, exact, sparse)
                # (an examination may gather another node's statistics over them)
                gathered = -1
                if status == OPENED:
                    open_nodes[n_open] = node
                    n_open += 1
                elif (
                    status == UNSPLITTABLE
                    and t == 0
                    and n_pending == 2
                    and pending.mode[1] == MODE_SUBTRACT
                ):
                    # the sibling cannot subtract a histogram that was never built
                    pending.mode[1] = MODE_BUILD
                    pending.sibling_slot[1] = -1
            n_pending = zero
            if n_open == 0:
                break
            if best_first and n_leaves >= params.max_leaf_nodes:
                break
            if node_count + 2 > cap:  # never write past the node arrays
                truncated = True
                break
            pos = pick_next(nodes, open_nodes, n_open, best_first)
            node = open_nodes[pos]
            open_nodes[pos] = open_nodes[n_open - 1]
            n_open -= 1
            lc = node_count
            rc = node_count + 1
            node_count += 2
            # the next split's children too
            ready_nodes(nodes, used, node_count + 2)
            n_leaves += 1
            gathered = split_node(
                data_b, src_b, rows_b, nodes, params, node, lc, rc, sparse, parallel, n_threads
            )
            schedule_children(nodes, node, lc, rc, params, pool, pending)
            n_pending = np.int64(2)

        # nodes left open become leaves
        for j in range(n_open):
            nodes.feature[open_nodes[j]] = -1
        used[0] = node_count
        return truncated, node_count

    return grow_tree


@inlined
def grow_context(ws, data, src, rows, nodes, params, n_threads):
    """The :class:`~.context.GrowContext` of a tree grown in workspace ``ws``: the
    borrowed inputs and rows, the workspace's records on borrowed views."""
    return GrowContext(
        data,
        src,
        rows,
        nodes,
        borrow(ws.candidates),
        borrow(ws.scratch),
        params,
        borrow(ws.sampler),
        n_threads,
        borrow(ws.random_cuts),
        borrow(ws.hist_partials),
    )


@inlined
def start_tree(nodes, used, sampler, free_slots, n_free, params, seed, n_features):
    """A workspace ready for a new tree: the last tree's nodes reset, the root and its
    two children ready (the root's interval the tree's bounds), the ``n_features``
    features in their order and the sampler seeded with ``seed``, every histogram
    buffer free."""
    reset_nodes(nodes, used[0])
    # the root and its two children
    ready_nodes(nodes, used, np.int64(3))
    nodes.interval[0, LOWER] = params.root_lower
    nodes.interval[0, UPPER] = params.root_upper
    for f in range(n_features):
        sampler.perm[f] = f
    sampler.state[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    n_slots = free_slots.shape[0]
    for k in range(n_slots):
        free_slots[k] = k
    n_free[0] = n_slots


@inlined
def root_rows(rows, src, sample_idx, root_chunks, sparse):
    """The tree's samples ``sample_idx`` as the root's rows (``rows.idx``), with their
    statistics gathered in the same region on ``root_chunks`` threads (then returns 0,
    the root's node, else -1: none gathered); with sparse codes, each row's place
    (``rows.position``, -1 for the rows in no node)."""
    n = sample_idx.shape[0]
    gathered = np.int64(-1)
    if not sparse and root_chunks > 1:
        # the root's rows and their statistics in one region
        copy_gather_rows_parallel(rows.idx, sample_idx, rows.ostats, src, root_chunks)
        gathered = 0
    else:
        for i in range(n):
            rows.idx[i] = sample_idx[i]
    if sparse:
        # the rows of the tree by place; the others are in no node
        position = rows.position
        for r in range(position.shape[0]):
            position[r] = -1
        for i in range(n):
            position[rows.idx[i]] = i
    return gathered


@inlined
def root_sums(nodes, src, rows, n, params, block_sums, root_chunks):
    """The root's statistics (summed in blocks of rows, the same sums on any number of
    threads), its squared targets for regression, its rows ``[0, n)``; returns the
    weight the gains are measured against (``params.root_weight``, or the root's)."""
    zero = np.int64(0)
    if root_chunks > 1:
        sum_rows_parallel(nodes.stats[0], src, rows.idx, zero, n, block_sums)
    else:
        sum_rows_blocked(nodes.stats[0], src, rows.idx, zero, n, block_sums)
    if is_regression(params.criterion):
        nodes.sq_sum[0] = sum_sq(src, rows.idx, zero, n)
    nodes.start[0] = 0
    nodes.end[0] = n
    if params.root_weight >= 0.0:
        return params.root_weight
    return node_weight(nodes.stats[0], params.criterion, params.n_stats)


@inlined
def first_pending(pending, n, params):
    """``pending`` holding the root alone, its histogram dense for ``n`` samples from
    ``params.dense_min_samples`` on, else gathered compressed; returns 1, the nodes
    pending."""
    for t in range(2):
        pending.node[t] = 0
        pending.mode[t] = 0
        pending.slot[t] = -1
        pending.sibling_slot[t] = -1
    pending.mode[0] = MODE_BUILD if n >= params.dense_min_samples else MODE_SORT
    return np.int64(1)


#: the grower without any parallel region
grow_tree_serial = make_grow_tree(False)
#: the grower that evaluates the features of large nodes on several threads
grow_tree_parallel = make_grow_tree(True)
#: the grower of ``absolute_error``, whose split search reads the node's samples
grow_tree_exact = make_grow_tree(False, exact=True)
#: the three on sparse codes (.sparse_codes): compiled only when a fit has them
grow_tree_serial_sparse = make_grow_tree(False, sparse=True)
grow_tree_parallel_sparse = make_grow_tree(True, sparse=True)
grow_tree_exact_sparse = make_grow_tree(False, exact=True, sparse=True)
