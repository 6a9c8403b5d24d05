"""A lean depth-first grower for Extra-Trees' usual trees.

Most of a fully grown Extra-Tree's nodes hold a few samples, so its cost is what a node
costs beyond its samples.  :func:`grow_random_tree` grows the trees that need none of
the general grower's machinery (:mod:`.loop`): random cuts on numeric features only,
depth-first, no monotonic or interaction constraint, a criterion read from sums (not
``absolute_error``, not boosting's).  It grows the *same* tree as the general grower:
the same search (:func:`~.random_search.random_search_body`, inlined here), the same draws in
the same order, the same node numbering and the same sums in the same order.  What it
does without:

* histograms, their pool and the scheduling of the children's (a random cut reads the
  node's samples);
* the gather of a node's statistics before its search: the rows of statistics travel
  with the samples through the partition (``ostats[i]`` is sample ``idx[i]``'s), which
  sums the children on the way, in the order the general grower sums them;
* the records passed to a step per node: the steps are inlined into one loop.

Two classes with unit weights (Extra-Trees' usual case) go further: each sample's class
travels in its row of codes, every sum is a count of integers (the same in any order,
so the same tree), and the rows move from one pair of buffers to the other at each
depth, without a copy back (:func:`_partition_counted`).  Rows are whole 64-byte blocks,
moved and compared as vectors (:mod:`.._rows`).

:meth:`~..grower.TreeGrower.grow` chooses it (:func:`lean_tree`); every other tree grows
with the general grower.
"""

from collections import namedtuple

import numpy as np

from .._numba.borrowed_views import borrow
from .._numba.jit import compiled, inlined
from .._numba.rows import ROW_BLOCK_WORDS, copy_row, prefetch_row, rows_min_max
from ..split.criteria import is_regression, node_weight
from ..records import NodeView, RowBuffers
from ..predict.routing import goes_left_binned
from .partition import BinnedSplit
from ..split.random_cuts import LeanNode, build_cut_tables, set_counts
from ..split.search import MODE_SORT
from ..statistics.samples import SOURCE_CLASSES, gather_rows, sum_rows, sum_sq
from .context import GrowContext, borrowed_data, borrowed_rows
from .examine import DECREASE_ATOL, splittable
from .nodes import ready_nodes, reset_node
from .random_search import random_search_body


#: the ranges of all the features in one pass (._rows.rows_min_max) when there
#: are at most this many features per feature drawn: a row's codes take a few vector
#: instructions, a feature's range a few scalar ones
_WHOLE_ROW_RATIO = 32

#: a node of two classes with unit weights and at least this many samples counts each
#: drawn feature's samples by code (random_cuts.count_codes: one pass for the range and
#: the sums, no pass over all the features), which costs a pass over the codes' values
_COUNT_BY_CODE_MIN = 256


#: the lean grower's work arrays, from its caller (the grower allocates nothing: see
#: loop.grow_tree's reference counting)
LeanBuffers = namedtuple(
    "LeanBuffers",
    [
        "obuf",  # (n_rows, n_cols): the partition's buffer of rows of statistics
        "lo",
        "hi",  # (codes per row,) of the codes' dtype: each feature's range in a node
        "codes",  # (n_rows, n_words * 8 / itemsize) of the codes' dtype: each sample's
        # codes in node order (codes[i] is sample idx[i]'s), then its class
        # (the counts of grow_random_tree), rows padded to whole 64-byte
        # blocks (.._rows)
        "words",  # (n_rows, n_words) uint64: the same memory, for moving whole rows
        "wbuf",  # (n_rows, n_words) uint64: the partition's buffer of rows of codes
        "codes_buf",  # the same memory by code (the rows of a node of odd depth, counted)
        "by_code",  # (features, number of codes of the dtype) int64: count_codes'
        "labels",  # (n_samples,) uint8: the classes as bytes (read with counts: 0 and 1)
        "cut_table",  # (n_features, n_cells) int32, and (n_features,) float64 twice: the
        "cut_base",  # features' tables of random cuts (random_cuts.build_cut_tables)
        "cut_scale",
        "rows_max",  # int: the largest node of counts with rows of codes (_ROWS_MAX,
        # or every node's with fewer than _IDS_MIN_WORKERS workers)
    ],
)

