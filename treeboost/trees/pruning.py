"""Pruning of fitted trees: pre-pruning and reduced-error post-pruning on a validation set,
cost-complexity pruning (CART, scikit-learn's ``ccp_alpha``) and C4.5's pessimistic
(error-based) pruning.

Every function takes a fitted tree estimator -- :class:`~treeboost.DecisionTreeClassifier`,
:class:`~treeboost.DecisionTreeRegressor` (cost-complexity only), or the multiway
:class:`~treeboost.trees.classic.ID3Classifier` / ``C45Classifier`` -- and returns a
**pruned copy** (a shallow copy of the estimator with a new ``tree_``; the input is left
as it is).  The pruned tree keeps a subset of the original nodes (node ids renumbered
compactly, parents before children); ``pruned.tree_.node_map_`` gives each new node's id
in the original tree.  Pruning only turns internal nodes into leaves, so it never
increases the number of leaves and the result is a subtree of the input.

Validation-set pruning (Zhou, *Machine Learning*, 4.3).  ``acc(T)`` is the fraction of
validation rows that tree ``T`` classifies correctly; a row with a missing value split over
several branches counts with its fractional weights.

* :func:`pre_pruning` (预剪枝): top-down (breadth first), a node keeps its split only if
  the tree with the node's children as leaves is *strictly* more accurate than with the
  node as a leaf; otherwise the node becomes a leaf and its subtree is never grown.  Our
  trees are grown greedily (a node's split does not depend on what happens below it), so
  truncating the fully grown tree top-down gives exactly the tree that pre-pruning during
  growth would give.
* :func:`reduced_error_pruning` (后剪枝): bottom-up (deepest nodes first), a subtree is
  replaced by a leaf when validation accuracy does **not get worse** (``tie="prune"``,
  the default): on equal accuracy the smaller tree is kept, by Occam's razor and because
  a tie on a small validation set is no evidence for the subtree.  ``tie="keep"`` prunes
  only on a strict improvement (the book's figure 4.7 keeps tied subtrees).
* :func:`mitchell_reduced_error_pruning` (Mitchell, *Machine Learning*, 3.7.1.1): again
  and again, the node whose removal most increases validation accuracy is removed, while
  some removal does not lower it; every node is judged again after each removal.

Each step is reported as a dict: ``node`` (id in the original tree), ``feature``,
``accuracy_before``, ``accuracy_after`` (of the whole tree on the validation set, before
and after the step) and ``decision``.

Cost-complexity pruning (Breiman et al., 1984), exactly as scikit-learn: with
``R(t) = w_t / w_root * impurity(t)`` and ``R(T_t)`` the sum over the leaves of the
subtree ``T_t``, the weakest link is the internal node of smallest
``alpha_eff(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1)``; it is pruned, and so on until
only the root is left.  :func:`cost_complexity_pruning_path` returns those alphas (the first
is 0) and the total leaf impurity after each step; :func:`prune_ccp` prunes while
``alpha_eff <= ccp_alpha``.

Pessimistic pruning (Quinlan, *C4.5*, 1993).  A leaf covering ``N`` training rows (weights)
with ``E`` errors is expected to make ``N * U_CF(E, N)`` errors, ``U_CF`` being the upper
limit of the confidence interval of the binomial error rate at confidence level ``CF``
(``U`` solves ``P(X <= E | N, U) = CF``; for ``E = 0``, ``U = 1 - CF^(1/N)``).  Bottom-up, a
subtree is replaced by a leaf when the leaf's predicted errors do not exceed the sum of its
leaves' predicted errors plus 0.1 (Quinlan's tolerance).  ``U_CF`` is computed as in
Quinlan's program (``AddErrs``: exact for ``E = 0``, interpolated for ``E < 1``, a normal
approximation above).  C4.5's "subtree raising" is not done, so that the result stays a
subtree of the input.
"""

from __future__ import annotations

import copy
from collections import deque
from numbers import Real
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from ..engine import TREE_LEAF, Tree
from ..inspection._tree_view import preorder, tree_children
from .class_ties import top_class

if TYPE_CHECKING:
    from typing import Literal, TypeVar

    from sklearn.utils import Bunch

    from .._typing import ArrayLike, Float64Array, MatrixLike

    #: a fitted tree estimator; pruning returns a copy of the same class
    _EstimatorT = TypeVar("_EstimatorT")
    #: the steps of a pruning, one record per internal node examined
    PruningReport = list[dict[str, Any]]

