"""The grower's steps for a loop driven from outside: the histograms of some nodes' rows,
the best split of a node from histograms supplied by the caller, and the partition of
nodes' rows at given splits.

The one-machine grower (:mod:`.grow.loop`) runs its whole loop in one compiled call; a
data-parallel trainer (:mod:`treeboost.dask`) runs the loop in Python between
reductions: each worker builds the histograms of its own rows
(:func:`node_histograms`), the histograms are summed across workers, the split is chosen
once from the sum (:func:`best_node_split`, the same scans and the same rules as the
grower's boosting nodes) and each worker partitions its own rows
(:func:`partition_nodes`).  Only boosting's second-order gain is stepped here.

A node's histograms are ``(n_features, n_hist_bins, 3)``: per feature and bin the
summed ``(w g, w h, count)`` of its rows (the last bin is the missing values').
"""

import numpy as np
from numba import prange

from ..split.constraints import MonotonicCheck
from ..split.criteria import NEWTON, node_term
from ..split.histogram import build_histogram, build_histogram_pair, compress_histogram
from .partition import BinnedSplit, partition_serial
from ..split.search import newton_dense_split, scan_feature, thread_scratch
from .acceptance import better_score, gain_accepted
from .._numba.jit import inlined, kernel, parallel_kernel
from .._numba.pairs import add_pair


def feature_pairs(is_categorical):
    """The tasks of :func:`node_histograms` for a node without counts: consecutive
    numeric features two at a time (their histograms from one pass over the rows),
    categorical features alone (with their counts); ``(n_tasks, 2)``, -1 for no second
    feature."""
    numeric = [f for f in range(is_categorical.shape[0]) if not is_categorical[f]]
    tasks = [
        (numeric[i], numeric[i + 1] if i + 1 < len(numeric) else -1)
        for i in range(0, len(numeric), 2)
    ]
    tasks += [(f, -1) for f in np.flatnonzero(is_categorical)]
    return np.array(tasks, np.int64).reshape(-1, 2)


@inlined
def _gh_histograms(hist_a, hist_b, col_a, col_b, idx, start, end, gh):
    """``hist_a[b] =`` the summed ``gh`` rows (``(n, 2)``: the node's ``(w g, w h)`` in
    node order) of the node's rows whose code of feature a is ``b``, each bin's rows in
    their order, and the same of feature b in ``hist_b`` from the same pass (``col_b``
    None: feature a alone); histograms of two columns, ``(n_bins, 2)``."""
    fa = hist_a.reshape(-1)
    fb = hist_b.reshape(-1)
    for i in range(fa.shape[0]):
        fa[i] = 0.0
        fb[i] = 0.0
    node_idx = idx[start:end]
    src = gh.reshape(-1)
    for i in range(end - start):
        r = np.uintp(node_idx[i])
        add_pair(fa, np.intp(col_a[r]) * 2, src, 2 * i)
        if col_b is not None:
            add_pair(fb, np.intp(col_b[r]) * 2, src, 2 * i)


@parallel_kernel
def node_histograms(
    codes_T, idx, starts, ends, with_count, is_categorical, pairs, stats, ostats, out
):
    """``out[j, f, b] =`` the summed ``stats`` (``(n_rows, 3)``) of the rows
    ``idx[starts[j]:ends[j]]`` whose code of feature ``f`` is ``b``.

    The count column is summed for the categorical features, and for every feature of
    the nodes ``with_count`` says; elsewhere it is 0 (the dense scan of a numeric
    feature estimates counts from the hessian) and the numeric features are built two
    at a time, as ``pairs`` (:func:`feature_pairs`) says.  ``ostats`` (``stats``'
    shape) receives each node's rows' statistics in node order first, which the
    histograms then read sequentially; the tasks are shared among the threads.

    ``out`` of two columns (``(n_nodes, n_features, n_hist_bins, 2)``) takes the
    histograms of ``(w g, w h)`` alone, for nodes without counts and features all
    numeric: rows of two columns are gathered (into ``ostats``' memory) and streamed,
    two-thirds of the bytes; each bin adds the same rows in the same order.
    """
    n_nodes = starts.shape[0]
    n_features = codes_T.shape[0]
    two = out.shape[3] == 2
    n_rows = ostats.shape[0]
    gh = ostats.reshape(-1)[: 2 * n_rows].reshape((n_rows, 2))
    for j in prange(n_nodes):
        for i in range(starts[j], ends[j]):
            r = idx[i]
            if two:
                gh[i, 0] = stats[r, 0]
                gh[i, 1] = stats[r, 1]
            else:
                ostats[i, 0] = stats[r, 0]
                ostats[i, 1] = stats[r, 1]
                ostats[i, 2] = stats[r, 2]
    for t in prange(n_nodes * n_features):
        j = t // n_features
        task = t - j * n_features
        s = starts[j]
        e = ends[j]
        if with_count[j] and not two:
            build_histogram(out[j, task], codes_T[task], idx, s, e, ostats[s:e], True)
            continue
        if task >= pairs.shape[0]:
            continue
        fa = pairs[task, 0]
        fb = pairs[task, 1]
        if two:
            # (a feature alone: its histogram as the second one too, whose rows are not
            # added)
            col_b = codes_T[fb] if fb >= 0 else None
            _gh_histograms(out[j, fa], out[j, max(fb, fa)], codes_T[fa], col_b, idx, s, e, gh[s:e])
        elif fb >= 0:
            build_histogram_pair(
                out[j, fa], out[j, fb], codes_T[fa], codes_T[fb], idx, s, e, ostats[s:e]
            )
        else:
            build_histogram(out[j, fa], codes_T[fa], idx, s, e, ostats[s:e], is_categorical[fa])


