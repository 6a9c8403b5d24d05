"""Subtrees grown as tasks: a fully grown tree's small nodes on every thread.

The parallel grower shares a node's features among the threads, which pays for nodes of
thousands of samples only; below, a node is examined on one thread.  A fully grown tree
(CART's default) has most of its nodes down there, so on many threads most of its time
would be serial.  :class:`~.grower.TreeGrower` therefore grows a large such tree in two
parts:

1. **the top**: the nodes of at least ``split_rows`` samples (:func:`subtree_rows`),
   grown as usual (the large nodes on the threads); a node of fewer samples stops there;
2. **the subtrees**: each leaf of the top that the stopping rules would still let split is
   grown whole, from its samples, by the serial grower, as one task of a pool of threads
   (each with a workspace of its own); the tasks start from the largest.  Each grows on
   a copy of its samples' codes and statistics, in the order of their row ids (a few
   hundred kilobytes, which stay in the core's cache);

and :func:`graft` puts each subtree in place of its leaf.  Each subtree is the tree the
whole-tree grower would grow below that node, with the same stopping rules (``max_depth``
less the node's depth; ``min_impurity_decrease`` scaled by the whole tree's root weight,
``GrowthParams.root_weight``; with monotonic constraints, the node's interval,
``GrowthParams.root_lower`` and ``root_upper``), up to three things: its random draws
(features sampled by ``max_features``, ties between features) come from a generator of
its own, seeded by :func:`subtree_seed` from the tree's seed and the leaf's id; its sums
are taken in the order of its row ids, and its root's histograms built from its samples
instead of subtracted from its parent's (the same counts, other last bits of weighted
sums); and its node ids follow the top's.

The tree does not depend on the number of threads: ``split_rows`` depends on the tree's
samples only, the seeds on the leaves' ids, and the subtrees are grafted in the order of
those ids, whichever thread grew them and whenever.  On one thread the tasks run one
after the other in the calling thread.

Not split into parts (:func:`splits_into_subtrees`): best-first growth
(``max_leaf_nodes``), boosting's trees, Extra-Trees' random cuts, sparse codes,
interaction constraints (a subtree would need its root's open sets), and trees whose
caller wants the rows' leaves.  ``absolute_error``'s trees, whose
exact search is serial, are split.
"""

import copy
from collections import namedtuple

import numpy as np

from .._numba.jit import kernel
from ..parallel.thread_pools import run_tasks
from ..split.constraints import LOWER, UPPER
from ..split.criteria import NEWTON
from .acceptance import stopping_allows
from .workspace import WorkspacePool
from ..predict.tree import TREE_LEAF, Tree

__all__ = [
    "SUBTREE_MIN_ROWS",
    "SUBTREE_TASKS",
    "subtree_rows",
    "subtree_seed",
    "splits_into_subtrees",
    "SubtreeTask",
    "subtree_tasks",
    "take_columns",
    "graft",
    "grow_in_subtrees",
]

#: fewest samples from which a node is grown in the top (a subtree is at most this
#: large, but see :data:`SUBTREE_TASKS`): a task costs a Python call and a tree's
#: arrays, worth a subtree of a few thousand samples
SUBTREE_MIN_ROWS = 4096
#: ... and for large trees ``split_rows`` is the tree's samples over this, so that the
#: tasks number in the hundreds whatever the tree's size (enough to even out the threads'
#: loads, few enough that their calls cost little)
SUBTREE_TASKS = 128

#: the odd constants of the seed's mix (SplitMix64's, as the grower's generator's)
_MIX_A = 0x9E3779B97F4A7C15
_MIX_B = 0xBF58476D1CE4E5B9
_SEED_MASK = 0x7FFFFFFFFFFFFFFF