__all__ = [
    "pre_pruning",
    "reduced_error_pruning",
    "mitchell_reduced_error_pruning",
    "cost_complexity_pruning_path",
    "prune_ccp",
    "pessimistic_pruning",
    "pessimistic_errors",
]


# -- a common view of binary and multiway trees ----------------------------------------
class _Links:
    """The parents, depths, weights and impurities of a tree's nodes, from each node's
    children: what the weakest-link loop (:func:`_ccp`) reads, of any tree."""

    def __init__(self, children, weight, impurity):
        self.children = [np.array(c, dtype=np.int64) for c in children]
        self.n_nodes = len(self.children)
        self.parent = np.full(self.n_nodes, -1, np.int64)
        self.depth = np.zeros(self.n_nodes, np.int64)
        for node in self.topological():
            for c in self.children[node]:
                self.parent[c] = node
                self.depth[c] = self.depth[node] + 1
        self.weight = np.asarray(weight, dtype=np.float64)
        self.impurity = np.asarray(impurity, dtype=np.float64)

    def topological(self):
        """Node ids in breadth-first order from the root (only reachable nodes)."""
        order, queue = [], [0]
        while queue:
            order.extend(queue)
            queue = [int(c) for n in queue for c in self.children[n]]
        return order

    def is_leaf(self, node):
        return self.children[node].size == 0


class _View(_Links):
    """Children, class counts and validation routing of any treeboost tree."""

    def __init__(self, estimator):
        if not hasattr(estimator, "tree_"):
            raise ValueError(f"{type(estimator).__name__} is not fitted: call fit first.")
        self.estimator = estimator
        tree = estimator.tree_
        self.tree = tree
        self.multiway = hasattr(tree, "children") and not hasattr(tree, "children_left")
        self.feature = tree.feature
        super().__init__(tree_children(tree), tree.weighted_n_node_samples, tree.impurity)
        self.classifier = hasattr(estimator, "classes_")

    def class_counts(self):
        """Training class weights of each node, shape (n_nodes, n_classes)."""
        return self.tree.value * self.weight[:, None]

    def prediction(self):
        """Class index each node predicts as a leaf (ties: the estimator's
        ``class_rank_``, else the first class)."""
        return top_class(self.tree.value, getattr(self.estimator, "class_rank_", None))

    def node_weights(self, X):
        """CSR (n_samples, n_nodes): weight with which each row reaches each node."""
        Xe = self.estimator._transform(X)
        if self.multiway:
            return self.tree.node_weights(Xe)
        return self.tree.decision_path(Xe).astype(np.float64)

    def feature_name(self, node):
        f = int(self.feature[node])
        if f < 0:
            return None
        names = getattr(self.estimator, "feature_names_in_", None)
        return str(names[f]) if names is not None else f"x{f}"

    def build(self, cut):
        """Shallow copy of the estimator whose tree has every node of ``cut`` as a leaf."""
        pruned = copy.copy(self.estimator)
        if self.multiway:
            pruned.tree_ = self.tree.subtree(cut)
        else:
            pruned.tree_ = _binary_subtree(self.tree, cut)
        return pruned


def _binary_subtree(tree, cut):
    """A new :class:`Tree` in which the nodes of ``cut`` are leaves, renumbered compactly
    (original order kept, so parents still precede children)."""
    cut = set(int(c) for c in cut)
    reached = [node for node, _, _, _ in preorder(tree_children(tree), stop=cut.__contains__)]
    keep = np.sort(np.asarray(reached, dtype=np.int64))
    new_id = np.full(tree.node_count, TREE_LEAF, np.int64)
    new_id[keep] = np.arange(keep.size)
    arrays = {name: np.array(getattr(tree, name)[keep]) for name in Tree._arrays}
    leaf = np.isin(keep, list(cut)) | (tree.children_left[keep] == TREE_LEAF)
    dtype = tree.children_left.dtype
    arrays["children_left"] = np.where(leaf, TREE_LEAF, new_id[tree.children_left[keep]]).astype(
        dtype
    )
    arrays["children_right"] = np.where(leaf, TREE_LEAF, new_id[tree.children_right[keep]]).astype(
        dtype
    )
    # a pruned node looks like a grown leaf: no feature, no threshold, no gain
    arrays["feature"][leaf] = -1
    arrays["threshold"][leaf] = np.nan
    arrays["is_categorical"][leaf] = False
    arrays["categories_left"][leaf] = 0
    arrays["gain"][leaf] = 0.0
    out = Tree(tree.n_features, tree.n_outputs, **arrays)
    out.node_map_ = keep
    return out