#: a node of two classes with unit weights and at most this many samples has rows of
#: codes (those of its subtree in the first rows of the two buffers, from its first
#: sample on); a larger one is read and partitioned through its sample ids, from the
#: feature-major codes (random_cuts.count_codes_columns, _partition_columns): its
#: samples' rows would not stay in a core's cache, and their ids are an eighth of the
#: bytes to move.  A worker's buffers of rows then hold this many rows, not the tree's:
#: with a worker per core, each worker's first tree no longer faults in a copy of the
#: whole data's codes, and the cores share less memory traffic.  Read when the buffers
#: are made (lean_buffers), so a test may set it
_ROWS_MAX = 65536

#: ... from this many workers growing trees at once (GrowerWorkspace.workers); with
#: fewer, every node has rows: a large node's samples read through their ids cost one
#: core more than its rows streamed in order, which pays only where many workers would
#: each touch and stream a copy of the whole data's codes
_IDS_MIN_WORKERS = 4

#: rows :func:`_fill_rows` asks for ahead of the one it copies: a subtree's samples lie
#: scattered over the data, and a row read when it is reached waits on memory
_FILL_AHEAD = 48

#: cells per code in the tables of random cuts: a random value's cell then holds a
#: code's center about one time in this many, and the draw steps past it
_CELLS_PER_CODE = 4


