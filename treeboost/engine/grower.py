"""TreeGrower: grows one tree on binned data from per-sample statistics.

The whole growth loop runs in one numba function, so a fully grown tree with
thousands of nodes pays no Python overhead per node.  Each node, when created, gets
the best split of its features (:mod:`.splitting`); the open nodes are then expanded
depth-first (a stack) or, when ``max_leaf_nodes`` is set, best-first (largest impurity
decrease first, as LightGBM's leaf-wise growth and scikit-learn's best-first builder).

Histograms: a node with at least ``dense_min_samples`` samples gets a dense histogram;
of two children the smaller one's is built from its samples and the larger one's is the
parent's minus the smaller one's, in the parent's buffer.  Small nodes use a sorted,
compressed histogram instead (cheaper than zeroing and scanning every bin).  With
per-node feature sampling (``max_features``) no subtraction is possible (the parent's
histogram would not cover the child's features), so every node gathers compressed
histograms of its sampled features straight from its samples.

Memory: :func:`grow_tree` works in a :class:`GrowerWorkspace` that consecutive trees
reuse, and its loop runs on borrowed array views (:mod:`._borrow`) so that numba does not
reference-count the arrays it passes around.
"""
import numpy as np
from numba import njit

from ._borrow import borrow
from .criteria import node_impurity, NEWTON, SQUARED_ERROR
from .tree import Tree
from .histogram import build_histograms_parallel, build_histograms_serial
from .partition import goes_left_binned, partition_parallel
from .statistics import SampleStatistics, add_sample, gather_samples, sample_sq
from .splitting import (MODE_BUILD, MODE_READY, MODE_SORT, MODE_SUBTRACT,
                        eval_features_parallel, eval_features_serial, make_scratch)