# -- validation-set pruning ------------------------------------------------------------
def _validation_correct(view, X_val, y_val):
    """Per node, the validation weight it would classify correctly as a leaf; and the
    total validation weight.  Labels never seen in training are never correct."""
    if not view.classifier:
        raise ValueError("Validation-set pruning needs a classifier (accuracy).")
    y_val = np.asarray(y_val)
    W = view.node_weights(X_val)
    if y_val.shape[0] != W.shape[0]:
        raise ValueError(f"X_val has {W.shape[0]} rows but y_val has {y_val.shape[0]}.")
    if y_val.shape[0] == 0:
        raise ValueError("The validation set is empty.")
    classes = view.estimator.classes_
    lookup = {c: i for i, c in enumerate(classes.tolist())}
    y_idx = np.array([lookup.get(v, -1) for v in y_val.tolist()], dtype=np.int64)
    K = classes.shape[0]
    onehot = np.zeros((y_idx.shape[0], K))
    seen = y_idx >= 0
    onehot[np.flatnonzero(seen), y_idx[seen]] = 1.0
    mass = np.asarray(W.T @ onehot)  # (n_nodes, K) validation class weights
    correct = mass[np.arange(view.n_nodes), view.prediction()]
    return correct, float(y_idx.shape[0])


def _step(view, node, before, after, decision):
    node_map = getattr(view.tree, "node_map_", None)
    return dict(
        node=int(node),
        feature=view.feature_name(node),
        accuracy_before=float(before),
        accuracy_after=float(after),
        decision=decision,
        original_node=int(node_map[node]) if node_map is not None else int(node),
    )


@overload
def pre_pruning(
    estimator: _EstimatorT,
    X_val: MatrixLike,
    y_val: ArrayLike,
    return_report: Literal[False] = ...,
) -> _EstimatorT: ...
@overload
def pre_pruning(
    estimator: _EstimatorT,
    X_val: MatrixLike,
    y_val: ArrayLike,
    return_report: Literal[True],
) -> tuple[_EstimatorT, PruningReport]: ...
@overload
def pre_pruning(
    estimator: _EstimatorT,
    X_val: MatrixLike,
    y_val: ArrayLike,
    return_report: bool = ...,
) -> _EstimatorT | tuple[_EstimatorT, PruningReport]: ...
def pre_pruning(
    estimator: _EstimatorT,
    X_val: MatrixLike,
    y_val: ArrayLike,
    return_report: bool = False,
) -> _EstimatorT | tuple[_EstimatorT, PruningReport]:
    """Pre-pruning (预剪枝) by a validation set: keep a split only if it strictly raises
    validation accuracy (see the module docs).

    Parameters
    ----------
    estimator : fitted treeboost classifier tree (CART, ID3 or C4.5)
    X_val, y_val : the validation set; categories and classes never seen in training are
        handled (unknown categories follow the missing-value rule, unknown classes are
        always wrong).
    return_report : bool, default=False
        Also return the list of steps.

    Returns
    -------
    pruned : a pruned copy of ``estimator`` (and the report when asked)
    """
    view = _View(estimator)
    correct, total = _validation_correct(view, X_val, y_val)
    current = correct[0]
    cut, report, queue = [], [], deque([0])
    while queue:
        node = queue.popleft()
        if view.is_leaf(node):
            continue
        split = correct[view.children[node]].sum()
        after = current - correct[node] + split
        if split > correct[node] + 1e-12:
            report.append(_step(view, node, current / total, after / total, "split"))
            current = after
            queue.extend(int(c) for c in view.children[node])
        else:
            report.append(
                _step(
                    view,
                    node,
                    current / total,
                    after / total,
                    "leaf (split does not raise accuracy)",
                )
            )
            cut.append(node)
    pruned = view.build(cut)
    return (pruned, report) if return_report else pruned


