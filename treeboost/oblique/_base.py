"""What the oblique trees and forests share: input checks, the per-sample statistics,
the standardisation, and the tree built from the grower's arrays."""

from __future__ import annotations

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._input.columns import check_finite_array as _check_finite_array
from .._input.estimator_input import check_int64_params
from .._input.weights import check_weights
from .._input.targets import check_regression_target, encode_classification_target
from ..trees.pruning import weakest_links
from ..persistence import check_array, check_classes, check_fitted, validate_part
from ._grow import GrowParams, GrownArrays, grow_tree
from ._search import ENTROPY, GINI, SQUARED_ERROR
from ._splitters import SPORF
from .oblique_tree import ObliqueTree

CRITERIA = {"gini": GINI, "entropy": ENTROPY, "log_loss": ENTROPY, "squared_error": SQUARED_ERROR}

#: the stopping parameters every oblique learner takes, checked as scikit-learn does
STOPPING_CONSTRAINTS = {
    "max_depth": [Interval(Integral, 1, None, closed="left"), None],
    "min_samples_split": [
        Interval(Integral, 2, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
    ],
    "min_samples_leaf": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="neither"),
    ],
    "min_impurity_decrease": [Interval(Real, 0.0, None, closed="left")],
    "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
    "random_state": ["random_state"],
}
CLASSIFIER_CRITERIA = StrOptions({"gini", "entropy", "log_loss"})
REGRESSOR_CRITERIA = StrOptions({"squared_error"})


def resolve_count(value, n_samples):
    """A count parameter: an int as given, a fraction of ``n_samples`` rounded up."""
    if isinstance(value, Integral):
        return int(value)
    return max(1, int(np.ceil(value * n_samples)))


def check_X(est, X, reset):
    """X as a float64 array (NaN allowed: missing; +-inf refused, naming X), through the
    encoders' check (without scikit-learn's warning on values near the largest float)."""
    X = validate_data(est, X, reset=reset, skip_check_array=True)
    try:
        return _check_finite_array(
            X, dtype=np.float64, ensure_all_finite="allow-nan", order="C", estimator=est
        )
    except (TypeError, ValueError) as exc:  # text: float("a") / float(pd.NA)
        if "could not convert" not in str(exc) and "float() argument" not in str(exc):
            raise
        raise ValueError(
            f"X must be numeric: {type(est).__name__} takes no categorical or text "
            f"columns ({exc}); encode them first (e.g. with OneHotEncoder)."
        ) from exc


def check_fit_input(est, X, y, sample_weight):
    """``(X, y, w)`` checked; a classifier's ``classes_`` / ``n_classes_`` set."""
    X = check_X(est, X, reset=True)
    if is_classifier(est):
        est.classes_, y = encode_classification_target(y, X.shape[0])
        est.n_classes_ = int(est.classes_.shape[0])
        w = check_weights(sample_weight, X)
    else:
        y = check_regression_target(y, X.shape[0])
        w = check_weights(sample_weight, X, y)
    return X, y, w


def standardisation(X, w):
    """The weighted mean and standard deviation of each attribute over its non-missing
    rows of positive weight (1 for a constant or all-missing attribute)."""
    present = ~np.isnan(X) & (w > 0)[:, None]
    ww = np.where(present, w[:, None], 0.0)
    den = ww.sum(axis=0)
    Xz = np.where(present, X, 0.0)
    # the moments of X / m (m: the column's largest |x|), then scaled back: sums of
    # values near the largest float would overflow
    m = np.abs(Xz).max(axis=0, initial=0.0)
    m[m == 0] = 1.0
    Xz = Xz / m
    mean = np.divide((ww * Xz).sum(axis=0), den, out=np.zeros(X.shape[1]), where=den > 0)
    var = np.divide(
        (ww * (Xz - mean) ** 2).sum(axis=0), den, out=np.zeros(X.shape[1]), where=den > 0
    )
    mean, scale = mean * m, np.sqrt(var) * m
    scale[~(scale > 1e-12 * (1.0 + np.abs(mean)))] = 1.0
    return mean, scale


def statistics(est, y, w):
    """Per-sample statistics: a classifier's weight per class, a regressor's
    ``(w, w y, w y^2)`` of the target centred by its weighted mean (returned too)."""
    if is_classifier(est):
        S = np.zeros((y.shape[0], est.n_classes_))
        S[np.arange(y.shape[0]), y] = w
        return S, 0.0
    center = float(np.average(y, weights=w))
    yc = y - center
    return np.column_stack([w, w * yc, w * yc * yc]), center