def subtree_rows(n_samples):
    """``split_rows`` of a tree of ``n_samples`` samples: the nodes of fewer samples are
    grown as subtrees, ``max(SUBTREE_MIN_ROWS, ceil(n_samples / SUBTREE_TASKS))``."""
    return max(SUBTREE_MIN_ROWS, -(-int(n_samples) // SUBTREE_TASKS))


def subtree_seed(seed, node):
    """The seed of the subtree grown below the top's leaf ``node`` of a tree seeded with
    ``seed``: ``(seed * a + (node + 1) * b) mod 2^63`` with two odd 64-bit constants."""
    return (int(seed) * _MIX_A + (int(node) + 1) * _MIX_B) & _SEED_MASK


def splits_into_subtrees(grower, n_samples, params, sparse, return_leaves):
    """Whether ``grower`` grows its tree of ``n_samples`` samples in parts: a grower that
    may use the threads (``parallel``), grows in parts (``in_parts``) and is not itself a
    part, a tree of at least twice ``split_rows`` samples, and none of what the module
    docstring lists."""
    return bool(
        grower.parallel
        and grower.in_parts
        and not grower._part
        and not return_leaves
        and n_samples >= 2 * subtree_rows(n_samples)
        and params.max_leaf_nodes < 0
        and params.criterion != NEWTON
        and not params.random_split
        and not sparse
        and params.interaction.shape[1] == 0
    )


#: one subtree to grow: below the top's leaf ``node`` (at ``depth``, its value bounded
#: by ``lower`` and ``upper``: monotonic constraints), from ``rows``
SubtreeTask = namedtuple("SubtreeTask", ["node", "depth", "lower", "upper", "rows"])


def subtree_tasks(top, leaves, stopping, split_rows, interval):
    """The :class:`SubtreeTask` of each leaf of the ``top`` tree (with its
    :class:`~.leaf_ranges.LeafRanges` ``leaves``) that stopped for its size only: fewer
    than ``split_rows`` samples, and room left by the other rules (``max_depth``,
    ``min_samples_split``, two leaves of ``min_samples_leaf`` samples and
    ``min_weight_leaf``, a nonzero impurity).  In the order of the leaves' ids;
    ``interval``: the top's nodes' intervals (``NodeArrays.interval``)."""
    n = leaves.end - leaves.start
    node = leaves.leaves
    rules = stopping._replace(max_depth=-1 if stopping.max_depth is None else stopping.max_depth)
    keep = (
        (n < split_rows)
        & stopping_allows(top.depth[node], n, top.weighted_n_node_samples[node], rules)
        & (top.impurity[node] > 0.0)
    )
    order = np.argsort(node[keep], kind="stable")
    picked = np.flatnonzero(keep)[order]
    return [
        SubtreeTask(
            int(node[j]),
            int(top.depth[node[j]]),
            float(interval[node[j], LOWER]),
            float(interval[node[j], UPPER]),
            leaves.idx[leaves.start[j] : leaves.end[j]],
        )
        for j in picked
    ]


@kernel
def take_columns(codes_T, rows, out):
    """``out[f, k] = codes_T[f, rows[k]]``: the codes of the samples ``rows`` (in
    increasing order, so that each feature's reads go forwards), feature-major."""
    for f in range(codes_T.shape[0]):
        col = codes_T[f]
        dst = out[f]
        for k in range(rows.shape[0]):
            dst[k] = col[rows[k]]


def graft(top, parts):
    """The tree ``top`` with each ``(node, subtree)`` of ``parts`` (in increasing
    ``node``, each a leaf of ``top``) in place of its leaf.

    The subtree's root takes the leaf's id, its other nodes follow the top's nodes and
    the subtrees before it, in their order (so a node's two children stay side by side);
    their depths add the leaf's."""
    if not parts:
        return top
    sizes = np.array([t.node_count - 1 for _, t in parts], dtype=np.int64)
    # where each subtree's node 1 goes
    base = top.node_count + np.concatenate([[0], np.cumsum(sizes)[:-1]])
    at = np.array([node for node, _ in parts], dtype=np.int64)
    cats = any(t.is_categorical.any() for _, t in parts) or top.is_categorical.any()
    arrays = {}
    for name in Tree._arrays:
        if name == "categories_left" and not cats:
            arrays[name] = np.zeros((0, 4), np.uint64)
            continue
        pieces = [getattr(top, name)] + [getattr(t, name)[1:] for _, t in parts]
        out = np.concatenate(pieces)
        roots = np.stack([getattr(t, name)[0] for _, t in parts])
        if name in ("children_left", "children_right"):
            shift = np.repeat(base - 1, sizes)
            grafted = out[top.node_count :]
            out[top.node_count :] = np.where(grafted != TREE_LEAF, grafted + shift, TREE_LEAF)
            roots = np.where(roots != TREE_LEAF, roots + base - 1, TREE_LEAF)
        elif name == "depth":
            offset = np.repeat(top.depth[at], sizes)
            out[top.node_count :] += offset.astype(out.dtype)
            roots = roots + top.depth[at]
        out[at] = roots
        arrays[name] = out
    return Tree(top.n_features, top.n_outputs, **arrays)


def grow_in_subtrees(grower, split_rows, X_binned_T, stats, sample_indices, workspace, n_threads):
    """Grow ``grower``'s tree in parts (the module docstring): the top on
    ``workspace`` with the grower's threads, then the subtrees on ``n_threads`` threads,
    each in a workspace of a :class:`~.grow.workspace.WorkspacePool` kept beside
    ``workspace`` for the next tree.  ``stats`` is a
    :class:`~.statistics.SampleStatistics`.  Returns the grafted :class:`~.tree.Tree`."""
    stopping = grower.stopping
    top_grower = copy.copy(grower)
    top_grower._part = True
    top_grower.stopping = stopping._replace(
        min_samples_split=max(int(stopping.min_samples_split), split_rows)
    )
    top, leaves = top_grower.grow(X_binned_T, stats, None, sample_indices, workspace)
    tasks = subtree_tasks(top, leaves, stopping, split_rows, workspace.nodes.interval)
    if not tasks:
        return top
    root_weight = float(top.weighted_n_node_samples[0])
    seed = int(grower.random_state)
    pool = workspace.kept("subtrees", split_rows, lambda: WorkspacePool(min_rows=split_rows))

    def grow_task(task):
        part = copy.copy(grower)
        part._part = True
        part.parallel = False
        part._root_weight = root_weight
        part._root_interval = (task.lower, task.upper)
        part.random_state = subtree_seed(seed, task.node)
        if stopping.max_depth is not None:
            part.stopping = stopping._replace(max_depth=int(stopping.max_depth) - task.depth)
        # the subtree's own copy of its rows' codes and statistics, in row order: what it
        # reads again at every level stays in its core's cache, where the rows of the
        # whole data set are scattered over all of it
        rows = np.sort(task.rows)
        codes = np.empty((X_binned_T.shape[0], rows.shape[0]), X_binned_T.dtype)
        take_columns(X_binned_T, rows, codes)
        with pool.lend() as ws:
            tree, _ = part.grow(codes, stats.subset(rows), None, None, ws, return_leaves=False)
        return tree

    # the largest first: the last tasks to start are the shortest
    order = sorted(range(len(tasks)), key=lambda i: -tasks[i].rows.shape[0])
    # (one pool per thread count: a pool per number of tasks would keep idle threads)
    grown = run_tasks(grow_task, [tasks[i] for i in order], n_threads)
    trees = [None] * len(tasks)
    for i, tree in zip(order, grown):
        trees[i] = tree
    return graft(top, [(task.node, tree) for task, tree in zip(tasks, trees)])