@overload
def reduced_error_pruning(
    estimator: _EstimatorT,
    X_val: MatrixLike,
    y_val: ArrayLike,
    tie: Literal["prune", "keep"] = ...,
    return_report: Literal[False] = ...,
) -> _EstimatorT: ...
@overload
def reduced_error_pruning(
    estimator: _EstimatorT,
    X_val: MatrixLike,
    y_val: ArrayLike,
    tie: Literal["prune", "keep"] = ...,
    *,
    return_report: Literal[True],
) -> tuple[_EstimatorT, PruningReport]: ...
@overload
def reduced_error_pruning(
    estimator: _EstimatorT,
    X_val: MatrixLike,
    y_val: ArrayLike,
    tie: Literal["prune", "keep"] = ...,
    return_report: bool = ...,
) -> _EstimatorT | tuple[_EstimatorT, PruningReport]: ...
def reduced_error_pruning(
    estimator: _EstimatorT,
    X_val: MatrixLike,
    y_val: ArrayLike,
    tie: Literal["prune", "keep"] = "prune",
    return_report: bool = False,
) -> _EstimatorT | tuple[_EstimatorT, PruningReport]:
    """Reduced-error post-pruning (后剪枝) by a validation set (see the module docs).

    Parameters
    ----------
    estimator : fitted treeboost classifier tree (CART, ID3 or C4.5)
    X_val, y_val : the validation set
    tie : {"prune", "keep"}, default="prune"
        On equal validation accuracy, replace the subtree by a leaf ("prune", the smaller
        tree) or keep it ("keep", as the book's figure).
    return_report : bool, default=False

    Returns
    -------
    pruned : a pruned copy of ``estimator`` (and the report when asked)
    """
    if tie not in ("prune", "keep"):
        raise ValueError(f"tie must be 'prune' or 'keep', got {tie!r}.")
    view = _View(estimator)
    correct, total = _validation_correct(view, X_val, y_val)
    order = view.topological()
    subtree = correct.copy()  # validation correct of each (pruned) subtree
    for node in reversed(order):
        if not view.is_leaf(node):
            subtree[node] = subtree[view.children[node]].sum()
    current = subtree[0]
    position = {n: i for i, n in enumerate(order)}
    internal = [n for n in order if not view.is_leaf(n)]
    # deepest first; at equal depth left to right (the book's order)
    internal.sort(key=lambda n: (-view.depth[n], position[n]))
    cut, report = [], []
    for node in internal:
        sub = subtree[view.children[node]].sum()
        after = current - sub + correct[node]
        better = correct[node] > sub + 1e-12
        equal = abs(correct[node] - sub) <= 1e-12
        if better or (equal and tie == "prune"):
            report.append(_step(view, node, current / total, after / total, "prune"))
            current = after
            subtree[node] = correct[node]
            cut.append(node)
        else:
            report.append(_step(view, node, current / total, after / total, "keep"))
            subtree[node] = sub
    pruned = view.build(cut)
    return (pruned, report) if return_report else pruned


def mitchell_reduced_error_pruning(
    estimator: _EstimatorT,
    X_val: MatrixLike,
    y_val: ArrayLike,
    return_report: bool = False,
) -> _EstimatorT | tuple[_EstimatorT, PruningReport]:
    """Reduced-error pruning as Mitchell defines it (*Machine Learning*, 3.7.1.1).

    "Pruning a decision node consists of removing the subtree rooted at that node, making
    it a leaf node, and assigning it the most common classification of the training
    examples affiliated with that node.  Nodes are removed only if the resulting pruned
    tree performs no worse than the original over the validation set. [...] Nodes are
    pruned iteratively, always choosing the node whose removal most increases the
    decision tree accuracy over the validation set.  Pruning of nodes continues until
    further pruning is harmful."

    Each step looks at every internal node of the current tree, removes the one whose
    removal gives the largest validation accuracy (ties: the smallest node id, an
    ancestor before its descendants), and stops when every removal lowers the accuracy.
    Unlike :func:`reduced_error_pruning` (Zhou's one bottom-up pass, which judges each
    node once, after its children), a node is judged again after every removal, and a
    large subtree can go at once where its parts alone would not.

    Parameters
    ----------
    estimator : fitted treeboost classifier tree (CART, ID3 or C4.5)
    X_val, y_val : the validation set
    return_report : bool, default=False
        Also return the steps (one per removal, then the last look, ``decision`` "keep
        (every removal lowers accuracy)" at the best node).

    Returns
    -------
    pruned : a pruned copy of ``estimator`` (and the report when asked)
    """
    view = _View(estimator)
    correct, total = _validation_correct(view, X_val, y_val)
    order = view.topological()
    subtree = correct.copy()  # validation correct of each (current) subtree
    for node in reversed(order):
        if not view.is_leaf(node):
            subtree[node] = subtree[view.children[node]].sum()
    ancestors = _Ancestors(view)
    alive = np.zeros(view.n_nodes, bool)  # internal nodes of the current tree
    alive[[n for n in order if not view.is_leaf(n)]] = True
    cut, report = [], []
    while alive.any():
        nodes = np.flatnonzero(alive)  # in id order: ties to the smallest id
        change = correct[nodes] - subtree[nodes]
        k = int(np.argmax(change >= change.max() - 1e-12))
        node, delta = int(nodes[k]), float(change[k])
        before = subtree[0]
        if delta < -1e-12:
            report.append(
                _step(
                    view,
                    node,
                    before / total,
                    (before + delta) / total,
                    "keep (every removal lowers accuracy)",
                )
            )
            break
        report.append(_step(view, node, before / total, (before + delta) / total, "prune"))
        alive[ancestors.subtree(node)] = False
        subtree[node] = correct[node]
        subtree[ancestors(node)] += delta
        cut.append(node)
    pruned = view.build(cut)
    return (pruned, report) if return_report else pruned


