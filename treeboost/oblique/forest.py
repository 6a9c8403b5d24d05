"""Sparse projection oblique randomer forests (SPORF; Tomita et al., JMLR 2020).

Each node of each tree draws ``max_features`` sparse random directions ``a`` of the
standardised attributes, ``a_f in {-1, 0, +1}``, each with on average
``feature_combinations`` non-zero entries (``1 + Poisson(feature_combinations - 1)``,
on attributes drawn without replacement), and splits on the best threshold of the best
projection ``z = a . x``: the search of every cut between the ordered ``z`` of the
node's rows (between bins of ``z`` at a node of more than ``max_bins`` rows), by one
sweep whose scores are updated in O(1) a row (:mod:`._projections`), in one compiled
call per tree.  The trees are grown on bootstrap samples, in parallel on
threads as treeboost's other forests (the kernels release the GIL).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions

from ..ensembles._parallel import run_chunks
from ..persistence import PersistenceMixin, register
from ._base import (
    CLASSIFIER_CRITERIA,
    CRITERIA,
    REGRESSOR_CRITERIA,
    STOPPING_CONSTRAINTS,
    ObliqueStateMixin,
    check_fit_input,
    fitted_X,
    grow,
    resolve_count,
    standardisation,
    standardised,
    statistics,
)
from ._grow import GrowParams
from ._splitters import SPORF


def resolve_projections(max_features, n_features):
    """The number of projections a node draws."""
    if max_features is None:
        return n_features
    if isinstance(max_features, str):
        f = np.sqrt if max_features == "sqrt" else np.log2
        return max(1, int(f(n_features)))
    if isinstance(max_features, Integral):
        return int(max_features)
    return max(1, int(max_features * n_features))


def _grow_chunk(indices, threads, X, S, w, mean, scale, params, center, seeds, bootstrap):
    std = standardised(X, mean, scale, params.splitter)
    trees = []
    n = X.shape[0]
    for i in indices:
        rng = np.random.RandomState(seeds[i])
        if bootstrap:
            counts = np.bincount(rng.randint(0, n, n), minlength=n).astype(np.float64)
            wi = w * counts
        else:
            wi = w
        tree_params = params._replace(seed=int(rng.randint(2**31 - 1)))
        Si = S * (wi / np.where(w > 0, w, 1.0))[:, None]
        trees.append(grow(X, Si, wi, mean, scale, tree_params, center, std=std))
    return trees


class BaseObliqueForest(ObliqueStateMixin, PersistenceMixin, BaseEstimator):
    """Fitting shared by the SPORF classifier and regressor."""

    _parameter_constraints = {
        **STOPPING_CONSTRAINTS,
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_features": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0.0, None, closed="neither"),
            StrOptions({"sqrt", "log2"}),
            None,
        ],
        "feature_combinations": [Interval(Real, 1.0, None, closed="left")],
        "max_bins": [Interval(Integral, 2, None, closed="left"), None],
        "bootstrap": ["boolean"],
        "n_jobs": [Integral, None],
    }
    _persist_attributes = ("classes_", "n_classes_", "mean_", "scale_", "trees_", "n_projections_")

    def fit(self, X, y, sample_weight=None):
        """Grow ``n_estimators`` trees on bootstrap samples of (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric; NaN marks a missing value (the node's mean takes its place).
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        self._validate_params()
        X, y, w = check_fit_input(self, X, y, sample_weight)
        self.mean_, self.scale_ = standardisation(X, w)
        S, center = statistics(self, y, w)
        n = int(np.count_nonzero(w > 0))
        msl = resolve_count(self.min_samples_leaf, n)
        self.n_projections_ = resolve_projections(self.max_features, X.shape[1])
        params = GrowParams(
            crit=CRITERIA[self.criterion],
            splitter=SPORF,
            max_depth=-1 if self.max_depth is None else int(self.max_depth),
            min_samples_split=max(resolve_count(self.min_samples_split, n), 2 * msl, 2),
            min_samples_leaf=msl,
            min_impurity_decrease=float(self.min_impurity_decrease),
            max_leaf_nodes=0 if self.max_leaf_nodes is None else int(self.max_leaf_nodes),
            n_restarts=0,
            n_jumps=0,
            max_cycles=1,
            n_projections=self.n_projections_,
            density=float(self.feature_combinations),
            n_bins=0 if self.max_bins is None else int(self.max_bins),
            seed=0,
        )
        seeds = check_random_state(self.random_state).randint(2**31 - 1, size=self.n_estimators)
        self.trees_ = run_chunks(
            _grow_chunk,
            self.n_estimators,
            self.n_jobs,
            X=X,
            S=S,
            w=w,
            mean=self.mean_,
            scale=self.scale_,
            params=params,
            center=center,
            seeds=seeds,
            bootstrap=self.bootstrap,
        )
        return self

    def apply(self, X):
        """The leaf of each row in each tree: shape (n_samples, n_estimators)."""
        X = fitted_X(self, X)
        return np.column_stack([t.apply(X) for t in self.trees_])

    def _mean_value(self, X):
        X = fitted_X(self, X)
        total = None
        for t in self.trees_:
            v = t.value[t.apply(X)]
            total = v if total is None else total + v
        return total / len(self.trees_)

    @property
    def n_leaves_(self):
        """The number of leaves of each tree."""
        return np.array([t.n_leaves for t in self.trees_])

    def _validate_state(self, where="model", **context):
        super()._validate_state(where, **context)
        k = self._check_oblique_state(
            where, ["n_features_in_", "mean_", "scale_", "trees_", "n_projections_"]
        )
        if k is None:
            return
        if not isinstance(self.trees_, list) or len(self.trees_) == 0:
            raise ValueError(f"{where}.trees_: must be a non-empty list of trees.")
        for i, t in enumerate(self.trees_):
            self._check_tree(t, f"{where}.trees_[{i}]", k)


_FOREST_PARAMS = """
    n_estimators : int, default=100
    max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease, max_leaf_nodes
        As in :class:`~treeboost.oblique.ObliqueDecisionTreeClassifier`.
    max_features : int, float, {"sqrt", "log2"} or None, default="sqrt"
        The number of random projections drawn at each node (a float: that fraction
        of the attributes; None: as many as attributes).
    feature_combinations : float, default=1.5
        The mean number of attributes combined in one projection (the density
        ``lambda`` of the projection matrix times the number of attributes).
    max_bins : int or None, default=256
        A node with more rows than ``max_bins`` (and more than 32) cuts each projection
        only between bins: its rows are dealt into ``max_bins`` equal-width bins of the
        projected values' range at the node, and one sweep of the rows bin by bin scores
        every cut between two non-empty bins, in ``O(m + max_bins)`` for ``m`` rows; the
        threshold is the midpoint between the values on either side of the cut.  Smaller
        nodes, and every node when ``max_bins=None``, search all cuts between different
        values exactly (the rows dealt into two buckets a row, then ordered by
        insertion).  See :mod:`treeboost.oblique._projections`.
    bootstrap : bool, default=True
    n_jobs : int, default=None
        Threads growing trees (None: 1; -1: every core).
    random_state : int, RandomState instance or None, default=None"""


class ObliqueRandomForestClassifier(ClassifierMixin, BaseObliqueForest):
    __doc__ = (
        """A forest of sparse-projection oblique trees (SPORF) for classification.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss"}, default="gini\""""
        + _FOREST_PARAMS
        + """

    Attributes
    ----------
    classes_ : ndarray
    trees_ : list of ObliqueTree
    n_projections_ : int
"""
    )

    _parameter_constraints = {
        **BaseObliqueForest._parameter_constraints,
        "criterion": [CLASSIFIER_CRITERIA],
    }

    def __init__(
        self,
        n_estimators=100,
        *,
        criterion="gini",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None,
        max_features="sqrt",
        feature_combinations=1.5,
        max_bins=256,
        bootstrap=True,
        n_jobs=None,
        random_state=None,
    ):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.max_features = max_features
        self.feature_combinations = feature_combinations
        self.max_bins = max_bins
        self.bootstrap = bootstrap
        self.n_jobs = n_jobs
        self.random_state = random_state

    def predict_proba(self, X):
        """The mean over the trees of the leaf's class fractions."""
        return self._mean_value(X)

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


class ObliqueRandomForestRegressor(RegressorMixin, BaseObliqueForest):
    __doc__ = (
        """A forest of sparse-projection oblique trees (SPORF) for regression.

    Parameters
    ----------
    criterion : {"squared_error"}, default="squared_error\""""
        + _FOREST_PARAMS
        + """

    Attributes
    ----------
    trees_ : list of ObliqueTree
    n_projections_ : int
"""
    )

    _parameter_constraints = {
        **BaseObliqueForest._parameter_constraints,
        "criterion": [REGRESSOR_CRITERIA],
    }

    def __init__(
        self,
        n_estimators=100,
        *,
        criterion="squared_error",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None,
        max_features="sqrt",
        feature_combinations=1.5,
        max_bins=256,
        bootstrap=True,
        n_jobs=None,
        random_state=None,
    ):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.max_features = max_features
        self.feature_combinations = feature_combinations
        self.max_bins = max_bins
        self.bootstrap = bootstrap
        self.n_jobs = n_jobs
        self.random_state = random_state

    def predict(self, X):
        """The mean over the trees of the leaf's mean target."""
        return self._mean_value(X)[:, 0]


register(ObliqueRandomForestClassifier, ObliqueRandomForestRegressor)