def lean_buffers(workspace, n_rows, n_cols, data, labels):
    """:class:`LeanBuffers` for a tree of ``n_rows`` samples of ``data`` (its
    :class:`~..layout.BinnedData`; ``workspace``: the :class:`~.workspace.GrowerWorkspace`
    that keeps them from tree to tree, and the tables of random cuts from tree to tree of
    one estimator); ``labels``: the samples' classes (``SampleStatistics``'), kept as
    bytes for the trees of one estimator (a large node's samples read theirs at
    random)."""
    n_features, dtype = data.codes_T.shape[0], data.codes_T.dtype
    itemsize = dtype.itemsize
    # one more slot than the features, for the class (grow_random_tree's counts), in
    # whole blocks of 64 bytes (moved as vectors, ._rows)
    n_words = -(-(n_features + 1) * itemsize // 8)
    n_words = -(-n_words // ROW_BLOCK_WORDS) * ROW_BLOCK_WORDS
    words = workspace.row_array("lean_codes", n_rows, n_words, np.uint64)
    wbuf = workspace.row_array("lean_codes_buf", n_rows, n_words, np.uint64)
    row_codes = n_words * 8 // itemsize
    n_codes = np.iinfo(dtype).max + 1
    lo, hi, by_code = workspace.kept(
        "lean_node",
        (n_features, dtype, row_codes),
        lambda: (
            np.empty(row_codes, dtype),
            np.empty(row_codes, dtype),
            np.zeros((_codes_at_a_time(n_features, dtype), n_codes), np.int64),
        ),
    )
    table, base, scale = workspace.kept(
        "lean_cut_tables",
        (data.bin_centers, data.n_bins, n_codes),
        lambda: _cut_tables(data.bin_centers, data.n_bins, n_codes),
    )
    labels8 = workspace.kept("lean_labels", (labels,), lambda: (labels & 0xFF).astype(np.uint8))
    return LeanBuffers(
        workspace.row_array("lean_stats", n_rows, n_cols),
        lo,
        hi,
        words.view(dtype),
        words,
        wbuf,
        wbuf.view(dtype),
        by_code,
        labels8,
        table,
        base,
        scale,
        np.int64(max(1, _ROWS_MAX) if workspace.workers >= _IDS_MIN_WORKERS else max(1, n_rows)),
    )


def _cut_tables(centers, n_bins, n_codes):
    """The features' tables of random cuts (random_cuts.build_cut_tables)."""
    n_features = centers.shape[0]
    table = np.empty((n_features, min(_CELLS_PER_CODE * n_codes, 1 << 14)), np.int32)
    base = np.empty(n_features)
    scale = np.empty(n_features)
    build_cut_tables(
        np.ascontiguousarray(centers, dtype=np.float64),
        np.ascontiguousarray(n_bins, dtype=np.int64),
        table,
        base,
        scale,
    )
    return table, base, scale


def _codes_at_a_time(n_features, dtype):
    """How many features random_cuts.count_codes counts in one pass: all of them with
    8-bit codes (a quarter of a megabyte for 128 features at most), one at a time with
    16-bit codes (half a megabyte each)."""
    return min(n_features, 128) if np.dtype(dtype).itemsize == 1 else 1


def lean_tree(random_split, exact, newton, best_first, monotonic, interaction, categorical):
    """Whether :func:`grow_random_tree` grows a tree of these options: random cuts,
    depth-first, numeric features, no constraint, a criterion read from sums."""
    return (
        random_split
        and not (exact or newton or best_first or monotonic or categorical)
        and interaction.shape[1] == 0
    )


@inlined
def _partition_rows(
    codes, words, wbuf, split, f, idx, ostats, start, end, buf, obuf, left, right, gap
):
    """Stable partition of the samples ``idx[start:end]``, of their rows of statistics
    ``ostats[start:end]`` and of their rows of codes ``words[start:end]`` (``codes``: the
    same memory by code) at ``split`` (a :class:`~..partition.BinnedSplit`) on feature
    ``f``: the left ones in place, the right ones through ``buf`` / ``obuf`` / ``wbuf``.
    ``left`` and ``right`` get the children's sums, each in its samples' order (as
    :func:`~..statistics.sum_rows` adds them), and ``gap`` the split's gap: the largest
    code (not missing) that goes left, -1 for none, and the smallest that goes right,
    the missing code for none (:func:`~..gap_thresholds.center_thresholds` reads them
    instead of the children's samples).  Returns the left count."""
    n_cols = ostats.shape[1]
    for c in range(n_cols):
        left[c] = 0.0
        right[c] = 0.0
    # unsigned indices, as in random_cuts.cut_range
    nl = np.uint64(0)
    nr = np.uint64(0)
    uf = np.uint64(f)
    ustart = np.uint64(start)
    mc = np.int64(split.missing_code)
    largest_left = np.int64(-1)
    smallest_right = mc
    for i in range(ustart, np.uint64(end)):
        s = idx[i]
        code = np.int64(codes[i, uf])
        if goes_left_binned(
            code,
            split.missing_code,
            split.missing_go_left,
            False,
            split.categories,
            split.row,
            split.bin_threshold,
        ):
            if code != mc:
                largest_left = max(largest_left, code)
            o = ustart + nl
            idx[o] = s
            for c in range(n_cols):
                v = ostats[i, c]
                ostats[o, c] = v
                left[c] += v
            copy_row(words, o, words, i)
            nl += np.uint64(1)
        else:
            smallest_right = min(smallest_right, code)
            buf[nr] = s
            for c in range(n_cols):
                v = ostats[i, c]
                obuf[nr, c] = v
                right[c] += v
            copy_row(wbuf, nr, words, i)
            nr += np.uint64(1)
    gap[0] = largest_left
    gap[1] = smallest_right
    for i in range(nr):
        o = ustart + nl + i
        idx[o] = buf[i]
        for c in range(n_cols):
            ostats[o, c] = obuf[i, c]
        copy_row(words, o, wbuf, i)
    nl = np.int64(nl)
    return nl


@inlined
def _partition_counted(
    codes, words, to_words, split, f, label, idx, to_idx, start, end, total, left, right, gap
):
    """The partition of two classes with unit weights, from one pair of buffers into the
    other: the samples ``idx[start:end]`` and their rows of codes ``words[start:end]``
    (``codes``: the same memory by code) go to ``to_idx[start:end]`` and
    ``to_words[start:end]``, the left ones in order from ``start``, the right ones in
    reverse order from ``end - 1``.  The class of each sample is ``codes[i, label]``; the
    children's sums are its counts (see :func:`~..random_cuts.cut_counts`; ``total``:
    the node's), and ``gap`` the split's gap (as :func:`_partition_rows` records it).
    Returns the left count.

    Each row is read once and written once, to the end of what is left to fill on its
    side: the place is chosen in arithmetic (``hi + g * (lo - hi)``), not by a branch
    on the side (a random cut's is as unpredictable as a coin), and only that end moves
    on.  No copy back: the children's rows stay in the other buffers (a node's buffers
    follow its depth).  Unstable (the right samples reversed), which counts do not
    see."""
    uf = np.uint64(f)
    ul = np.uint64(label)
    thr, mc, missing, lo, hi, largest_left, smallest_right = _open_counts(split, start, end)
    pos_l = np.int64(0)
    for i in range(np.uint64(start), np.uint64(end)):
        c = np.int64(codes[i, uf])
        g, dest, lo, hi, largest_left, smallest_right = _place(
            c, thr, mc, missing, lo, hi, largest_left, smallest_right
        )
        to_idx[dest] = idx[i]
        copy_row(to_words, dest, words, i)
        pos_l += np.int64(g) * np.int64(codes[i, ul])
    return _close_counts(
        gap, largest_left, smallest_right, lo, start, end, pos_l, total, left, right
    )


@inlined
def _open_counts(split, start, end):
    """The start of a partition of counts of ``[start, end)`` by ``split``: the cut's
    code, the code that goes left as missing (-1 if none: missing values, the largest
    code, above every cut, go left if the split says so), the missing code, the two
    ends, and the gap's bounds before any sample."""
    missing = np.int64(split.missing_code)
    return (
        np.int64(split.bin_threshold),
        missing if split.missing_go_left else np.int64(-1),
        missing,
        np.uint64(start),
        np.uint64(end) - np.uint64(1),
        np.int64(-1),
        missing,
    )


@inlined
def _place(c, thr, mc, missing, lo, hi, largest_left, smallest_right):
    """One sample of code ``c`` in a partition of counts (:func:`_partition_counted`,
    :func:`_partition_columns`): its side ``g`` (1 left, 0 right) and its place
    ``dest``, then the two ends and the gap's bounds moved on, all in arithmetic, not
    branches (a random cut's side is as unpredictable as a coin).  The values at or
    below the cut went left; a missing value going left is no value: it sits above
    every cut."""
    g = np.uint64((c <= thr) | (c == mc))
    dest = hi + g * (lo - hi)
    below = np.int64(c <= thr)
    return (
        g,
        dest,
        lo + g,
        hi - (np.uint64(1) - g),
        max(largest_left, below * (c + 1) - 1),
        min(smallest_right, c + below * (missing - c)),
    )


@inlined
def _close_counts(gap, largest_left, smallest_right, lo, start, end, pos_l, total, left, right):
    """The end of a partition of counts: the gap recorded, the children's counts set
    (``pos_l`` of the left count's class 1), the left count returned."""
    gap[0] = largest_left
    gap[1] = smallest_right
    nl = np.int64(lo) - start
    set_counts(left, nl, pos_l)
    # the node's counts are integers held exactly: the right ones are the rest
    set_counts(right, end - start - nl, np.int64(total[1]) - pos_l)
    return nl


@inlined
def _partition_columns(codes_T, labels, split, f, idx, to_idx, start, end, total, left, right, gap):
    """:func:`_partition_counted` of a node read through its sample ids: the ids
    ``idx[start:end]`` go to ``to_idx[start:end]`` (the left ones in order from
    ``start``, the right ones in reverse order from ``end - 1``), each sample's code read
    from the feature-major ``codes_T[f]`` and its class from ``labels``.  The same
    counts and gap, so the same tree; only the ids move."""
    col = codes_T[f]
    thr, mc, missing, lo, hi, largest_left, smallest_right = _open_counts(split, start, end)
    pos_l = np.int64(0)
    for i in range(np.uint64(start), np.uint64(end)):
        s = idx[i]
        g, dest, lo, hi, largest_left, smallest_right = _place(
            np.int64(col[s]), thr, mc, missing, lo, hi, largest_left, smallest_right
        )
        to_idx[dest] = s
        pos_l += np.int64(g) * np.int64(labels[s])
    return _close_counts(
        gap, largest_left, smallest_right, lo, start, end, pos_l, total, left, right
    )


@inlined
def _within(start, end, rows_start, rows_end):
    """Whether the node of positions ``[start, end)`` lies in the subtree whose rows of
    codes the buffers hold, ``[rows_start, rows_end)``."""
    return start >= rows_start and end <= rows_end


@inlined
def _fill_rows(codes, codes_rows, labels, idx, start, end, first, n_features, counts):
    """The rows of codes of the samples ``idx[start:end]``: ``codes[i - first]`` gets
    sample ``idx[i]``'s codes, then its class with ``counts``."""
    for i in range(start, end):
        if i + _FILL_AHEAD < end:
            prefetch_row(codes_rows, idx[i + _FILL_AHEAD])
        s = idx[i]
        r = codes_rows[s]
        o = i - first
        for k in range(n_features):
            codes[o, k] = r[k]
        if counts:
            codes[o, n_features] = labels[s]


@inlined
def _examine(
    g,
    node,
    hist,
    root_w,
    lo,
    hi,
    codes,
    counts,
    by_code,
    cut_table,
    cut_base,
    cut_scale,
    first,
    columns,
    node_idx,
    labels,
):
    """The impurity of a new node and, if the stopping rules let it split, its random
    cut; returns whether it opened (as :func:`~.examine.examine_node` with random cuts).
    The node's rows of codes are ``codes[start - first:end - first]``, or with
    ``columns`` it has none: its samples ``node_idx[start:end]`` are read from the
    feature-major codes."""
    nodes = g.nodes
    params = g.params
    start = nodes.start[node]
    end = nodes.end[node]
    total = nodes.stats[node]
    if not splittable(nodes, node, params):
        return False
    # the search reads rows from the node's first row, or ids from its first position
    view = NodeView(start - first, end - first, total, MODE_SORT, hist, hist, -np.inf, np.inf)
    # the search reads the node's statistics from ostats[0:n_node]
    rows = g.rows
    node_rows = RowBuffers(
        rows.idx,
        rows.buf,
        rows.ostats[start:end],
        rows.position,
        rows.slot_of,
        rows.bucket_start,
        rows.entry_pos,
        rows.entry_code,
    )
    gn = GrowContext(
        g.data,
        g.src,
        node_rows,
        nodes,
        g.candidates,
        g.scratch,
        params,
        g.sampler,
        g.n_threads,
        g.random_cuts,
        g.hist_partials,
    )
    # every feature's range in one pass when the features are not many more than those
    # drawn (see ._rows.rows_min_max)
    # (or, for a large node of counts, each drawn feature's counts by code)
    by_codes = columns or (counts and end - start >= _COUNT_BY_CODE_MIN)
    whole = not by_codes and g.data.codes_T.shape[0] <= _WHOLE_ROW_RATIO * params.max_features
    if whole:
        rows_min_max(codes, start - first, end - first, lo, hi)
    best, best_score, n_cat = random_search_body(
        gn,
        view,
        None,
        False,
        LeanNode(
            lo,
            hi,
            whole,
            codes,
            counts,
            by_codes,
            by_code,
            columns,
            node_idx,
            g.data.codes_T,
            labels,
            cut_table,
            cut_base,
            cut_scale,
        ),
    )
    if best < 0:
        return False
    cands = g.candidates
    gain = cands.decrease[best]
    if gain + DECREASE_ATOL * root_w < params.min_decrease * root_w:
        return False
    nodes.feature[node] = best
    nodes.bin_threshold[node] = cands.bin_threshold[best]
    nodes.missing_go_left[node] = cands.missing_go_left[best]
    nodes.gain[node] = gain
    return True


@compiled(no_cfunc_wrapper=True, _nrt=False)
def grow_random_tree(data, src, sample_idx, params, seed, cap, ws, bufs):
    """Grow one tree of random cuts in workspace ``ws``, as
    :func:`~.loop.grow_tree_serial` grows it (same arguments, but ``bufs``, its
    :class:`LeanBuffers`, instead of a thread count).  Compiled without reference
    counting, as the general grower is.

    Returns whether the tree was cut short at ``cap`` nodes, and its node count; the
    tree is in ``ws.nodes``, its samples in partition order in ``ws.rows.idx``.
    """
    n = sample_idx.shape[0]
    n_features = data.codes_T.shape[0]
    for i in range(n):
        ws.rows.idx[i] = sample_idx[i]
    sampler = ws.sampler
    for f in range(n_features):
        sampler.perm[f] = f
    sampler.state[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    # the caller holds data, src, ws and obuf for the whole call: their views need no
    # reference counting (see ._borrow)
    g = GrowContext(
        borrowed_data(data),
        borrow(src),
        borrowed_rows(ws.rows, n),
        borrow(ws.nodes),
        borrow(ws.candidates),
        borrow(ws.scratch),
        params,
        borrow(sampler),
        np.int64(1),
        borrow(ws.random_cuts),
        borrow(ws.hist_partials),
    )
    nodes = g.nodes
    idx = g.rows.idx
    ostats = g.rows.ostats
    buf = g.rows.buf
    obuf = borrow(bufs.obuf)
    hist = borrow(ws.buffers[0])
    codes = borrow(bufs.codes)
    words = borrow(bufs.words)
    wbuf = borrow(bufs.wbuf)
    codes_buf = borrow(bufs.codes_buf)
    open_nodes = borrow(ws.open_nodes)
    regression = is_regression(params.criterion)
    # every feature's smallest and largest code in the node (_examine)
    lo = borrow(bufs.lo)
    hi = borrow(bufs.hi)
    by_code = borrow(bufs.by_code)
    labels8 = borrow(bufs.labels)
    cut_table = borrow(bufs.cut_table)
    cut_base = borrow(bufs.cut_base)
    cut_scale = borrow(bufs.cut_scale)

    zero = np.int64(0)
    # the root and its two children hold their initial values (.nodes)
    used = borrow(ws.used)
    ready_nodes(nodes, used, np.int64(3))
    reset_node(nodes, zero, zero, n, zero)
    for c in range(nodes.stats.shape[1]):
        nodes.stats[0, c] = 0.0
    sum_rows(nodes.stats[0], g.src, idx, zero, n)
    if regression:
        nodes.sq_sum[0] = sum_sq(g.src, idx, zero, n)
    # every sample's row of statistics, in the order of idx from here on
    # two classes with unit weights: the samples' classes travel with their codes, and
    # the sums are counted from them (see cut_counts); no rows of statistics are needed
    src = g.src
    counts = src.kind == SOURCE_CLASSES and ostats.shape[1] == 3 and not regression
    if counts:
        for i in range(n):
            if src.weights[idx[i]] != 1.0:
                counts = False
                break
    if not counts:
        gather_rows(ostats, g.src, idx, zero, n)
    # and of codes: the passes over a node's samples read them in order, where the
    # samples' own rows lie scattered over the data.  With counts, only a node of at
    # most _ROWS_MAX samples has rows: those of the subtree of [rows_start, rows_end),
    # from its first sample on (the depth-first order finishes that subtree before any
    # other node is split); a larger one is read through its ids
    rows = g.data.codes_rows
    rows_max = bufs.rows_max if counts else n
    rows_start = zero
    rows_end = np.int64(-1)
    if n <= rows_max:
        _fill_rows(codes, rows, labels8, idx, zero, n, zero, n_features, counts)
        rows_end = n
    root_w = node_weight(nodes.stats[0], params.criterion, params.n_stats)
    node_count = np.int64(1)
    n_open = np.int64(0)
    truncated = False
    # the nodes created and not yet examined: the root, then the children of each split,
    # the lighter first (see below)
    pending = borrow(ws.pending.node)
    pending[0] = 0
    n_pending = 1
    while True:
        for t in range(n_pending):
            p = pending[t]
            # with counts, a node of odd depth has its rows and ids in the buffers
            at_buf = counts and nodes.depth[p] % 2 == 1
            in_rows = _within(nodes.start[p], nodes.end[p], rows_start, rows_end)
            if _examine(
                g,
                p,
                hist,
                root_w,
                lo,
                hi,
                codes_buf if at_buf else codes,
                counts,
                by_code,
                cut_table,
                cut_base,
                cut_scale,
                rows_start if in_rows else zero,
                not in_rows,
                buf if at_buf else idx,
                labels8,
            ):
                open_nodes[n_open] = pending[t]
                n_open += 1
        if n_open == 0:
            break
        if node_count + 2 > cap:  # never write past the node arrays
            truncated = True
            break
        n_open -= 1
        node = open_nodes[n_open]
        lc = node_count
        rc = node_count + 1
        node_count += 2
        ready_nodes(nodes, used, node_count + 2)
        s0 = nodes.start[node]
        e0 = nodes.end[node]
        depth = nodes.depth[node] + 1
        f = np.int64(nodes.feature[node])
        split = BinnedSplit(
            g.data.missing_code,
            nodes.missing_go_left[node],
            False,
            nodes.categories,
            0,
            nodes.bin_threshold[node],
        )
        # with counts, the node's buffers are the first pair at an even depth, the
        # other at an odd one, and its children go into the other pair
        even = (depth - 1) % 2 == 0
        if counts and e0 - s0 > rows_max:
            # no rows: the ids from the node's buffer into the other
            nl = _partition_columns(
                g.data.codes_T,
                labels8,
                split,
                f,
                idx if even else buf,
                buf if even else idx,
                s0,
                e0,
                nodes.stats[node],
                nodes.stats[lc],
                nodes.stats[rc],
                nodes.gap[node],
            )
        elif counts:
            if not _within(s0, e0, rows_start, rows_end):
                # the first node of a subtree of rows: its rows from its samples'
                rows_start = s0
                rows_end = e0
                _fill_rows(
                    codes if even else codes_buf,
                    rows,
                    labels8,
                    idx if even else buf,
                    s0,
                    e0,
                    s0,
                    n_features,
                    True,
                )
            # from the node's buffers into the others, the subtree's rows from its first
            # (views from it: one index for a sample's row and its id)
            if even:
                nl = _partition_counted(
                    codes,
                    words,
                    wbuf,
                    split,
                    f,
                    n_features,
                    idx[rows_start:],
                    buf[rows_start:],
                    s0 - rows_start,
                    e0 - rows_start,
                    nodes.stats[node],
                    nodes.stats[lc],
                    nodes.stats[rc],
                    nodes.gap[node],
                )
            else:
                nl = _partition_counted(
                    codes_buf,
                    wbuf,
                    words,
                    split,
                    f,
                    n_features,
                    buf[rows_start:],
                    idx[rows_start:],
                    s0 - rows_start,
                    e0 - rows_start,
                    nodes.stats[node],
                    nodes.stats[lc],
                    nodes.stats[rc],
                    nodes.gap[node],
                )
        else:
            nl = _partition_rows(
                codes,
                words,
                wbuf,
                split,
                f,
                idx,
                ostats,
                s0,
                e0,
                buf,
                obuf,
                nodes.stats[lc],
                nodes.stats[rc],
                nodes.gap[node],
            )
        reset_node(nodes, lc, s0, s0 + nl, depth)
        reset_node(nodes, rc, s0 + nl, e0, depth)
        if regression:
            nodes.sq_sum[lc] = sum_sq(g.src, idx, s0, s0 + nl)
            nodes.sq_sum[rc] = sum_sq(g.src, idx, s0 + nl, e0)
        nodes.children_left[node] = lc
        nodes.children_right[node] = rc
        # the lighter child first (by weight, not rows): the order of the draws is then
        # the one a fit on rows repeated as their weights say makes (a weight is a
        # repetition); with unit weights it is the general grower's smaller child first
        w_left = node_weight(nodes.stats[lc], params.criterion, params.n_stats)
        w_right = node_weight(nodes.stats[rc], params.criterion, params.n_stats)
        pending[0], pending[1] = (lc, rc) if w_left <= w_right else (rc, lc)
        n_pending = 2
    # nodes left open become leaves
    for j in range(n_open):
        nodes.feature[open_nodes[j]] = -1
    if counts:
        # the samples of the leaves of odd depth are in the buffer: all in idx, in order
        for k in range(node_count):
            if nodes.children_left[k] == -1 and nodes.depth[k] % 2 == 1:
                for i in range(nodes.start[k], nodes.end[k]):
                    idx[i] = buf[i]
    # the general grower resets the nodes the last tree wrote (.nodes.reset_nodes)
    used[0] = max(used[0], node_count)
    return truncated, node_count
