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
from numba import njit, prange

from .tree import TREE_LEAF, _NO_CATEGORIES, goes_left_raw

#: rows per parallel task: each task allocates its path buffers once for its block
_BLOCK = 32

#: the packed trees as the kernels read them (every per-node array concatenated over the
#: trees, ``roots[t]`` the first node of tree ``t``).  ``feature`` is the column of X a
#: node reads, ``player`` the feature its SHAP value goes to (the same but for members of
#: a bagging ensemble that read a subset of the columns); ``frac_left`` the fraction of
#: the node's cover that goes left; ``value`` the leaf values, ``V`` columns per tree
#: added to outputs ``output[t] .. output[t] + V - 1``; ``max_depth`` sizes the path
#: buffers; ``repeats`` whether an ancestor of the node splits on its player.
ShapForest = namedtuple("ShapForest", [
    "left", "right", "feature", "player", "threshold", "missing_left", "is_cat", "bitset",
    "frac_left", "value", "roots", "output", "max_depth", "repeats"])


@njit(nogil=True, cache=True, inline="always")
def _extend(b, lev, length, z, o, d):
    """EXTEND: row ``lev`` of the path becomes row ``lev - 1`` (elements
    ``0 .. length - 1``) with feature ``d`` appended, of zero fraction ``z`` and one
    fraction ``o``; the weights of coalition sizes become ``w_j (length - j) z /
    (length + 1)`` (feature left out) plus ``w_{j-1} j o / (length + 1)`` (feature in).
    The copy and the update are one pass; ``b.inv[k] = 1 / k``: the kernels multiply by
    reciprocals of these small integers instead of dividing."""
    pd, pz, po, pw = b.pd, b.pz, b.po, b.pw
    for j in range(length):
        pd[lev, j] = pd[lev - 1, j]
        pz[lev, j] = pz[lev - 1, j]
        po[lev, j] = po[lev - 1, j]
    pd[lev, length] = d
    pz[lev, length] = z
    po[lev, length] = o
    if length == 0:
        pw[lev, 0] = 1.0
        return
    scale = b.inv[length + 1]
    pw[lev, length] = 0.0
    if o != 0.0:
        for j in range(length - 1, -1, -1):
            w = pw[lev - 1, j]
            pw[lev, j + 1] += o * w * (j + 1) * scale
            pw[lev, j] = z * w * (length - j) * scale
    else:
        for j in range(length - 1, -1, -1):
            pw[lev, j] = z * pw[lev - 1, j] * (length - j) * scale


@njit(nogil=True, cache=True, inline="always")
def _unwind(pd, pz, po, pw, lev, last, k, inv):
    """UNWIND: remove element ``k`` from the path ``0 .. last`` of level ``lev`` (the
    inverse of its EXTEND, solved from the top weight down when ``o != 0``, from each
    weight when ``o = 0``, then ``z != 0``: a path never holds ``z = o = 0``)."""
    o = po[lev, k]
    z = pz[lev, k]
    nxt = pw[lev, last]
    if o != 0.0:
        top = (last + 1) / o
        for j in range(last - 1, -1, -1):
            t = pw[lev, j]
            pw[lev, j] = nxt * top * inv[j + 1]
            nxt = t - pw[lev, j] * z * (last - j) * inv[last + 1]
    else:
        top = (last + 1) / z
        for j in range(last - 1, -1, -1):
            pw[lev, j] = pw[lev, j] * top * inv[last - j]
    for j in range(k, last):
        pd[lev, j] = pd[lev, j + 1]
        pz[lev, j] = pz[lev, j + 1]
        po[lev, j] = po[lev, j + 1]


#: a parallel task's scratch arrays.  Path rows ``pd`` (feature), ``pz`` (zero
#: fraction), ``po`` (one fraction), ``pw`` (weight of each coalition size), one row per
#: depth, ``plen[lev]`` the last index of row ``lev`` after its node's UNWIND; the stack
#: of nodes to visit with their level and the (z, o, feature) they extend their path
#: with; ``inv[k] = 1 / k``; the leaf's scratch for the elements with ``o != 0``.
PathBuffers = namedtuple("PathBuffers", [
    "pd", "pz", "po", "pw", "plen", "s_node", "s_lev", "s_z", "s_o", "s_d", "inv",
    "one_at", "one_next", "one_total", "one_z", "one_inv"])