# -- cost-complexity pruning -----------------------------------------------------------
def _ccp(view, ccp_alpha=None):
    """scikit-learn's weakest-link loop; returns (alphas, impurities, cut nodes, leaves
    count after each step)."""
    n = view.n_nodes
    r_node = view.weight * view.impurity / view.weight[0]
    leaf = np.array([view.is_leaf(i) for i in range(n)])
    ancestors = _Ancestors(view)
    n_leaves = np.zeros(n, np.int64)
    r_branch = np.zeros(n)
    # each leaf adds itself to its ancestors in leaf order, as scikit-learn's loop does:
    # the same float sums, so the same alphas
    for i in np.flatnonzero(leaf):
        r_branch[i] = r_node[i]
        above = ancestors(i)
        r_branch[above] += r_node[i]
        n_leaves[above] += 1
    candidate = ~leaf
    alphas, impurities, sizes = [0.0], [r_branch[0]], [int(leaf.sum())]
    cut = []
    while candidate[0]:
        idx = np.flatnonzero(candidate)
        eff = (r_node[idx] - r_branch[idx]) / (n_leaves[idx] - 1)
        k = int(np.argmin(eff))  # first smallest, as scikit-learn's strict <
        alpha, node = float(eff[k]), int(idx[k])
        # a relative tolerance, so that an alpha read off the path (computed in another
        # order of float operations, e.g. by scikit-learn) selects that path's subtree
        if ccp_alpha is not None and alpha > ccp_alpha * (1 + 1e-10) + 1e-15:
            break
        candidate[ancestors.subtree(node)] = False
        cut.append(node)
        pruned_leaves = n_leaves[node] - 1
        n_leaves[node] = 0
        diff = r_node[node] - r_branch[node]
        r_branch[node] = r_node[node]
        above = ancestors(node)
        n_leaves[above] -= pruned_leaves
        r_branch[above] += diff
        alphas.append(alpha)
        impurities.append(r_branch[0])
        sizes.append(sizes[-1] - int(pruned_leaves))
    return np.array(alphas), np.array(impurities), cut, np.array(sizes)


class _Ancestors:
    """The ancestors and the subtree of a node of a :class:`_View`'s tree, in time
    linear in the nodes whatever the depth (a walk up the parents of every leaf of a
    chain of splits is quadratic in its depth)."""

    def __init__(self, view):
        self.parent, self.depth, self.n = view.parent, view.depth, view.n_nodes
        # a node's subtree is the run order[first[node] : end[node]] of the pre-order
        order = [node for node, _, _, _ in preorder(view.children)]
        self.order = np.array(order, np.int64)
        size = np.ones(self.n, np.int64)
        for node in reversed(order):  # children before their parent
            if view.children[node].size:
                size[node] += size[view.children[node]].sum()
        self.first = np.zeros(self.n, np.int64)
        self.first[self.order] = np.arange(len(order))
        # by position in the pre-order: where the run of the node there ends
        self.end_at = self.first[self.order] + size[self.order]

    def __call__(self, node):
        """The ancestors of ``node`` (not itself)."""
        if self.depth[node] * 64 <= self.n:  # a short walk up costs less than a scan
            out = []
            j = self.parent[node]
            while j != -1:
                out.append(int(j))
                j = self.parent[j]
            return out
        # the nodes before it in the pre-order whose run holds it
        pos = self.first[node]
        return self.order[np.flatnonzero(self.end_at[:pos] > pos)]

    def subtree(self, node):
        """``node`` and its descendants."""
        return self.order[self.first[node] : self.end_at[self.first[node]]]


