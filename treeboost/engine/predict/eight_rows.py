"""Eight rows down a tree at once: the walk of prediction on raw X.

A row's walk is a chain of dependent loads (node, then its feature's value, then the
child), each waiting on the one before, and a branch on the comparison that goes either
way at random.  Walking ``LANES`` rows side by side gives the processor eight
independent chains to overlap, and the child is computed, not branched to:

    child = left[node] + (x > threshold[node]  or  (x is NaN and NaN goes right))

which needs the right child to sit just after the left one (``right == left + 1``, as
every grower of the engine lays them out) and numeric splits only.  A tree of another
shape (a categorical split, or children placed apart, as a model file may hold) has no
:class:`LaneArrays` and is walked one row at a time by :mod:`.tree`.

The missing values' side rides in the top bit of the split's feature index, so a step
reads three arrays (children, split, threshold), as the one-row walk reads its five.

Four walks use it: a tree's ``apply`` and ``add_predictions``, a forest's
:class:`~.packed_forest.PackedForest` and boosting's :class:`~.tree.PackedTrees`, every
tree over a block of rows.
"""

from collections import namedtuple

import numpy as np
from .._numba.jit import inlined, kernel, serial_and_parallel

#: rows walked side by side
LANES = 8
#: rows of one task of the parallel walks
_TASK_ROWS = 512
#: the split's bit "NaN goes right", above the feature index (features < 2**31)
_NAN_RIGHT = np.uint32(1 << 31)
_FEATURE = np.uint32((1 << 31) - 1)

#: a tree's arrays as the lane walk reads them: ``left`` the left child (-1 at a leaf;
#: the right child is ``left + 1``), ``split`` the feature index with bit 31 set where
#: NaN goes right, ``threshold`` the numeric threshold (``x <= threshold`` goes left)
LaneArrays = namedtuple("LaneArrays", ["left", "split", "threshold"])


def lane_arrays(left, right, feature, threshold, missing_go_left, is_categorical):
    """The :class:`LaneArrays` of a tree's arrays (as :class:`~.tree.Tree` holds them,
    already validated), or None when the lane walk cannot take the tree: a categorical
    split, or a right child that does not follow its left one."""
    split = np.empty(left.shape[0], np.uint32)
    if not _split_words(left, right, feature, missing_go_left, is_categorical, split):
        return None
    # (no copies for a grown tree's arrays, already of these types)
    return LaneArrays(
        np.ascontiguousarray(left, dtype=np.int32),
        split,
        np.ascontiguousarray(threshold, dtype=np.float64),
    )


@kernel
def _split_words(left, right, feature, missing_go_left, is_categorical, split):
    """Fill ``split`` (feature index, bit 31 where NaN goes right; 0 at a leaf) in one
    pass over the nodes; False as soon as a node rules the lane walk out."""
    for node in range(left.shape[0]):
        if left[node] == -1:
            split[node] = 0
            continue
        if is_categorical[node] or right[node] != left[node] + 1:
            return False
        word = np.uint32(feature[node])
        if not missing_go_left[node]:
            word |= _NAN_RIGHT
        split[node] = word
    return True


@inlined
def _child(X, row, node, left, split, threshold):
    """The child of ``node`` that ``row`` goes to (``node`` internal)."""
    s = split[node]
    x = X[row, s & _FEATURE]
    right = np.int64(x > threshold[node]) | (np.int64(s >> 31) & np.int64(x != x))
    return left[node] + right


@inlined
def _leaves(X, start, root, left, split, threshold, nodes):
    """``nodes[j]`` = the leaf of row ``start + j`` for ``j < LANES``, from node
    ``root``: each pass moves every lane not yet at a leaf one level down."""
    for j in range(LANES):
        nodes[j] = root
    moving = True
    while moving:
        moving = False
        for j in range(LANES):
            node = nodes[j]
            if left[node] != -1:
                nodes[j] = _child(X, start + j, node, left, split, threshold)
                moving = True


@inlined
def _leaf(X, row, root, left, split, threshold):
    """The leaf of one row from node ``root`` (the last rows, fewer than ``LANES``)."""
    node = root
    while left[node] != -1:
        node = _child(X, row, node, left, split, threshold)
    return node


@inlined
def _accumulate_rows(X, start, stop, left, split, threshold, value, out, nodes):
    """``out[i] += value[leaf of i]`` for the rows ``start:stop``."""
    i = start
    while i + LANES <= stop:
        _leaves(X, i, 0, left, split, threshold, nodes)
        for j in range(LANES):
            for k in range(value.shape[1]):
                out[i + j, k] += value[nodes[j], k]
        i += LANES
    for r in range(i, stop):
        node = _leaf(X, r, 0, left, split, threshold)
        for k in range(value.shape[1]):
            out[r, k] += value[node, k]


@inlined
def _apply_rows(X, start, stop, left, split, threshold, out, nodes):
    """``out[i]`` = the leaf of row ``i``, for the rows ``start:stop``."""
    i = start
    while i + LANES <= stop:
        _leaves(X, i, 0, left, split, threshold, nodes)
        for j in range(LANES):
            out[i + j] = nodes[j]
        i += LANES
    for r in range(i, stop):
        out[r] = _leaf(X, r, 0, left, split, threshold)


