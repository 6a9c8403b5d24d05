"""Exact path-dependent TreeSHAP (Lundberg et al., 2020, Algorithm 2) over packed trees.

For a tree ``f`` and a row ``x``, the SHAP value of feature ``i`` is its Shapley value in
the game whose value of a coalition ``S`` is ``f_S(x)``, the path-dependent expectation:
at a node splitting on a feature of ``S`` follow ``x``; at any other node take the
children's expectations weighted by their covers ``r_left / (r_left + r_right)`` and
``r_right / (r_left + r_right)`` (the trees' ``weighted_n_node_samples``)::

    phi_i = sum over S not holding i of  |S|! (M - |S| - 1)! / M!  (f_{S+i}(x) - f_S(x))

They add up exactly: ``sum_i phi_i = f(x) - f_{}(x)``, and ``f_{}`` (the same for every
row) is the expected value.  The algorithm does not enumerate the ``2^M`` coalitions: one
depth-first walk of the tree carries, along the path to each node, the features met so
far with the fraction of the cover that flows that way (``z``) and whether ``x`` flows
that way (``o``), and the weights of the coalition sizes as a polynomial
(EXTEND adds a feature to the path, UNWIND removes one).  At a leaf, each feature of the
path receives ``w (o - z) v`` with ``w`` the weight the path has without it, ``v`` the
leaf value.  Cost per row and tree: ``O(leaves depth^2)``.

The trees are packed into one set of arrays (:class:`ShapTrees`) and one numba kernel
walks every tree for a block of rows, rows in parallel.
"""

from collections import namedtuple

import numpy as np
from numba import prange

from .routing import TREE_LEAF, goes_left_raw
from .tree_stack import TreeStack
from .._numba.jit import inlined, kernel, parallel_kernel

#: rows walked together: every tree is walked once per block, its path shared by the
#: block's rows (only the one fractions and the weights differ between rows)
_BLOCK = 32

#: the packed trees as the kernels read them (every per-node array concatenated over the
#: trees, ``roots[t]`` the first node of tree ``t``).  ``feature`` is the column of X a
#: node reads, ``player`` the feature its SHAP value goes to (the same but for members of
#: a bagging ensemble that read a subset of the columns); ``frac_left`` the fraction of
#: the node's cover that goes left; ``value`` the leaf values, ``V`` columns per tree
#: added to outputs ``output[t] .. output[t] + V - 1``; ``max_depth`` and
#: ``max_unique`` (the most distinct players a path holds, at most ``max_depth``) size
#: the path buffers; ``repeats`` whether an ancestor of the node splits on its player.
ShapForest = namedtuple(
    "ShapForest",
    [
        "left",
        "right",
        "feature",
        "player",
        "threshold",
        "missing_left",
        "is_cat",
        "bitset",
        "frac_left",
        "value",
        "roots",
        "output",
        "max_depth",
        "max_unique",
        "repeats",
    ],
)

#: a parallel task's scratch arrays for a block of ``R`` rows.  The path, one row per
#: depth: ``pd`` (feature) and ``pz`` (zero fraction), the same for every row of the
#: block; ``po`` (one fraction, 0 or 1) and ``pw`` (weight of each coalition size), one
#: per row (last axis); ``plen[lev]`` the last index of row ``lev`` after its node's
#: UNWIND.  The stack of nodes to visit with their level and the (z, o, feature) they
#: extend their path with.  ``inv[k] = 1 / k``.  Per-row scratch: ``goes`` (the row
#: goes left), ``io`` (one fraction carried over from a repeated feature), ``next``,
#: ``total``, ``zero`` (a leaf's sums).
PathBuffers = namedtuple(
    "PathBuffers",
    [
        "pd",
        "pz",
        "po",
        "pw",
        "plen",
        "s_node",
        "s_lev",
        "s_z",
        "s_o",
        "s_d",
        "inv",
        "goes",
        "io",
        "next",
        "total",
        "zero",
    ],
)


@kernel
def _path_buffers(max_depth, max_unique, rows):
    """One row per depth, each as long as the longest path of distinct players (element
    0, no feature, and one per player)."""
    size = max_depth + 2
    width = max_unique + 2
    inv = np.empty(size + 2)
    inv[0] = 0.0
    for k in range(1, size + 2):
        inv[k] = 1.0 / k
    return PathBuffers(
        np.empty((size, width), np.int64),
        np.empty((size, width)),
        np.empty((size, width, rows)),
        np.empty((size, width, rows)),
        np.empty(size, np.int64),
        np.empty(size + 1, np.int64),
        np.empty(size + 1, np.int64),
        np.empty(size + 1),
        np.empty((size + 1, rows)),
        np.empty(size + 1, np.int64),
        inv,
        np.empty(rows, np.bool_),
        np.empty(rows),
        np.empty(rows),
        np.empty(rows),
        np.empty(rows),
    )