@njit(nogil=True, cache=True)
def _rand(state):
    """xorshift64*: a small explicit-state generator, the same on every thread."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@njit(nogil=True, cache=True)
def _sample_features(perm, k, state):
    n = perm.shape[0]
    for i in range(k):
        j = i + np.int64(_rand(state) % np.uint64(n - i))
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
    # the sampled features sorted (ties go to the lowest index); the rest, searched only
    # when none of them splits, stays a view in draw order (no copy, no sort per node)
    return np.sort(perm[:k]), perm[k:]


@njit(nogil=True, cache=True)
def _get_slot(pool, free, n_free):
    """A free histogram buffer; the pool doubles when none is left."""
    if n_free[0] == 0:
        old = pool.shape[0]
        new_pool = np.empty((2 * old,) + pool.shape[1:])
        new_pool[:old] = pool
        new_free = np.empty(2 * old, np.int64)
        new_free[:free.shape[0]] = free
        for s in range(old, 2 * old):
            new_free[n_free[0]] = s
            n_free[0] += 1
        pool = new_pool
        free = new_free
    n_free[0] -= 1
    return pool, free, free[n_free[0]]


@njit(nogil=True, cache=True, inline="always")
def _find_split(node, mode, slot, sib_slot, feats, rest, pool, Xb_T, idx, src, ostats,
                start, end, total, n_bins, missing_code, is_cat, crit, n_stats, l2,
                min_leaf, min_w, n_threads, parallel_min_work, scratch, result, split):
    """Best split of a node over ``feats`` (then ``rest`` if none is valid).

    ``result`` holds the per-feature candidates (see :func:`eval_feature`); the winner
    is written to row ``node`` of the node arrays ``split = (feature, bin_threshold,
    missing_left, bitset, left_stats, gain)``.
    """
    f_score, f_dec, f_bin, f_ml, f_bitset, f_left, f_rand = result
    feature, bin_thr, missing_left, bitset, cand_left, gain = split
    n = end - start
    if mode != MODE_SUBTRACT:
        gather_samples(ostats, idx, start, n, src)
    hist = pool[max(slot, 0)]
    sib = pool[max(sib_slot, 0)]
    best = -1
    best_score = -np.inf
    for attempt in range(2):
        fs = feats if attempt == 0 else rest
        if fs.shape[0] == 0:
            continue
        par = n_threads > 1 and n * fs.shape[0] >= parallel_min_work
        m = mode
        if mode == MODE_BUILD:
            # boosting's numeric features estimate counts from the hessian
            count_of = is_cat | (crit != NEWTON)
            if par:
                build_histograms_parallel(hist, Xb_T, fs, idx, start, end, ostats, count_of)
            else:
                build_histograms_serial(hist, Xb_T, fs, idx, start, end, ostats, count_of)
            m = MODE_READY
        if par:
            eval_features_parallel(fs, m, hist, sib, Xb_T, idx, start, end, ostats, total,
                                   n_bins, missing_code, is_cat, crit, n_stats, l2, min_leaf,
                                   min_w, result, n_threads)
        else:
            eval_features_serial(fs, m, hist, sib, Xb_T, idx, start, end, ostats, total,
                                 n_bins, missing_code, is_cat, crit, n_stats, l2, min_leaf,
                                 min_w, scratch, result)
        for i in range(fs.shape[0]):
            f = fs[i]
            if f_score[f] > best_score:
                best_score = f_score[f]
                best = f
        if best >= 0:
            break
    feature[node] = best
    if best >= 0:
        bin_thr[node] = f_bin[best]
        missing_left[node] = f_ml[best]
        if is_cat[best]:
            bitset[node] = f_bitset[best]
        if crit == NEWTON:
            cand_left[node] = f_left[best]
        gain[node] = f_dec[best]
    return best


@njit(nogil=True, cache=True)
def _grow_nodes(owners, Xb_T, src, n_bins, is_cat, work, nodes, result, scratch, pool,
                free, n_free, cap, missing_code, crit, n_stats, l2, max_depth, min_samples_split,
                min_samples_leaf, min_weight_leaf, min_decrease, max_features, max_leaf_nodes,
                dense_min_samples, n_threads, parallel_min_work, random_split):
    """The growth loop of :func:`grow_tree` on borrowed views of its arrays (``owners``
    holds the originals); returns the node count and whether the node arrays (``cap``
    nodes) ran out before the tree was complete."""
    truncated = False
    (start, end, depth, left_child, right_child, feature, bin_thr, missing_left, bitset,
     total, sq_sum, impurity, gain, cand_left, slot_of, complete) = nodes
    idx, buf, ostats, perm, all_feats, no_feats, state, open_nodes = work
    f_rand = result[6]
    split = (feature, bin_thr, missing_left, bitset, cand_left, gain)
    n_features = Xb_T.shape[0]
    n_cols = ostats.shape[1]
    cnt = n_cols - 1
    n = idx.shape[0]
    sampling = max_features < n_features
    # only the squared error reads w * y^2 (the others get a one-element placeholder)
    use_sq = crit == SQUARED_ERROR
    if sampling and missing_code < 256:
        # without subtraction a dense histogram only adds the cost of zeroing and scanning
        # every bin to what the bitmap gather does in O(samples + codes present)
        dense_min_samples = n + 1

    # root statistics
    for i in range(n):
        s = idx[i]
        add_sample(total, 0, src, s)
        if use_sq:
            sq_sum[0] += sample_sq(src, s)
    start[0] = 0
    end[0] = n
    root_w = 0.0
    if crit == SQUARED_ERROR or crit == NEWTON:
        root_w = total[0, 0] if crit == SQUARED_ERROR else total[0, 1]
    else:
        for k in range(n_stats):
            root_w += total[0, k]
    node_count = 1

    n_open = 0
    n_leaves = 1

    # A node is examined when created: is it splittable, and what is its best split.
    # `todo` holds (node, mode, slot, sibling slot) for the nodes just created.
    todo = np.empty((2, 4), np.int64)
    n_todo = 1
    todo[0, 0] = 0
    todo[0, 1] = MODE_BUILD if n >= dense_min_samples else MODE_SORT
    todo[0, 2] = -1
    todo[0, 3] = -1

    while True:
        for t in range(n_todo):
            node = todo[t, 0]
            mode = todo[t, 1]
            slot = todo[t, 2]
            sib_slot = todo[t, 3]
            nn = end[node] - start[node]
            impurity[node] = node_impurity(total[node], sq_sum[node], crit, n_stats, l2)
            w_node = 0.0
            if crit == SQUARED_ERROR:
                w_node = total[node, 0]
            elif crit == NEWTON:
                w_node = total[node, 1]
            else:
                for k in range(n_stats):
                    w_node += total[node, k]
            pure = False
            if crit == SQUARED_ERROR:
                pure = impurity[node] <= 1e-12 * (sq_sum[node] / max(w_node, 1e-300))
            elif crit != NEWTON:
                n_nonzero = 0
                for k in range(n_stats):
                    if total[node, k] > 0.0:
                        n_nonzero += 1
                pure = n_nonzero <= 1
            splittable = (not pure and (max_depth < 0 or depth[node] < max_depth)
                          and nn >= min_samples_split and nn >= 2 * min_samples_leaf
                          and w_node >= 2 * min_weight_leaf)
            if not splittable:
                feature[node] = -1
                if slot >= 0:
                    free[n_free[0]] = slot
                    n_free[0] += 1
                if t == 0 and n_todo == 2 and todo[1, 1] == MODE_SUBTRACT:
                    # the sibling cannot subtract a histogram that was never built
                    todo[1, 1] = MODE_BUILD
                    todo[1, 3] = -1
                continue
            if sampling:
                feats, rest = _sample_features(perm, max_features, state)
            else:
                feats, rest = all_feats, no_feats
            if random_split:
                for f in range(n_features):
                    f_rand[f] = np.int64(_rand(state) >> np.uint64(2))
            if mode == MODE_BUILD and slot < 0:
                pool, free, slot = _get_slot(pool, free, n_free)
            best = _find_split(node, mode, slot, sib_slot, feats, rest, pool, Xb_T, idx,
                               src, ostats, start[node], end[node], total[node], n_bins,
                               missing_code, is_cat, crit, n_stats, l2, min_samples_leaf,
                               min_weight_leaf, n_threads, parallel_min_work, scratch, result,
                               split)
            ok = best >= 0
            if ok:
                if crit == NEWTON:
                    ok = gain[node] > 1e-15 and gain[node] >= min_decrease
                else:
                    ok = gain[node] + 1e-12 * root_w >= min_decrease * root_w
            if ok:
                open_nodes[n_open] = node
                n_open += 1
                slot_of[node] = slot
                complete[node] = slot >= 0 and not sampling
            else:
                feature[node] = -1
            if (not ok or sampling) and slot >= 0:
                slot_of[node] = -1
                free[n_free[0]] = slot
                n_free[0] += 1
        n_todo = 0

        if n_open == 0:
            break
        if max_leaf_nodes > 0 and n_leaves >= max_leaf_nodes:
            break
        if node_count + 2 > cap:      # never write past the node arrays
            truncated = True
            break
        # choose the node to expand
        pos = n_open - 1
        if max_leaf_nodes > 0:
            for j in range(n_open):
                if gain[open_nodes[j]] > gain[open_nodes[pos]] or (
                        gain[open_nodes[j]] == gain[open_nodes[pos]]
                        and open_nodes[j] < open_nodes[pos]):
                    pos = j
        node = open_nodes[pos]
        open_nodes[pos] = open_nodes[n_open - 1]
        n_open -= 1

        # partition the node's samples (stable), summing each child's statistics
        f = feature[node]
        col = Xb_T[f]
        s0 = start[node]
        e0 = end[node]
        lc = node_count
        rc = node_count + 1
        node_count += 2
        nl = 0
        nr = 0
        catf = is_cat[f]
        # boosting takes the children's (G, H) from the split search (no second read of
        # the statistics); the trees sum them exactly, which keeps purity tests exact
        sums = crit != NEWTON
        # the split read once: a row view taken inside the loop would cost an atomic
        # reference count increment and decrement per sample
        ml_node = missing_left[node]
        bs_node = bitset[node] if catf else bitset[0]
        thr_node = bin_thr[node]
        if not sums and n_threads > 1 and e0 - s0 >= 20_000:
            nl = partition_parallel(idx, s0, e0, col, missing_code, ml_node, catf, bs_node,
                                    thr_node, buf, n_threads)
            nr = e0 - s0 - nl
        else:
            for i in range(s0, e0):
                s = idx[i]
                if goes_left_binned(col[s], missing_code, ml_node, catf, bs_node, thr_node):
                    idx[s0 + nl] = s
                    nl += 1
                    if sums:
                        add_sample(total, lc, src, s)
                        if use_sq:
                            sq_sum[lc] += sample_sq(src, s)
                else:
                    buf[nr] = s
                    nr += 1
                    if sums:
                        add_sample(total, rc, src, s)
                        if use_sq:
                            sq_sum[rc] += sample_sq(src, s)
            for i in range(nr):
                idx[s0 + nl + i] = buf[i]
        if not sums:
            for c in range(n_cols - 1):
                total[lc, c] = cand_left[node, c]
                total[rc, c] = total[node, c] - cand_left[node, c]
            total[lc, cnt] = nl
            total[rc, cnt] = nr
        start[lc] = s0
        end[lc] = s0 + nl
        start[rc] = s0 + nl
        end[rc] = e0
        depth[lc] = depth[node] + 1
        depth[rc] = depth[node] + 1
        left_child[node] = lc
        right_child[node] = rc
        n_leaves += 1

        small, large = (lc, rc) if nl <= nr else (rc, lc)
        n_large = max(nl, nr)
        pslot = slot_of[node]
        slot_of[node] = -1
        n_todo = 2
        if pslot >= 0 and complete[node] and n_large >= dense_min_samples:
            pool, free, sslot = _get_slot(pool, free, n_free)
            todo[0, 0] = small
            todo[0, 1] = MODE_BUILD
            todo[0, 2] = sslot
            todo[0, 3] = -1
            todo[1, 0] = large
            todo[1, 1] = MODE_SUBTRACT
            todo[1, 2] = pslot
            todo[1, 3] = sslot
        else:
            if pslot >= 0:
                free[n_free[0]] = pslot
                n_free[0] += 1
            todo[0, 0] = small
            todo[1, 0] = large
            for t in range(2):
                nn = end[todo[t, 0]] - start[todo[t, 0]]
                todo[t, 1] = MODE_BUILD if nn >= dense_min_samples else MODE_SORT
                todo[t, 2] = -1
                todo[t, 3] = -1

    # nodes left open become leaves
    for j in range(n_open):
        feature[open_nodes[j]] = -1
    return node_count, truncated


@njit(nogil=True, cache=True)
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


@njit(nogil=True, cache=True)
def make_workspace(n_rows, cap, n_features, n_cols, n_hist_bins, n_slots, categorical,
                   newton):
    """The work arrays of :func:`grow_tree` for trees of up to ``n_rows`` samples and
    ``cap`` nodes: ``(rows, nodes, result, scratch, pool, open_nodes, used)``.

    The per-node category sets (32 bytes) exist only with ``categorical`` features and
    the per-node left sums only for ``newton`` (boosting); otherwise they have one row.
    Row indices are int32, 8 bytes per row less than int64 in the two row arrays
    (:meth:`TreeGrower.grow` refuses more than ``2**31 - 1`` samples).
    """
    cat_cap = cap if categorical else 1
    left_cap = cap if newton else 1
    rows = (np.empty(n_rows, np.int32), np.empty(n_rows, np.int32),
            np.empty((n_rows, n_cols)))
    nodes = (np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int32),
             np.full(cap, -1, np.int32), np.full(cap, -1, np.int32),
             np.full(cap, -1, np.int32), np.zeros(cap, np.int32), np.zeros(cap, np.bool_),
             np.zeros((cat_cap, 4), np.uint64), np.zeros((cap, n_cols)), np.zeros(cap),
             np.zeros(cap), np.zeros(cap), np.zeros((left_cap, n_cols)),
             np.full(cap, -1, np.int64), np.zeros(cap, np.bool_))
    # the best split of each feature at the node being examined
    result = (np.empty(n_features), np.empty(n_features), np.empty(n_features, np.int32),
              np.empty(n_features, np.bool_), np.zeros((n_features, 4), np.uint64),
              np.empty((n_features, n_cols)), np.full(n_features, -1, np.int64))
    scratch = make_scratch(n_rows, n_hist_bins, n_cols)
    pool = np.empty((n_slots, n_features, n_hist_bins, n_cols))
    return rows, nodes, result, scratch, pool, np.empty(cap, np.int64), np.zeros(1, np.int64)


@njit(nogil=True, cache=True)
def _reset_nodes(nodes, k):
    """Give the first ``k`` nodes (those of the previous tree) their initial values."""
    (start, end, depth, left_child, right_child, feature, bin_thr, missing_left, bitset,
     total, sq_sum, impurity, gain, cand_left, slot_of, complete) = nodes
    start[:k] = 0
    end[:k] = 0
    depth[:k] = 0
    left_child[:k] = -1
    right_child[:k] = -1
    feature[:k] = -1
    bin_thr[:k] = 0
    missing_left[:k] = False
    bitset[:k] = 0
    total[:k] = 0.0
    sq_sum[:k] = 0.0
    impurity[:k] = 0.0
    gain[:k] = 0.0
    cand_left[:k] = 0.0
    slot_of[:k] = -1
    complete[:k] = False


@njit(nogil=True, cache=True)
def grow_tree(Xb_T, src, sample_idx, n_bins, is_cat, missing_code, crit, n_stats, l2,
              max_depth, min_samples_split, min_samples_leaf, min_weight_leaf,
              min_decrease, max_features, max_leaf_nodes, seed, dense_min_samples,
              n_threads, parallel_min_work, random_split, cap, ws):
    """Grow one tree in workspace ``ws`` (:func:`make_workspace`); see
    :class:`TreeGrower` for the meaning of the arguments.

    The tree stops at ``cap`` nodes, which the workspace must hold.  Returns whether it
    was cut short that way, the node arrays (children, split, statistics) and the
    samples in partition order, so that node ``i`` holds ``idx[start[i]:end[i]]``; the
    arrays are views of the workspace, valid until it grows the next tree.
    """
    n_features = Xb_T.shape[0]
    n = sample_idx.shape[0]
    rows, nodes, result, scratch, pool, open_nodes, used = ws
    _reset_nodes(nodes, used[0])
    result[6][:] = -1
    (start, end, depth, left_child, right_child, feature, bin_thr, missing_left, bitset,
     total, sq_sum, impurity, gain, cand_left, slot_of, complete) = nodes
    idx = rows[0][:n]
    idx[:] = sample_idx
    buf = rows[1][:n]
    ostats = rows[2][:n]
    n_slots = pool.shape[0]
    free = np.arange(n_slots)
    n_free = np.full(1, n_slots, np.int64)
    perm = np.arange(n_features)
    all_feats = np.arange(n_features)
    no_feats = np.empty(0, np.int64)
    state = np.array([np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)])

    # the growth loop works on borrowed views (see ._borrow); passing the owners along
    # keeps them alive until it returns
    work = (idx, buf, ostats, perm, all_feats, no_feats, state, open_nodes)
    owners = (work, ws)
    node_count, truncated = _grow_nodes(
        owners, borrow(Xb_T), borrow(src), borrow(n_bins), borrow(is_cat),
        borrow(work), borrow(nodes), borrow(result), borrow(scratch), borrow(pool), free,
        n_free, cap, missing_code, crit, n_stats, l2, max_depth, min_samples_split,
        min_samples_leaf, min_weight_leaf, min_decrease, max_features, max_leaf_nodes,
        dense_min_samples, n_threads, parallel_min_work, random_split)
    used[0] = node_count
    return (truncated, node_count, left_child[:node_count], right_child[:node_count],
            feature[:node_count], bin_thr[:node_count], missing_left[:node_count],
            bitset[:node_count], total[:node_count], sq_sum[:node_count],
            impurity[:node_count], gain[:node_count], depth[:node_count],
            start[:node_count], end[:node_count], idx)


class GrowerWorkspace:
    """Work arrays kept from one tree to the next (a forest's worker, the boosting loop).

    Growing a tree needs arrays sized for the largest tree the data allows (a few MB
    to tens of MB); allocating them afresh for every tree cost page faults and zeroing
    (a tenth of a forest's fit) and left the C heap fragmented between the trees' own
    arrays.  :meth:`get` returns arrays at least as large as asked for, allocating only
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

    def get(self, n_rows, capacity, n_features, n_cols, n_hist_bins, n_slots, categorical,
            newton):
        """Work arrays for trees of ``n_rows`` samples and ``capacity`` nodes, at least;
        see :func:`make_workspace` for the rest."""
        d = self._dims
        if (d is None or n_rows > d[0] or capacity > d[1]
                or (n_features, n_cols, n_hist_bins) != d[2:5] or n_slots > d[5]
                or (categorical, newton) != d[6:]):
            d = (max(n_rows, self.min_rows), max(capacity, d[1] if d else 0), n_features,
                 n_cols, n_hist_bins, n_slots, categorical, newton)
            self._arrays = make_workspace(*d)
            self._dims = d
        return self._arrays

    @property
    def capacity(self):
        """Nodes the arrays hold now (0 before the first tree)."""
        return self._dims[1] if self._dims else 0


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
        or 2 for ``(w, w*y)`` and ``(g, h)``.
    max_depth : int or None
    min_samples_split, min_samples_leaf : int
    min_weight_leaf : float
        Minimum weight of a child (hessian sum for ``newton``, i.e. ``min_child_weight``).
    min_impurity_decrease : float
        A split must decrease the weighted impurity by this much times the root weight
        (scikit-learn's definition); for ``newton``, the gain itself.
    max_features : int or None
        Number of features sampled at each node (all when None).
    max_leaf_nodes : int or None
        Grow best-first up to this many leaves; depth-first when None.
    l2_regularization : float
        The ``lambda`` of the second-order gain and leaf value.
    random_state : int
        Seed of the per-node feature sampling.
    parallel : bool
        Evaluate the features of large nodes on several threads (False inside a forest,
        which is parallel over trees instead).
    dense_min_samples : int or None
        Nodes with at least this many samples use dense histograms (default: half the
        number of histogram bins, at least 32).
    splitter : {"best", "random"}
        "random" draws one cut per numeric feature and node (Extra-Trees, Geurts et al.
        2006) instead of searching every cut.
    """

    def __init__(self, bin_mapper, criterion, n_stats, *, max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_leaf=0.0, min_impurity_decrease=0.0,
                 max_features=None, max_leaf_nodes=None, l2_regularization=0.0,
                 random_state=0, parallel=True, dense_min_samples=None, splitter="best"):
        self.bin_mapper = bin_mapper
        self.criterion = criterion
        self.n_stats = n_stats
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_leaf = min_weight_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.l2_regularization = l2_regularization
        self.random_state = random_state
        self.parallel = parallel
        self.dense_min_samples = dense_min_samples
        self.splitter = splitter

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
        leaf_of_sample : ndarray of shape (n_samples,) or None
            Leaf id of every row, ``-1`` for rows not in ``sample_indices`` (None
            without ``return_leaves``).
        """
        bm = self.bin_mapper
        n_features, n_samples = X_binned_T.shape
        if n_samples > _MAX_ROWS:
            raise ValueError(f"X has {n_samples} samples; a tree takes at most {_MAX_ROWS} "
                             f"(its row indices are int32).")
        if sample_indices is None:
            sample_indices = np.arange(n_samples, dtype=np.int64)
        if not isinstance(stats, SampleStatistics):
            if sq is None and self.criterion == SQUARED_ERROR:
                sq = np.zeros(n_samples)
            stats = SampleStatistics.given(stats, sq)
        elif sq is not None:
            raise TypeError("sq goes with stats given as an array, not with "
                            "SampleStatistics.")
        if stats.n_samples != n_samples:
            raise ValueError(f"stats describe {stats.n_samples} samples, X_binned_T has "
                             f"{n_samples}.")
        max_features = n_features if self.max_features is None else int(self.max_features)
        dense_min = self.dense_min_samples
        if dense_min is None:
            dense_min = max(32, (bm.missing_values_code_ + 1) // 2)
        max_depth = -1 if self.max_depth is None else int(self.max_depth)
        max_leaf_nodes = -1 if self.max_leaf_nodes is None else int(self.max_leaf_nodes)
        min_leaf = int(self.min_samples_leaf)
        n_hist_bins = bm.missing_values_code_ + 1
        n_cols = stats.n_cols
        # enough histogram buffers for the usual number of open nodes up front (a pool
        # that grows by copying would move megabytes per tree), capped at ~64 MB
        slot_bytes = n_features * n_hist_bins * n_cols * 8
        want = max_leaf_nodes + 1 if max_leaf_nodes > 0 else 16
        n_slots = max(1, min(want, (64 << 20) // max(slot_bytes, 1)))
        workspace = workspace or GrowerWorkspace()
        n = len(sample_indices)
        max_nodes = node_capacity(n, self.criterion, min_leaf, max_leaf_nodes, max_depth)
        # start from what the workspace holds (at least _FIRST_CAPACITY nodes) rather than
        # the worst case, 2n + 1 nodes, which a fully grown forest tree on 100k rows
        # overestimates 14 times; a tree that outgrows it is grown again in twice the room
        cap = min(max_nodes, max(workspace.capacity, _FIRST_CAPACITY))
        while True:
            ws = workspace.get(n, cap, n_features, n_cols, n_hist_bins, n_slots,
                               bool(bm.is_categorical_.any()), self.criterion == NEWTON)
            out = grow_tree(
                X_binned_T, stats.arrays,
                np.asarray(sample_indices, dtype=np.int64),
                bm.n_bins_, bm.is_categorical_, bm.missing_values_code_, self.criterion,
                self.n_stats, float(self.l2_regularization), max_depth,
                int(self.min_samples_split), min_leaf, float(self.min_weight_leaf),
                float(self.min_impurity_decrease), max_features, max_leaf_nodes,
                int(self.random_state) & 0x7FFFFFFFFFFFFFFF, int(dense_min),
                _n_threads(self.parallel), 500, self.splitter == "random", cap, ws)
            if not out[0] or cap >= max_nodes:
                break
            cap = min(max_nodes, 2 * cap + 1)
        out = out[1:]
        (node_count, left, right, feature, bin_thr, missing_left, bitset, total, sq_sum,
         impurity, gain, depth, start, end, idx) = out
        # the kernel returns views of the workspace, sized for the worst case (2n + 1
        # nodes) and reused by the next tree: the tree keeps copies of what it uses
        left, right, feature, bin_thr, missing_left, bitset, total, impurity, depth = (
            a.copy() for a in (left, right, feature, bin_thr, missing_left, bitset, total,
                               impurity, depth))
        leaf = left == -1
        feature[leaf] = -1
        gain = np.where(leaf, 0.0, gain)
        is_cat = np.zeros(node_count, bool)
        is_cat[~leaf] = bm.is_categorical_[feature[~leaf]]
        threshold = np.full(node_count, np.nan)
        numeric = np.flatnonzero(~leaf & ~is_cat)
        if numeric.size:
            threshold[numeric] = bm.thresholds_of(feature[numeric], bin_thr[numeric])
        bitset = (np.where(is_cat[:, None], bitset, np.uint64(0)) if is_cat.any()
                  else np.zeros((0, 4), np.uint64))
        weight, value = self._node_values(total)
        tree = Tree(n_features, value.shape[1], children_left=left, children_right=right,
                    feature=feature, threshold=threshold, is_categorical=is_cat,
                    categories_left=bitset, missing_go_left=missing_left,
                    bin_threshold=bin_thr, value=value, impurity=impurity,
                    n_node_samples=np.rint(total[:, -1]).astype(np.int64),
                    weighted_n_node_samples=weight, gain=gain, depth=depth)
        if not return_leaves:
            return tree, None
        leaf_of_sample = np.full(n_samples, -1, np.int64)
        leaves = np.flatnonzero(leaf)
        leaf_of_sample[idx] = _leaf_ids(idx, start, end, leaves)
        return tree, leaf_of_sample

    def _node_values(self, total):
        from .criteria import NEWTON, SQUARED_ERROR
        k = self.n_stats
        if self.criterion == NEWTON:
            return total[:, 1], (-total[:, 0] / (total[:, 1] + self.l2_regularization))[:, None]
        if self.criterion == SQUARED_ERROR:
            w = total[:, 0]
            with np.errstate(invalid="ignore", divide="ignore"):
                return w, np.where(w > 0, total[:, 1] / np.where(w > 0, w, 1), 0.0)[:, None]
        w = total[:, :k].sum(axis=1)
        return w, total[:, :k] / np.where(w > 0, w, 1.0)[:, None]


#: Most samples a tree takes: the workspace indexes rows with int32.
_MAX_ROWS = 2 ** 31 - 1

#: Node capacity of a new workspace: the trees of the usual forests and depth-limited
#: trees fit, the odd larger tree costs one regrowth per doubling.
_FIRST_CAPACITY = 16383


def _leaf_ids(idx, start, end, leaves):
    """Leaf id of each partitioned sample: the leaves' ranges tile ``idx``."""
    order = leaves[np.argsort(start[leaves], kind="stable")]
    return np.repeat(order, end[order] - start[order])


def _n_threads(parallel):
    import numba
    return numba.get_num_threads() if parallel else 1
