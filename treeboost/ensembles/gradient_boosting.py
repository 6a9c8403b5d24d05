"""scikit-learn's ``GradientBoostingClassifier`` / ``Regressor`` (their parameters and
defaults, depth-3 trees on the negative gradient, their early stopping and verbose table)
on treeboost's one boosting loop (:class:`~treeboost.ensembles._boosting.BaseGradientBoosting`,
which :mod:`.hist_gradient_boosting` shares).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import HasMethods, Hidden, Interval, StrOptions

import numpy as np

from ..losses.multi_quantile import check_quantiles
from ..persistence import register
from ..trees._params import SPLIT_CONSTRAINTS
from ._gb_verbose import VerboseReporter

if TYPE_CHECKING:
    from .._typing import (
        CategoricalFeatures,
        InteractionCst,
        MaxFeatures,
        MonotonicCst,
        RandomStateLike,
    )

from ._boosting import BaseGradientBoosting
from .early_stopping import LossPlateau
from ._boosting_records import BoostingPlan
from ._boosted_outputs import BoostedClassifier, BoostedRegressor

__all__ = [
    "BaseGradientBoosting",
    "BoostedClassifier",
    "BoostedRegressor",
    "BoostingPlan",
    "CONSTRAINTS_DOC",
    "GradientBoostingClassifier",
    "GradientBoostingRegressor",
]


if TYPE_CHECKING:
    # to the type checker, the mixin is the booster it is mixed into
    _Booster = BaseGradientBoosting
else:
    _Booster = object


class _SklearnGradientBoosting(_Booster):
    """scikit-learn's ``GradientBoosting*``: their parameter names, early stopping and
    verbose table."""

    _n_iter_name = "n_estimators"

    _parameter_constraints = {
        **BaseGradientBoosting._parameter_constraints,
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "subsample": [Interval(Real, 0.0, 1.0, closed="right")],
        **SPLIT_CONSTRAINTS,
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0.0, None, closed="left")],
        # scikit-learn 1.9 deprecated it: the trees always fit the squared error
        "criterion": [
            StrOptions({"squared_error"}),
            Hidden(StrOptions({"deprecated", "friedman_mse"})),
        ],
    }

    def _warn_deprecated(self):
        if self.criterion != "deprecated":
            warnings.warn(
                "The parameter `criterion` is deprecated and will be removed in "
                "1.11. It has no effect. Leave it to its default value to avoid "
                "this warning.",
                FutureWarning,
                stacklevel=3,
            )

    def _plan(self):
        return BoostingPlan(
            n_iter=self.n_estimators,
            max_depth=self.max_depth,
            max_leaf_nodes=self.max_leaf_nodes,
            min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            min_weight_fraction_leaf=self.min_weight_fraction_leaf,
            min_impurity_decrease=self.min_impurity_decrease,
            min_child_weight=self.min_child_weight,
            l2_regularization=self.l2_regularization,
            max_features=self.max_features,
            subsample=self.subsample,
            split_gain=self.split_gain,
            init=self.init,
            early_stopping=lambda n: self.n_iter_no_change is not None,
            validation_fraction=self.validation_fraction,
            # scikit-learn's GradientBoosting rule on the validation losses
            stopping_rule=LossPlateau(self.n_iter_no_change, self.tol),
        )

    def _split_seed(self, rng):
        # scikit-learn splits with random_state itself
        return self.random_state

    def _reporter(self, plan, subsampled, begin_at_stage):
        return VerboseReporter(self.verbose, subsampled, plan.n_iter, begin_at_stage)


#: the constraint parameters of every booster
CONSTRAINTS_DOC = """    monotonic_cst : array-like of int of shape (n_features,), dict or None, \
default=None
        1: the prediction does not decrease as the feature grows; -1: does not increase;
        0: no constraint (a dict maps feature names to them).  Numeric features, one tree
        per iteration (not with more than two classes).  A split on a constrained
        feature keeps its children's Newton values ordered, every node's value lies in
        an interval its ancestors' splits set, and leaf values set by the loss's line
        search (absolute error, Huber, quantile) are put back in order
        (:mod:`treeboost.engine.split.constraints`).
    interaction_cst : list of sets of int, "pairwise", "no_interactions" or None, \
