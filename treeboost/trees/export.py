"""Text views of a fitted tree: an indented text tree and IF-THEN rules (one per leaf)."""

from dataclasses import dataclass, field

import numpy as np

from ..engine import TREE_LEAF
from ..persistence import validate_part
from ..persistence._checks import check_array, check_int, is_hashable, is_int, is_real, labels_ok


def _bitset_members(bitset_row, n_categories):
    codes = np.arange(n_categories)
    words = bitset_row[codes >> 6]
    return codes[((words >> (codes & 63).astype(np.uint64)) & np.uint64(1)) == 1]


def _fmt(v, decimals):
    """``v`` with at most ``decimals`` decimals, trailing zeros dropped; a non-zero value
    that would round to zero keeps its significant digits (``-0.0004``, never ``-0``)."""
    if not np.isfinite(v):
        return str(v)
    text = f"{v:.{decimals}f}".rstrip("0").rstrip(".")
    if text in ("0", "-0") and v != 0:
        return f"{v:.{max(decimals, 1)}g}"
    return "0" if text == "-0" else text


def _leaf_text(view, node, decimals):
    """(prediction, confidence) of a leaf: the majority class and its fraction for a
    classifier's tree, else the value (a boosting tree's raw score)."""
    value = view.tree.value[node]
    if view.classes is not None and len(view.classes) > 0:
        k = int(np.argmax(value))
        return str(view.classes[k]), float(value[k])
    return _fmt(float(value[0]), decimals), None


def tree_view(model, feature_names=None, class_names=None, tree_index=0, class_index=None):
    """The :class:`~treeboost.trees._tree_view.TreeView` every export reads (see that
    module for what ``tree_index`` and ``class_index`` pick)."""
    from ._tree_view import named_view, select_tree

    return named_view(select_tree(model, tree_index, class_index), feature_names, class_names)