def cost_complexity_pruning_path(
    estimator: Any,
    X: MatrixLike | None = None,
    y: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
) -> Bunch:
    """The minimal cost-complexity pruning path of a fitted tree, as scikit-learn's
    ``DecisionTree*.cost_complexity_pruning_path``.

    Parameters
    ----------
    estimator : fitted treeboost tree (CART classifier or regressor, ID3, C4.5).  If
        ``X, y`` are given the estimator is first refitted on them (on a clone), as
        scikit-learn's method does.
    X, y, sample_weight : optional training data.

    Returns
    -------
    path : sklearn.utils.Bunch
        ``ccp_alphas`` (non-decreasing, the first is 0), ``impurities`` (total leaf
        impurity ``sum R(t)`` of the subtree for each alpha) and ``n_leaves`` (leaves of
        that subtree, decreasing to 1).
    """
    from sklearn.base import clone
    from sklearn.utils import Bunch

    if X is not None:
        estimator = clone(estimator).fit(X, y, sample_weight=sample_weight)
    alphas, impurities, _, sizes = _ccp(_View(estimator))
    return Bunch(ccp_alphas=alphas, impurities=impurities, n_leaves=sizes)


def weakest_links(tree: Any, ccp_alpha: float) -> list[int]:
    """The nodes that minimal cost-complexity pruning makes leaves, of any binary tree
    with ``children_left`` / ``children_right`` (-1 at a leaf), ``impurity`` and
    ``weighted_n_node_samples`` (an axis-parallel or an oblique tree): the weakest
    link, the internal node ``t`` of least ``alpha_eff(t) = (R(t) - R(T_t)) /
    (|leaves(T_t)| - 1)`` (``R``: impurity times the node's share of the root's weight),
    is cut while ``alpha_eff <= ccp_alpha`` (up to a relative 1e-10), the rule of
    :func:`prune_ccp` and of the trees' ``ccp_alpha``."""
    links = _Links(tree_children(tree), tree.weighted_n_node_samples, tree.impurity)
    return _ccp(links, float(ccp_alpha))[2]


def prune_ccp(estimator: _EstimatorT, ccp_alpha: float) -> _EstimatorT:
    """The subtree of a fitted tree for ``ccp_alpha`` (scikit-learn's semantics: prune the
    weakest links while their effective alpha is <= ``ccp_alpha``, up to a relative 1e-10
    for rounding; 0 prunes nothing).

    Returns a pruned copy of ``estimator``.
    """
    if not isinstance(ccp_alpha, Real) or ccp_alpha < 0 or not np.isfinite(ccp_alpha):
        raise ValueError(f"ccp_alpha must be a finite float >= 0, got {ccp_alpha!r}.")
    view = _View(estimator)
    if ccp_alpha == 0:
        return view.build([])
    _, _, cut, _ = _ccp(view, float(ccp_alpha))
    return view.build(cut)


# -- pessimistic (error-based) pruning -------------------------------------------------
_CF_VAL = np.array([0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00])
_CF_DEV = np.array([4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00])


def _check_cf(confidence_factor):
    if (
        not isinstance(confidence_factor, Real)
        or isinstance(confidence_factor, bool)
        or not 0 < float(confidence_factor) <= 0.5
    ):
        raise ValueError(
            f"confidence_factor must be a float in (0, 0.5], got {confidence_factor!r}."
        )
    return float(confidence_factor)