@inlined
def _extend(b, lev, length, z, top, d, R):
    """EXTEND: row ``lev`` of the path becomes row ``lev - 1`` (elements
    ``0 .. length - 1``) with feature ``d`` appended, of zero fraction ``z`` and the one
    fractions ``o = b.s_o[top]`` of the rows; the weights of coalition sizes become
    ``w_j (length - j) z / (length + 1)`` (feature left out) plus
    ``w_{j-1} j o / (length + 1)`` (feature in).  The copy and the update are one pass;
    the kernels multiply by the reciprocals ``b.inv[k] = 1 / k`` instead of dividing."""
    pd, pz, po, pw = b.pd, b.pz, b.po, b.pw
    for j in range(length):
        pd[lev, j] = pd[lev - 1, j]
        pz[lev, j] = pz[lev - 1, j]
        for r in range(R):
            po[lev, j, r] = po[lev - 1, j, r]
    pd[lev, length] = d
    pz[lev, length] = z
    for r in range(R):
        po[lev, length, r] = b.s_o[top, r]
    if length == 0:
        for r in range(R):
            pw[lev, 0, r] = 1.0
        return
    scale = b.inv[length + 1]
    for r in range(R):
        pw[lev, length, r] = 0.0
    for j in range(length - 1, -1, -1):
        a = (j + 1) * scale
        c = z * (length - j) * scale
        for r in range(R):
            w = pw[lev - 1, j, r]
            pw[lev, j + 1, r] += po[lev, length, r] * w * a
            pw[lev, j, r] = w * c


@inlined
def _unwind(b, lev, last, k, R):
    """UNWIND: remove element ``k`` from the path ``0 .. last`` of level ``lev`` (the
    inverse of its EXTEND).  A row with ``o = 1`` solves it from the top weight down; a
    row with ``o = 0`` from each weight, dividing by ``z``, or, when ``z = 0`` too, has
    only zero weights, which stay zero."""
    pd, pz, po, pw = b.pd, b.pz, b.po, b.pw
    z = pz[lev, k]
    nxt = b.next
    for r in range(R):
        nxt[r] = pw[lev, last, r]
    for j in range(last - 1, -1, -1):
        a = (last + 1) * b.inv[j + 1]
        c = z * (last - j) * b.inv[last + 1]
        e = (last + 1) * b.inv[last - j] / z if z != 0.0 else 0.0
        for r in range(R):
            w = pw[lev, j, r]
            if po[lev, k, r] != 0.0:
                nw = nxt[r] * a
                nxt[r] = w - nw * c
            else:
                nw = w * e
            pw[lev, j, r] = nw
    for j in range(k, last):
        pd[lev, j] = pd[lev, j + 1]
        pz[lev, j] = pz[lev, j + 1]
        for r in range(R):
            po[lev, j, r] = po[lev, j + 1, r]


@inlined
def _leaf(out, lo, R, b, lev, last, value, node, out0):
    """A leaf's share: each element ``k`` of the path gets ``w_k (o_k - z_k) v`` with
    ``w_k`` the total weight the path would have without it (the weights
    :func:`_unwind` would leave, summed, the path unchanged).

    For ``o_k = 1`` that sum runs UNWIND's recurrence from the top weight down,
    ``t_j = n_{j+1} / (j + 1)``, ``n_j = pw_j - t_j z_k (last - j)``,
    ``w_k = (last + 1) sum_j t_j``.  For ``o_k = 0``,
    ``w_k = (last + 1) / z_k sum_j pw_j / (last - j)``, so ``w_k (0 - z_k)`` is one
    number for all such elements of a row (and no division by ``z_k``)."""
    pz, po, pw = b.pz, b.po, b.pw
    zero = b.zero
    for r in range(R):
        zero[r] = 0.0
    for j in range(last - 1, -1, -1):
        c = b.inv[last - j]
        for r in range(R):
            zero[r] += pw[lev, j, r] * c
    for r in range(R):
        zero[r] *= -(last + 1)
    nxt = b.next
    total = b.total
    for k in range(1, last + 1):
        z = pz[lev, k]
        p = b.pd[lev, k]
        n_one = 0
        for r in range(R):
            n_one += po[lev, k, r] != 0.0
        if n_one:
            for r in range(R):
                nxt[r] = pw[lev, last, r]
                total[r] = 0.0
            for j in range(last - 1, -1, -1):
                a = b.inv[j + 1]
                c = z * (last - j)
                for r in range(R):
                    t = nxt[r] * a
                    total[r] += t
                    nxt[r] = pw[lev, j, r] - t * c
            for r in range(R):
                total[r] *= (last + 1) * (1.0 - z)
        for r in range(R):
            share = total[r] if po[lev, k, r] != 0.0 else zero[r]
            for c in range(value.shape[1]):
                out[lo + r, p, out0 + c] += share * value[node, c]