@njit(nogil=True, cache=True)
def _path_buffers(max_depth):
    size = max_depth + 2
    inv = np.empty(size + 2)
    inv[0] = 0.0
    for k in range(1, size + 2):
        inv[k] = 1.0 / k
    return PathBuffers(
        np.empty((size, size), np.int64), np.empty((size, size)), np.empty((size, size)),
        np.empty((size, size)), np.empty(size, np.int64), np.empty(size + 1, np.int64),
        np.empty(size + 1, np.int64), np.empty(size + 1), np.empty(size + 1),
        np.empty(size + 1, np.int64), inv, np.empty(size, np.int64), np.empty(size),
        np.empty(size), np.empty(size), np.empty(size))


@njit(nogil=True, cache=True, inline="always")
def _leaf(phi, b, lev, last, value, node, out0):
    """A leaf's share: each element ``k`` of the path gets ``w_k (o_k - z_k) v`` with
    ``w_k`` the total weight the path would have without it (the weights
    :func:`_unwind` would leave, summed, the path unchanged).

    For ``o_k != 0`` that sum runs UNWIND's recurrence from the top weight down,
    ``t_j = n_{j+1} / ((j + 1) o_k)``, ``n_j = pw_j - t_j z_k (last - j)``,
    ``w_k = (last + 1) sum_j t_j``; these elements run theirs side by side
    (independent iterations, which the processor overlaps).  For ``o_k = 0``,
    ``w_k = (last + 1) / z_k sum_j pw_j / (last - j)``, so ``w_k (0 - z_k)`` is one
    number for all of them (and no division by ``z_k``)."""
    n_one = 0
    n_zero = 0
    top_w = b.pw[lev, last]
    for k in range(1, last + 1):
        o = b.po[lev, k]
        if o != 0.0:
            b.one_at[n_one] = k
            b.one_next[n_one] = top_w
            b.one_total[n_one] = 0.0
            b.one_z[n_one] = b.pz[lev, k]
            b.one_inv[n_one] = 1.0 / o
            n_one += 1
        else:
            n_zero += 1
    zero_share = 0.0
    if n_zero:
        for j in range(last - 1, -1, -1):
            zero_share += b.pw[lev, j] * b.inv[last - j]
        zero_share *= -(last + 1)
    for j in range(last - 1, -1, -1):
        a = b.inv[j + 1]
        c = last - j
        w = b.pw[lev, j]
        for m in range(n_one):
            t = b.one_next[m] * a * b.one_inv[m]
            b.one_total[m] += t
            b.one_next[m] = w - t * b.one_z[m] * c
    for m in range(n_one):
        k = b.one_at[m]
        share = b.one_total[m] * (last + 1) * (b.po[lev, k] - b.one_z[m])
        p = b.pd[lev, k]
        for c in range(value.shape[1]):
            phi[p, out0 + c] += share * value[node, c]
    if n_zero:
        for k in range(1, last + 1):
            if b.po[lev, k] == 0.0:
                p = b.pd[lev, k]
                for c in range(value.shape[1]):
                    phi[p, out0 + c] += zero_share * value[node, c]


