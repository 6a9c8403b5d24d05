"""IF-THEN rules of any treeboost tree, and a C4.5rules-style rule-list classifier.

:func:`extract_rules` / :func:`export_rules` work for the CART trees (they call
:func:`treeboost.trees.export.extract_rules`) and for the multiway ID3 / C4.5 trees (one
rule per leaf, ``attribute = value`` for a categorical test and an interval for the
continuous ones).  :func:`rule_coverage` tells which rows each rule fires on.

For a multiway tree a rule does not fire on a row whose value of one of its attributes is
missing (the tree itself spreads such a row over several leaves); for a CART tree the
conditions say "(or missing)" on the side missing values follow, so exactly one rule fires
on every row.

:class:`RuleListClassifier` (after Quinlan's C4.5rules, *C4.5*, chapter 5): fit a tree,
take one rule per leaf, generalise each rule by greedily dropping the antecedent whose
removal gives the lowest pessimistic error rate ``U_CF(E, N)`` (N rows covered, E of them of
another class; see :func:`treeboost.trees.pruning.pessimistic_errors`) as long as that rate
does not go up, let each rule predict the majority class of the training rows it covers
(ties: the first of ``classes_``; this is the leaf's class unless generalising moved the
majority), drop duplicate rules, order the rules by estimated accuracy ``1 - U_CF``
(largest first; ties: more rows covered first), and predict with the first rule that
fires, or the default class (the majority class of the training rows no rule covers).
Quinlan's MDL selection of rule subsets per class is not done.
"""

import copy
from numbers import Real

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._atomic import AtomicRefitMixin
from ..persistence import PersistenceMixin, check_fitted, is_hashable, register, validate_part
from ..persistence._spec import array, check_state
from . import export as _export
from .encoding import check_weights
from .export import Condition, Rule
from .pruning import _check_cf, pessimistic_errors

__all__ = ["extract_rules", "export_rules", "rule_coverage", "RuleListClassifier"]


def multiway_rules(view, target_name=None, decimals=3):
    """One rule per leaf of the multiway tree of a
    :class:`~treeboost.trees._tree_view.TreeView`."""
    tree = view.tree
    names = view.feature_names
    classes = view.classes
    rules = []
    stack = [(0, {})]
    while stack:
        node, conds = stack.pop()
        if tree.feature[node] < 0:
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
        for v, child in reversed(list(enumerate(tree.children[node]))):
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
            stack.append((int(child), new))
    rules.sort(key=lambda r: r.leaf)
    return rules


@_export.index_doc
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
    """One :class:`~treeboost.trees.export.Rule` per leaf of one tree of any fitted
    treeboost model.

    CART trees (and the trees of ensembles): :func:`treeboost.trees.export.extract_rules`.
    ID3 / C4.5 trees: the path's tests, ``attribute = value`` (categorical) or an
    interval (continuous, the thresholds of the path merged).

    Parameters
    ----------
    estimator : fitted treeboost tree or ensemble
    feature_names, class_names, target_name, decimals :
        As :func:`treeboost.trees.export.extract_rules`.
    %(tree_index)s
    """
    view = _export.tree_view(estimator, feature_names, class_names, tree_index, class_index)
    return _export.rules_of_view(view, target_name, decimals)


@_export.index_doc
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
    """The rules of :func:`extract_rules` as strings, ``IF ... THEN class = c [n=.., p=..]``.

    Parameters
    ----------
    estimator : fitted treeboost tree or ensemble
    feature_names, class_names, target_name, decimals : as :func:`extract_rules`.
    %(tree_index)s

    Examples
    --------
    >>> from treeboost.datasets import load_watermelon
    >>> from treeboost.trees.classic import ID3Classifier
    >>> melons = load_watermelon()
    >>> clf = ID3Classifier(max_depth=1).fit(melons.data, melons.target)
    >>> print(export_rules(clf)[0])
    IF 纹理 = 清晰 THEN class = 是 [n=9, p=0.778]
    """
    view = _export.tree_view(estimator, feature_names, class_names, tree_index, class_index)
    return _export.rule_texts(view, _export.rules_of_view(view, target_name, decimals))


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


