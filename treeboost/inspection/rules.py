"""IF-THEN rules of any treeboost tree: one :class:`Rule` per leaf.

:func:`extract_rules` / :func:`export_rules` work for the CART trees (and the trees of
ensembles) and for the multiway ID3 / C4.5 trees (``attribute = value`` for a categorical
test and an interval for the continuous ones).  :func:`rule_coverage` tells which rows each
rule fires on.

For a multiway tree a rule does not fire on a row whose value of one of its attributes is
missing (the tree itself spreads such a row over several leaves); for a CART tree the
conditions say "(or missing)" on the side missing values follow, so exactly one rule fires
on every row.  :class:`~treeboost.RuleListClassifier` builds a classifier from these rules.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.sparse import issparse

from ..persistence import register, validate_parts
from ..persistence._checks import check_array, check_int, is_hashable, is_int, is_real, labels_ok
from ._tree_view import _fmt, _leaf_text, index_doc, preorder, tree_children, tree_view

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from sklearn.base import BaseEstimator

    from .._typing import ArrayLike, MatrixLike, NDArray
    from ._tree_view import TreeIndex, TreeView

__all__ = [
    "Condition",
    "Rule",
    "export_rules",
    "extract_rules",
    "rule_coverage",
    "rule_texts",
    "rules_of_view",
]


@dataclass
class Condition:
    """``feature`` lies in an interval ``(low, high]`` or in a set of categories;
    ``missing`` tells whether a missing value also satisfies it."""

    feature: int
    name: str
    low: float = -np.inf
    high: float = np.inf
    categories: list[Any] | None = None
    missing: bool = True

    def __str__(self) -> str:
        return self.text()

    def text(
        self,
        fmt: Callable[[Condition, float], str] | None = None,
        labels: Callable[[Condition], list[str]] | None = None,
    ) -> str:
        """The condition as text.

        ``fmt(condition, bound)`` formats an interval bound (default: the number with
        ``decimals`` decimals), e.g. as a date; ``labels(condition)`` gives the text of
        each category (default: ``str`` of each), e.g. the encoder's description of a
        shared code of rare categories."""
        d = self._d if fmt is None else (lambda v: fmt(self, v))
        if self.categories is not None:
            shown = [str(c) for c in self.categories] if labels is None else labels(self)
            if not shown:
                # the path's tests leave no category: only a missing value satisfies it
                return (
                    f"{self.name} is missing"
                    if self.missing
                    else f"{self.name} in {{}} (no value satisfies it)"
                )
            text = (
                f"{self.name} = {shown[0]}"
                if len(shown) == 1
                else f"{self.name} in {{{', '.join(shown)}}}"
            )
        elif np.isinf(self.low) and np.isinf(self.high):
            text = f"{self.name} is missing" if self.missing else f"{self.name} is not missing"
            return text
        elif np.isinf(self.low):
            text = f"{self.name} <= {d(self.high)}"
        elif np.isinf(self.high):
            text = f"{self.name} > {d(self.low)}"
        else:
            text = f"{d(self.low)} < {self.name} <= {d(self.high)}"
        return text + (" (or missing)" if self.missing else "")

    decimals: int = 3

    def _d(self, v):
        return _fmt(v, self.decimals)

    # the state read from a model file: a condition is data, never code
    _persist_attributes = ("feature", "name", "low", "high", "categories", "missing", "decimals")

    def _validate_state(self, where="condition", n_features=None, categories=None):
        """Raise ValueError unless the condition tests a feature in range with number
        bounds, or a category test on a feature with categories (``categories``: the
        owner's category arrays, one per feature, None for numeric ones)."""
        if set(vars(self)) != set(self._persist_attributes):
            raise ValueError(f"{where}: not a Condition (or with other attributes).")
        check_int(
            self.feature, f"{where}.feature", 0, None if n_features is None else n_features - 1
        )
        if (
            not isinstance(self.name, str)
            or not is_int(self.decimals)
            or not isinstance(self.missing, (bool, np.bool_))
        ):
            raise ValueError(
                f"{where}: a condition has a malformed name, decimals or missing flag."
            )
        if (
            not is_real(self.low)
            or not is_real(self.high)
            or np.isnan(self.low)
            or np.isnan(self.high)
        ):
            raise ValueError(f"{where}: a condition's interval bounds must be numbers.")
        if self.categories is not None:
            if categories is not None and categories[self.feature] is None:
                raise ValueError(
                    f"{where}: a category test on feature {self.feature}, which has no categories."
                )
            if not isinstance(self.categories, list) or not labels_ok(self.categories):
                raise ValueError(f"{where}.categories: must be a list of labels.")


@dataclass
class Rule:
    """One root-to-leaf path: the conjunction of ``conditions`` predicts ``prediction``."""

    conditions: list[Condition]
    #: a class label, or a regression or boosting tree's value as text
    prediction: object
    #: the fraction of the predicted class at the leaf (None for a value)
    confidence: float | None
    leaf: int
    n_samples: int
    weight: float
    target_name: str = "class"
    decimals: int = 3
    extra: dict[str, Any] = field(default_factory=dict)

    # the state read from a model file: a rule is data, never code
    _persist_attributes = (
        "conditions",
        "prediction",
        "confidence",
        "leaf",
        "n_samples",
        "weight",
        "target_name",
        "decimals",
        "extra",
    )

    def _validate_state(self, where="rule", n_features=None, categories=None, classes=None):
        """Raise ValueError unless the rule's conditions are valid, it predicts one of
        ``classes`` and carries a finite class distribution over them."""
        if set(vars(self)) != set(self._persist_attributes):
            raise ValueError(f"{where}: not a Rule (or with other attributes).")
        validate_parts(
            self.conditions,
            f"{where}.conditions",
            Condition,
            n_features=n_features,
            categories=categories,
        )
        if classes is not None and (
            not is_hashable(self.prediction) or self.prediction not in set(classes.tolist())
        ):
            raise ValueError(
                f"{where}: predicts {self.prediction!r:.40}, which is not one of classes_."
            )
        extra = self.extra
        if not isinstance(extra, dict) or not {
            "distribution",
            "estimated_accuracy",
            "coverage",
            "dropped",
        } <= set(extra):
            raise ValueError(
                f"{where}.extra: must hold distribution, estimated_accuracy, coverage and dropped."
            )
        check_array(
            extra["distribution"],
            f"{where}.extra['distribution']",
            "float64",
            (None if classes is None else classes.size,),
            finite=True,
            low=0,
        )
        if not is_real(extra["estimated_accuracy"]) or not is_real(extra["coverage"]):
            raise ValueError(f"{where}: estimated_accuracy and coverage must be numbers.")
        if (
            not (self.confidence is None or is_real(self.confidence))
            or not is_int(self.leaf)
            or not is_int(self.n_samples)
            or not is_real(self.weight)
            or not isinstance(self.target_name, str)
            or not is_int(self.decimals)
        ):
            raise ValueError(
                f"{where}: malformed confidence, leaf, n_samples, weight, target_name or decimals."
            )

    def __str__(self) -> str:
        return self.text()

    def text(
        self,
        fmt: Callable[[Condition, float], str] | None = None,
        labels: Callable[[Condition], list[str]] | None = None,
    ) -> str:
        """The rule as text; ``fmt`` and ``labels`` format the conditions' bounds and
        categories (see :meth:`Condition.text`)."""
        lhs = " AND ".join(c.text(fmt, labels) for c in self.conditions) or "TRUE"
        conf = "" if self.confidence is None else f", p={self.confidence:.{self.decimals}f}"
        return f"IF {lhs} THEN {self.target_name} = {self.prediction} [n={self.n_samples}{conf}]"


def multiway_rules(view: TreeView, target_name: str | None = None, decimals: int = 3) -> list[Rule]:
    """One rule per leaf of the multiway tree of a
    :class:`~treeboost.inspection._tree_view.TreeView`."""
    tree = view.tree
    names = view.feature_names
    classes = view.classes
    assert classes is not None  # a multiway tree is a classifier's
    rules = []
    children = tree_children(tree)
    # each node's path: its Condition per feature (set when its parent is met)
    paths: dict[int, dict[int, Condition]] = {0: {}}
    for node, _, _, _ in preorder(children):
        conds = paths.pop(node)
        if not children[node]:
            k = int(np.argmax(tree.value[node]))
            rules.append(
                Rule(
                    [conds[f] for f in sorted(conds)],
                    classes[k],
                    float(tree.value[node, k]),
                    node,
                    int(round(tree.n_node_samples[node])),
                    float(tree.weighted_n_node_samples[node]),
                    target_name or "class",
                    decimals,
                )
            )
            continue
        j = int(tree.feature[node])
        f = int(view.columns[j])
        for v, child in enumerate(children[node]):
            new = dict(conds)
            old = new.get(f)
            if tree.is_categorical[node]:
                c = Condition(
                    f,
                    names[j],
                    categories=view.category_values(j, [v]),
                    missing=False,
                    decimals=decimals,
                )
            else:
                c = (
                    Condition(f, names[j], missing=False, decimals=decimals)
                    if old is None
                    else copy.copy(old)
                )
                t = float(tree.threshold[node])
                if v == 0:
                    c.high = min(c.high, t)
                else:
                    c.low = max(c.low, t)
            new[f] = c
            paths[child] = new
    rules.sort(key=lambda r: r.leaf)
    return rules


@index_doc
def extract_rules(
    estimator: BaseEstimator,
    feature_names: Iterable[str] | None = None,
    class_names: ArrayLike | None = None,
    target_name: str | None = None,
    decimals: int = 3,
    *,
    tree_index: TreeIndex = 0,
    class_index: int | None = None,
) -> list[Rule]:
    """The rules of one tree of a fitted model, one :class:`Rule` per leaf, in leaf order.

    Tests on the same feature along a path are merged: numeric thresholds into one
    interval ``low < x <= high``, categorical subsets into their intersection, and a
    condition says "(or missing)" when a missing value follows the same path.  A
    condition's ``feature`` is the model's column.  A boosting tree's rule predicts the
    leaf's raw score (``target_name`` "value (raw score)"), which the model adds to
    ``init_score_`` and the other trees' scores.  ID3 / C4.5 trees: the path's tests,
    ``attribute = value`` (categorical) or an interval (continuous, the thresholds of the
    path merged).

    Parameters
    ----------
    estimator : fitted treeboost tree or ensemble
    feature_names : list of str, optional
        One name per column of the model (``n_features_in_``).
    class_names : list, optional
        One label per class of a classifier's tree.
    target_name : str, optional
        Default: "class", "value", or "value (raw score)" for a boosting tree.
    decimals : int, default=3
    %(tree_index)s
    """
    view = tree_view(estimator, feature_names, class_names, tree_index, class_index)
    return rules_of_view(view, target_name, decimals)


def rules_of_view(view: TreeView, target_name: str | None = None, decimals: int = 3) -> list[Rule]:
    """The rules of the tree of a :class:`~treeboost.inspection._tree_view.TreeView`."""
    if view.multiway:
        return multiway_rules(view, target_name, decimals)
    tree = view.tree
    names = view.feature_names
    if target_name is None:
        target_name = view.value_label
    rules = []
    children = tree_children(tree)
    # each node's path (set when its parent is met): its Condition per feature, and the
    # category codes still allowed
    paths: dict[int, tuple[dict[int, Condition], dict[int, set[int]]]] = {0: ({}, {})}
    for node, _, _, _ in preorder(children):
        conds, codes = paths.pop(node)
        if not children[node]:
            pred, conf = _leaf_text(view, node, decimals)
            ordered = [conds[f] for f in sorted(conds)]
            rules.append(
                Rule(
                    ordered,
                    pred,
                    conf,
                    node,
                    int(tree.n_node_samples[node]),
                    float(tree.weighted_n_node_samples[node]),
                    target_name,
                    decimals,
                )
            )
            continue
        j = int(tree.feature[node])
        f = int(view.columns[j])
        for go_left, child in zip((True, False), children[node]):
            new, new_codes = dict(conds), dict(codes)
            c = new.get(f)
            c = (
                Condition(f, names[j], missing=bool(view.show_missing[j]), decimals=decimals)
                if c is None
                else Condition(
                    c.feature,
                    c.name,
                    c.low,
                    c.high,
                    None if c.categories is None else list(c.categories),
                    c.missing,
                    decimals,
                )
            )
            c.missing = c.missing and bool(tree.missing_go_left[node]) == go_left
            left_codes = view.category_split(node)
            if left_codes is not None:
                n_codes = view.n_codes(j, left_codes)
                left = set(left_codes.tolist())
                side = left if go_left else set(range(n_codes)) - left
                allowed = side if j not in codes else codes[j] & side
                new_codes[j] = allowed
                c.categories = view.category_values(j, sorted(allowed))
            else:
                t = float(tree.threshold[node])
                if go_left:
                    c.high = min(c.high, t)
                else:
                    c.low = max(c.low, t)
            new[f] = c
            paths[child] = (new, new_codes)
    rules.sort(key=lambda r: r.leaf)
    return rules


def rule_texts(view: TreeView, rules: Iterable[Rule]) -> list[str]:
    """The rules as strings, their bounds and categories formatted by the view's encoder
    (dates as dates, the shared code of rare categories described)."""

    def fmt(condition: Condition, value: float) -> str:
        return view.column_threshold_text(condition.feature, value, condition.decimals)

    def labels(condition: Condition) -> list[str]:
        # Condition.text asks for the labels of a condition on categories only
        return view.column_category_text(condition.feature, condition.categories or [])

    return [r.text(fmt, labels) for r in rules]


@index_doc
def export_rules(
    estimator: BaseEstimator,
    feature_names: Iterable[str] | None = None,
    class_names: ArrayLike | None = None,
    target_name: str | None = None,
    decimals: int = 3,
    *,
    tree_index: TreeIndex = 0,
    class_index: int | None = None,
) -> list[str]:
    """IF-THEN rules of one tree of a fitted model as strings, one per leaf (see
    :func:`extract_rules`; the parameters are the same).

    Parameters
    ----------
    estimator : fitted treeboost tree or ensemble
    feature_names, class_names, target_name, decimals : as :func:`extract_rules`
    %(tree_index)s

    Examples
    --------
    >>> from treeboost import DecisionTreeClassifier
    >>> from treeboost.inspection import export_rules
    >>> clf = DecisionTreeClassifier(max_depth=1).fit([[0], [1], [2], [3]], [0, 0, 1, 1])
    >>> print("\\n".join(export_rules(clf)))
    IF x0 <= 1.5 THEN class = 0 [n=2, p=1.000]
    IF x0 > 1.5 THEN class = 1 [n=2, p=1.000]
    """
    view = tree_view(estimator, feature_names, class_names, tree_index, class_index)
    return rule_texts(view, rules_of_view(view, target_name, decimals))


def _condition_mask(cond, Xe, categories):
    """Rows of the encoded matrix ``Xe`` satisfying one condition (a sparse ``Xe``, of
    a CART tree fitted on sparse X, gives its column as a dense vector)."""
    x = Xe[:, [cond.feature]].toarray().ravel() if issparse(Xe) else Xe[:, cond.feature]
    missing = np.isnan(x)
    if cond.categories is not None:
        lookup = {v: i for i, v in enumerate(np.asarray(categories[cond.feature]).tolist())}
        codes = [lookup[c] for c in cond.categories if c in lookup]
        ok = np.isin(np.where(missing, -1, x), codes) & ~missing
    elif np.isinf(cond.low) and np.isinf(cond.high):
        return missing if cond.missing else ~missing
    else:
        ok = (x > cond.low) & (x <= cond.high) & ~missing
    return ok | (missing & bool(cond.missing))


def _categories(estimator):
    cats = getattr(estimator, "categories_", None)
    if cats is None:
        enc = getattr(estimator, "_encoder", None)
        cats = enc.categories_ if enc is not None else [None] * estimator.n_features_in_
    return cats


def rule_coverage(
    estimator: BaseEstimator, X: MatrixLike, rules: Sequence[Rule] | None = None
) -> NDArray[np.bool_]:
    """Boolean matrix (n_samples, n_rules): which rules fire on which rows of ``X``.

    ``rules`` defaults to :func:`extract_rules` of ``estimator``.
    """
    if rules is None:
        rules = extract_rules(estimator)
    Xe = estimator._transform(X)
    cats = _categories(estimator)
    out = np.ones((Xe.shape[0], len(rules)), bool)
    for j, r in enumerate(rules):
        for c in r.conditions:
            out[:, j] &= _condition_mask(c, Xe, cats)
    return out


register(Rule, Condition)