@kernel
def partition_nodes(
    idx,
    starts,
    ends,
    codes_T,
    features,
    bin_thresholds,
    missing_left,
    is_categorical,
    categories,
    missing_code,
    buf,
    n_left,
):
    """Partition the rows ``idx[starts[j]:ends[j]]`` of each node ``j`` at its split (the
    left rows first, both sides in their order); ``n_left[j]`` receives the left count.
    ``categories[j]`` is the 256-bit set of the codes going left at a categorical
    split."""
    for j in range(starts.shape[0]):
        f = features[j]
        split = BinnedSplit(
            missing_code, missing_left[j], is_categorical[f], categories, j, bin_thresholds[j]
        )
        n_left[j] = partition_serial(idx, starts[j], ends[j], codes_T[f], split, buf)


@kernel
def best_node_split(
    hist,
    total,
    dense,
    lower,
    upper,
    features,
    n_bins,
    is_categorical,
    missing_code,
    params,
    scratch,
    cands,
):
    """The best split of a node from its histograms ``hist`` (``(n_features,
    n_hist_bins, 3)``; ``(..., 2)``, without counts, will do for a ``dense`` node
    without categorical features, which reads none) and its summed statistics
    ``total`` (``(G, H, n)``), as the grower's boosting nodes choose it.

    ``dense`` says how the grower would have read the node: from dense histograms (the
    numeric features' child counts estimated from the hessian, ``n_child ~ H_child n /
    H``, :func:`~.splitting.newton_dense_split`) or from its rows (exact counts, the
    compressed scan of :func:`~.splitting.scan_feature`).  Categorical features always
    take the compressed scan.  ``features`` are those the node may split on (its
    interaction sets'), in increasing order; ``[lower, upper]`` is its interval under
    monotonic constraints (``params.monotonic``).  Each feature's best split goes to
    its row of ``cands`` (a :class:`~.layout.SplitCandidates`); the others score
    ``-inf``.

    Returns ``(feature, impurity)``: the feature of largest score (the lowest index
    among scores equal within rounding, :func:`~.grow.acceptance.better_score`), -1 when
    no split is valid or its gain is refused (:func:`~.grow.acceptance.gain_accepted`), and the
    node's impurity ``-T(G)^2 / (H + l2)`` term of the second-order gain.
    """
    sc = thread_scratch(scratch, 0)
    for f in range(hist.shape[0]):
        cands.score[f] = -np.inf
    for i in range(features.shape[0]):
        f = features[i]
        out_left = cands.left_stats[f]
        check = MonotonicCheck(params.monotonic, params.monotonic_cst[f], lower, upper)
        if dense and not is_categorical[f]:
            s, d, b, ml, mid = newton_dense_split(
                hist[f], n_bins[f], missing_code, total, params, check, sc.right, out_left
            )
        else:
            m = compress_histogram(
                hist[f], n_bins[f], missing_code, 2, sc.codes, sc.cstats, sc.missing
            )
            s, d, b, ml, mid = scan_feature(
                sc.codes,
                sc.cstats,
                m,
                sc.missing,
                total,
                is_categorical[f],
                n_bins[f],
                params,
                check,
                sc,
                cands.categories[f],
                out_left,
            )
        cands.mid[f] = mid
        cands.score[f] = s
        cands.decrease[f] = d
        cands.bin_threshold[f] = b
        cands.missing_go_left[f] = ml
    best = -1
    best_score = -np.inf
    for i in range(features.shape[0]):
        f = features[i]
        s = cands.score[f]
        # (the grower's rule, .grow.acceptance)
        if better_score(s, best_score, best):
            best_score = s
            best = f
    if best >= 0:
        gain = cands.decrease[best]
        if not gain_accepted(gain, best_score, params, 1.0):
            best = -1
    return best, node_term(total, NEWTON, params.n_stats, params.l1, params.l2)