def tree_from_stats(grown: GrownArrays, crit, n_features, center):
    """The :class:`ObliqueTree` of the grower's arrays: values, impurities per unit
    weight (entropy in bits) and weights from the node sums."""
    st = grown.node_stats
    if crit == SQUARED_ERROR:
        weight = st[:, 0].copy()
        safe = np.where(weight > 0, weight, 1.0)
        mean = st[:, 1] / safe
        value = (mean + center)[:, None]
        impurity = np.maximum(st[:, 2] / safe - mean**2, 0.0)
    else:
        weight = st.sum(axis=1)
        value = st / np.where(weight > 0, weight, 1.0)[:, None]
        if crit == GINI:
            impurity = 1.0 - (value**2).sum(axis=1)
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                impurity = -np.where(value > 0, value * np.log2(value), 0.0).sum(axis=1)
    return ObliqueTree.from_grown(grown, n_features, value, impurity, weight)


class Standardised(NamedTuple):
    """The attributes standardised, ``(x - mean) / scale``, one row an attribute (the
    projection splitter reads a node's rows of one attribute at a time), missing values
    NaN, and which attributes have any."""

    ZT: np.ndarray
    has_nan: np.ndarray


def standardised(X, mean, scale, splitter) -> Standardised:
    """The :class:`Standardised` attributes a grower of ``splitter`` reads (once a fit:
    a forest's trees share them); empty for the splitters that gather a node's rows."""
    if splitter != SPORF:
        return Standardised(np.empty((0, 0)), np.zeros(0, dtype=bool))
    ZT = np.ascontiguousarray(((X - mean) / scale).T)
    return Standardised(ZT, np.isnan(X).any(axis=0))


def grow(X, S, w, mean, scale, params: GrowParams, center, rows=None, std=None):
    """One tree on the rows of positive weight (or ``rows``); ``std``: the
    :class:`Standardised` attributes when already computed."""
    rows = np.flatnonzero(w > 0).astype(np.int64) if rows is None else rows.astype(np.int64)
    if std is None:
        std = standardised(X, mean, scale, params.splitter)
    grown = GrownArrays(*grow_tree(X, std.ZT, std.has_nan, mean, scale, S, rows, params))
    return tree_from_stats(grown, params.crit, X.shape[1], center)


def ccp_prune(tree: ObliqueTree, ccp_alpha: float) -> ObliqueTree:
    """Minimal cost-complexity pruning (Breiman et al. 1984) by the axis-parallel
    trees' one rule, :func:`~treeboost.trees.pruning.weakest_links`: while the weakest
    link, the internal node ``t`` of least ``alpha_eff(t) = (R(t) - R(T_t)) /
    (|leaves(T_t)| - 1)``, has ``alpha_eff <= ccp_alpha``, make it a leaf (``R``:
    impurity times the node's share of the root's weight)."""
    if ccp_alpha <= 0 or tree.node_count == 1:
        return tree
    cut = np.zeros(tree.node_count, dtype=bool)
    cut[weakest_links(tree, ccp_alpha)] = True
    return tree.subtree(cut)


class ObliqueStateMixin:
    """The parameter check of an oblique learner, and the load-time check of its
    standardisation and classes."""

    def _validate_params(self):
        """scikit-learn's check against ``_parameter_constraints``, then the int64 bound
        the other estimators put on an integer parameter."""
        super()._validate_params()
        check_int64_params(self)

    def _check_oblique_state(self, where, required):
        if not check_fitted(self, where, required):
            return None
        n = self.n_features_in_
        check_array(self.mean_, f"{where}.mean_", "float64", (n,), finite=True)
        check_array(self.scale_, f"{where}.scale_", "float64", (n,), finite=True, low=1e-300)
        if is_classifier(self):
            return check_classes(self, where)
        return 1

    def _check_tree(self, tree, where, n_outputs):
        validate_part(
            tree, where, expect=ObliqueTree, n_features=self.n_features_in_, n_outputs=n_outputs
        )


def fitted_X(est, X):
    check_is_fitted(est)
    return check_X(est, X, reset=False)