def rule_coverage(estimator, X, rules=None):
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


class RuleListClassifier(AtomicRefitMixin, PersistenceMixin, ClassifierMixin, BaseEstimator):
    """An ordered list of IF-THEN rules generalised from a tree (C4.5rules style).

    Parameters
    ----------
    estimator : treeboost tree classifier or None, default=None
        The tree whose leaves give the initial rules (cloned and fitted);
        ``None``: ``C45Classifier()``.
    confidence_factor : float in (0, 0.5], default=0.25
        CF of the pessimistic error rate used to drop antecedents and to order the rules.
    generalize : bool, default=True
        Drop antecedents (C4.5rules); False keeps the tree's rules as they are (still
        ordered).

    Attributes
    ----------
    estimator_ : the fitted tree
    rules_ : list of Rule
        The ordered rules; ``rule.extra`` holds ``estimated_accuracy`` (``1 - U_CF``),
        ``coverage`` (training weight covered), ``dropped`` (antecedents removed) and
        ``distribution`` (class distribution of the covered training rows).
    default_class_ : the class predicted when no rule fires
    classes_, n_features_in_, feature_names_in_
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "confidence_factor": [Interval(Real, 0.0, 0.5, closed="right")],
        "generalize": ["boolean"],
    }

    def __init__(self, estimator=None, *, confidence_factor=0.25, generalize=True):
        self.estimator = estimator
        self.confidence_factor = confidence_factor
        self.generalize = generalize

    def _make_tree(self):
        """An unfitted clone of ``estimator``; only treeboost's classifier trees have the
        rules (and the encoded input) that a rule list is made of."""
        from .cart import DecisionTreeClassifier
        from .classic import BaseClassicTree, C45Classifier

        if self.estimator is None:
            return C45Classifier()
        if not isinstance(self.estimator, (DecisionTreeClassifier, BaseClassicTree)):
            got = (
                f"the class {self.estimator.__name__} (pass an instance)"
                if isinstance(self.estimator, type)
                else type(self.estimator).__name__
            )
            raise TypeError(
                f"estimator must be a treeboost tree classifier (DecisionTreeClassifier, "
                f"ID3Classifier or C45Classifier) or None, got {got}."
            )
        return clone(self.estimator)

    def fit(self, X, y, sample_weight=None):
        """Fit the tree, extract, generalise and order its rules.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            As for ``estimator``.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative, not all zero, summing to at most ``1e300`` (the rules' error
            estimates count the weights as cases).

        Returns
        -------
        self

        Raises
        ------
        TypeError
            If ``estimator`` is not a treeboost tree classifier.
        ValueError
            On invalid parameters, input or weights.
        """
        self._validate_params()
        cf = _check_cf(self.confidence_factor)
        est = self._make_tree()
        est.fit(X, y, sample_weight=sample_weight)
        self.estimator_ = est
        self.classes_ = est.classes_
        self.n_features_in_ = est.n_features_in_
        if hasattr(est, "feature_names_in_"):
            self.feature_names_in_ = est.feature_names_in_
        Xe = est._transform(X)
        cats = _categories(est)
        # the tree validated y; a column vector is flattened as the tree did, and the
        # labels get the tree's class indices (classes_ is np.unique(y) there too)
        classes, y_idx = np.unique(column_or_1d(y), return_inverse=True)
        if not np.array_equal(classes, self.classes_):
            raise ValueError("y has other classes than the fitted tree.")
        w = check_weights(sample_weight, Xe)
        K = self.classes_.shape[0]
        rules, seen = [], set()
        for rule in extract_rules(est):
            # the class index from the leaf itself (CART rules carry it as text)
            k = int(np.argmax(est.tree_.value[rule.leaf]))
            masks = [_condition_mask(c, Xe, cats) for c in rule.conditions]
            keep, dropped = self._generalize(masks, y_idx == k, w, cf)
            conds = [rule.conditions[i] for i in keep]
            cover = (
                np.logical_and.reduce([masks[i] for i in keep])
                if keep
                else np.ones(Xe.shape[0], bool)
            )
            n = float(w[cover].sum())
            dist = np.bincount(y_idx[cover], weights=w[cover], minlength=K)
            if n > 0:
                distribution = dist / n
            else:
                # no training row satisfies the rule (a multiway leaf reached only by
                # fractions of rows with a missing value): the leaf's own distribution
                leaf = np.asarray(est.tree_.value[rule.leaf], dtype=np.float64).ravel()
                distribution = leaf / leaf.sum()
            # the rule predicts the class most of its rows have (ties: the first of
            # classes_, as a leaf does), so that predict agrees with predict_proba; this
            # is the leaf's class unless generalising, or rows that a multiway leaf only
            # got fractions of, changed the majority
            k = int(np.argmax(distribution))
            key = (tuple(str(c) for c in conds), k)
            if key in seen:  # two leaves generalised to the same rule
                continue
            seen.add(key)
            e = n - float(dist[k])
            acc = 1.0 - float(pessimistic_errors(n, e, cf)) / n if n > 0 else 0.0
            new = Rule(
                conds,
                self.classes_[k],
                float(dist[k] / n) if n > 0 else None,
                rule.leaf,
                int(cover.sum()),
                n,
                rule.target_name,
                rule.decimals,
                dict(
                    estimated_accuracy=acc,
                    coverage=n,
                    dropped=[str(rule.conditions[i]) for i in dropped],
                    distribution=distribution,
                ),
            )
            rules.append(new)
        rules.sort(key=lambda r: (-r.extra["estimated_accuracy"], -r.extra["coverage"]))
        self.rules_ = rules
        fired = self._first_rule(Xe) >= 0
        rest = ~fired if (~fired).any() else np.ones(Xe.shape[0], bool)
        counts = np.bincount(y_idx[rest], weights=w[rest], minlength=K)
        self.default_distribution_ = counts / counts.sum()
        self.default_class_ = self.classes_[int(np.argmax(counts))]
        return self

    def _generalize(self, masks, correct, w, cf):
        """Indices of the antecedents kept, and of those dropped (greedy, C4.5rules)."""
        keep = list(range(len(masks)))
        dropped = []
        current = self._rate(masks, keep, correct, w, cf)
        while self.generalize and keep:
            rates = [self._rate(masks, [i for i in keep if i != j], correct, w, cf) for j in keep]
            best = int(np.argmin(rates))
            if rates[best] > current + 1e-12:
                break
            current = rates[best]
            dropped.append(keep.pop(best))
        return keep, dropped

    @staticmethod
    def _rate(masks, keep, correct, w, cf):
        cover = (
            np.logical_and.reduce([masks[i] for i in keep])
            if keep
            else np.ones(correct.shape[0], bool)
        )
        n = float(w[cover].sum())
        if n <= 0:
            return 1.0
        e = n - float(w[cover & correct].sum())
        return float(pessimistic_errors(n, e, cf)) / n

    def _first_rule(self, Xe):
        """Index of the first rule firing on each row (-1: none)."""
        cats = _categories(self.estimator_)
        first = np.full(Xe.shape[0], -1)
        for j, r in enumerate(self.rules_):
            m = np.ones(Xe.shape[0], bool)
            for c in r.conditions:
                m &= _condition_mask(c, Xe, cats)
            first[(first < 0) & m] = j
        return first

    def predict_proba(self, X):
        """Class distribution (training rows) of the first rule that fires, or of the
        rows no rule covers."""
        check_is_fitted(self, "rules_")
        first = self._first_rule(self.estimator_._transform(X))
        table = np.vstack(
            [r.extra["distribution"] for r in self.rules_] + [self.default_distribution_]
        )
        return table[np.where(first >= 0, first, len(self.rules_))]

    def predict(self, X):
        """Class of the first rule that fires, else ``default_class_``."""
        check_is_fitted(self, "rules_")
        first = self._first_rule(self.estimator_._transform(X))
        labels = np.array(
            [r.prediction for r in self.rules_] + [self.default_class_], dtype=self.classes_.dtype
        )
        return labels[np.where(first >= 0, first, len(self.rules_))]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # both kinds of tree take NaN as a missing value (a rule does not fire on it)
        tags.input_tags.allow_nan = True
        # a sparse X is the tree's to accept (CART takes it, the default C4.5 does not)
        est = self.estimator
        tags.input_tags.sparse = (
            est is not None and not isinstance(est, type) and get_tags(est).input_tags.sparse
        )
        return tags

    # -- the state read from a model file ---------------------------------------------------

    _persist_attributes = (
        "estimator_",
        "classes_",
        "n_features_in_",
        "feature_names_in_",
        "rules_",
        "default_distribution_",
        "default_class_",
    )
    #: the class distribution of the default rule, over ``classes_``
    _state_spec = {"default_distribution_": array("float64", ("classes_",), finite=True, low=0)}

    def _validate_state(self, where="model", **context):
        """Check a loaded rule list: its fitted tree (``estimator_``), then every rule
        (a :class:`~treeboost.trees.export.Rule` of
        :class:`~treeboost.trees.export.Condition`: data, tested on features in range,
        predicting one of ``classes_`` with a finite distribution over them) and the
        default class."""
        from .cart import DecisionTreeClassifier
        from .classic import C45Classifier, ID3Classifier

        super()._validate_state(where, **context)
        required = [
            "estimator_",
            "classes_",
            "n_features_in_",
            "rules_",
            "default_distribution_",
            "default_class_",
        ]
        if not check_fitted(self, where, required):
            return
        est = self.estimator_
        validate_part(
            est,
            f"{where}.estimator_",
            expect=(DecisionTreeClassifier, C45Classifier, ID3Classifier),
        )
        if "tree_" not in vars(est):
            raise ValueError(f"{where}.estimator_: a rule list needs its fitted tree.")
        classes = self.classes_
        if (
            not isinstance(classes, np.ndarray)
            or not np.array_equal(classes, est.classes_)
            or classes.dtype != est.classes_.dtype
        ):
            raise ValueError(f"{where}.classes_: must be the classes of estimator_.")
        if self.n_features_in_ != est.n_features_in_:
            raise ValueError(
                f"{where}.n_features_in_: {self.n_features_in_!r:.20}, "
                f"estimator_ has {est.n_features_in_}."
            )
        cats = _categories(est)
        if not isinstance(self.rules_, list):
            raise ValueError(f"{where}.rules_: must be a list of rules.")
        for j, r in enumerate(self.rules_):
            validate_part(
                r,
                f"{where}.rules_[{j}]",
                expect=Rule,
                n_features=self.n_features_in_,
                categories=cats,
                classes=classes,
            )
        check_state(self, where, self._state_spec, {"classes_": classes.size})
        if not is_hashable(self.default_class_) or self.default_class_ not in set(classes.tolist()):
            raise ValueError(
                f"{where}.default_class_: {self.default_class_!r:.40} is not one of classes_."
            )

    def export_text(self):
        """The rule list, one rule per line, then the default class."""
        check_is_fitted(self, "rules_")
        lines = [
            f"{i + 1:>3}. {r} (est. accuracy {r.extra['estimated_accuracy']:.3f})"
            for i, r in enumerate(self.rules_)
        ]
        lines.append(f"     OTHERWISE class = {self.default_class_}")
        return "\n".join(lines)


register(RuleListClassifier, Rule, Condition)