@kernel
def _shap_block(X, lo, R, f, t, out, b):
    """Add the SHAP values of rows ``lo .. lo + R - 1`` of ``X`` in tree ``t`` of ``f``
    (a :class:`ShapForest`) to ``out`` (n_samples, n_players, n_outputs), with the
    scratch arrays ``b`` (:class:`PathBuffers`).

    Every node is visited once for the block: its path's features and zero fractions
    depend on the tree only, the rows differ in their one fractions (whether the row
    follows the path) and the weights.  Depth first with an explicit stack; the path of
    a node lives in row ``lev`` (its depth) of the path buffers, copied from its
    parent's row: the parent's row stays intact until every node below it is done, since
    the next node at its depth is visited only then.  A child whose zero fraction is 0
    and that no row follows adds nothing (all its weights are 0) and is skipped."""
    pd, pz, po = b.pd, b.pz, b.po
    out0 = f.output[t]
    top = 1
    b.s_node[0] = f.roots[t]
    b.s_lev[0] = 0
    b.s_z[0] = 1.0
    b.s_d[0] = -1
    for r in range(R):
        b.s_o[0, r] = 1.0
    while top > 0:
        top -= 1
        node = b.s_node[top]
        lev = b.s_lev[top]
        length = 0 if lev == 0 else b.plen[lev - 1] + 1
        _extend(b, lev, length, b.s_z[top], top, b.s_d[top], R)
        last = length  # the path is 0 .. last; element 0 stands for no feature
        left = f.left[node]
        if left == TREE_LEAF:
            _leaf(out, lo, R, b, lev, last, f.value, node, out0)
            continue
        right = f.right[node]
        d = f.player[node]
        col = f.feature[node]
        for r in range(R):
            b.goes[r] = goes_left_raw(
                X[lo + r, col],
                f.missing_left[node],
                f.is_cat[node],
                f.bitset,
                node,
                f.threshold[node],
            )
        # a feature met again on the path: its earlier element leaves the path and its
        # fractions multiply the new ones (whether an ancestor splits on the node's
        # feature is a property of the tree, known before the walk)
        iz = 1.0
        for r in range(R):
            b.io[r] = 1.0
        if f.repeats[node]:
            for k in range(1, last + 1):
                if pd[lev, k] == d:
                    iz = pz[lev, k]
                    for r in range(R):
                        b.io[r] = po[lev, k, r]
                    _unwind(b, lev, last, k, R)
                    last -= 1
                    break
        b.plen[lev] = last
        fl = f.frac_left[node]
        for child, z, side in ((right, iz * (1.0 - fl), False), (left, iz * fl, True)):
            follows = 0
            for r in range(R):
                o = b.io[r] if b.goes[r] == side else 0.0
                b.s_o[top, r] = o
                follows += o != 0.0
            if z != 0.0 or follows:
                b.s_node[top] = child
                b.s_lev[top] = lev + 1
                b.s_z[top] = z
                b.s_d[top] = d
                top += 1


