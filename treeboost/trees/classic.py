"""The classic multiway decision trees: ID3 (Quinlan, 1986) and C4.5 (Quinlan, 1993).

Both grow one branch per value of a categorical attribute (an attribute is used at most
once on a path).  With ``D`` the samples of a node, ``p_k`` the (weighted) fraction of class
``k`` in ``D`` and ``D^v`` the samples taking value ``a^v`` of attribute ``a``:

* entropy          ``Ent(D) = -sum_k p_k log2 p_k``
* information gain ``Gain(D, a) = Ent(D) - sum_v |D^v|/|D| Ent(D^v)``
* split information (intrinsic value) ``IV(a) = -sum_v |D^v|/|D| log2(|D^v|/|D|)``
* gain ratio       ``Gain_ratio(D, a) = Gain(D, a) / IV(a)``

ID3 splits on the attribute of largest gain.  C4.5 takes, among the attributes whose gain
is at least the average gain of the candidates, the one of largest gain ratio (Quinlan's
heuristic, which stops the ratio from favouring attributes of tiny split information).
C4.5 also splits a continuous attribute in two at the midpoint of two adjacent distinct
values (``x <= t`` / ``x > t``, the cut of largest gain; such an attribute may be tested again
further down) and handles missing values with fractional weights (below).

Missing values (both estimators; C4.5's scheme).  With ``D~`` the samples whose value of
``a`` is known and ``rho = |D~| / |D|`` (weights), ``Gain(D, a) = rho * Gain(D~, a)``; the
split information counts "missing" as one more branch, as Quinlan's C4.5 code does.  A
sample whose value of the chosen attribute is missing goes down **every** branch with its
weight multiplied by the branch's share ``r_v = |D~^v| / |D~|`` of the known weight; at
prediction a row with a missing (or never seen) value is sent down every branch the same
way and the leaves' class distributions are averaged with those weights.

The tie-break rule.  Scores within ``1e-12`` of the best count as equal; the first attribute
in *priority order* wins.  The priority order is the column order, unless ``tie_break``
lists column names (or indices): those come first, in the given order, then the rest in
column order.  Between two classes of equal weight a leaf predicts the first of
``classes_`` (sorted labels), or the class ``class_tie_break`` ranks first
(:mod:`treeboost.trees.class_ties`).

A node becomes a leaf when its samples are all of one class, when no attribute has two
non-empty branches (no attribute left, or every remaining attribute takes one value), at
``max_depth``, below ``min_samples_split`` samples, or when the best gain is below
``min_gain``.  A branch of a categorical split that no training sample takes (an empty
branch) becomes a leaf labelled with the parent's class distribution.

The tree is a :class:`MultiwayTree`: flat per-node arrays plus a list of children per node.
All counting is vectorised: per node, one :func:`numpy.bincount` over the integer codes of
every categorical attribute at once, and one sort per continuous attribute.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.sparse import csr_matrix
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..persistence import PersistenceMixin, register, validate_part
from .attribute_costs import COST_MEASURES, cost_sensitive_score, resolve_feature_costs
from .chi_square import chi_square
from .class_ties import CLASS_TIE_BREAKS, class_rank, check_class_rank, top_class
from .missing_values import MISSING_RULES, fill_node, most_common
from ..persistence._checks import (
    check_array,
    check_classes,
    check_fitted,
    check_labels,
    is_int,
    is_real,
)
from ..persistence._spec import array, check_state, integer
from . import pruning as _pruning
from ..inspection._tree_view import preorder, tree_children
from .._input.encoding import EncoderMixin, check_weights
from .._input.targets import encode_classification_target

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Literal, TypeVar

    import pandas as pd
    from scipy import sparse

    from .._typing import (
        ArrayLike,
        CategoricalFeatures,
        Float64Array,
        NDArray,
        RandomStateLike,
    )

    _ClassicT = TypeVar("_ClassicT", bound="BaseClassicTree")

TIE_TOL = 1e-12

__all__ = ["ID3Classifier", "C45Classifier", "MultiwayTree", "entropy"]


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
                continue
            if f >= nf:
                raise ValueError(
                    f"{where}.feature: node {i} tests feature index {f}, outside [0, {nf})."
                )
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
                    f"{where}: parent / depth of the children of node {i} do not "
                    f"match the children lists."
                )
            _check_report(rep, nf, f, f"{where}.report[{i}]")
            n_children += kids.size
            all_kids.append(kids)
        kids = np.concatenate(all_kids) if all_kids else np.empty(0, np.int64)
        if n_children != n - 1 or np.unique(kids).size != kids.size:
            raise ValueError(
                f"{where}: the nodes do not form a tree (a node reachable twice, "
                f"or an unreachable node)."
            )


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
class _Column:
    """How one input column is turned into the codes the tree tests."""

    def __init__(self, kind, categories=None, edges=None):
        self.kind = kind  # "cat" (encoder codes), "int" (values), "bin", "num"
        self.categories = categories
        self.edges = edges

    _persist_attributes = ("kind", "categories", "edges")
    _KINDS = ("cat", "int", "bin", "num")

    def _validate_state(self, where="column", allow_continuous=True, categories=None):
        """``"cat"`` columns hold the encoder's categories (``categories``: the codes it
        emits index the branches), ``"int"`` columns sorted distinct values (found by
        binary search), ``"bin"`` columns sorted finite cut points and one label per
        interval, ``"num"`` columns (C4.5 only) nothing."""
        if set(vars(self)) != set(self._persist_attributes):
            raise ValueError(f"{where}: not a column description.")
        if self.kind not in self._KINDS:
            raise ValueError(
                f"{where}.kind: unknown column kind {self.kind!r:.40} (expected "
                f"one of {', '.join(self._KINDS)})."
            )
        if self.kind == "num":
            if not allow_continuous:
                raise ValueError(f"{where}: ID3 has no continuous columns.")
            if self.categories is not None or self.edges is not None:
                raise ValueError(f"{where}: a continuous column has no categories or edges.")
            return
        cats = check_labels(self.categories, f"{where}.categories")
        if self.kind == "int":
            check_array(cats, f"{where}.categories", ("int64", "float64"), finite=True)
            if self.edges is not None or np.any(np.diff(cats) <= 0):
                raise ValueError(f"{where}: integer values must be sorted and distinct.")
        elif self.kind == "bin":
            edges = check_array(self.edges, f"{where}.edges", "float64", ndim=1, finite=True)
            if np.any(np.diff(edges) <= 0) or len(cats) != edges.size + 1:
                raise ValueError(
                    f"{where}: bin edges must be sorted and distinct, with one label per interval."
                )
        elif self.edges is not None:
            raise ValueError(f"{where}: a categorical column has no edges.")
        else:
            if categories is None or len(categories) != len(cats) or list(categories) != list(cats):
                raise ValueError(f"{where}: the column does not match the input encoder.")


def _interval_labels(edges, decimals=4):
    bounds = np.concatenate([[-np.inf], edges, [np.inf]])
    f = lambda v: f"{v:.{decimals}g}"  # noqa: E731
    return np.array(
        [
            f"({f(a)}, {f(b)}]" if np.isfinite(b) else f"> {f(a)}"
            for a, b in zip(bounds[:-1], bounds[1:])
        ],
        dtype=object,
    )


# -- growth ----------------------------------------------------------------------------
@dataclass(frozen=True)
class _GrowOptions:
    """Mitchell's options of a grower (see the estimators' parameters)."""

    #: the cost of each attribute (None: no costs) and the cost-sensitive measure
    costs: Float64Array | None = None
    cost_measure: str = "tan_schlimmer"
    cost_weight: float = 1.0
    #: one of missing_values.MISSING_RULES
    missing: str = "fractional"
    #: split a node only if the chosen attribute's chi-square p-value is below this
    chi2_alpha: float | None = None


class _Grower:
    """Grows a :class:`MultiwayTree` depth first from codes/values and class labels.

    Each row of a node carries its sample weight ``sw`` and its fraction ``f`` (the product
    of the shares ``r_v`` of the branches it was sent down with a missing value): its
    weight in the node is ``sw * f`` and it counts as ``f`` samples (Quinlan's fractional
    cases) for ``min_samples_split`` and ``min_samples_leaf``.
    """

    def __init__(
        self,
        X,
        kinds,
        n_categories,
        y,
        sw,
        n_classes,
        criterion,
        priority,
        max_depth,
        min_samples_split,
        min_samples_leaf,
        min_gain,
        options=None,
    ):
        self.X = X
        # Mitchell's options (attribute costs, filled missing values, the chi-square
        # test) and the class tie-break rule: see _GrowOptions
        self.options = options if options is not None else _GrowOptions()
        self.cat = np.asarray(kinds) == "cat"
        self.n_categories = np.asarray(n_categories, dtype=np.int64)
        self.y = y
        self.sw = sw
        self.K = n_classes
        self.criterion = criterion
        self.rank = np.empty(len(priority), np.int64)
        self.rank[np.asarray(priority)] = np.arange(len(priority))
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_gain = min_gain
        self.cat_idx = np.flatnonzero(self.cat)
        self.num_idx = np.flatnonzero(~self.cat)
        # every categorical attribute gets a block of Vmax * K cells in one bincount
        self.vmax = int(self.n_categories[self.cat_idx].max()) if self.cat_idx.size else 0
        self.cat_offset = np.arange(self.cat_idx.size, dtype=np.int64) * self.vmax * self.K

    # per-attribute statistics (vectorised) ----------------------------------------------
    def _scores(self, counts, W, n_counts):
        """Gain (times rho), IV (missing as a branch) of partitions given as class counts
        of shape (n_attributes, n_branches, K); ``n_counts`` the same in sample counts."""
        nv = counts.sum(axis=2)
        Wk = nv.sum(axis=1)
        safe = np.where(Wk > 0, Wk, 1.0)
        ent_known = entropy(counts.sum(axis=1))
        cond = (nv * entropy(counts)).sum(axis=1) / safe
        gain = np.where(Wk > 0, Wk / W * (ent_known - cond), 0.0)
        missing = np.maximum(W - Wk, 0.0)
        missing[missing <= 1e-12 * W] = 0.0
        iv = entropy(np.concatenate([nv, missing[:, None]], axis=1))
        # Quinlan's admissibility: two branches with at least min_samples_leaf samples
        big = (n_counts >= self.min_samples_leaf - 1e-9) & (nv > 0)
        return gain, iv, nv, big.sum(axis=1) >= 2

    def _categorical(self, codes, w, f_rows, y, allowed):
        p = self.cat_idx.size
        if not p or not allowed[self.cat_idx].any():
            return None
        known = codes >= 0
        cells = (codes * self.K + y[:, None] + self.cat_offset[None, :])[known]
        size = p * self.vmax * self.K
        shape = (p, self.vmax, self.K)
        wk = np.broadcast_to(w[:, None], codes.shape)[known]
        counts = np.bincount(cells, weights=wk, minlength=size).reshape(shape)
        fk = np.broadcast_to(f_rows[:, None], codes.shape)[known]
        n_counts = np.bincount(cells, weights=fk, minlength=size).reshape(shape).sum(axis=2)
        gain, iv, nv, ok = self._scores(counts, w.sum(), n_counts)
        ok &= allowed[self.cat_idx]
        return gain, iv, nv, ok, counts

    def _numeric(self, x, w, f_rows, y):
        """Best bi-partition ``x <= t`` of a continuous attribute (largest gain)."""
        known = ~np.isnan(x)
        xk = x[known]
        if xk.size < 2:
            return None
        order = np.argsort(xk, kind="stable")
        xs = xk[order]
        cut = np.flatnonzero(xs[1:] > xs[:-1])  # last position of each left part
        if not cut.size:
            return None
        onehot = np.zeros((xs.size, self.K))
        onehot[np.arange(xs.size), y[known][order]] = w[known][order]
        cum = np.cumsum(onehot, axis=0)
        left = cum[cut]
        right = cum[-1] - left
        nleft = np.cumsum(f_rows[known][order])[cut]
        nright = f_rows[known].sum() - nleft
        counts = np.stack([left, right], axis=1)  # (n_cuts, 2, K)
        gain, iv, nv, ok = self._scores(counts, w.sum(), np.stack([nleft, nright], 1))
        if not ok.any():
            return None
        gain = np.where(ok, gain, -np.inf)
        b = int(np.argmax(gain >= gain.max() - TIE_TOL))  # smallest cut among ties
        cut_b = _midpoint(xs[cut[b]], xs[cut[b] + 1])
        return gain[b], iv[b], nv[b], cut_b, counts[b]

    def _stats(self, Xr, w, f_rows, y, allowed):
        """Arrays over all attributes: gain, IV, admissible, threshold, chi-square p-value;
        branch weights.  ``Xr``: the node's rows of X."""
        p = self.X.shape[1]
        gain = np.full(p, np.nan)
        iv = np.full(p, np.nan)
        ok = np.zeros(p, bool)
        thr = np.full(p, np.nan)
        tables = np.zeros((p, max(self.vmax, 2), self.K))
        branch = {}
        codes = np.nan_to_num(Xr[:, self.cat_idx], nan=-1).astype(np.int64)
        cat = self._categorical(codes, w, f_rows, y, allowed)
        if cat is not None:
            gain[self.cat_idx], iv[self.cat_idx], nv, ok[self.cat_idx], counts = cat
            tables[self.cat_idx, : self.vmax] = counts
            for j in np.flatnonzero(cat[3]):
                f = self.cat_idx[j]
                branch[int(f)] = nv[j, : self.n_categories[f]]
        for f in self.num_idx:
            res = self._numeric(Xr[:, f], w, f_rows, y)
            if res is not None:
                gain[f], iv[f], branch[int(f)], thr[f], tables[f, :2] = res
                ok[f] = True
        # an attribute already used on the path is no candidate (its report line goes)
        gain[~allowed] = np.nan
        iv[~allowed] = np.nan
        p_value = np.where(ok, chi_square(tables).p_value, np.nan)
        return gain, iv, ok, thr, p_value, branch

    # choice ----------------------------------------------------------------------------
    def _scores_of(self, gain, iv, ok):
        """The selection score of every attribute (NaN where not a candidate): the gain
        (ID3) or the gain ratio among the above-average gains (C4.5, ``-inf`` below the
        average), passed through the cost-sensitive measure when costs are given."""
        cands = np.flatnonzero(ok)
        out = np.full(gain.shape[0], np.nan)
        if not cands.size:
            return out
        g = gain[cands]
        if self.criterion == "gain":
            scores = g
        else:
            v = iv[cands]
            with np.errstate(divide="ignore", invalid="ignore"):
                scores = np.where(v > 0, g / np.where(v > 0, v, 1.0), 0.0)
        opt = self.options
        if opt.costs is not None:
            scores = cost_sensitive_score(
                scores, opt.costs[cands], opt.cost_measure, opt.cost_weight
            )
        if self.criterion != "gain":
            scores = np.where(g >= g.mean() - TIE_TOL, scores, -np.inf)
        out[cands] = scores
        return out

    def _best(self, scores, ok):
        """The chosen attribute (see the module's tie-break rule), or None."""
        cands = np.flatnonzero(ok)
        if not cands.size:
            return None
        cands = cands[np.argsort(self.rank[cands], kind="stable")]
        s = scores[cands]
        return int(cands[int(np.argmax(s >= s.max() - TIE_TOL))])

    # growth ----------------------------------------------------------------------------
    def grow(self):
        n = self.X.shape[0]
        nodes: list[dict[str, Any]] = []  # in creation order (parents first, depth first)
        stack = [(np.arange(n), np.ones(n), -1, 0, np.ones(self.X.shape[1], bool), None)]
        while stack:
            rows, frac, parent, depth, allowed, inherited = stack.pop()
            node = len(nodes)
            y = self.y[rows]
            w = self.sw[rows] * frac
            counts = np.bincount(y, weights=w, minlength=self.K).astype(np.float64)
            W = counts.sum()
            value = counts / W if W > 0 else inherited
            Xr = self.X[rows]
            if self.options.missing != "fractional":
                Xr = fill_node(Xr, y, w, self.options.missing == "most_common_class")
            rec = dict(
                feature=-1,
                is_cat=False,
                threshold=np.nan,
                children=[],
                fraction=[],
                value=value,
                weight=W,
                n=float(frac.sum()),
                impurity=float(entropy(counts)),
                depth=depth,
                parent=parent,
                report=None,
            )
            nodes.append(rec)
            if parent >= 0:
                nodes[parent]["children"].append(node)
            split = self._split(Xr, w, frac, y, counts, depth, allowed)
            if split is None:
                continue
            f, threshold, nv, report = split
            share = nv / nv.sum()
            if self.options.missing != "fractional":
                # a missing value at prediction takes the branch of the node's most
                # common value (see missing_values)
                share = self._fill_branch(f, self.X[rows, f], w, threshold, share.shape[0])
            rec.update(
                feature=f,
                is_cat=bool(self.cat[f]),
                threshold=threshold,
                report=report,
                fraction=share,
            )
            child_allowed = allowed
            if self.cat[f]:  # a categorical attribute is used once per path
                child_allowed = allowed.copy()
                child_allowed[f] = False
            branches = self._partition(f, Xr[:, f], rows, frac, threshold, share)
            # pushed in reverse so that the children get ids in branch order
            for r, fr in reversed(branches):
                stack.append((r, fr, node, depth + 1, child_allowed, value))
        return self._build(nodes)

    def _fill_branch(self, f, x, w, threshold, n_branches):
        """One-hot branch shares: the branch of the most common value of ``x``."""
        value = most_common(x, w)
        share = np.zeros(n_branches)
        share[int(value) if self.cat[f] else int(value > threshold)] = 1.0
        return share

    def _split(self, Xr, w, frac, y, counts, depth, allowed):
        """(attribute, threshold, branch weights, report) or None for a leaf."""
        W = counts.sum()
        if (
            np.count_nonzero(counts > 1e-12 * W) <= 1
            or frac.sum() < self.min_samples_split - 1e-9
            or (self.max_depth is not None and depth >= self.max_depth)
        ):
            return None
        gain, iv, ok, thr, p_value, branch = self._stats(Xr, w, frac, y, allowed)
        scores = self._scores_of(gain, iv, ok)
        f = self._best(scores, ok)
        if f is None or gain[f] < self.min_gain:
            return None
        alpha = self.options.chi2_alpha
        if alpha is not None and not p_value[f] < alpha:
            return None
        # the report keeps raw arrays; BaseClassicTree.split_report formats them
        report = dict(
            entropy=float(entropy(counts)),
            gain=gain,
            split_info=iv,
            admissible=ok,
            threshold=thr,
            chosen=f,
            rank=self.rank,
            score=scores,
            p_value=p_value,
        )
        return f, thr[f], branch[f], report

    def _partition(self, f, x, rows, frac, threshold, share):
        """(rows, fractions) of each branch; missing values go down every branch."""
        missing = np.isnan(x)
        if self.cat[f]:
            code = np.where(missing, -1, np.nan_to_num(x, nan=-1)).astype(np.int64)
        else:
            code = np.where(missing, -1, np.where(x <= threshold, 0, 1))
        n_branches = share.shape[0]
        known = ~missing
        order = np.argsort(code[known], kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(code[known], minlength=n_branches))])
        kr, kf = rows[known][order], frac[known][order]
        mr, mf = rows[missing], frac[missing]
        out = []
        for v in range(n_branches):
            r, fr = kr[bounds[v] : bounds[v + 1]], kf[bounds[v] : bounds[v + 1]]
            if mr.size and share[v] > 0:
                r, fr = np.concatenate([r, mr]), np.concatenate([fr, mf * share[v]])
            out.append((r, fr))
        return out

    def _build(self, nodes):
        get = lambda k: [r[k] for r in nodes]  # noqa: E731
        return MultiwayTree(
            self.X.shape[1],
            get("feature"),
            get("is_cat"),
            get("threshold"),
            get("children"),
            get("fraction"),
            np.vstack(get("value")),
            get("weight"),
            get("n"),
            get("impurity"),
            get("depth"),
            get("parent"),
            get("report"),
        )