@njit(nogil=True, cache=True)
def _shap_one(X, i, f, t, phi, b):
    """Add the SHAP values of row ``i`` of ``X`` in tree ``t`` of ``f`` (a
    :class:`ShapForest`) to ``phi`` (n_players, n_outputs), with the scratch arrays
    ``b`` (:class:`PathBuffers`).

    Depth first with an explicit stack; the path of a node lives in row ``lev`` (its
    depth) of the path buffers, copied from its parent's row: the parent's row stays
    intact until every node below it is done, since the next node at its depth is
    visited only then."""
    pd, pz, po, pw = b.pd, b.pz, b.po, b.pw
    out0 = f.output[t]
    top = 1
    b.s_node[0] = f.roots[t]
    b.s_lev[0] = 0
    b.s_z[0] = 1.0
    b.s_o[0] = 1.0
    b.s_d[0] = -1
    while top > 0:
        top -= 1
        node = b.s_node[top]
        lev = b.s_lev[top]
        length = 0 if lev == 0 else b.plen[lev - 1] + 1
        _extend(b, lev, length, b.s_z[top], b.s_o[top], b.s_d[top])
        last = length        # the path is 0 .. last; element 0 stands for no feature
        left = f.left[node]
        if left == TREE_LEAF:
            _leaf(phi, b, lev, last, f.value, node, out0)
            continue
        right = f.right[node]
        d = f.player[node]
        go_left = goes_left_raw(X[i, f.feature[node]], f.missing_left[node],
                                f.is_cat[node], f.bitset, node, f.threshold[node])
        # a feature met again on the path: its earlier element leaves the path and its
        # fractions multiply the new ones (whether an ancestor splits on the node's
        # feature is a property of the tree, known before the walk)
        iz = 1.0
        io = 1.0
        if f.repeats[node]:
            for k in range(1, last + 1):
                if pd[lev, k] == d:
                    iz = pz[lev, k]
                    io = po[lev, k]
                    _unwind(pd, pz, po, pw, lev, last, k, b.inv)
                    last -= 1
                    break
        b.plen[lev] = last
        fl = f.frac_left[node]
        hot_z = iz * (fl if go_left else 1.0 - fl)
        cold_z = iz * (1.0 - fl if go_left else fl)
        # a child that neither x nor any cover reaches (z = o = 0) zeroes every weight
        # below it: it adds nothing and would divide by its zero fraction
        if cold_z != 0.0:
            b.s_node[top] = right if go_left else left
            b.s_lev[top] = lev + 1
            b.s_z[top] = cold_z
            b.s_o[top] = 0.0
            b.s_d[top] = d
            top += 1
        if hot_z != 0.0 or io != 0.0:
            b.s_node[top] = left if go_left else right
            b.s_lev[top] = lev + 1
            b.s_z[top] = hot_z
            b.s_o[top] = io
            b.s_d[top] = d
            top += 1


