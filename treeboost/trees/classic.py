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

from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._input.estimator_input import EncoderMixin
from .._input.weights import check_weights
from .._input.targets import encode_classification_target
from ..persistence import PersistenceMixin, register, validate_part
from ..persistence._checks import (
    check_classes,
    check_fitted,
)
from . import pruning as _pruning
from .attribute_costs import COST_MEASURES, resolve_feature_costs
from .class_ties import CLASS_TIE_BREAKS, check_class_rank, class_rank, top_class
from .missing_values import MISSING_RULES

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal, TypeVar

    import pandas as pd

    from .._typing import (
        ArrayLike,
        CategoricalFeatures,
        Float64Array,
        NDArray,
        RandomStateLike,
    )

    _ClassicT = TypeVar("_ClassicT", bound="BaseClassicTree")

from ._classic_grower import _Column, _Grower, _GrowOptions, _interval_labels
from .multiway_tree import TIE_TOL, MultiwayTree, entropy

__all__ = ["ID3Classifier", "C45Classifier", "MultiwayTree", "entropy"]


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
                pruners: dict[str, Callable[..., Any]] = {
                    "pre": _pruning.pre_pruning,
                    "post": _pruning.reduced_error_pruning,
                    "mitchell": _pruning.mitchell_reduced_error_pruning,
                }
                fn = pruners[self.pruning]
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