def _midpoint(a, b):
    """The threshold of the cut between adjacent distinct values ``a < b``: their midpoint,
    or ``a`` where the midpoint is not strictly below ``b``.

    ``x <= t`` must send ``a`` left and ``b`` right, or the node's rows would all go to
    one branch and the same split be chosen again without end.  ``(a + b) / 2``
    overflows to infinity for values near the largest float, and rounds onto ``b`` for
    values one unit in the last place apart or subnormal; ``a / 2 + b / 2`` cannot
    overflow, and is the same number as ``(a + b) / 2`` wherever the halves are normal
    and the sum finite."""
    a, b = float(a), float(b)
    t = a / 2.0 + b / 2.0
    return t if a <= t < b else a


# -- estimators ------------------------------------------------------------------------
class BaseClassicTree(PersistenceMixin, EncoderMixin, ClassifierMixin, BaseEstimator):
    """Shared fitting, prediction and reports of :class:`ID3Classifier` and
    :class:`C45Classifier`."""

    _criterion = "gain"
    _allow_continuous = False
    # the multiway learners read their columns whole: a sparse X is refused
    _accepts_sparse = False

    _parameter_constraints = {
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_samples_split": [Interval(Integral, 2, None, closed="left")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "min_gain": [Interval(Real, 0.0, None, closed="left")],
        "tie_break": ["array-like", None],
        "categorical_features": ["array-like", StrOptions({"auto"}), None],
        "pruning": [StrOptions({"pre", "post", "mitchell", "pessimistic"}), None],
        "validation_fraction": [Interval(Real, 0.0, 1.0, closed="neither")],
        "confidence_factor": [Interval(Real, 0.0, 0.5, closed="right")],
        "random_state": ["random_state"],
        "feature_costs": ["array-like", dict, None],
        "cost_measure": [StrOptions(set(COST_MEASURES))],
        "cost_weight": [Interval(Real, 0.0, 1.0, closed="both")],
        "missing": [StrOptions(set(MISSING_RULES))],
        "chi2_alpha": [Interval(Real, 0.0, 1.0, closed="neither"), None],
        "class_tie_break": [StrOptions(set(CLASS_TIE_BREAKS)), "array-like"],
    }

    # -- encoding ------------------------------------------------------------------------
    def _encode(self, X, reset):
        Xe = self._encode_X(X, reset=reset).astype(np.float64, copy=True)
        enc = self._encoder
        names = getattr(self, "feature_names_in_", None)
        if reset:
            self._columns = [
                self._learn_column(Xe[:, f], f, enc, names) for f in range(Xe.shape[1])
            ]
        for f, col in enumerate(self._columns):
            x = Xe[:, f]
            if col.kind == "int":
                Xe[:, f] = _lookup(col.categories, x)
            elif col.kind == "bin":
                Xe[:, f] = np.where(np.isnan(x), np.nan, np.searchsorted(col.edges, x, side="left"))
        return Xe

    def _learn_column(self, x, f, enc, names):
        if enc.is_categorical_[f]:
            return _Column("cat", categories=enc.categories_[f])
        known = x[~np.isnan(x)]
        if self._allow_continuous:
            return _Column("num")
        if np.all(known == np.round(known)):
            return _Column("int", categories=np.unique(known))
        name = names[f] if names is not None else f"x{f}"
        if self.n_bins is None:
            raise ValueError(
                f"ID3 handles categorical attributes only, and column {name!r} is "
                f"continuous (non-integer numbers). Use C45Classifier, discretise the "
                f"column, or pass n_bins=k to cut it at its k-quantiles."
            )
        edges = (
            np.unique(np.quantile(known, np.linspace(0, 1, self.n_bins + 1)[1:-1]))
            if known.size
            else np.empty(0)
        )
        return _Column("bin", categories=_interval_labels(edges), edges=edges)

    @property
    def categories_(self) -> list[NDArray[Any] | None]:
        """Values of each attribute, in code order (None for continuous ones)."""
        check_is_fitted(self, "tree_")
        return [c.categories for c in self._columns]

    def _priority(self, n_features):
        """Column order with the ``tie_break`` columns first (see the module docs)."""
        if self.tie_break is None:
            return np.arange(n_features)
        names = list(getattr(self, "feature_names_in_", []))
        first = []
        for item in self.tie_break:
            if isinstance(item, (bool, np.bool_)):
                # True / False are Integral: refused, or [True] would mean column 1
                raise ValueError(f"tie_break must list column names or indices, got {item!r}.")
            if isinstance(item, (Integral, np.integer)):
                idx = int(item)
            elif item in names:
                idx = names.index(item)
            else:
                raise ValueError(f"tie_break names an unknown column {item!r}.")
            if not 0 <= idx < n_features:
                raise ValueError(f"tie_break index {idx} out of range.")
            if idx not in first:
                first.append(idx)
        return np.array(first + [f for f in range(n_features) if f not in first])

    # -- fit -----------------------------------------------------------------------------
    def fit(
        self: _ClassicT,
        X: ArrayLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        X_val: ArrayLike | None = None,
        y_val: ArrayLike | None = None,
    ) -> _ClassicT:
        """Grow the tree (then prune it if ``pruning`` is set).

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Categorical columns (pandas category/object/string, or named in
            ``categorical_features``) branch once per category; NaN is a missing value.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative, not all zero, summing to at most ``1e300``.
        X_val, y_val : validation set for ``pruning="pre"`` / ``"post"`` / ``"mitchell"``;
            when not given,
            a ``validation_fraction`` of (X, y) is held out (stratified) instead.  Both
            or neither must be given, and only with those two pruning modes.

        Raises
        ------
        ValueError
            On invalid parameters, input or weights, and on a validation set that the
            ``pruning`` mode does not use.

        Returns
        -------
        self
        """
        self._validate_params()
        if (X_val is None) != (y_val is None):
            raise ValueError("X_val and y_val must be given together (or neither).")
        if X_val is not None and self.pruning not in _VALIDATION_PRUNINGS:
            # silently ignoring a validation set would hide a mistake
            raise ValueError(
                f"X_val / y_val are used by pruning='pre', 'post' or 'mitchell' only; "
                f"pruning={self.pruning!r} does not use them."
            )
        if self.pruning in _VALIDATION_PRUNINGS and X_val is None:
            X, y, sample_weight, X_val, y_val = self._hold_out(X, y, sample_weight)
        Xe = self._encode(X, reset=True)
        self.classes_, y_enc = encode_classification_target(y, Xe.shape[0])
        self.n_classes_ = self.classes_.shape[0]
        self.class_rank_ = class_rank(self.class_tie_break, self.classes_, y_enc)
        names = getattr(self, "feature_names_in_", None)
        options = _GrowOptions(
            resolve_feature_costs(self.feature_costs, Xe.shape[1], names),
            self.cost_measure,
            float(self.cost_weight),
            self.missing,
            None if self.chi2_alpha is None else float(self.chi2_alpha),
        )
        # check_weights bounds the total at 1e300, so that c log2 c of the class
        # weights (the entropies) cannot overflow
        w = check_weights(sample_weight, Xe)
        keep = w > 0
        kinds = ["num" if c.kind == "num" else "cat" for c in self._columns]
        n_cat = [0 if c.kind == "num" else len(c.categories) for c in self._columns]
        grower = _Grower(
            Xe[keep],
            kinds,
            n_cat,
            y_enc[keep],
            w[keep],
            self.n_classes_,
            self._criterion,
            self._priority(Xe.shape[1]),
            self.max_depth,
            self.min_samples_split,
            self.min_samples_leaf,
            self.min_gain,
            options,
        )
        self.tree_ = grower.grow()
        self.pruning_report_ = []
        if self.pruning is not None:
            if self.pruning == "pessimistic":
                pruned, report = _pruning.pessimistic_pruning(
                    self, confidence_factor=self.confidence_factor, return_report=True
                )
            else:
                fn = {
                    "pre": _pruning.pre_pruning,
                    "post": _pruning.reduced_error_pruning,
                    "mitchell": _pruning.mitchell_reduced_error_pruning,
                }[self.pruning]
                # given with X_val (checked above), or held out with it
                assert y_val is not None
                pruned, report = fn(self, X_val, y_val, return_report=True)
            self.unpruned_tree_ = self.tree_
            self.tree_ = pruned.tree_
            self.pruning_report_ = report
        return self

    def _hold_out(self, X, y, sample_weight):
        return hold_out(X, y, sample_weight, self.validation_fraction, self.random_state)

    # -- prediction ------------------------------------------------------------------------
    def _transform(self, X):
        check_is_fitted(self, "tree_")
        return self._encode(X, reset=False)

    def predict_proba(self, X: ArrayLike) -> Float64Array:
        """Class probabilities: the leaves' class distributions, averaged with the
        fractional weights of the branches a missing value goes down."""
        Xe = self._transform(X)
        return self.tree_.predict_proba(Xe)

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """Most probable class (ties: ``class_tie_break``)."""
        check_is_fitted(self, "tree_")
        return self.classes_[top_class(self.predict_proba(X), self._class_rank())]

    def _class_rank(self):
        """The priority of each class at a tie (a model saved before ``class_rank_``
        existed ranks them sorted)."""
        return getattr(self, "class_rank_", None)

    def apply(self, X: ArrayLike) -> NDArray[np.intp]:
        """Leaf reached by each row (for a row split over several leaves by missing
        values: the leaf of largest weight)."""
        W = self.tree_.node_weights(self._transform(X)).toarray()
        W[:, ~self.tree_.is_leaf] = -1
        return np.argmax(W, axis=1)

    def get_depth(self) -> int:
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    # -- reports ---------------------------------------------------------------------------
    @property
    def gains_(self) -> list[list[dict[str, Any]] | None]:
        """For each node, its split report as a list of dicts (see :meth:`split_report`);
        None at leaves."""
        check_is_fitted(self, "tree_")
        return [None if r is None else self._report_rows(r) for r in self.tree_.report]

    def _report_rows(self, rep):
        names = (
            list(self.feature_names_in_)
            if hasattr(self, "feature_names_in_")
            else [f"x{i}" for i in range(self.n_features_in_)]
        )
        ok = rep["admissible"]
        avg = float(np.mean(rep["gain"][ok])) if ok.any() else 0.0
        costs = resolve_feature_costs(self.feature_costs, len(names), names)
        rows = []
        for f in range(len(names)):
            gain, iv = rep["gain"][f], rep["split_info"][f]
            if np.isnan(gain):  # not a candidate here (already used on the path)
                continue
            row = dict(
                feature=names[f],
                gain=float(gain),
                split_info=float(iv),
                gain_ratio=float(gain / iv) if iv > 0 else np.nan,
                threshold=float(rep["threshold"][f]),
                admissible=bool(ok[f]),
                above_average_gain=bool(ok[f] and gain >= avg - TIE_TOL),
            )
            if costs is not None:
                row["cost"] = float(costs[f])
            if "score" in rep:
                row["score"] = float(rep["score"][f])
                row["p_value"] = float(rep["p_value"][f])
            row["chosen"] = f == rep["chosen"]
            rows.append(row)
        return rows

    def split_report(
        self, node: int = 0, as_frame: bool = True
    ) -> pd.DataFrame | list[dict[str, Any]]:
        """Each candidate attribute's Gain, IV and Gain_ratio at ``node`` (column order).

        Columns: ``feature``, ``gain`` (``rho * Gain(D~, a)``), ``split_info`` (``IV(a)``),
        ``gain_ratio``, ``threshold`` (continuous attributes: the best cut),
        ``admissible`` (at least two non-empty branches), ``above_average_gain`` (C4.5's
        eligibility), ``cost`` (with ``feature_costs``), ``score`` (the selection
        measure the largest of which is chosen: the gain or the gain ratio, through the
        cost measure with ``feature_costs``; ``-inf`` below C4.5's average gain),
        ``p_value`` (of the split's chi-square test, :mod:`~treeboost.trees.chi_square`)
        and ``chosen``.  Returns a pandas DataFrame (or a list of dicts with
        ``as_frame=False``); its ``attrs`` hold the node's ``entropy`` (``Ent(D)``) and
        ``average_gain``.
        """
        check_is_fitted(self, "tree_")
        n_nodes = self.tree_.node_count
        if (
            not isinstance(node, (Integral, np.integer))
            or isinstance(node, (bool, np.bool_))
            or not 0 <= node < n_nodes
        ):
            # a negative index would silently mean a node counted from the end
            raise ValueError(f"node must be a node id in [0, {n_nodes}), got {node!r}.")
        rep = self.tree_.report[int(node)]
        if rep is None:
            raise ValueError(f"Node {node} is a leaf: it has no split report.")
        rows = self._report_rows(rep)
        if not as_frame:
            return rows
        import pandas as pd

        df = pd.DataFrame(rows)
        ok = rep["admissible"]
        df.attrs.update(
            entropy=rep["entropy"],
            average_gain=float(np.mean(rep["gain"][ok])) if ok.any() else 0.0,
        )
        return df

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    # -- the state read from a model file ---------------------------------------------------

    _persist_attributes = (
        "classes_",
        "n_classes_",
        "_columns",
        "tree_",
        "unpruned_tree_",
        "pruning_report_",
        "class_rank_",
    )

    def _validate_state(self, where="model", **context):
        """Check a loaded ID3 / C4.5 model: its columns against the input encoder, its
        classes, its tree(s) against both, and the pruning report."""
        super()._validate_state(where, **context)
        required = [
            "n_features_in_",
            "_encoder",
            "classes_",
            "n_classes_",
            "_columns",
            "tree_",
            "pruning_report_",
        ]
        if not check_fitted(self, where, required):
            return
        n = self.n_features_in_
        K = check_classes(self, where)
        if "class_rank_" in vars(self):
            check_class_rank(self.class_rank_, K, where)
        enc = self._encoder
        cols = self._columns
        if not isinstance(cols, list) or len(cols) != n:
            raise ValueError(f"{where}._columns: must be a list of {n} columns.")
        for f, col in enumerate(cols):
            is_cat = bool(enc.is_categorical_[f])
            if type(col) is not _Column or (col.kind == "cat") != is_cat:
                raise ValueError(
                    f"{where}._columns[{f}]: the column does not match the input encoder."
                )
            validate_part(
                col,
                f"{where}._columns[{f}]",
                expect=_Column,
                allow_continuous=type(self)._allow_continuous,
                categories=enc.categories_[f],
            )
        original = None
        if "unpruned_tree_" in vars(self):
            validate_part(
                self.unpruned_tree_,
                f"{where}.unpruned_tree_",
                expect=MultiwayTree,
                n_features=n,
                n_classes=K,
                columns=cols,
            )
            original = self.unpruned_tree_.node_count
        validate_part(
            self.tree_,
            f"{where}.tree_",
            expect=MultiwayTree,
            n_features=n,
            n_classes=K,
            columns=cols,
            n_original=original,
        )
        report = self.pruning_report_
        if not isinstance(report, list) or not all(
            isinstance(r, dict)
            and all(
                isinstance(k, str) and (v is None or isinstance(v, (str, int, float, bool)))
                for k, v in r.items()
            )
            for r in report
        ):
            raise ValueError(
                f"{where}.pruning_report_: must be a list of records of numbers and strings."
            )