@njit(nogil=True, cache=True, parallel=True)
def _tree_shap(X, f, out):
    """``out[i] +=`` the SHAP values of row ``i`` in every tree of ``f``, shape
    (n_samples, n_players, n_outputs).  Blocks of rows in parallel, each with its own
    path buffers; a block walks one tree after the other."""
    n = X.shape[0]
    n_trees = f.roots.shape[0]
    for blk in prange((n + _BLOCK - 1) // _BLOCK):
        lo = blk * _BLOCK
        hi = min(n, lo + _BLOCK)
        b = _path_buffers(f.max_depth)
        for t in range(n_trees):
            for i in range(lo, hi):
                _shap_one(X, i, f, t, out[i], b)


@njit(nogil=True, cache=True)
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
                    mean[node - root, c] = (fl * mean[left - root, c]
                                            + (1.0 - fl) * mean[right - root, c])
        for c in range(n_values):
            out[f.output[t] + c] += mean[0, c]


@njit(nogil=True, cache=True)
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
    if depth[0] != 0 or np.any(depth[left[internal]] != depth[internal] + 1) \
            or np.any(depth[right[internal]] != depth[internal] + 1):
        raise ValueError(f"{where}: the depths do not follow the children.")
    if np.asarray(tree.is_categorical)[internal].any() and \
            np.shape(tree.categories_left) != (n, 4):
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
                raise ValueError(f"values[{t}]: must have shape (node_count, {n_values}), "
                                 f"got {v.shape}.")
            _check_tree(tree, v, f"trees[{t}]")
        sizes = np.array([t.node_count for t in trees], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        shift = np.repeat(offsets, sizes)
        cat = lambda name: np.concatenate([getattr(t, name) for t in trees])  # noqa: E731
        left = cat("children_left").astype(np.int64)
        right = cat("children_right").astype(np.int64)
        leaf = left == TREE_LEAF
        feature = cat("feature").astype(np.int64)
        player = np.concatenate([
            np.asarray(t.feature, np.int64) if p is None
            else np.where(np.asarray(t.feature) >= 0,
                          np.asarray(p, np.int64)[np.maximum(t.feature, 0)], -1)
            for t, p in zip(trees, players)])
        cover = cat("weighted_n_node_samples").astype(np.float64)
        lc = cover[np.where(leaf, 0, left + shift)]
        rc = cover[np.where(leaf, 0, right + shift)]
        total = lc + rc
        with np.errstate(invalid="ignore", divide="ignore"):
            frac = np.where(total > 0, lc / np.where(total > 0, total, 1.0), 0.5)
        bitset = (np.concatenate([t.categories_left for t in trees])
                  if any(np.asarray(t.is_categorical).any() for t in trees) else _NO_CATEGORIES)
        self.forest = ShapForest(
            left=np.where(leaf, TREE_LEAF, left + shift),
            right=np.where(leaf, TREE_LEAF, right + shift),
            feature=np.where(leaf, 0, feature), player=np.where(leaf, 0, player),
            threshold=cat("threshold").astype(np.float64),
            missing_left=cat("missing_go_left").astype(np.bool_),
            is_cat=cat("is_categorical").astype(np.bool_), bitset=bitset,
            frac_left=np.ascontiguousarray(frac, dtype=np.float64),
            value=np.ascontiguousarray(np.concatenate(values), dtype=np.float64),
            roots=offsets, output=np.asarray(outputs, dtype=np.int64),
            max_depth=int(max(int(np.max(t.depth)) for t in trees)),
            repeats=np.zeros(0, np.bool_))
        f = self.forest
        self.forest = f._replace(repeats=_repeated_players(f.left, f.right, f.player,
                                                           f.roots, f.max_depth))
        if self.forest.output.shape != (len(trees),) or self.forest.output.min() < 0:
            raise ValueError(f"outputs: must hold one index >= 0 per tree, got "
                             f"{self.forest.output!r}.")
        internal = ~leaf
        #: the bounds of what the kernel reads from X and writes to the output
        self.n_columns_used = int(feature[internal].max()) + 1 if internal.any() else 0
        self.n_players_used = int(player[internal].max()) + 1 if internal.any() else 0
        if internal.any() and (feature[internal].min() < 0 or player[internal].min() < 0):
            raise ValueError("trees: a split feature (or its player) is negative.")
        self.n_outputs_used = int(self.forest.output.max()) + n_values

    def shap_values(self, X, n_players, n_outputs, out=None):
        """SHAP values of the rows of the encoded float matrix ``X``, added to ``out`` (a
        new array of zeros when None) of shape (n_samples, n_players, n_outputs)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] < self.n_columns_used:
            raise ValueError(f"X must be 2-dimensional with at least {self.n_columns_used} "
                             f"columns for these trees, got shape {X.shape}.")
        shape = (X.shape[0], n_players, n_outputs)
        if out is None:
            out = np.zeros(shape)
        # the kernel writes out[i, player, output] unchecked
        if (not isinstance(out, np.ndarray) or out.dtype != np.float64
                or not out.flags.c_contiguous or out.shape != shape
                or n_players < self.n_players_used or n_outputs < self.n_outputs_used):
            raise ValueError(
                f"out must be a C-contiguous float64 array of shape {shape} with at least "
                f"{self.n_players_used} players and {self.n_outputs_used} outputs, got "
                f"{getattr(out, 'dtype', type(out).__name__)} of shape "
                f"{getattr(out, 'shape', None)}.")
        if X.shape[0]:
            _tree_shap(X, self.forest, out)
        return out

    def expected_values(self, n_outputs):
        """Cover-weighted mean output of the trees, shape (n_outputs,)."""
        if n_outputs < self.n_outputs_used:
            raise ValueError(f"n_outputs must be at least {self.n_outputs_used}, got "
                             f"{n_outputs}.")
        out = np.zeros(n_outputs)
        _expected_values(self.forest, out)
        return out
