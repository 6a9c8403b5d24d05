"""PackedForest: a forest's trees in one set of arrays, predicted by one numba kernel.

A forest's prediction adds every tree's leaf values to each row, in the order of the
trees.  Walking it tree by tree from Python costs a call a tree (and a block of rows,
where blocks keep the rows in cache); every call holds the GIL, so on many threads the
calls queue behind one another.  Here the trees' lane arrays (:mod:`.lane_walk`) are
concatenated once, and one parallel kernel walks blocks of rows, each block through
every tree in turn: a thread holds the GIL once per prediction.

The sums are taken in the order of the trees for every row, as one tree after another
would add them: the same bits whatever the number of threads or the size of a block.
"""

import numpy as np

from .._numba.jit import kernel
from ..parallel.thread_pools import region_threads, run_tasks
from .eight_rows import (
    _FEATURE,
    LaneArrays,
    accumulate_forest_lanes,
    accumulate_forest_lanes_serial,
)
from .routing import TREE_LEAF
from .tree import check_sum_buffer
from .tree_stack import TreeStack, shifted_child

#: values of X in a block of rows (one MiB of float64): a block is walked by every tree
#: in turn, so its rows stay in a core's second-level cache while the trees' nodes come
#: and go
FOREST_BLOCK_VALUES = 1 << 17
#: bounds of a block's rows: a tree's deep nodes are read once per block, so a block of
#: too few rows reads them for too few rows (a wide X still touches only the features
#: its rows' paths test); at most so many that every thread gets blocks to take
FOREST_BLOCK_MIN_ROWS = 512
FOREST_BLOCK_MAX_ROWS = 4096
#: blocks per thread at least, where the rows allow (threads that finish early take more)
FOREST_BLOCKS_PER_THREAD = 4
#: nodes of a forest from which its trees are packed on a pool of threads: the packing
#: is a copy of every node, done once for the first prediction, and on many cores a
#: serial copy of a large forest took as long as the walk itself
PACK_PARALLEL_NODES = 1 << 16