def hold_out(X, y, sample_weight, fraction, random_state):
    """``(X_train, y_train, sw_train, X_val, y_val)``: a share ``fraction`` of the rows
    held out for validation, stratified by class when every class has two rows."""
    from sklearn.model_selection import train_test_split

    y_arr = np.asarray(y)
    _, counts = np.unique(y_arr, return_counts=True)
    strat = y_arr if counts.min() >= 2 else None
    parts = train_test_split(
        *(a for a in (X, y, sample_weight) if a is not None),
        test_size=fraction,
        stratify=strat,
        random_state=random_state,
    )
    if sample_weight is None:
        X_tr, X_val, y_tr, y_val = parts
        return X_tr, y_tr, None, X_val, y_val
    X_tr, X_val, y_tr, y_val, sw_tr, _ = parts
    return X_tr, y_tr, sw_tr, X_val, y_val


#: the pruning modes that read a validation set
_VALIDATION_PRUNINGS = ("pre", "post", "mitchell")


def _lookup(values, x):
    """Index of each x in the sorted ``values`` (NaN when absent or missing)."""
    out = np.full(x.shape[0], np.nan)
    if not len(values):
        return out
    pos = np.clip(np.searchsorted(values, x), 0, len(values) - 1)
    found = ~np.isnan(x) & (values[pos] == x)
    out[found] = pos[found]
    return out


