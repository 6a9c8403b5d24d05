"""Text views of a fitted tree: an indented text tree and IF-THEN rules (one per leaf)."""
from dataclasses import dataclass, field

import numpy as np

from ..engine.tree import TREE_LEAF


def _bitset_members(bitset_row, n_categories):
    codes = np.arange(n_categories)
    words = bitset_row[codes >> 6]
    return codes[((words >> (codes & 63).astype(np.uint64)) & np.uint64(1)) == 1]


def _context(estimator, feature_names, class_names):
    tree = estimator.tree_
    if feature_names is None:
        feature_names = getattr(estimator, "feature_names_in_", None)
    if feature_names is None:
        feature_names = [f"x{i}" for i in range(tree.n_features)]
    feature_names = [str(n) for n in feature_names]
    if len(feature_names) != tree.n_features:
        raise ValueError(f"feature_names has {len(feature_names)} names, the tree has "
                         f"{tree.n_features} features.")
    encoder = getattr(estimator, "_encoder", None)
    categories = encoder.categories_ if encoder is not None else [None] * tree.n_features
    classes = getattr(estimator, "classes_", None)
    if class_names is not None:
        classes = np.asarray(class_names)
    bm = getattr(estimator, "bin_mapper_", None)
    # mention missing values only for features that had some in training
    show_missing = (np.ones(tree.n_features, bool) if bm is None
                    else np.asarray(bm.has_missing_, bool))
    return tree, feature_names, categories, classes, show_missing


def _fmt(v, decimals):
    return f"{v:.{decimals}f}".rstrip("0").rstrip(".") if np.isfinite(v) else str(v)


def _leaf_text(tree, node, classes, decimals):
    value = tree.value[node]
    if classes is not None and tree.value.shape[1] == len(classes) and len(classes) > 0:
        k = int(np.argmax(value))
        return str(classes[k]), float(value[k])
    return _fmt(float(value[0]), decimals), None


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
        if self.categories is not None:
            cats = ", ".join(str(c) for c in self.categories)
            text = (f"{self.name} = {self.categories[0]}" if len(self.categories) == 1
                    else f"{self.name} in {{{cats}}}")
        elif np.isinf(self.low) and np.isinf(self.high):
            text = f"{self.name} is missing" if self.missing else f"{self.name} is not missing"
            return text
        elif np.isinf(self.low):
            text = f"{self.name} <= {self._d(self.high)}"
        elif np.isinf(self.high):
            text = f"{self.name} > {self._d(self.low)}"
        else:
            text = f"{self._d(self.low)} < {self.name} <= {self._d(self.high)}"
        return text + (" (or missing)" if self.missing else "")

    decimals: int = 3

    def _d(self, v):
        return _fmt(v, self.decimals)

    # the state read from a model file: a condition is data, never code
    _persist_attributes = ("feature", "name", "low", "high", "categories", "missing",
                           "decimals")

    def _validate_state(self, where="condition", n_features=None, categories=None):
        """Raise ValueError unless the condition tests a feature in range with number
        bounds, or a category test on a feature with categories (``categories``: the
        owner's category arrays, one per feature, None for numeric ones)."""
        from ..persistence import check_int, is_int, is_real, labels_ok
        if set(vars(self)) != set(self._persist_attributes):
            raise ValueError(f"{where}: not a Condition (or with other attributes).")
        check_int(self.feature, f"{where}.feature", 0,
                  None if n_features is None else n_features - 1)
        if not isinstance(self.name, str) or not is_int(self.decimals) or \
                not isinstance(self.missing, (bool, np.bool_)):
            raise ValueError(f"{where}: a condition has a malformed name, decimals or "
                             f"missing flag.")
        if not is_real(self.low) or not is_real(self.high) or np.isnan(self.low) or \
                np.isnan(self.high):
            raise ValueError(f"{where}: a condition's interval bounds must be numbers.")
        if self.categories is not None:
            if categories is not None and categories[self.feature] is None:
                raise ValueError(f"{where}: a category test on feature {self.feature}, which "
                                 f"has no categories.")
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
    _persist_attributes = ("conditions", "prediction", "confidence", "leaf", "n_samples",
                           "weight", "target_name", "decimals", "extra")

    def _validate_state(self, where="rule", n_features=None, categories=None, classes=None):
        """Raise ValueError unless the rule's conditions are valid, it predicts one of
        ``classes`` and carries a finite class distribution over them."""
        from ..persistence import check_array, is_hashable, is_int, is_real, validate_part
        if set(vars(self)) != set(self._persist_attributes):
            raise ValueError(f"{where}: not a Rule (or with other attributes).")
        if not isinstance(self.conditions, list):
            raise ValueError(f"{where}.conditions: must be a list.")
        for j, c in enumerate(self.conditions):
            validate_part(c, f"{where}.conditions[{j}]", expect=Condition,
                          n_features=n_features, categories=categories)
        if classes is not None and (not is_hashable(self.prediction)
                                    or self.prediction not in set(classes.tolist())):
            raise ValueError(f"{where}: predicts {self.prediction!r:.40}, which is not one of "
                             f"classes_.")
        extra = self.extra
        if not isinstance(extra, dict) or not {"distribution", "estimated_accuracy",
                                               "coverage", "dropped"} <= set(extra):
            raise ValueError(f"{where}.extra: must hold distribution, estimated_accuracy, "
                             f"coverage and dropped.")
        check_array(extra["distribution"], f"{where}.extra['distribution']", "float64",
                    (None if classes is None else classes.size,), finite=True, low=0)
        if not is_real(extra["estimated_accuracy"]) or not is_real(extra["coverage"]):
            raise ValueError(f"{where}: estimated_accuracy and coverage must be numbers.")
        if not (self.confidence is None or is_real(self.confidence)) or \
                not is_int(self.leaf) or not is_int(self.n_samples) or \
                not is_real(self.weight) or not isinstance(self.target_name, str) or \
                not is_int(self.decimals):
            raise ValueError(f"{where}: malformed confidence, leaf, n_samples, weight, "
                             f"target_name or decimals.")

    def __str__(self):
        lhs = " AND ".join(str(c) for c in self.conditions) or "TRUE"
        conf = "" if self.confidence is None else f", p={self.confidence:.{self.decimals}f}"
        return (f"IF {lhs} THEN {self.target_name} = {self.prediction} "
                f"[n={self.n_samples}{conf}]")


