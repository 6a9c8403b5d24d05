"""The tree that ID3 and C4.5 grow: one branch per value of a categorical attribute, two
for a threshold on a continuous one, in flat per-node arrays plus a list of children per
node (:class:`MultiwayTree`); the entropy it is grown by."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from scipy.sparse import csr_matrix

from ..inspection._tree_view import preorder, tree_children
from ..persistence._checks import (
    check_array,
    is_int,
    is_real,
)
from ..persistence._spec import array, check_state, integer

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scipy import sparse

    from .._typing import (
        ArrayLike,
        Float64Array,
        NDArray,
    )


TIE_TOL = 1e-12


def entropy(counts: ArrayLike) -> Float64Array:
    """``Ent = -sum_k p_k log2 p_k`` of each row of a (weighted) class-count array, in bits.

    Computed as ``log2 W - sum_k c_k log2 c_k / W`` (``W = sum_k c_k``); rows that sum to
    zero have entropy 0.
    """
    c = np.asarray(counts, dtype=np.float64)
    total = c.sum(axis=-1)
    safe = np.where(total > 0, total, 1.0)
    clogc = (c * np.log2(np.where(c > 0, c, 1.0))).sum(axis=-1)
    return np.maximum(np.log2(safe) - clogc / safe, 0.0)


class MultiwayTree:
    """A fitted multiway tree as per-node arrays (node 0 is the root).

    Attributes
    ----------
    feature : ndarray of int
        Attribute tested at each internal node, ``-1`` at leaves.
    is_categorical : ndarray of bool
        Multiway test on category codes (True) or ``x <= threshold`` (False).
    threshold : ndarray of float
        Cut of a continuous test (NaN otherwise).
    children : list of ndarray of int
        Child ids of each node (empty at leaves): one per category code for a categorical
        test, ``[left (x <= t), right (x > t)]`` for a continuous one.
    branch_fraction : list of ndarray of float
        Share ``r_v`` of the known training weight in each branch; a missing value is
        sent down every branch with these weights.
    value : ndarray of shape (n_nodes, n_classes)
        Class distribution of each node (an empty branch keeps its parent's).
    weighted_n_node_samples, n_node_samples : ndarray
        Training weight and number of (fractional copies of) rows reaching each node.
    impurity : ndarray
        ``Ent(D)`` of each node, in bits.
    depth, parent : ndarray of int
    report : list
        For each internal node, the split report of every candidate attribute (see
        :meth:`BaseClassicTree.split_report`); ``None`` at leaves.
    """

    #: the id of each node in the tree this one was cut from (set by :meth:`subtree`)
    node_map_: NDArray[np.int64]

    def __init__(
        self,
        n_features: int,
        feature: ArrayLike,
        is_categorical: ArrayLike,
        threshold: ArrayLike,
        children: Iterable[ArrayLike],
        branch_fraction: Iterable[ArrayLike],
        value: ArrayLike,
        weighted_n_node_samples: ArrayLike,
        n_node_samples: ArrayLike,
        impurity: ArrayLike,
        depth: ArrayLike,
        parent: ArrayLike,
        report: Iterable[dict[str, Any] | None],
    ) -> None:
        self.n_features = n_features
        self.feature = np.asarray(feature, dtype=np.int64)
        self.is_categorical = np.asarray(is_categorical, dtype=bool)
        self.threshold = np.asarray(threshold, dtype=np.float64)
        self.children = [np.asarray(c, dtype=np.int64) for c in children]
        self.branch_fraction = [np.asarray(b, dtype=np.float64) for b in branch_fraction]
        self.value = np.asarray(value, dtype=np.float64)
        self.weighted_n_node_samples = np.asarray(weighted_n_node_samples, dtype=np.float64)
        self.n_node_samples = np.asarray(n_node_samples, dtype=np.float64)
        self.impurity = np.asarray(impurity, dtype=np.float64)
        self.depth = np.asarray(depth, dtype=np.int64)
        self.parent = np.asarray(parent, dtype=np.int64)
        self.report = list(report)

    @property
    def node_count(self) -> int:
        return self.feature.shape[0]

    @property
    def is_leaf(self) -> NDArray[np.bool_]:
        return self.feature < 0

    @property
    def n_leaves(self) -> int:
        return int(self.is_leaf.sum())

    @property
    def max_depth(self) -> int:
        return int(self.depth.max()) if self.node_count else 0

    def node_weights(self, X: Float64Array) -> sparse.csr_matrix:
        """Weight with which each row of the encoded matrix X reaches each node.

        Returns a CSR matrix of shape (n_samples, node_count): 1 along the path of a row
        with no missing value; fractions ``r_v`` below a test whose value is missing.
        The loop is over nodes, each node routing its rows with numpy.
        """
        n = X.shape[0]
        rows_of = {0: (np.arange(n), np.ones(n))}
        out_r, out_c, out_w = [], [], []
        for node in range(self.node_count):  # parents always precede children
            rows, w = rows_of.pop(node, (np.empty(0, np.int64), np.empty(0)))
            out_r.append(rows)
            out_c.append(np.full(rows.shape[0], node))
            out_w.append(w)
            if self.feature[node] < 0:
                continue
            for child, (r, cw) in zip(self.children[node], self._route(node, X, rows, w)):
                rows_of[int(child)] = (r, cw)
        return csr_matrix(
            (np.concatenate(out_w), (np.concatenate(out_r), np.concatenate(out_c))),
            shape=(n, self.node_count),
        )

    def _route(self, node, X, rows, w):
        """Rows (and weights) going down each branch of ``node``."""
        x = X[rows, self.feature[node]]
        missing = np.isnan(x)
        kids = self.children[node]
        if self.is_categorical[node]:
            code = np.where(missing, -1, np.nan_to_num(x, nan=-1)).astype(np.int64)
            missing |= code >= len(kids)
        else:
            code = np.where(x <= self.threshold[node], 0, 1)
        miss_rows, miss_w = rows[missing], w[missing]
        frac = self.branch_fraction[node]
        out = []
        for v in range(len(kids)):
            sel = (code == v) & ~missing
            r = np.concatenate([rows[sel], miss_rows]) if miss_rows.size else rows[sel]
            cw = np.concatenate([w[sel], miss_w * frac[v]]) if miss_rows.size else w[sel]
            out.append((r, cw))
        return out

    def predict_proba(self, X: Float64Array) -> Float64Array:
        """Weighted average of the class distributions of the leaves each row reaches."""
        W = self.node_weights(X)
        leaves = np.flatnonzero(self.is_leaf)
        proba = np.asarray(W[:, leaves] @ self.value[leaves])
        s = proba.sum(axis=1, keepdims=True)
        return proba / np.where(s > 0, s, 1.0)

    def subtree(self, leaves: Iterable[int]) -> MultiwayTree:
        """A copy in which every node of ``leaves`` becomes a leaf (its descendants go).

        Node ids are renumbered compactly in the original order; ``node_map_`` holds the
        original id of each new node.
        """
        leaves = set(int(v) for v in leaves)
        reached = [n for n, _, _, _ in preorder(tree_children(self), stop=leaves.__contains__)]
        keep = np.sort(np.asarray(reached, dtype=np.int64))
        new_id = {int(o): i for i, o in enumerate(keep)}
        cut = lambda o: o in leaves or self.feature[o] < 0  # noqa: E731
        feature = [(-1 if cut(o) else self.feature[o]) for o in keep]
        tree = MultiwayTree(
            self.n_features,
            feature,
            [self.is_categorical[o] and not cut(o) for o in keep],
            [np.nan if cut(o) else self.threshold[o] for o in keep],
            [[] if cut(o) else [new_id[int(c)] for c in self.children[o]] for o in keep],
            [[] if cut(o) else self.branch_fraction[o] for o in keep],
            self.value[keep],
            self.weighted_n_node_samples[keep],
            self.n_node_samples[keep],
            self.impurity[keep],
            self.depth[keep],
            [new_id.get(int(self.parent[o]), -1) for o in keep],
            [None if cut(o) else self.report[o] for o in keep],
        )
        tree.node_map_ = keep
        return tree

    # -- the state read from a model file ---------------------------------------------------

    _persist_attributes = (
        "n_features",
        "feature",
        "is_categorical",
        "threshold",
        "children",
        "branch_fraction",
        "value",
        "weighted_n_node_samples",
        "n_node_samples",
        "impurity",
        "depth",
        "parent",
        "report",
        "node_map_",
    )
    #: the arrays, one entry per node of ``feature``: ``n_classes`` and ``last_original``
    #: (the last node of the unpruned tree) are the owner's
    _state_spec = {
        "n_features": integer(1),
        "feature": array("int64", ndim=1),
        "is_categorical": array("bool", ("feature",)),
        "threshold": array("float64", ("feature",)),
        "value": array("float64", ("feature", "n_classes"), finite=True, low=0),
        **{
            name: array("float64", ("feature",), finite=True)
            for name in ("weighted_n_node_samples", "n_node_samples", "impurity")
        },
        "depth": array("int64", ("feature",)),
        "parent": array("int64", ("feature",)),
        "node_map_": array("int64", ("feature",), low=0, high="last_original", optional=True),
    }

    def _validate_state(
        self, where="tree", n_features=None, n_classes=None, columns=None, n_original=None
    ):
        """Raise ValueError unless the tree is one the routing and pruning code can walk.

        Node ids must satisfy ``child > parent`` (the grower and :meth:`subtree` number
        parents first), and every node but the root must be the child of exactly one
        node: no cycle, shared or unreachable node, so that :meth:`node_weights` (one pass
        over the nodes in id order) and the pruning and rule walks visit each node once.

        Parameters
        ----------
        where : str
        n_features : int or None
            Number of input columns; every tested attribute must be below it.
        n_classes : int or None
            Number of classes of the estimator (the columns of ``value``).
        columns : list of _Column or None
            The estimator's columns (already checked): a categorical node must test a
            categorical column and have one branch per category, a continuous node a
            continuous column, two branches and a finite threshold.
        n_original : int or None
            Node count of the unpruned tree that ``node_map_`` refers to.
        """
        state = vars(self)
        missing = [k for k in self._persist_attributes if k not in state and k != "node_map_"]
        if missing:
            raise ValueError(f"{where}: incomplete multiway tree (no {', '.join(missing)}).")
        checked = check_state(
            self,
            where,
            self._state_spec,
            {
                "n_classes": n_classes,
                "last_original": None if n_original is None else n_original - 1,
            },
        )
        nf, feature = checked["n_features"], checked["feature"]
        if n_features is not None and nf != n_features:
            raise ValueError(
                f"{where}.n_features: the tree has {nf}, the model {n_features} features."
            )
        n = feature.shape[0]
        if n == 0:
            raise ValueError(f"{where}: empty tree.")
        is_cat, threshold, value = (checked[k] for k in ("is_categorical", "threshold", "value"))
        depth, parent = checked["depth"], checked["parent"]
        for name in ("children", "branch_fraction", "report"):
            if not isinstance(getattr(self, name), list) or len(getattr(self, name)) != n:
                raise ValueError(f"{where}.{name}: must be a list of {n} entries (one per node).")
        if np.any(value.sum(axis=1) <= 0) or not np.all(np.isfinite(value.sum(axis=1))):
            raise ValueError(
                f"{where}.value: a node's class distribution is empty or its sum is not finite."
            )
        if parent[0] != -1 or depth[0] != 0:
            raise ValueError(f"{where}: the root (node 0) must have parent -1 and depth 0.")
        arrays = _NodeArrays(feature, is_cat, threshold, parent, depth, nf, n)
        n_children, all_kids = 0, []
        for i in range(n):
            rep = self.report[i]
            kids = check_array(self.children[i], f"{where}.children[{i}]", "int64", ndim=1)
            frac = check_array(
                self.branch_fraction[i],
                f"{where}.branch_fraction[{i}]",
                "float64",
                ndim=1,
                finite=True,
            )
            if not _check_node(where, i, kids, frac, rep, arrays, columns):
                continue
            n_children += kids.size
            all_kids.append(kids)
        kids = np.concatenate(all_kids) if all_kids else np.empty(0, np.int64)
        if n_children != n - 1 or np.unique(kids).size != kids.size:
            raise ValueError(
                f"{where}: the nodes do not form a tree (a node reachable twice, "
                f"or an unreachable node)."
            )


class _NodeArrays(NamedTuple):
    """The per-node arrays of a multiway tree that :func:`_check_node` reads."""

    feature: Any
    is_categorical: Any
    threshold: Any
    parent: Any
    depth: Any
    n_features: int
    n_nodes: int


def _check_node(where, i, kids, frac, rep, arrays, columns):
    """Raise ValueError unless node ``i`` is a well-formed leaf or split; return whether it
    is a split (whose children the caller counts)."""
    feature, is_cat, threshold, parent, depth, nf, n = arrays
    f = int(feature[i])
    if f < 0:
        if (
            f != -1
            or kids.size
            or frac.size
            or is_cat[i]
            or not np.isnan(threshold[i])
            or rep is not None
        ):
            raise ValueError(
                f"{where}: leaf {i} must have feature -1, no children, "
                f"no branch fractions, no threshold and no split "
                f"report."
            )
        return False
    if f >= nf:
        raise ValueError(f"{where}.feature: node {i} tests feature index {f}, outside [0, {nf}).")
    if kids.size < 2:
        raise ValueError(
            f"{where}.children[{i}]: internal node {i} has {kids.size} "
            f"children (a split has at least two branches)."
        )
    # children after their parent: no cycle is possible, and every id is in range
    if np.any(kids <= i) or np.any(kids >= n):
        raise ValueError(
            f"{where}.children[{i}]: a child index is out of range or "
            f"points backwards ({kids.tolist()[:8]}; the tree has {n} "
            f"nodes)."
        )
    if is_cat[i]:
        if not np.isnan(threshold[i]):
            raise ValueError(
                f"{where}.threshold: categorical node {i} has a "
                f"threshold ({threshold[i]!r}); a categorical test has "
                f"none."
            )
    elif kids.size != 2 or not np.isfinite(threshold[i]):
        raise ValueError(
            f"{where}: continuous node {i} must have two children and a finite threshold."
        )
    if columns is not None:
        col = columns[f]
        if is_cat[i] != (col.kind != "num"):
            raise ValueError(
                f"{where}: node {i} makes a "
                f"{'categorical' if is_cat[i] else 'threshold'} test on the "
                f"{'continuous' if col.kind == 'num' else 'categorical'} column {f}."
            )
        if is_cat[i] and kids.size != len(col.categories):
            raise ValueError(
                f"{where}: categorical node {i} has {kids.size} "
                f"branches, column {f} has {len(col.categories)} "
                f"categories (one branch per category)."
            )
    if frac.shape != kids.shape or np.any(frac < 0) or abs(frac.sum() - 1.0) > 1e-6:
        raise ValueError(
            f"{where}.branch_fraction[{i}]: must hold one share >= 0 per "
            f"branch ({kids.size}), summing to 1."
        )
    if np.any(parent[kids] != i) or np.any(depth[kids] != depth[i] + 1):
        raise ValueError(
            f"{where}: parent / depth of the children of node {i} do not match the children lists."
        )
    _check_report(rep, nf, f, f"{where}.report[{i}]")
    return True


#: keys of the split report of an internal multiway node (see _Grower._split)
_REPORT_ARRAYS = ("gain", "split_info", "admissible", "threshold", "rank")
#: keys a report of a model saved before the selection score and the chi-square test
#: were reported does not have
_REPORT_OPTIONAL = ("score", "p_value")


def _check_report(rep, n_features, f, where):
    """The split report of an internal node (read by ``split_report`` / ``gains_``)."""
    bad = ValueError(f"{where}: the split report is malformed.")
    if not isinstance(rep, dict) or not (
        {"entropy", "chosen", *_REPORT_ARRAYS}
        <= set(rep)
        <= {"entropy", "chosen", *_REPORT_ARRAYS, *_REPORT_OPTIONAL}
    ):
        raise bad
    for name in _REPORT_ARRAYS + tuple(k for k in _REPORT_OPTIONAL if k in rep):
        a = rep[name]
        if (
            not isinstance(a, np.ndarray)
            or a.shape != (n_features,)
            or a.dtype.kind not in ("b" if name == "admissible" else "iuf")
        ):
            raise bad
    if not is_real(rep["entropy"]) or not is_int(rep["chosen"]) or rep["chosen"] != f:
        raise bad


# -- input encoding --------------------------------------------------------------------