_DOC_PARAMS = """
    max_depth : int or None, default=None
        Maximum depth (the root has depth 0).
    min_samples_split : int, default=2
        A node with fewer (fractional) samples stays a leaf.
    min_samples_leaf : int, default=1
        A split is admissible only if at least two of its branches hold this many
        (fractional) samples -- Quinlan's MINOBJS, 2 in his C4.5 program; 1 follows the book.
    min_gain : float, default=0.0
        A node whose chosen attribute gains less than this stays a leaf.
    tie_break : list of str or int, or None, default=None
        Priority order for exact ties (within 1e-12): these columns first, in the given
        order, then the others in column order.  ``None``: column order.
    categorical_features : None, "auto" or array-like, default=None
        As in :class:`~treeboost.DecisionTreeClassifier`.
    pruning : {None, "pre", "post", "mitchell", "pessimistic"}, default=None
        ``"pre"``: the book's pre-pruning, ``"post"``: Zhou's reduced-error post-pruning
        (one bottom-up pass), ``"mitchell"``: Mitchell's reduced-error pruning (remove the
        node whose removal most increases validation accuracy, again and again, while
        no removal hurts), all three on the validation set passed to ``fit`` or held out;
        ``"pessimistic"``: C4.5's error-based pruning with ``confidence_factor``.  See
        :mod:`treeboost.trees.pruning`.
    validation_fraction : float, default=0.3
        Share of the training rows held out (stratified) for the validation-set prunings
        when ``fit`` receives no ``X_val``.
    confidence_factor : float in (0, 0.5], default=0.25
        CF of ``"pessimistic"`` pruning.
    random_state : int or None, default=None
        Seeds the hold-out split.
    feature_costs : dict, array-like or None, default=None
        The cost of measuring each attribute (Mitchell, 3.7.5): a dict of column names
        (or indices) to costs > 0, the others costing 1, or one cost per column.  The
        attribute of largest ``cost_measure`` of its score (``Gain`` for ID3, the gain
        ratio among the above-average gains for C4.5) is chosen.  See
        :mod:`treeboost.trees.attribute_costs`.
    cost_measure : {"tan_schlimmer", "nunez"}, default="tan_schlimmer"
        Tan and Schlimmer's ``Gain^2(S, A) / Cost(A)`` or Núñez's
        ``(2^Gain(S, A) - 1) / (Cost(A) + 1)^w``.
    cost_weight : float in [0, 1], default=1.0
        Núñez's ``w``, the weight of the cost against the gain.
    missing : {"fractional", "most_common", "most_common_class"}, default="fractional"
        Missing values: Quinlan's fractional cases (the module docs), or Mitchell's
        (3.7.4) fills, at each node, by the attribute's most common value among the
        node's examples (``"most_common"``) or among its examples of the same class
        (``"most_common_class"``).  See :mod:`treeboost.trees.missing_values`.
    chi2_alpha : float in (0, 1) or None, default=None
        Pre-pruning by a chi-square test (Quinlan, 1986; Mitchell, 3.7.1): a node is
        split only if its chosen attribute's split has a p-value below ``chi2_alpha``
        under the hypothesis that the attribute is irrelevant to the class.  See
        :mod:`treeboost.trees.chi_square`.
    class_tie_break : {"sorted", "first_seen"} or list of labels, default="sorted"
        The class a leaf predicts between classes of equal weight: the first of
        ``classes_``, the first to appear in ``y`` (Quinlan's programs and the figures of
        Zhou's book), or the listed labels first.  See :mod:`treeboost.trees.class_ties`.
"""