def forest_block_rows(n_samples, n_features, n_threads):
    """Rows of a block of :func:`~.lane_walk.accumulate_forest_lanes`: about
    :data:`FOREST_BLOCK_VALUES` values of X, within the bounds above, and fewer (down
    to 64) where the rows would otherwise make fewer than
    :data:`FOREST_BLOCKS_PER_THREAD` blocks a thread.  A multiple of 8 (the lanes)."""
    rows = FOREST_BLOCK_VALUES // max(1, n_features)
    rows = min(FOREST_BLOCK_MAX_ROWS, max(FOREST_BLOCK_MIN_ROWS, rows))
    share = -(-n_samples // max(1, FOREST_BLOCKS_PER_THREAD * n_threads))
    rows = min(rows, max(64, share))
    return int(max(64, rows // 8 * 8))


class PackedForest:
    """The trees of a forest, of one output width, packed for one walk.

    Build it with :meth:`of`, which returns None where the lane walk cannot take every
    tree (a categorical split, or children placed apart, as a model file may hold):
    the caller then adds the trees one at a time.

    Attributes
    ----------
    lanes : LaneArrays
        The trees' nodes concatenated; tree ``t``'s children point into its own nodes.
    value : ndarray of shape (n_nodes, n_outputs)
        Each node's values, added to the outputs of the rows whose leaf it is.
    roots : ndarray of shape (n_trees,)
        The first node of each tree.
    n_features_used : int
        One more than the largest feature index a split reads: X must have as many
        columns.
    """

    def __init__(self, lanes, value, roots, n_features_used):
        self.lanes = lanes
        self.value = value
        self.roots = roots
        self.n_features_used = int(n_features_used)

    @classmethod
    def of(cls, trees):
        """The :class:`PackedForest` of ``trees`` (:class:`~.tree.Tree`, all of one
        ``value`` width), or None when one of them has no lane arrays, or there are
        none."""
        if not trees:
            return None
        widths = {t.value.shape[1] for t in trees}
        if len(widths) != 1:
            raise ValueError(f"The trees' values must be of one width, got {sorted(widths)}.")
        stack = TreeStack(trees)
        sizes = stack.sizes
        if sizes.sum() > np.iinfo(np.int32).max:  # the walk reads int32 children
            raise ValueError(f"Too many nodes to pack in one forest: {int(sizes.sum())}.")
        roots = stack.roots
        total = int(sizes.sum())
        left = np.empty(total, np.int32)
        split = np.empty(total, np.uint32)
        threshold = np.empty(total, np.float64)
        value = np.empty((total, next(iter(widths))), np.float64)

        def place(t):
            """Tree ``t``'s nodes into their place; the largest feature index its splits
            read, -1 for a leaf alone, None where the lane walk cannot take it."""
            la = trees[t].lane_arrays()
            if la is None:
                return None
            # the kernel writes [roots[t], roots[t] + node_count) unchecked
            if not (la.left.shape[0] == trees[t].value.shape[0] == sizes[t]):
                raise ValueError(f"Tree {t}'s arrays disagree with its node_count {sizes[t]}.")
            return _place_tree(
                la.left,
                la.split,
                la.threshold,
                trees[t].value,
                roots[t],
                left,
                split,
                threshold,
                value,
            )

        tops = _each_tree(place, len(trees), total)
        if any(top is None for top in tops):
            return None
        return cls(LaneArrays(left, split, threshold), value, roots, max(tops) + 1)

    def add_predictions(self, X, out):
        """``out += `` the sum of every tree's prediction, in the order of the trees, on
        numba's threads.  ``X``: the encoded dense matrix (float64); ``out``: a
        C-contiguous float64 array of shape (n_samples, n_outputs)."""
        # the kernel reads X[i, feature] and writes out[i, k] unchecked
        if X.ndim != 2 or X.shape[1] < self.n_features_used:
            raise ValueError(
                f"X must be 2-dimensional with at least {self.n_features_used} columns "
                f"for these trees, got shape {X.shape}."
            )
        check_sum_buffer(out, (X.shape[0], self.value.shape[1]))
        X = np.ascontiguousarray(X, dtype=np.float64)
        # a few rows (rows x trees that feed one thread) on the calling thread
        n_threads = region_threads(X.shape[0] * self.roots.shape[0])
        block = forest_block_rows(X.shape[0], X.shape[1], n_threads)
        walk = accumulate_forest_lanes if n_threads > 1 else accumulate_forest_lanes_serial
        walk(X, *self.lanes, self.value, self.roots, block, out)
        return out


def _each_tree(place, n_trees, n_nodes):
    """``[place(t) for t in range(n_trees)]``, on the engine's pool for a forest of at
    least :data:`PACK_PARALLEL_NODES` nodes, a thread for each half of that, numba's
    thread count at most (:func:`~._threads.region_threads`; each tree writes its own
    part of the arrays, and ``place``'s kernel releases the GIL)."""
    threads = region_threads(n_nodes, PACK_PARALLEL_NODES // 2)
    return run_tasks(place, range(n_trees), threads)


@kernel
def _place_tree(src_left, src_split, src_threshold, src_value, root, left, split, threshold, value):
    """Copy one tree's lane arrays and values to nodes ``root:root + n`` of the packed
    arrays, its children shifted by ``root``; return the largest feature index its
    splits read (-1 where it is one leaf)."""
    top = -1
    for i in range(src_left.shape[0]):
        child = src_left[i]
        left[root + i] = shifted_child(child, root)
        if child != TREE_LEAF:
            feature = np.int64(src_split[i] & _FEATURE)
            if feature > top:
                top = feature
        split[root + i] = src_split[i]
        threshold[root + i] = src_threshold[i]
        for k in range(src_value.shape[1]):
            value[root + i, k] = src_value[i, k]
    return top