def _make_accumulate_lanes(blocks):
    def accumulate_lanes(X, left, split, threshold, value, out):
        """``out[i, k] += value[leaf of row i, k]`` over the rows of X, a task of rows
        at a time."""
        n = X.shape[0]
        for t in blocks((n + _TASK_ROWS - 1) // _TASK_ROWS):
            nodes = np.zeros(LANES, np.int64)
            start = t * _TASK_ROWS
            stop = min(start + _TASK_ROWS, n)
            _accumulate_rows(X, start, stop, left, split, threshold, value, out, nodes)

    return accumulate_lanes


def _make_apply_lanes(blocks):
    def apply_lanes(X, left, split, threshold, out):
        """``out[i]`` = the leaf row ``i`` of X reaches, a task of rows at a time."""
        n = X.shape[0]
        for t in blocks((n + _TASK_ROWS - 1) // _TASK_ROWS):
            nodes = np.zeros(LANES, np.int64)
            start = t * _TASK_ROWS
            _apply_rows(X, start, min(start + _TASK_ROWS, n), left, split, threshold, out, nodes)

    return apply_lanes


#: on the calling thread (a few rows, or one of a forest's workers) and on numba's threads
accumulate_lanes_serial, accumulate_lanes = serial_and_parallel(_make_accumulate_lanes)
apply_lanes_serial, apply_lanes = serial_and_parallel(_make_apply_lanes)

#: rows of a block of the packed walk: every tree walks the block's rows before the next
#: tree, so that a tree's nodes stay in cache while the block uses them
_PACKED_BLOCK = 64


@inlined
def _packed_block(X, lo, hi, left, split, threshold, value, roots, output, out, nodes):
    """``out[i, output[t]] += value[leaf of row i in tree t]`` for the rows ``lo:hi``,
    every tree in turn."""
    for t in range(roots.shape[0]):
        root = roots[t]
        k = output[t]
        i = lo
        while i + LANES <= hi:
            _leaves(X, i, root, left, split, threshold, nodes)
            for j in range(LANES):
                out[i + j, k] += value[nodes[j]]
            i += LANES
        for r in range(i, hi):
            out[r, k] += value[_leaf(X, r, root, left, split, threshold)]


def _make_predict_packed_lanes(blocks):
    def predict_packed_lanes(X, left, split, threshold, value, roots, output, out):
        """``out[i, output[t]] += value[leaf of row i in tree t]`` for every tree ``t``
        of :class:`~.tree.PackedTrees` (the trees' nodes concatenated, tree ``t`` from
        node ``roots[t]``), block after block of rows."""
        n = X.shape[0]
        for blk in blocks((n + _PACKED_BLOCK - 1) // _PACKED_BLOCK):
            nodes = np.zeros(LANES, np.int64)
            lo = blk * _PACKED_BLOCK
            hi = min(n, lo + _PACKED_BLOCK)
            _packed_block(X, lo, hi, left, split, threshold, value, roots, output, out, nodes)

    return predict_packed_lanes


#: on the calling thread (a few rows: starting numba's threads costs more than walking
#: them) and on numba's threads
predict_packed_lanes_serial, predict_packed_lanes = serial_and_parallel(_make_predict_packed_lanes)


@inlined
def _forest_block(X, lo, hi, left, split, threshold, value, roots, out, nodes):
    """``out[i, k] += value[leaf of row i in tree t, k]`` for the rows ``lo:hi``, every
    tree in turn."""
    n_out = value.shape[1]
    for t in range(roots.shape[0]):
        root = roots[t]
        i = lo
        while i + LANES <= hi:
            _leaves(X, i, root, left, split, threshold, nodes)
            for j in range(LANES):
                for k in range(n_out):
                    out[i + j, k] += value[nodes[j], k]
            i += LANES
        for r in range(i, hi):
            node = _leaf(X, r, root, left, split, threshold)
            for k in range(n_out):
                out[r, k] += value[node, k]


def _make_accumulate_forest_lanes(blocks):
    def accumulate_forest_lanes(X, left, split, threshold, value, roots, block, out):
        """``out[i, k] += value[leaf of row i in tree t, k]`` for every tree ``t`` of a
        :class:`~.packed_forest.PackedForest` (the trees' nodes concatenated, tree ``t``
        from node ``roots[t]``), in the order of the trees: blocks of ``block`` rows,
        each walked by every tree in turn while its rows stay in cache."""
        n = X.shape[0]
        for blk in blocks((n + block - 1) // block):
            nodes = np.zeros(LANES, np.int64)
            lo = blk * block
            hi = min(n, lo + block)
            _forest_block(X, lo, hi, left, split, threshold, value, roots, out, nodes)

    return accumulate_forest_lanes


#: on the calling thread (a few rows) and on numba's threads
accumulate_forest_lanes_serial, accumulate_forest_lanes = serial_and_parallel(
    _make_accumulate_forest_lanes
)
