"""A C4.5rules-style rule-list classifier.

:class:`RuleListClassifier` (after Quinlan's C4.5rules, *C4.5*, chapter 5): fit a tree,
take one rule per leaf (:func:`treeboost.inspection.extract_rules`), generalise each rule by
greedily dropping the antecedent whose removal gives the lowest pessimistic error rate
``U_CF(E, N)`` (N rows covered, E of them of another class; see
:func:`treeboost.trees.pruning.pessimistic_errors`) as long as that rate does not go up, let
each rule predict the majority class of the training rows it covers (ties: the first of
``classes_``; this is the leaf's class unless generalising moved the majority), drop
duplicate rules, order the rules by estimated accuracy ``1 - U_CF`` (largest first; ties:
more rows covered first), and predict with the first rule that fires, or the default class
(the majority class of the training rows no rule covers).  Quinlan's MDL selection of rule
subsets per class is not done.

Rule post-pruning judged on a validation set (Mitchell, *Machine Learning*, 3.7.1.2;
``accuracy_estimate="validation"``): "1. Infer the decision tree from the training set
[...] 2. Convert the learned tree into an equivalent set of rules by creating one rule for
each path from the root node to a leaf node.  3. Prune (generalize) each rule by removing
any preconditions that result in improving its estimated accuracy.  4. Sort the pruned
rules by their estimated accuracy, and consider them in this sequence when classifying
subsequent instances."  A rule's estimated accuracy is then the (weighted) fraction of the
validation rows it covers that are of its class (0 when it covers none); the
precondition whose removal gives the best accuracy goes first, as long as the accuracy
does not go down ("no pruning step is performed if it reduces the estimated rule
accuracy"); ties in the order: more validation rows covered first, then more training
rows.  The tree grows on the training rows only (``X_val`` given, or a
``validation_fraction`` held out).
"""

from __future__ import annotations

from numbers import Real
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._atomic import AtomicRefitMixin
from .._input.weights import check_weights
from .._moved import moved_names
from ..inspection import rules as _rules
from ..inspection.rules import Rule, _categories, _condition_mask
from ..persistence import PersistenceMixin, check_fitted, is_hashable, register, validate_part
from ..persistence._spec import array, check_state
from .cart import DecisionTreeClassifier
from .class_ties import top_class
from .classic import BaseClassicTree, C45Classifier, ID3Classifier, hold_out
from .pruning import _check_cf, pessimistic_errors

if TYPE_CHECKING:
    from typing import TypeVar

    from .._typing import ArrayLike, Float64Array, MatrixLike, NDArray

    _RuleListT = TypeVar("_RuleListT", bound="RuleListClassifier")

__all__ = ["RuleListClassifier"]