default=None
        Sets of features that may interact: the features split on along a branch all
        belong to one set; the features no set names form one more set (scikit-learn's
        HistGradientBoosting and LightGBM's rule).

"""

_GB_DOC = (
    """
    learning_rate : float, default=0.1
        Shrinkage of every leaf value (> 0).
    n_estimators : int, default=100
        Number of boosting iterations (trees per output).
    subsample : float in (0, 1], default=1.0
        Fraction of rows drawn without replacement for each iteration (stochastic
        gradient boosting); below 1 the out-of-bag attributes are set.
    criterion : "deprecated", default="deprecated"
        Deprecated by scikit-learn 1.9 and without effect (another value warns): the
        trees fit the negative gradient by least squares.
    min_samples_split : int or float, default=2
        Minimum number of samples of a node to split (a float: a fraction of the rows).
    min_samples_leaf : int or float, default=1
        Minimum number of samples per leaf (a float: a fraction of the rows).
    min_weight_fraction_leaf : float in [0, 0.5], default=0.0
        Minimum fraction of the total sample weight per leaf (needs
        ``split_gain="gradient"``).
    max_depth : int or None, default=3
        Maximum depth of each tree (None: unlimited).
    min_impurity_decrease : float, default=0.0
        A split is kept when ``N_t / N * (impurity - N_L / N_t * left - N_R / N_t * right)``
        (the squared error of the negative gradient, weighted) is at least this; with
        ``split_gain="hessian"`` the second-order gain divided by the total weight.
    init : estimator, "zero" or None, default=None
        The initial raw score: None, the loss's best constant (:attr:`init_score_`);
        "zero", 0; an estimator, fitted on the training rows, whose ``predict`` (regressor)
        or ``predict_proba`` mapped through the loss's link (classifier) gives each row's
        initial score.  A model with an estimator ``init`` saves only when that estimator
        is a treeboost one.
    random_state : int, RandomState instance or None, default=None
        Seeds subsampling, feature sampling and the validation split.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Features sampled at each node.
    verbose : int, default=0
        Prints scikit-learn's table (iteration, training loss, out-of-bag improvement,
        remaining time): every iteration for ``verbose > 1``; for 1, at intervals growing
        by powers of 10.
    max_leaf_nodes : int or None, default=None
        Leaves per tree, grown best-first when set.
    warm_start : bool, default=False
        Keep the fitted trees and add iterations up to ``n_estimators``.
    validation_fraction : float, default=0.1
        The share of the rows held out for early stopping.
    n_iter_no_change : int or None, default=None
        Early stopping (scikit-learn's rule): when set, ``validation_fraction`` of the rows
        is held out (stratified for a classifier) and the fit stops once the validation
        loss plus ``tol`` is no lower than the worst of the ``n_iter_no_change`` before
        it (all fitted trees are kept).
    tol : float, default=1e-4
        The improvement of the validation loss that counts, in the loss's own units.
    min_child_weight : float, default=1e-3
        Minimum hessian sum per leaf with ``split_gain="hessian"``.
    l2_regularization : float, default=0.0
        The ``lambda`` of the leaf value ``-G/(H+lambda)`` (and of the second-order gain).
    max_bins : int, default=255
        Bins per numeric feature (X is binned once per ``fit``; up to 255 distinct values
        a feature's splits are exact).
    categorical_features : None, "auto" or array-like, default=None
        As in :class:`~treeboost.DecisionTreeClassifier`.
    split_gain : {"gradient", "hessian"}, default="gradient"
        "gradient": each tree is a least-squares fit of the negative gradient (Friedman's
        and scikit-learn's); "hessian": the second-order gain on ``(g, h)`` (XGBoost's,
        LightGBM's).  Leaf values come from the loss either way.
"""
    + CONSTRAINTS_DOC
    + """    Attributes
    ----------
    estimators_ : ndarray of DecisionTreeRegressor of shape (n_estimators_, n_outputs)
        The trees as scikit-learn estimators, sharing the engine trees of ``trees_``
        (their leaf values hold the learning rate).
    trees_ : list of list of Tree
        ``trees_[i][k]``: the tree of iteration ``i`` for output ``k``.
    init_ : estimator, "zero" or None
        The fitted ``init``.
    init_score_ : ndarray of shape (n_outputs,)
        The constant initial raw score (0 with an ``init``).
    n_estimators_ : int
        Iterations fitted: fewer than ``n_estimators`` after early stopping, a monitor's
        stop, or a fit that diverged.
    max_features_ : int
    train_score_ : ndarray of shape (n_estimators_,)
        scikit-learn's loss after each iteration on the training rows (the in-bag rows
        with ``subsample < 1``): the mean squared error (not half of it), the binomial
        deviance ``2 x`` log-loss, the multinomial log-loss, the mean absolute error,
        Huber and pinball losses, ``mean exp(-(2y-1)F)``.
    validation_score_ : ndarray
        The same loss on the validation rows of early stopping.
    oob_improvement_, oob_scores_ : ndarray of shape (n_estimators_,)
        With ``subsample < 1`` only: the decrease of the out-of-bag loss by each
        iteration, on that iteration's out-of-bag rows, and the loss after it.
    oob_score_ : float
        The last of ``oob_scores_``.
    feature_importances_ : ndarray of shape (n_features,)
    bin_mapper_ : BinMapper
"""
)


class GradientBoostingRegressor(_SklearnGradientBoosting, BoostedRegressor):
    __doc__ = (
        """Gradient-boosted regression trees with scikit-learn's parameters and defaults.

    Parameters
    ----------
    loss : {"squared_error", "absolute_error", "huber", "quantile"}, default="squared_error"
        See :mod:`treeboost.losses` for the gradient, hessian, initial score and leaf value
        of each.
    alpha : float in (0, 1) or list of them, default=0.9
        Quantile of ``loss="quantile"``; for ``"huber"``, the quantile of the absolute
        residuals that sets ``delta``.  A list of quantiles (``loss="quantile"`` only)
        fits one lane of trees per quantile in one model
        (:class:`~treeboost.losses.MultiQuantileLoss`); ``predict`` then gives shape
        (n_samples, n_quantiles)."""
        + _GB_DOC
    )

    _parameter_constraints = {
        **_SklearnGradientBoosting._parameter_constraints,
        "loss": [StrOptions({"squared_error", "absolute_error", "huber", "quantile"}), callable],
        "alpha": [Interval(Real, 0.0, 1.0, closed="neither"), "array-like"],
        "init": [StrOptions({"zero"}), None, HasMethods(["fit", "predict"])],
    }

    def __init__(
        self,
        *,
        loss: Literal["squared_error", "absolute_error", "huber", "quantile"] = "squared_error",
        learning_rate: float = 0.1,
        n_estimators: int = 100,
        subsample: float = 1.0,
        criterion: Literal["deprecated", "squared_error", "friedman_mse"] = "deprecated",
        min_samples_split: int | float = 2,
        min_samples_leaf: int | float = 1,
        min_weight_fraction_leaf: float = 0.0,
        max_depth: int | None = 3,
        min_impurity_decrease: float = 0.0,
        init: BaseEstimator | Literal["zero"] | None = None,
        random_state: RandomStateLike = None,
        max_features: MaxFeatures = None,
        alpha: float | Sequence[float] = 0.9,
        verbose: int = 0,
        max_leaf_nodes: int | None = None,
        warm_start: bool = False,
        validation_fraction: float = 0.1,
        n_iter_no_change: int | None = None,
        tol: float = 1e-4,
        min_child_weight: float = 1e-3,
        l2_regularization: float = 0.0,
        max_bins: int = 255,
        categorical_features: CategoricalFeatures = None,
        split_gain: Literal["gradient", "hessian"] = "gradient",
        monotonic_cst: MonotonicCst = None,
        interaction_cst: InteractionCst = None,
    ) -> None:
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.criterion = criterion
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_depth = max_depth
        self.min_impurity_decrease = min_impurity_decrease
        self.init = init
        self.random_state = random_state
        self.max_features = max_features
        self.alpha = alpha
        self.verbose = verbose
        self.max_leaf_nodes = max_leaf_nodes
        self.warm_start = warm_start
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.min_child_weight = min_child_weight
        self.l2_regularization = l2_regularization
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.split_gain = split_gain
        self.monotonic_cst = monotonic_cst
        self.interaction_cst = interaction_cst

    def _alpha(self):
        if np.ndim(self.alpha) > 0:
            if self.loss != "quantile":
                raise ValueError(
                    f"alpha={self.alpha!r}: a list of quantiles needs loss='quantile', "
                    f"got loss={self.loss!r}."
                )
            return check_quantiles(self.alpha, "alpha")
        return self.alpha


class GradientBoostingClassifier(_SklearnGradientBoosting, BoostedClassifier):
    __doc__ = (
        """Gradient-boosted classification trees with scikit-learn's parameters and
    defaults.

    Two classes: one tree per iteration on the log-odds, ``p = expit(F)``.  K > 2 classes:
    K trees per iteration, ``p = softmax(F)``.

    Parameters
    ----------
    loss : {"log_loss", "exponential"}, default="log_loss"
        "exponential" (two classes only): AdaBoost's loss
        (:class:`~treeboost.losses.ExponentialLoss`), ``p = expit(2F)``."""
        + _GB_DOC
    )

    _parameter_constraints = {
        **_SklearnGradientBoosting._parameter_constraints,
        "loss": [StrOptions({"log_loss", "exponential"}), callable],
        "init": [StrOptions({"zero"}), None, HasMethods(["fit", "predict_proba"])],
    }

    def __init__(
        self,
        *,
        loss: Literal["log_loss", "exponential"] = "log_loss",
        learning_rate: float = 0.1,
        n_estimators: int = 100,
        subsample: float = 1.0,
        criterion: Literal["deprecated", "squared_error", "friedman_mse"] = "deprecated",
        min_samples_split: int | float = 2,
        min_samples_leaf: int | float = 1,
        min_weight_fraction_leaf: float = 0.0,
        max_depth: int | None = 3,
        min_impurity_decrease: float = 0.0,
        init: BaseEstimator | Literal["zero"] | None = None,
        random_state: RandomStateLike = None,
        max_features: MaxFeatures = None,
        verbose: int = 0,
        max_leaf_nodes: int | None = None,
        warm_start: bool = False,
        validation_fraction: float = 0.1,
        n_iter_no_change: int | None = None,
        tol: float = 1e-4,
        min_child_weight: float = 1e-3,
        l2_regularization: float = 0.0,
        max_bins: int = 255,
        categorical_features: CategoricalFeatures = None,
        split_gain: Literal["gradient", "hessian"] = "gradient",
        monotonic_cst: MonotonicCst = None,
        interaction_cst: InteractionCst = None,
    ) -> None:
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.criterion = criterion
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_depth = max_depth
        self.min_impurity_decrease = min_impurity_decrease
        self.init = init
        self.random_state = random_state
        self.max_features = max_features
        self.verbose = verbose
        self.max_leaf_nodes = max_leaf_nodes
        self.warm_start = warm_start
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.min_child_weight = min_child_weight
        self.l2_regularization = l2_regularization
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.split_gain = split_gain
        self.monotonic_cst = monotonic_cst
        self.interaction_cst = interaction_cst


register(GradientBoostingClassifier, GradientBoostingRegressor)