class ID3Classifier(BaseClassicTree):
    __doc__ = (
        """ID3: a multiway tree on categorical attributes, split by information gain.

    ``Gain(D, a) = Ent(D) - sum_v |D^v|/|D| Ent(D^v)`` with ``Ent(D) = -sum_k p_k log2 p_k``;
    the attribute of largest gain is chosen (ties: see ``tie_break``) and gets one branch
    per category.  See :mod:`treeboost.trees.classic` for missing values and stopping.

    Parameters
    ----------
    n_bins : int or None, default=None
        A numeric column whose values are all integers is taken as categorical (one branch
        per distinct value).  A column with other numbers is continuous, which ID3 cannot
        split: with ``n_bins=None`` fitting raises a ``ValueError`` naming the column; with
        ``n_bins=k`` the column is cut at its ``k``-quantiles (learned at fit) and each
        interval is one category."""
        + _DOC_PARAMS
        + """
    Attributes
    ----------
    classes_, n_classes_, n_features_in_, feature_names_in_
    tree_ : MultiwayTree
    gains_ : list
        The split report of each node (see :meth:`split_report`).
    categories_ : list
    pruning_report_ : list of dict
        The steps of the pruning done by ``fit`` (empty without ``pruning``).

    Examples
    --------
    >>> from treeboost.datasets import load_watermelon
    >>> from treeboost.trees.classic import ID3Classifier
    >>> melons = load_watermelon()
    >>> clf = ID3Classifier().fit(melons.data, melons.target)
    >>> gains = clf.split_report(0).set_index("feature")["gain"]
    >>> gains.round(3).to_dict()
    {'色泽': 0.108, '根蒂': 0.143, '敲声': 0.141, '纹理': 0.381, '脐部': 0.289, '触感': 0.006}

    The book prints 0.109 for 色泽: its intermediates rounded to three places
    (``0.998 - (6/17 * 1.000 + 6/17 * 0.918 + 5/17 * 0.722)``) give 0.1087; the exact
    gain is 0.1081.

    >>> round(float(gains["色泽"]), 4)
    0.1081
    """
    )

    _criterion = "gain"
    _allow_continuous = False
    # the multiway learners read their columns whole: a sparse X is refused
    _accepts_sparse = False
    _parameter_constraints = {
        **BaseClassicTree._parameter_constraints,
        "n_bins": [Interval(Integral, 2, None, closed="left"), None],
    }

    def __init__(
        self,
        *,
        max_depth: int | None = None,
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        min_gain: float = 0.0,
        tie_break: Sequence[str | int] | None = None,
        n_bins: int | None = None,
        categorical_features: CategoricalFeatures = None,
        pruning: Literal["pre", "post", "mitchell", "pessimistic"] | None = None,
        validation_fraction: float = 0.3,
        confidence_factor: float = 0.25,
        random_state: RandomStateLike = None,
        feature_costs: dict[str | int, float] | ArrayLike | None = None,
        cost_measure: Literal["tan_schlimmer", "nunez"] = "tan_schlimmer",
        cost_weight: float = 1.0,
        missing: Literal["fractional", "most_common", "most_common_class"] = "fractional",
        chi2_alpha: float | None = None,
        class_tie_break: str | Sequence[Any] = "sorted",
    ) -> None:
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_gain = min_gain
        self.tie_break = tie_break
        self.n_bins = n_bins
        self.categorical_features = categorical_features
        self.pruning = pruning
        self.validation_fraction = validation_fraction
        self.confidence_factor = confidence_factor
        self.random_state = random_state
        self.feature_costs = feature_costs
        self.cost_measure = cost_measure
        self.cost_weight = cost_weight
        self.missing = missing
        self.chi2_alpha = chi2_alpha
        self.class_tie_break = class_tie_break