__getattr__ = moved_names(
    __name__,
    {
        **dict.fromkeys(["extract_rules", "export_rules", "rule_coverage"], "treeboost.inspection"),
        "multiway_rules": "treeboost.inspection.rules",
    },
)


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
    accuracy_estimate : {"pessimistic", "validation"}, default="pessimistic"
        How a rule's accuracy is estimated, to drop antecedents and to order the rules:
        ``1 - U_CF`` on the training rows (C4.5rules), or the accuracy on a validation
        set (Mitchell's rule post-pruning, module docs).
    validation_fraction : float in (0, 1), default=0.3
        With ``"validation"`` and no ``X_val`` given to ``fit``: the share of the rows
        held out (stratified).
    random_state : int, RandomState or None, default=None
        Seeds that hold-out split.

    Attributes
    ----------
    estimator_ : the fitted tree
    rules_ : list of Rule
        The ordered rules; ``rule.extra`` holds ``estimated_accuracy`` (``1 - U_CF``, or
        the validation accuracy),
        ``coverage`` (training weight covered), ``dropped`` (antecedents removed) and
        ``distribution`` (class distribution of the covered training rows).
    default_class_ : the class predicted when no rule fires
    classes_, n_features_in_, feature_names_in_
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "confidence_factor": [Interval(Real, 0.0, 0.5, closed="right")],
        "generalize": ["boolean"],
        "accuracy_estimate": [StrOptions({"pessimistic", "validation"})],
        "validation_fraction": [Interval(Real, 0.0, 1.0, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator: DecisionTreeClassifier | BaseClassicTree | None = None,
        *,
        confidence_factor: float = 0.25,
        generalize: bool = True,
        accuracy_estimate: str = "pessimistic",
        validation_fraction: float = 0.3,
        random_state: Any = None,
    ) -> None:
        self.estimator = estimator
        self.confidence_factor = confidence_factor
        self.generalize = generalize
        self.accuracy_estimate = accuracy_estimate
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def _make_tree(self):
        """An unfitted clone of ``estimator``; only treeboost's classifier trees have the
        rules (and the encoded input) that a rule list is made of."""
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

    def fit(
        self: _RuleListT,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        X_val: MatrixLike | None = None,
        y_val: ArrayLike | None = None,
    ) -> _RuleListT:
        """Fit the tree, extract, generalise and order its rules.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            As for ``estimator``.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative, not all zero, summing to at most ``1e300`` (the rules' error
            estimates count the weights as cases).
        X_val, y_val : the validation set of ``accuracy_estimate="validation"`` (both or
            neither; when not given, a ``validation_fraction`` of the rows is held out).

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
        if (X_val is None) != (y_val is None):
            raise ValueError("X_val and y_val must be given together (or neither).")
        on_validation = self.accuracy_estimate == "validation"
        if X_val is not None and not on_validation:
            raise ValueError(
                "X_val / y_val are read with accuracy_estimate='validation' only; "
                f"accuracy_estimate={self.accuracy_estimate!r} does not use them."
            )
        if on_validation and X_val is None:
            X, y, sample_weight, X_val, y_val = hold_out(
                X, y, sample_weight, self.validation_fraction, self.random_state
            )
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
        rank = getattr(est, "class_rank_", None)
        val = self._validation_rows(est, X_val, y_val) if on_validation else None
        fit_rows = _FitRows(est, Xe, cats, y_idx, w, K, rank, cf, val)
        rules, seen = [], set()
        for rule in _rules.extract_rules(est):
            new = self._post_prune(rule, fit_rows)
            key = (tuple(str(c) for c in new.conditions), new.prediction)
            if key in seen:  # two leaves generalised to the same rule
                continue
            seen.add(key)
            rules.append(new)
        rules.sort(
            key=lambda r: (
                -r.extra["estimated_accuracy"],
                -r.extra.get("validation_coverage", 0.0),
                -r.extra["coverage"],
            )
        )
        self.rules_ = rules
        fired = self._first_rule(Xe) >= 0
        rest = ~fired if (~fired).any() else np.ones(Xe.shape[0], bool)
        counts = np.bincount(y_idx[rest], weights=w[rest], minlength=K)
        self.default_distribution_ = counts / counts.sum()
        self.default_class_ = self.classes_[int(top_class(counts / counts.sum(), rank))]
        return self

    def _post_prune(self, rule, rows):
        """One leaf's rule generalised (its antecedents dropped while the estimated error
        does not rise) and scored: a new :class:`Rule` with its estimate in ``extra``."""
        est, Xe, cats, y_idx, w, K, rank, cf, val = rows
        # the class index from the leaf itself (CART rules carry it as text)
        k = int(top_class(est.tree_.value[rule.leaf], rank))
        masks = [_condition_mask(c, Xe, cats) for c in rule.conditions]
        if val is None:
            rate = self._pessimistic_rate(masks, y_idx == k, w, cf)
        else:
            val_masks = [_condition_mask(c, val.X, cats) for c in rule.conditions]
            rate = self._validation_rate(val_masks, val.y == k)
        keep, dropped = self._generalize(len(masks), rate)
        conds = [rule.conditions[i] for i in keep]
        cover = (
            np.logical_and.reduce([masks[i] for i in keep]) if keep else np.ones(Xe.shape[0], bool)
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
        k = int(top_class(distribution, rank))
        e = n - float(dist[k])
        acc = 1.0 - float(pessimistic_errors(n, e, cf)) / n if n > 0 else 0.0
        val_cover = 0.0
        if val is not None:
            val_masks = [_condition_mask(c, val.X, cats) for c in conds]
            val_rate = self._validation_rate(val_masks, val.y == k)
            acc = 1.0 - val_rate(list(range(len(conds))))
            val_cover = float(np.logical_and.reduce(val_masks).sum() if conds else val.y.shape[0])
        return Rule(
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
                **({} if val is None else {"validation_coverage": val_cover}),
            ),
        )

    def _generalize(self, n_conditions, rate):
        """Indices of the antecedents kept, and of those dropped: greedily, the one whose
        removal gives the lowest error ``rate(kept)``, while it does not go up."""
        keep = list(range(n_conditions))
        dropped = []
        current = rate(keep)
        while self.generalize and keep:
            rates = [rate([i for i in keep if i != j]) for j in keep]
            best = int(np.argmin(rates))
            if rates[best] > current + 1e-12:
                break
            current = rates[best]
            dropped.append(keep.pop(best))
        return keep, dropped

    @staticmethod
    def _pessimistic_rate(masks, correct, w, cf):
        """``U_CF(E, N)`` of the rule made of the antecedents ``keep`` (C4.5rules)."""

        def rate(keep):
            cover = _cover(masks, keep, correct.shape[0])
            n = float(w[cover].sum())
            if n <= 0:
                return 1.0
            e = n - float(w[cover & correct].sum())
            return float(pessimistic_errors(n, e, cf)) / n

        return rate

    @staticmethod
    def _validation_rate(masks, correct):
        """The error rate on the validation rows the rule covers (1 when none)."""

        def rate(keep):
            cover = _cover(masks, keep, correct.shape[0])
            n = int(cover.sum())
            return 1.0 - float((cover & correct).sum()) / n if n else 1.0

        return rate

    def _validation_rows(self, est, X_val, y_val):
        """The validation set, encoded as the tree's input, with class indices (-1 for a
        class the tree never saw: never correct)."""
        Xv = est._transform(X_val)
        labels = column_or_1d(y_val)
        if labels.shape[0] != Xv.shape[0]:
            raise ValueError(f"X_val has {Xv.shape[0]} rows but y_val has {labels.shape[0]}.")
        lookup = {c: i for i, c in enumerate(self.classes_.tolist())}
        yv = np.array([lookup.get(v, -1) for v in labels.tolist()], dtype=np.int64)
        return _Validation(Xv, yv)

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

    def predict_proba(self, X: MatrixLike) -> Float64Array:
        """Class distribution (training rows) of the first rule that fires, or of the
        rows no rule covers."""
        check_is_fitted(self, "rules_")
        first = self._first_rule(self.estimator_._transform(X))
        table = np.vstack(
            [r.extra["distribution"] for r in self.rules_] + [self.default_distribution_]
        )
        return table[np.where(first >= 0, first, len(self.rules_))]

    def predict(self, X: MatrixLike) -> NDArray[Any]:
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

    def export_text(self) -> str:
        """The rule list, one rule per line, then the default class."""
        check_is_fitted(self, "rules_")
        lines = [
            f"{i + 1:>3}. {r} (est. accuracy {r.extra['estimated_accuracy']:.3f})"
            for i, r in enumerate(self.rules_)
        ]
        lines.append(f"     OTHERWISE class = {self.default_class_}")
        return "\n".join(lines)


class _FitRows(NamedTuple):
    """What every rule of a fit is scored on: the tree, its encoded training rows, their
    class indices and weights, and the validation rows (``accuracy_estimate="validation"``)."""

    tree: Any
    X: Any
    categories: Any
    y: Any
    weights: Any
    n_classes: int
    class_rank: Any
    confidence_factor: float
    validation: Any


class _Validation(NamedTuple):
    """The validation rows of a rule post-pruning: encoded X and class indices."""

    X: Float64Array
    y: NDArray[np.int64]


def _cover(masks, keep, n):
    """Rows satisfying every antecedent of ``keep`` (all rows for none)."""
    return np.logical_and.reduce([masks[i] for i in keep]) if keep else np.ones(n, bool)


register(RuleListClassifier)
