"""``ObliqueTree``: the flat arrays of a tree whose nodes test ``sum_f a_f x_f <= tau``.

Node ``i`` is a leaf when ``children_left[i] == -1``; an internal node's test is held as
compressed rows: ``proj_feature[proj_ptr[i]:proj_ptr[i + 1]]`` (the attributes),
``proj_weight`` (their weights ``a_f``, in the units of X) and ``proj_fill`` (the value a
missing ``x_f`` takes at the node: the node's training mean), ``threshold[i]`` is ``tau``.
"""

from __future__ import annotations

import numpy as np

from ..persistence import register
from ..persistence._spec import array, check_state, integer
from ._grow import GrownArrays, apply_rows, path_rows

LEAF = -1


class ObliqueTree:
    """A fitted oblique tree (see the module docstring for the layout).

    Attributes
    ----------
    n_features, n_outputs : int
    children_left, children_right : ndarray of int64 of shape (n_nodes,)
    threshold : ndarray of float64 of shape (n_nodes,)
    proj_ptr : ndarray of int64 of shape (n_nodes + 1,)
    proj_feature, proj_weight, proj_fill : ndarrays of shape (nnz,)
    value : ndarray of float64 of shape (n_nodes, n_outputs)
        Class fractions, or the mean target.
    impurity : ndarray of float64 of shape (n_nodes,)
        Impurity per unit weight (Gini, entropy in nats, or variance).
    n_node_samples : ndarray of int64, weighted_n_node_samples : ndarray of float64
    depth : ndarray of int64 of shape (n_nodes,)
    """

    _persist_attributes = (
        "n_features",
        "n_outputs",
        "children_left",
        "children_right",
        "threshold",
        "proj_ptr",
        "proj_feature",
        "proj_weight",
        "proj_fill",
        "value",
        "impurity",
        "n_node_samples",
        "weighted_n_node_samples",
        "depth",
    )
    _state_spec = {
        "n_features": integer(1, 2**31 - 1),
        "n_outputs": integer(1),
        "children_left": array("int64", ndim=1),
        "children_right": array("int64", ("children_left",)),
        "threshold": array("float64", ("children_left",), finite=True),
        "proj_ptr": array("int64", ndim=1),
        "proj_feature": array("int64", ndim=1, low=0),
        "proj_weight": array("float64", ("proj_feature",), finite=True),
        "proj_fill": array("float64", ("proj_feature",), finite=True),
        "value": array("float64", ("children_left", "n_outputs"), finite=True),
        "impurity": array("float64", ("children_left",), finite=True),
        "n_node_samples": array("int64", ("children_left",), low=0),
        "weighted_n_node_samples": array("float64", ("children_left",), finite=True, low=0),
        "depth": array("int64", ("children_left",), low=0),
    }

    @classmethod
    def from_grown(cls, grown: GrownArrays, n_features, value, impurity, weight):
        tree = cls()
        tree.n_features = int(n_features)
        tree.n_outputs = int(value.shape[1])
        tree.children_left = grown.children_left
        tree.children_right = grown.children_right
        tree.threshold = grown.threshold
        tree.proj_ptr = grown.proj_ptr
        tree.proj_feature = grown.proj_feature
        tree.proj_weight = grown.proj_weight
        tree.proj_fill = grown.proj_fill
        tree.value = value
        tree.impurity = impurity
        tree.n_node_samples = grown.n_node_samples
        tree.weighted_n_node_samples = weight
        tree.depth = grown.depth
        return tree

    # -- reading ---------------------------------------------------------------------

    @property
    def node_count(self) -> int:
        return int(self.children_left.shape[0])

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.children_left == LEAF))

    @property
    def max_depth(self) -> int:
        return int(self.depth.max())

    def _kernel_args(self):
        return (
            self.children_left,
            self.children_right,
            self.threshold,
            self.proj_ptr,
            self.proj_feature,
            self.proj_weight,
            self.proj_fill,
        )

    def apply(self, X: np.ndarray) -> np.ndarray:
        """The leaf id of each row of a float64 ``X`` of ``n_features`` columns."""
        return apply_rows(np.ascontiguousarray(X, dtype=np.float64), *self._kernel_args())

    def paths(self, X: np.ndarray) -> np.ndarray:
        """The node ids each row visits, root first, padded with -1."""
        return path_rows(
            np.ascontiguousarray(X, dtype=np.float64), *self._kernel_args(), self.max_depth
        )

    def test(self, node: int):
        """``(features, weights, fills, threshold)`` of an internal node's test."""
        lo, hi = self.proj_ptr[node], self.proj_ptr[node + 1]
        return (
            self.proj_feature[lo:hi],
            self.proj_weight[lo:hi],
            self.proj_fill[lo:hi],
            float(self.threshold[node]),
        )

    def subtree(self, keep_leaf: np.ndarray) -> ObliqueTree:
        """The tree with every node in ``keep_leaf`` made a leaf (its descendants
        dropped), renumbered in pre-order."""
        order, new_left, new_right = [], [], []
        ids = {}
        stack = [0]
        while stack:
            i = stack.pop()
            ids[i] = len(order)
            order.append(i)
            if self.children_left[i] != LEAF and not keep_leaf[i]:
                stack.append(int(self.children_right[i]))
                stack.append(int(self.children_left[i]))
        old = np.array(order, dtype=np.int64)
        internal = np.array(
            [self.children_left[i] != LEAF and not keep_leaf[i] for i in order], dtype=bool
        )
        for i, inner in zip(order, internal):
            new_left.append(ids[int(self.children_left[i])] if inner else LEAF)
            new_right.append(ids[int(self.children_right[i])] if inner else LEAF)
        spans = np.where(internal, self.proj_ptr[old + 1] - self.proj_ptr[old], 0)
        ptr = np.concatenate([[0], np.cumsum(spans)]).astype(np.int64)
        take = np.concatenate(
            [np.arange(self.proj_ptr[i], self.proj_ptr[i + 1]) for i in old[internal]]
            + [np.empty(0, dtype=np.int64)]
        ).astype(np.int64)
        tree = ObliqueTree()
        tree.n_features, tree.n_outputs = self.n_features, self.n_outputs
        tree.children_left = np.array(new_left, dtype=np.int64)
        tree.children_right = np.array(new_right, dtype=np.int64)
        tree.threshold = np.where(internal, self.threshold[old], 0.0)
        tree.proj_ptr = ptr
        tree.proj_feature = self.proj_feature[take]
        tree.proj_weight = self.proj_weight[take]
        tree.proj_fill = self.proj_fill[take]
        for name in ("value", "impurity", "n_node_samples", "weighted_n_node_samples", "depth"):
            setattr(tree, name, getattr(self, name)[old])
        return tree

    # -- the state read from a model file ---------------------------------------------

    def _validate_state(self, where="tree", n_features=None, n_outputs=None):
        """Raise ValueError unless the arrays are safe for :func:`apply_rows`: children
        after their parent (no cycle, ids in range), each node but the root the child
        of exactly one node, ``proj_ptr`` non-decreasing from 0 to the number of stored
        weights, features below ``n_features``."""
        arrays = check_state(self, where, self._state_spec, missing="incomplete oblique tree")
        nf, k = arrays["n_features"], arrays["n_outputs"]
        if n_features is not None and nf != n_features:
            raise ValueError(f"{where}.n_features: {nf}, the owner has {n_features}.")
        if n_outputs is not None and k != n_outputs:
            raise ValueError(f"{where}.n_outputs: {k}, the owner reads {n_outputs}.")
        left, right = self.children_left, self.children_right
        n = left.shape[0]
        if n == 0:
            raise ValueError(f"{where}: a tree has at least one node (the root).")
        leaf = left == LEAF
        if np.any(leaf != (right == LEAF)):
            raise ValueError(f"{where}: a node has exactly one child.")
        internal = np.flatnonzero(~leaf)
        kids = np.concatenate([left[internal], right[internal]])
        parents = np.concatenate([internal, internal])
        if np.any(kids <= parents) or np.any(kids >= n):
            raise ValueError(f"{where}.children_left: a child out of range or before its parent.")
        if kids.size != n - 1 or (kids.size and np.bincount(kids, minlength=n).max() > 1):
            raise ValueError(f"{where}: every node but the root must have exactly one parent.")
        ptr = self.proj_ptr
        if ptr.shape != (n + 1,) or ptr[0] != 0 or np.any(np.diff(ptr) < 0):
            raise ValueError(
                f"{where}.proj_ptr: must rise from 0, one entry per node and one more."
            )
        if ptr[-1] != self.proj_feature.shape[0]:
            raise ValueError(f"{where}.proj_ptr: ends at {ptr[-1]}, not at the stored weights.")
        if self.proj_feature.size and self.proj_feature.max() >= nf:
            raise ValueError(f"{where}.proj_feature: a feature >= n_features ({nf}).")


register(ObliqueTree)