class C45Classifier(BaseClassicTree):
    __doc__ = (
        """C4.5: multiway categorical splits and binary continuous ones, by gain ratio.

    Among the attributes whose gain is at least the average gain of the candidates, the
    one of largest ``Gain_ratio(D, a) = Gain(D, a) / IV(a)``, with
    ``IV(a) = -sum_v |D^v|/|D| log2 |D^v|/|D|``, is chosen.  Numeric columns are continuous:
    ``x <= t`` with ``t`` the midpoint of two adjacent distinct values of largest gain.
    Missing values get fractional weights at fit and at predict (see
    :mod:`treeboost.trees.classic`).
"""
        + "\n    Parameters\n    ----------"
        + _DOC_PARAMS
        + """
    Attributes
    ----------
    As :class:`ID3Classifier`.

    Notes
    -----
    Unlike Quinlan's program, no MDL correction is applied to the gain of continuous
    cuts, and pruning is off by default (``pruning="pessimistic"`` gives C4.5's).
    """
    )

    _criterion = "gain_ratio"
    _allow_continuous = True
    n_bins = None

    def __init__(
        self,
        *,
        max_depth: int | None = None,
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        min_gain: float = 0.0,
        tie_break: Sequence[str | int] | None = None,
        categorical_features: CategoricalFeatures = None,
        pruning: Literal["pre", "post", "mitchell", "pessimistic"] | None = None,
        validation_fraction: float = 0.3,
        confidence_factor: float = 0.25,
        random_state: RandomStateLike = None,
        feature_costs: dict[str | int, float] | ArrayLike | None = None,
        cost_measure: Literal["tan_schlimmer", "nunez"] = "tan_schlimmer",
        cost_weight: float = 1.0,
        missing: Literal["fractional", "most_common", "most_common_class"] = "fractional",
        chi2_alpha: float | None = None,
        class_tie_break: str | Sequence[Any] = "sorted",
    ) -> None:
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_gain = min_gain
        self.tie_break = tie_break
        self.categorical_features = categorical_features
        self.pruning = pruning
        self.validation_fraction = validation_fraction
        self.confidence_factor = confidence_factor
        self.random_state = random_state
        self.feature_costs = feature_costs
        self.cost_measure = cost_measure
        self.cost_weight = cost_weight
        self.missing = missing
        self.chi2_alpha = chi2_alpha
        self.class_tie_break = class_tie_break


register(ID3Classifier, C45Classifier, MultiwayTree, _Column)