@dataclass
class Condition:
    """``feature`` lies in an interval ``(low, high]`` or in a set of categories;
    ``missing`` tells whether a missing value also satisfies it."""

    feature: int
    name: str
    low: float = -np.inf
    high: float = np.inf
    categories: list = None
    missing: bool = True

    def __str__(self):
        return self.text()

    def text(self, fmt=None, labels=None):
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

    conditions: list
    prediction: object
    confidence: object
    leaf: int
    n_samples: int
    weight: float
    target_name: str = "class"
    decimals: int = 3
    extra: dict = field(default_factory=dict)

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
        if not isinstance(self.conditions, list):
            raise ValueError(f"{where}.conditions: must be a list.")
        for j, c in enumerate(self.conditions):
            validate_part(
                c,
                f"{where}.conditions[{j}]",
                expect=Condition,
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

    def __str__(self):
        return self.text()

    def text(self, fmt=None, labels=None):
        """The rule as text; ``fmt`` and ``labels`` format the conditions' bounds and
        categories (see :meth:`Condition.text`)."""
        lhs = " AND ".join(c.text(fmt, labels) for c in self.conditions) or "TRUE"
        conf = "" if self.confidence is None else f", p={self.confidence:.{self.decimals}f}"
        return f"IF {lhs} THEN {self.target_name} = {self.prediction} [n={self.n_samples}{conf}]"


_INDEX_DOC = """tree_index : int or (int, int), default=0
        Which tree of ``model``: 0 for a single tree; the member of a forest, bagging or
        AdaBoost ensemble (``estimators_[tree_index]``, a treeboost tree); the iteration
        of gradient boosting, or ``(iteration, class)`` for K classes.
    class_index : int or None, default=None
        The class of K-class gradient boosting's tree (None: 0, or the class given in
        ``tree_index``).  An index out of range, or a member that is not a treeboost tree,
        raises ValueError."""


def index_doc(function):
    """Put the description of ``tree_index`` and ``class_index`` in ``function``'s
    docstring (its ``%(tree_index)s``)."""
    function.__doc__ = function.__doc__.replace("%(tree_index)s", _INDEX_DOC)
    return function


@index_doc
def extract_rules(
    estimator,
    feature_names=None,
    class_names=None,
    target_name=None,
    decimals=3,
    *,
    tree_index=0,
    class_index=None,
):
    """The rules of one tree of a fitted model, one :class:`Rule` per leaf, in leaf order.

    Tests on the same feature along a path are merged: numeric thresholds into one
    interval ``low < x <= high``, categorical subsets into their intersection, and a
    condition says "(or missing)" when a missing value follows the same path.  A
    condition's ``feature`` is the model's column.  A boosting tree's rule predicts the
    leaf's raw score (``target_name`` "value (raw score)"), which the model adds to
    ``init_score_`` and the other trees' scores.  ID3 / C4.5 trees: see
    :func:`treeboost.trees.rules.extract_rules` (this function calls it).

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


def rules_of_view(view, target_name=None, decimals=3):
    """The rules of the tree of a :class:`~treeboost.trees._tree_view.TreeView`."""
    if view.multiway:
        from .rules import multiway_rules

        return multiway_rules(view, target_name, decimals)
    tree = view.tree
    names = view.feature_names
    if target_name is None:
        target_name = view.value_label
    rules = []
    # a path's state: its Condition per feature, and the category codes still allowed
    stack = [(0, {}, {})]
    while stack:
        node, conds, codes = stack.pop()
        if tree.children_left[node] == TREE_LEAF:
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
        for go_left, child in (
            (False, tree.children_right[node]),
            (True, tree.children_left[node]),
        ):
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
            left = view.category_split(node)
            if left is not None:
                n_codes = view.n_codes(j, left)
                left = set(left.tolist())
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
            stack.append((int(child), new, new_codes))
    rules.sort(key=lambda r: r.leaf)
    return rules


def rule_texts(view, rules):
    """The rules as strings, their bounds and categories formatted by the view's encoder
    (dates as dates, the shared code of rare categories described)."""

    def fmt(condition, value):
        return view.column_threshold_text(condition.feature, value, condition.decimals)

    def labels(condition):
        return view.column_category_text(condition.feature, condition.categories)

    return [r.text(fmt, labels) for r in rules]


@index_doc
def export_rules(
    estimator,
    feature_names=None,
    class_names=None,
    target_name=None,
    decimals=3,
    *,
    tree_index=0,
    class_index=None,
):
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
    >>> from treeboost.trees.export import export_rules
    >>> clf = DecisionTreeClassifier(max_depth=1).fit([[0], [1], [2], [3]], [0, 0, 1, 1])
    >>> print("\\n".join(export_rules(clf)))
    IF x0 <= 1.5 THEN class = 0 [n=2, p=1.000]
    IF x0 > 1.5 THEN class = 1 [n=2, p=1.000]
    """
    view = tree_view(estimator, feature_names, class_names, tree_index, class_index)
    return rule_texts(view, rules_of_view(view, target_name, decimals))


#: levels of :func:`export_text` drawn as bars; deeper lines write their depth instead,
#: so that the text of a deep tree grows with its nodes, not with their depths squared
MAX_TEXT_INDENT = 40


def _indent(depth):
    if depth <= MAX_TEXT_INDENT:
        return "|   " * depth
    return "|   " * (MAX_TEXT_INDENT - 1) + f"[{depth}] "


@index_doc
def export_text(
    estimator,
    feature_names=None,
    class_names=None,
    decimals=3,
    show_weights=False,
    *,
    tree_index=0,
    class_index=None,
):
    """An indented text picture of one tree of a fitted model, one line per test and
    per leaf.

    A leaf shows its class (a classifier's tree), its value (a regressor's), or its
    ``value (raw score)`` (a boosting tree: the model's raw score is ``init_score_`` plus
    one such value per tree).  Categories print as their labels, dates as dates.  Lines
    deeper than :data:`MAX_TEXT_INDENT` (40) levels are indented as the 39th level and
    then say their depth in brackets (``[41] |--- x0 <= 1.5``), so that the text grows
    linearly with the tree however deep it is.

    Parameters
    ----------
    estimator : fitted treeboost tree or ensemble
    feature_names : list of str, optional
        One name per column of the model (``n_features_in_``).
    class_names : list, optional
    decimals : int, default=3
    show_weights : bool, default=False
        Also print each leaf's value times its weight (a classifier's class weights).
    %(tree_index)s

    Examples
    --------
    >>> from treeboost import DecisionTreeClassifier
    >>> from treeboost.trees.export import export_text
    >>> clf = DecisionTreeClassifier(max_depth=1).fit([[0], [1], [2], [3]], [0, 0, 1, 1])
    >>> print(export_text(clf))
    |--- x0 <= 1.5
    |   |--- class: 0
    |--- x0 >  1.5
    |   |--- class: 1
    """
    view = tree_view(estimator, feature_names, class_names, tree_index, class_index)
    if view.multiway:
        raise ValueError(
            f"export_text draws binary trees; {type(estimator).__name__}'s "
            f"tree is multiway: use export_rules, export_graphviz or plot_tree."
        )
    tree, names = view.tree, view.feature_names
    lines = []

    def leaf_line(node, indent):
        pred, _ = _leaf_text(view, node, decimals)
        extra = ""
        if show_weights:
            weights = tree.value[node] * tree.weighted_n_node_samples[node]
            extra = f" (weights: {np.round(weights, decimals).tolist()})"
        lines.append(f"{indent}|--- {view.value_label}: {pred}{extra}")

    stack = [(0, 0, None)]
    while stack:
        node, depth, text = stack.pop()
        indent = _indent(depth)
        if text is not None:
            lines.append(f"{indent}|--- {text}")
            depth += 1
            indent = _indent(depth)
        if tree.children_left[node] == TREE_LEAF:
            leaf_line(node, indent)
            continue
        f = int(tree.feature[node])
        miss = bool(view.show_missing[f])
        miss_l = " (or missing)" if miss and tree.missing_go_left[node] else ""
        miss_r = " (or missing)" if miss and not tree.missing_go_left[node] else ""
        left = view.category_split(node)
        if left is not None:
            lset = "{" + ", ".join(str(v) for v in view.category_labels(f, left)) + "}"
            lt, rt = f"{names[f]} in {lset}", f"{names[f]} not in {lset}"
        else:
            t = view.threshold_text(f, float(tree.threshold[node]), decimals)
            lt, rt = f"{names[f]} <= {t}", f"{names[f]} >  {t}"
        stack.append((int(tree.children_right[node]), depth, rt + miss_r))
        stack.append((int(tree.children_left[node]), depth, lt + miss_l))
    return "\n".join(lines)