def extract_rules(estimator, feature_names=None, class_names=None, target_name=None,
                  decimals=3):
    """The rules of a fitted tree, one :class:`Rule` per leaf, in leaf order.

    Tests on the same feature along a path are merged: numeric thresholds into one
    interval ``low < x <= high``, categorical subsets into their intersection, and a
    condition says "(or missing)" when a missing value follows the same path.
    """
    tree, names, categories, classes, show_missing = _context(estimator, feature_names,
                                                              class_names)
    if target_name is None:
        target_name = "class" if classes is not None else "value"
    rules = []
    stack = [(0, {})]
    while stack:
        node, conds = stack.pop()
        if tree.children_left[node] == TREE_LEAF:
            pred, conf = _leaf_text(tree, node, classes, decimals)
            ordered = [conds[f] for f in sorted(conds)]
            rules.append(Rule(ordered, pred, conf, node, int(tree.n_node_samples[node]),
                              float(tree.weighted_n_node_samples[node]), target_name,
                              decimals))
            continue
        f = int(tree.feature[node])
        for go_left, child in ((False, tree.children_right[node]),
                               (True, tree.children_left[node])):
            new = dict(conds)
            c = new.get(f)
            c = Condition(f, names[f], missing=bool(show_missing[f]),
                          decimals=decimals) if c is None else Condition(
                c.feature, c.name, c.low, c.high,
                None if c.categories is None else list(c.categories), c.missing, decimals)
            c.missing = c.missing and bool(tree.missing_go_left[node]) == go_left
            if tree.is_categorical[node]:
                cats = categories[f]
                left = set(_bitset_members(tree.categories_left[node], len(cats)).tolist())
                side = left if go_left else set(range(len(cats))) - left
                allowed = side if c.categories is None else {
                    i for i, v in enumerate(cats) if v in c.categories} & side
                c.categories = [cats[i] for i in sorted(allowed)]
            else:
                t = float(tree.threshold[node])
                if go_left:
                    c.high = min(c.high, t)
                else:
                    c.low = max(c.low, t)
            new[f] = c
            stack.append((int(child), new))
    rules.sort(key=lambda r: r.leaf)
    return rules


def export_rules(estimator, feature_names=None, class_names=None, target_name=None,
                 decimals=3):
    """IF-THEN rules of a fitted tree as strings, one per leaf (see :func:`extract_rules`).

    Examples
    --------
    >>> from treeboost import DecisionTreeClassifier
    >>> from treeboost.trees.export import export_rules
    >>> clf = DecisionTreeClassifier(max_depth=1).fit([[0], [1], [2], [3]], [0, 0, 1, 1])
    >>> print("\\n".join(export_rules(clf)))
    IF x0 <= 1.5 THEN class = 0 [n=2, p=1.000]
    IF x0 > 1.5 THEN class = 1 [n=2, p=1.000]
    """
    return [str(r) for r in extract_rules(estimator, feature_names, class_names, target_name,
                                          decimals)]


def export_text(estimator, feature_names=None, class_names=None, decimals=3,
                show_weights=False):
    """An indented text picture of a fitted tree, one line per test and per leaf.

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
    tree, names, categories, classes, show_missing = _context(estimator, feature_names,
                                                              class_names)
    lines = []

    def leaf_line(node, indent):
        pred, _ = _leaf_text(tree, node, classes, decimals)
        label = "class" if classes is not None else "value"
        extra = ""
        if show_weights:
            extra = f" (weights: {np.round(tree.value[node] * tree.weighted_n_node_samples[node], decimals).tolist()})"
        lines.append(f"{indent}|--- {label}: {pred}{extra}")

    stack = [(0, 0, None)]
    while stack:
        node, depth, text = stack.pop()
        indent = "|   " * depth
        if text is not None:
            lines.append(f"{indent}|--- {text}")
            indent += "|   "
            depth += 1
        if tree.children_left[node] == TREE_LEAF:
            leaf_line(node, indent)
            continue
        f = int(tree.feature[node])
        miss_l = " (or missing)" if show_missing[f] and tree.missing_go_left[node] else ""
        miss_r = " (or missing)" if show_missing[f] and not tree.missing_go_left[node] else ""
        if tree.is_categorical[node]:
            cats = categories[f]
            left = _bitset_members(tree.categories_left[node], len(cats))
            lset = "{" + ", ".join(str(cats[i]) for i in left) + "}"
            lt, rt = f"{names[f]} in {lset}", f"{names[f]} not in {lset}"
        else:
            t = _fmt(float(tree.threshold[node]), decimals)
            lt, rt = f"{names[f]} <= {t}", f"{names[f]} >  {t}"
        stack.append((int(tree.children_right[node]), depth, rt + miss_r))
        stack.append((int(tree.children_left[node]), depth, lt + miss_l))
    return "\n".join(lines)