def pessimistic_errors(n: ArrayLike, e: ArrayLike, confidence_factor: float = 0.25) -> Float64Array:
    """Predicted errors ``N * U_CF(E, N)`` of a leaf with ``N`` rows and ``E`` errors.

    Quinlan's ``AddErrs``: ``e + extra`` where ``extra = N (1 - CF^(1/N))`` for ``E = 0``,
    linear interpolation between ``E = 0`` and ``E = 1`` below one error, and above it the
    upper limit of the normal approximation with continuity correction,
    ``U = (E + 0.5 + z^2/2 + z sqrt((E + 0.5)(1 - (E + 0.5)/N) + z^2/4)) / (N + z^2)``,
    ``z`` interpolated from Quinlan's table of normal deviates.
    """
    cf = _check_cf(confidence_factor)
    i = int(np.searchsorted(_CF_VAL, cf, side="left"))
    z = _CF_DEV[i - 1] + (_CF_DEV[i] - _CF_DEV[i - 1]) * (cf - _CF_VAL[i - 1]) / (
        _CF_VAL[i] - _CF_VAL[i - 1]
    )
    coeff = z * z
    n = np.asarray(n, dtype=np.float64)
    e = np.asarray(e, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        safe_n = np.where(n > 0, n, 1.0)
        zero = safe_n * (1 - np.exp(np.log(cf) / safe_n))
        pr1 = (1.5 + coeff / 2 + np.sqrt(coeff * (1.5 * (1 - 1.5 / safe_n) + coeff / 4))) / (
            safe_n + coeff
        )
        one = np.where(1.5 >= safe_n, 0.67 * (safe_n - 1), safe_n * pr1 - 1)
        pr = (
            e
            + 0.5
            + coeff / 2
            + np.sqrt(np.maximum(coeff * ((e + 0.5) * (1 - (e + 0.5) / safe_n) + coeff / 4), 0))
        ) / (safe_n + coeff)
        extra = np.where(
            e < 1e-6,
            zero,
            np.where(
                e < 0.9999,
                zero + e * (one - zero),
                np.where(e + 0.5 >= safe_n, 0.67 * (safe_n - e), safe_n * pr - e),
            ),
        )
    return np.where(n > 0, e + extra, 0.0)


@overload
def pessimistic_pruning(
    estimator: _EstimatorT,
    confidence_factor: float = ...,
    return_report: Literal[False] = ...,
) -> _EstimatorT: ...
@overload
def pessimistic_pruning(
    estimator: _EstimatorT,
    confidence_factor: float = ...,
    *,
    return_report: Literal[True],
) -> tuple[_EstimatorT, PruningReport]: ...
@overload
def pessimistic_pruning(
    estimator: _EstimatorT,
    confidence_factor: float = ...,
    return_report: bool = ...,
) -> _EstimatorT | tuple[_EstimatorT, PruningReport]: ...
def pessimistic_pruning(
    estimator: _EstimatorT,
    confidence_factor: float = 0.25,
    return_report: bool = False,
) -> _EstimatorT | tuple[_EstimatorT, PruningReport]:
    """C4.5's pessimistic (error-based) pruning with confidence factor CF (module docs).

    Parameters
    ----------
    estimator : fitted treeboost classifier tree (CART, ID3 or C4.5)
    confidence_factor : float in (0, 0.5], default=0.25
        Smaller values prune more.
    return_report : bool, default=False
        Also return the steps: ``node``, ``feature``, ``leaf_errors`` and
        ``subtree_errors`` (predicted errors) and ``decision``.

    Returns
    -------
    pruned : a pruned copy of ``estimator`` (and the report when asked)
    """
    cf = _check_cf(confidence_factor)
    view = _View(estimator)
    if not view.classifier:
        raise ValueError("Pessimistic pruning needs a classifier.")
    counts = view.class_counts()
    n = view.weight
    e = n - counts[np.arange(view.n_nodes), view.prediction()]
    leaf_err = pessimistic_errors(n, np.maximum(e, 0.0), cf)
    order = view.topological()
    est = leaf_err.copy()
    cut, report = [], []
    for node in reversed(order):  # children before their parent
        if view.is_leaf(node):
            continue
        sub = est[view.children[node]].sum()
        prune = leaf_err[node] <= sub + 0.1
        report.append(
            dict(
                node=int(node),
                feature=view.feature_name(node),
                leaf_errors=float(leaf_err[node]),
                subtree_errors=float(sub),
                decision="prune" if prune else "keep",
            )
        )
        if prune:
            cut.append(node)
            est[node] = leaf_err[node]
        else:
            est[node] = sub
    pruned = view.build(cut)
    return (pruned, report) if return_report else pruned