@parallel_kernel
def _tree_shap(X, f, out):
    """``out[i] +=`` the SHAP values of row ``i`` in every tree of ``f``, shape
    (n_samples, n_players, n_outputs).  Blocks of rows in parallel, each with its own
    path buffers; a block walks one tree after the other."""
    n = X.shape[0]
    n_trees = f.roots.shape[0]
    for blk in prange((n + _BLOCK - 1) // _BLOCK):
        lo = blk * _BLOCK
        R = min(n, lo + _BLOCK) - lo
        b = _path_buffers(f.max_depth, f.max_unique, R)
        for t in range(n_trees):
            _shap_block(X, lo, R, f, t, out, b)


@kernel
def _expected_values(f, out):
    """``out[output[t] + c] +=`` the cover-weighted mean leaf value of every tree ``t``:
    the expectation of the empty coalition, bottom-up (children come after their
    parent)."""
    n_trees = f.roots.shape[0]
    n_values = f.value.shape[1]
    for t in range(n_trees):
        root = f.roots[t]
        end = f.roots[t + 1] if t + 1 < n_trees else f.left.shape[0]
        mean = np.empty((end - root, n_values))
        for node in range(end - 1, root - 1, -1):
            left = f.left[node]
            if left == TREE_LEAF:
                for c in range(n_values):
                    mean[node - root, c] = f.value[node, c]
            else:
                fl = f.frac_left[node]
                right = f.right[node]
                for c in range(n_values):
                    mean[node - root, c] = (
                        fl * mean[left - root, c] + (1.0 - fl) * mean[right - root, c]
                    )
        for c in range(n_values):
            out[f.output[t] + c] += mean[0, c]


@kernel
def _repeated_players(left, right, player, roots, max_depth):
    """Per node, whether one of its ancestors splits on its player: depth-first over
    each tree with the players of the current path by depth."""
    n_nodes = left.shape[0]
    repeats = np.zeros(n_nodes, np.bool_)
    on_path = np.empty(max_depth + 1, np.int64)
    stack = np.empty(max_depth + 2, np.int64)
    depth_of = np.empty(max_depth + 2, np.int64)
    for t in range(roots.shape[0]):
        top = 1
        stack[0] = roots[t]
        depth_of[0] = 0
        while top > 0:
            top -= 1
            node = stack[top]
            dep = depth_of[top]
            if left[node] == TREE_LEAF:
                continue
            for k in range(dep):
                if on_path[k] == player[node]:
                    repeats[node] = True
                    break
            on_path[dep] = player[node]
            stack[top] = right[node]
            depth_of[top] = dep + 1
            stack[top + 1] = left[node]
            depth_of[top + 1] = dep + 1
            top += 2
    return repeats


def _check_tree(tree, values, where):
    """What the kernels index, checked: children after their node and inside the tree,
    a depth one more at each child (it sizes the path buffers), the category sets of
    categorical nodes, one row of values per node."""
    left = np.asarray(tree.children_left)
    right = np.asarray(tree.children_right)
    n = left.shape[0]
    depth = np.asarray(tree.depth)
    if n == 0 or right.shape != (n,) or depth.shape != (n,) or values.shape[0] != n:
        raise ValueError(f"{where}: the tree's arrays do not have one row per node.")
    leaf = left == TREE_LEAF
    internal = np.flatnonzero(~leaf)
    if np.any(leaf != (right == TREE_LEAF)):
        raise ValueError(f"{where}: a node has exactly one child.")
    for child in (left[internal], right[internal]):
        if np.any(child <= internal) or np.any(child >= n):
            raise ValueError(f"{where}: a child points outside the tree or backwards.")
    if (
        depth[0] != 0
        or np.any(depth[left[internal]] != depth[internal] + 1)
        or np.any(depth[right[internal]] != depth[internal] + 1)
    ):
        raise ValueError(f"{where}: the depths do not follow the children.")
    if np.asarray(tree.is_categorical)[internal].any() and np.shape(tree.categories_left) != (n, 4):
        raise ValueError(f"{where}: categorical splits without their category sets.")


class ShapTrees:
    """Trees packed for :func:`_tree_shap`: their node arrays concatenated, the cover
    fractions computed once.

    Parameters
    ----------
    trees : list of Tree
    values : list of ndarray of shape (node_count, V)
        The leaf values each tree adds to the explained output (already scaled: a forest
        passes its trees' values divided by their number); the same ``V`` for every tree.
    outputs : array-like of int
        Tree ``t`` adds its ``V`` values to outputs ``outputs[t] .. outputs[t] + V - 1``.
    players : list of (ndarray of int or None), optional
        Per tree, the feature each column it reads stands for (its SHAP value goes
        there); None: the column itself.

    Notes
    -----
    A node's cover fraction is ``r_left / (r_left + r_right)`` of its children's
    ``weighted_n_node_samples`` (one half when both are zero), which is
    ``r_left / r_node`` whenever the children's covers add up to the node's.
    """

    def __init__(self, trees, values, outputs, players=None):
        if not trees:
            raise ValueError("trees: at least one tree is needed.")
        if players is None:
            players = [None] * len(trees)
        n_values = values[0].shape[1]
        for t, (tree, v) in enumerate(zip(trees, values)):
            if v.ndim != 2 or v.shape[1] != n_values:
                raise ValueError(
                    f"values[{t}]: must have shape (node_count, {n_values}), got {v.shape}."
                )
            _check_tree(tree, v, f"trees[{t}]")
        stack = TreeStack(trees)
        cat = stack.concat
        left, right = stack.children()
        leaf = left == TREE_LEAF
        feature = cat("feature").astype(np.int64)
        player = np.concatenate(
            [
                np.asarray(t.feature, np.int64)
                if p is None
                else np.where(
                    np.asarray(t.feature) >= 0,
                    np.asarray(p, np.int64)[np.maximum(t.feature, 0)],
                    -1,
                )
                for t, p in zip(trees, players)
            ]
        )
        cover = cat("weighted_n_node_samples").astype(np.float64)
        lc = cover[np.where(leaf, 0, left)]
        rc = cover[np.where(leaf, 0, right)]
        total = lc + rc
        with np.errstate(invalid="ignore", divide="ignore"):
            frac = np.where(total > 0, lc / np.where(total > 0, total, 1.0), 0.5)
        internal = ~leaf
        if internal.any() and (feature[internal].min() < 0 or player[internal].min() < 0):
            raise ValueError("trees: a split feature (or its player) is negative.")
        #: the bounds of what the kernel reads from X and writes to the output
        self.n_columns_used = int(feature[internal].max()) + 1 if internal.any() else 0
        self.n_players_used = int(player[internal].max()) + 1 if internal.any() else 0
        max_depth = int(max(int(np.max(t.depth)) for t in trees))
        bitset = stack.bitsets()
        self.forest = ShapForest(
            left=left,
            right=right,
            feature=np.where(leaf, 0, feature),
            player=np.where(leaf, 0, player),
            threshold=cat("threshold").astype(np.float64),
            missing_left=cat("missing_go_left").astype(np.bool_),
            is_cat=cat("is_categorical").astype(np.bool_),
            bitset=bitset,
            frac_left=np.ascontiguousarray(frac, dtype=np.float64),
            value=np.ascontiguousarray(np.concatenate(values), dtype=np.float64),
            roots=stack.roots,
            output=np.asarray(outputs, dtype=np.int64),
            max_depth=max_depth,
            max_unique=min(max_depth, self.n_players_used),
            repeats=np.zeros(0, np.bool_),
        )
        f = self.forest
        self.forest = f._replace(
            repeats=_repeated_players(f.left, f.right, f.player, f.roots, f.max_depth)
        )
        if self.forest.output.shape != (len(trees),) or self.forest.output.min() < 0:
            raise ValueError(
                f"outputs: must hold one index >= 0 per tree, got {self.forest.output!r}."
            )
        self.n_outputs_used = int(self.forest.output.max()) + n_values

    def shap_values(self, X, n_players, n_outputs, out=None):
        """SHAP values of the rows of the encoded float matrix ``X``, added to ``out`` (a
        new array of zeros when None) of shape (n_samples, n_players, n_outputs)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] < self.n_columns_used:
            raise ValueError(
                f"X must be 2-dimensional with at least {self.n_columns_used} "
                f"columns for these trees, got shape {X.shape}."
            )
        shape = (X.shape[0], n_players, n_outputs)
        if out is None:
            out = np.zeros(shape)
        # the kernel writes out[i, player, output] unchecked
        if (
            not isinstance(out, np.ndarray)
            or out.dtype != np.float64
            or not out.flags.c_contiguous
            or out.shape != shape
            or n_players < self.n_players_used
            or n_outputs < self.n_outputs_used
        ):
            raise ValueError(
                f"out must be a C-contiguous float64 array of shape {shape} with at least "
                f"{self.n_players_used} players and {self.n_outputs_used} outputs, got "
                f"{getattr(out, 'dtype', type(out).__name__)} of shape "
                f"{getattr(out, 'shape', None)}."
            )
        if X.shape[0]:
            _tree_shap(X, self.forest, out)
        return out

    def expected_values(self, n_outputs):
        """Cover-weighted mean output of the trees, shape (n_outputs,)."""
        if n_outputs < self.n_outputs_used:
            raise ValueError(f"n_outputs must be at least {self.n_outputs_used}, got {n_outputs}.")
        out = np.zeros(n_outputs)
        _expected_values(self.forest, out)
        return out
