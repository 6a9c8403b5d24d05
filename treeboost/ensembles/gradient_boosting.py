"""Gradient boosting of CART trees (Friedman 2001) on the shared histogram engine:
scikit-learn's ``GradientBoostingClassifier`` / ``Regressor`` (their parameters and
defaults, depth-3 trees on the negative gradient) and the one boosting loop
(:class:`BaseGradientBoosting`) that :mod:`.hist_gradient_boosting` shares.

Each iteration asks the :class:`~treeboost.losses.Loss` for the per-sample gradient
``g`` and hessian ``h`` of the current raw scores, grows one tree per output on the
binned data (binned once per ``fit``) from the statistics ``(w g, w h)`` with the
second-order gain ``G_L^2/(H_L+l) + G_R^2/(H_R+l) - G^2/(H+l)`` (or, with
``split_gain="gradient"``, a squared-error tree on the negative gradient), then asks the
loss for each leaf's value (the Newton step ``-G/(H+l)`` for squared error and log-loss,
medians and quantiles for the others), times ``learning_rate``.  Whatever differs between
losses (a parameter re-estimated every iteration, the leaf values, the initial score, the
name of the metric) is the loss's: the booster never asks which loss it holds.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Callable, Literal, NamedTuple, TypeVar

import numba
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.model_selection import train_test_split
from sklearn.utils import _safe_indexing, check_random_state
from sklearn.utils._param_validation import HasMethods, Hidden, Interval, RealNotInt, StrOptions
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from ..engine import (
    CoreShare,
    NEWTON,
    SQUARED_ERROR,
    BinMapper,
    GrowerWorkspace,
    PackedTrees,
    StoppingRules,
    Tree,
    TreeGrower,
    add_leaf_values,
    boosting_rows,
    fit_transform_weighted,
    monotone_leaf_values,
)
from ..persistence import PersistenceMixin, check_classes, check_fitted, register, validate_part
from ..persistence._spec import array, check_state, integer
from ..losses import (
    AbsoluteError,
    BinaryLogLoss,
    ExponentialLoss,
    GammaLoss,
    HuberLoss,
    MultinomialLogLoss,
    PoissonLoss,
    QuantileLoss,
    SquaredError,
)
from ..losses.base import LeafSamples, Loss
from ..trees.cart import DecisionTreeRegressor, resolve_count, resolve_max_features
from .._input.encoding import EncoderMixin, check_weights
from .._input.targets import check_regression_target, encode_classification_target
from ..trees.constraints import check_interaction_cst, check_monotonic_cst, grower_constraints
from ._bootstrap import selection_sample
from ._output_lanes import OutputLanes, lane_plan
from ._gb_init import check_init_estimator, fit_init_estimator, init_raw_predictions
from ._gb_verbose import VerboseReporter

if TYPE_CHECKING:
    from .._typing import (
        ArrayLike,
        CategoricalFeatures,
        Float64Array,
        InteractionCst,
        MatrixLike,
        MaxFeatures,
        MonotonicCst,
        NDArray,
        RandomStateLike,
    )

    # the estimator itself, of its own class (typing.Self needs Python 3.11)
    Self = TypeVar("Self", bound="BaseGradientBoosting")


def _per_output(raw):
    """The raw scores as a loss takes them: (n,) for one output, (n, K) for K."""
    return raw[:, 0] if raw.shape[1] == 1 else raw


def _masked_loss(loss, y, raw, sample_weight, mask=None):
    """The weighted mean loss of the rows of ``mask`` (all rows when None); NaN when
    they hold no weight."""
    if mask is None:
        return loss(y, _per_output(raw), sample_weight)
    if not sample_weight[mask].sum() > 0:
        return np.nan
    return loss(y[mask], _per_output(raw[mask]), sample_weight[mask])


@dataclass(frozen=True)
class ScoringData:
    """The data of one fit that early-stopping scores read: whether early stopping is
    on and has validation rows of its own, the loss, the training rows as given (``X``),
    encoded targets and weights, and their current raw scores (updated in place), and
    the same of the validation rows."""

    early: bool
    has_validation: bool
    loss: object
    X: object
    y: object
    sample_weight: object
    raw: object
    X_val: object
    y_val: object
    sample_weight_val: object
    raw_val: object


@dataclass(frozen=True)
class BoostingPlan:
    """What one fit reads from an estimator's hyperparameters, in the engine's terms, so
    that scikit-learn's ``GradientBoosting*`` and ``HistGradientBoosting*`` (other names,
    other defaults) share one boosting loop.

    ``min_weight_fraction_leaf`` is a fraction of the training rows' total weight (trees
    on the negative gradient); ``early_stopping`` says, for a number of rows, whether a
    validation split is held out.
    """

    n_iter: int
    max_depth: object
    max_leaf_nodes: object
    min_samples_split: object
    min_samples_leaf: object
    min_weight_fraction_leaf: float
    min_impurity_decrease: float
    min_child_weight: float
    l2_regularization: float
    max_features: object
    subsample: float
    split_gain: str
    init: object
    early_stopping: object
    validation_fraction: float
    n_iter_no_change: object
    tol: float


@dataclass(frozen=True)
class FitInputs:
    """The training data of one fit, checked: ``X`` as given, encoded (``Xe``), the
    encoded target, the weights (times the class weights), whether ``sample_weight``
    was given, and whether the fit is a classifier's and a warm start."""

    X: object
    Xe: object
    y: np.ndarray
    sample_weight: np.ndarray
    weighted: bool
    classifier: bool
    warm: bool


@dataclass(frozen=True)
class TrainingRows:
    """The rows the trees are fitted on: as given (``X``, for an initial estimator or a
    scorer), encoded (``Xe``), their targets and float64 weights; ``val`` the indices
    held out by the early-stopping split (None without one); whether early stopping is
    on, on external validation data, and whether the rows as given are kept."""

    X: object
    Xe: object
    y: np.ndarray
    sample_weight: np.ndarray
    val: object
    early: bool
    external: bool
    keep_X: bool


@dataclass
class BoostingState:
    """What changes from one iteration to the next: the training rows' raw scores
    (updated in place), the gradients computed with the last loss (None when not),
    the binned training rows and the out-of-bag lists."""

    raw: np.ndarray
    carried: object
    Xb: np.ndarray
    oob_scores: list
    oob_improvement: list


@dataclass(frozen=True)
class ValidationRows:
    """Early stopping's rows: as given (None when nothing reads them), their targets,
    weights, bins and raw scores (updated in place)."""

    X: object
    y: np.ndarray
    sample_weight: np.ndarray
    Xb: np.ndarray
    raw: np.ndarray


@dataclass(frozen=True)
class StageSetup:
    """What every iteration reads: the grower, whether it grows on the second-order
    gain, the monotonic constraints, the bins' missing-value code, the rows of positive
    weight, the subsample's stream, size and mask, the statistics' buffer and the
    grower's workspace."""

    grower: object
    newton: bool
    monotonic: object
    missing_code: int
    positive_rows: np.ndarray
    subsampled: bool
    stage_rng: object
    n_inbag: int
    bag: np.ndarray
    stats: np.ndarray
    workspace: object
    # the threads that grow an iteration's trees side by side (:mod:`._output_lanes`)
    lanes: OutputLanes


class Stage(NamedTuple):
    """One iteration's outcome: its trees (one per output), training and validation
    losses, the in-bag mask and the out-of-bag loss before it (None without
    subsampling)."""

    trees: list
    train_score: float
    val_score: object
    inbag: object
    oob_before: object


class BaseGradientBoosting(PersistenceMixin, EncoderMixin, BaseEstimator):
    """Fitting loop shared by the classifiers and the regressors.

    Subclasses define ``_plan()`` (their hyperparameters as a :class:`BoostingPlan`),
    ``_split_seed``, ``_should_stop`` and ``_score_scale`` (scikit-learn's two families
    differ there)."""

    #: ties between features whose best splits score the same are drawn with the tree's
    #: seed, as scikit-learn's GradientBoosting trees permute the features at each split
    #: (TreeGrower's ``random_ties``); HistGradientBoosting keeps the lowest index
    _random_ties = True
    #: thresholds in the middle of the gap between a node's values, as scikit-learn's
    #: GradientBoosting trees (TreeGrower's ``centered_thresholds``); HistGradientBoosting
    #: keeps them right above the left side's values, as scikit-learn's and LightGBM's
    _centered_thresholds = True

    _parameter_constraints = {
        "learning_rate": [Interval(Real, 0.0, None, closed="neither")],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
        "min_child_weight": [Interval(Real, 0.0, None, closed="left")],
        "l2_regularization": [Interval(Real, 0.0, None, closed="left")],
        "max_bins": [Interval(Integral, 2, 255, closed="both")],
        "categorical_features": ["array-like", StrOptions({"auto"}), None],
        "split_gain": [StrOptions({"hessian", "gradient"})],
        "monotonic_cst": ["array-like", dict, None],
        "interaction_cst": [list, tuple, StrOptions({"pairwise", "no_interactions"}), None],
        "validation_fraction": [Interval(Real, 0.0, 1.0, closed="neither")],
        "warm_start": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    # -- fitting -------------------------------------------------------------------------
    def fit(
        self: Self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        monitor: Callable[[int, Any, dict[str, Any]], object] | None = None,
    ) -> Self:
        """Fit the boosted trees.

        Parameters
        ----------
        X : array-like, DataFrame or scipy.sparse matrix of shape (n_samples, n_features)
            NaN is a missing value; categorical columns and sparse X as in the CART
            estimators (:meth:`~treeboost.DecisionTreeClassifier.fit`).
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
        monitor : callable, default=None
            Called after each iteration as ``monitor(i, self, locals())`` (``i`` the
            0-based iteration, ``locals()`` those of the fitting loop); the fit stops when
            it returns True, keeping iteration ``i`` (scikit-learn's ``monitor``).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Besides bad parameters and input: a regression target so large that its loss
            at the initial score overflows float64 (the squared error or Huber loss of a
            target near 1e300); absolute error and quantile loss take it.  A classifier
            whose classes of positive weight are fewer than 2, or whose training rows after
            the early-stopping split miss a class.

        Warns
        -----
        RuntimeWarning
            When the training (or validation) loss of an iteration overflows, the fit
            diverged (a learning rate far above 1): boosting stops, that iteration is
            dropped and the model keeps the iterations before it (``n_estimators_`` says
            how many), whose predictions of the training data are finite.
        """
        return self._fit(X, y, sample_weight, monitor=monitor)

    def _fit(self, X, y, sample_weight, monitor=None, validation=None):
        """:meth:`fit`; ``validation``: ``(X_val, y_val, sample_weight_val)`` given to
        early stopping instead of a split of ``X`` (HistGradientBoosting's ``fit``).

        The stages in order: the inputs checked (:meth:`_validate_inputs`), the
        early-stopping split (:meth:`_split_rows`), the initial scores of a fresh fit or
        the current ones of a warm start (:meth:`_start_fresh`, :meth:`_resume`), the
        validation rows' scores (:meth:`_validation_rows`), the grower
        (:meth:`_stage_setup`), the iterations (:meth:`_fit_stages`), the fitted
        attributes (:meth:`_finish_fit`)."""
        self._validate_params()
        self._warn_deprecated()
        plan = self._plan()
        data = self._validate_inputs(X, y, sample_weight, plan)
        rng = check_random_state(self.random_state)
        loss = self._make_loss()
        constraints = self._constraints(loss.n_outputs)
        self.max_features_ = resolve_max_features(plan.max_features, self.n_features_in_)
        rows = self._split_rows(data, plan, rng, validation)
        # every region of the fit (the binning, the initial scores, each iteration's
        # passes and trees) on the threads its work feeds and other busy processes
        # leave free: one look at the load now, then between iterations
        with CoreShare(n_cells=rows.Xe.shape[0] * self.n_features_in_) as cores:
            return self._fit_rows(
                plan, data, rows, rng, loss, constraints, validation, monitor, cores
            )

    def _fit_rows(self, plan, data, rows, rng, loss, constraints, validation, monitor, cores):
        """:meth:`_fit` from the training rows on, inside its :class:`CoreShare`
        ``cores``."""
        if data.warm:
            state = self._resume(rows, loss)
        else:
            state = self._start_fresh(rows, plan, loss, rng, data.weighted)
        val = self._validation_rows(data, rows, validation, loss, state)
        setup = self._stage_setup(plan, rows, constraints)
        # what the early-stopping scores of a subclass may read (HistGradientBoosting's
        # scorers predict the original rows)
        scoring = ScoringData(
            rows.early,
            rows.external or rows.val is not None,
            loss,
            rows.X,
            rows.y,
            rows.sample_weight,
            state.raw,
            *(
                (val.X, val.y, val.sample_weight, val.raw)
                if val is not None
                else (None, None, None, None)
            ),
        )
        try:
            self._fit_stages(plan, loss, rows, state, val, setup, scoring, monitor, cores)
        finally:
            setup.lanes.close()
        return self._finish_fit(state, loss)

    def _validate_inputs(self, X, y, sample_weight, plan):
        """The training data checked and encoded (a warm start against the fitted
        encoder), as :class:`FitInputs`; refuses before any fitted attribute is set."""
        classifier = isinstance(self, ClassifierMixin)
        warm = self.warm_start and hasattr(self, "trees_")
        if warm and plan.n_iter < len(self.trees_):
            raise ValueError(
                f"{self._n_iter_name}={plan.n_iter} must be at least the "
                f"{len(self.trees_)} iterations already fitted with "
                f"warm_start=True."
            )
        if plan.min_weight_fraction_leaf > 0 and plan.split_gain == "hessian":
            raise ValueError(
                "min_weight_fraction_leaf bounds the sample weight of a leaf of "
                "the trees on the negative gradient: it needs "
                "split_gain='gradient' (min_child_weight bounds the hessian "
                "with split_gain='hessian')."
            )
        Xe = self._encode_X(X, reset=not warm, y=y, sample_weight=sample_weight)
        y = self._validate_target(y, Xe.shape[0], reset=not warm)
        sw = self._weights(sample_weight, Xe, y, classifier)
        if classifier:
            weighted_classes = np.count_nonzero(np.bincount(y, sw, self.n_classes_))
            if weighted_classes < 2:
                raise ValueError(
                    f"y contains {weighted_classes} class after sample_weight "
                    f"trimmed classes with zero weights, while a minimum of 2 "
                    f"classes are required."
                )
        return FitInputs(X, Xe, y, sw, sample_weight is not None, classifier, warm)

    def _weights(self, sample_weight, Xe, y, classifier):
        """The checked weights of the encoded rows ``Xe``, times the class weights."""
        # a regression target also bounds the weights: the sums of w * gradient must not
        # overflow (a classifier's y holds class indices)
        sw = check_weights(sample_weight, Xe, None if classifier else y)
        if classifier and getattr(self, "class_weight", None) is not None:
            # multiplies sample_weight, as scikit-learn's HistGradientBoostingClassifier
            sw = sw * compute_sample_weight(self.class_weight, self.classes_[y])
        return sw

    def _split_rows(self, data, plan, rng, validation):
        """The training rows (:class:`TrainingRows`): all of them, or those left by the
        early-stopping split of ``validation_fraction`` of the rows."""
        n = data.Xe.shape[0]
        y = data.y
        external = validation is not None and validation[0] is not None
        val = None
        early = plan.early_stopping(n) or external
        if early and not external and plan.validation_fraction is not None:
            train, val = train_test_split(
                np.arange(n),
                test_size=plan.validation_fraction,
                # the class codes as floats, as scikit-learn
                # stratifies (its errors name them so)
                stratify=y.astype(np.float64) if data.classifier else None,
                random_state=self._split_seed(rng),
            )
            train.sort()
            val.sort()
            if data.classifier and np.unique(y[train]).size != self.n_classes_:
                raise ValueError(
                    "The training data after the early stopping split is "
                    "missing some classes. Try using another random seed."
                )
        # without a validation split X is used as it is (no copy of a large X)
        if val is None:
            Xtr, ytr, wtr = data.Xe, y, data.sample_weight
        else:
            Xtr, ytr, wtr = data.Xe[train], y[train], data.sample_weight[train]
        wtr = np.ascontiguousarray(wtr, dtype=np.float64)
        # the rows as given are copied only for what reads them (an initial estimator, a
        # scorer): early stopping otherwise copies the encoded rows alone
        keep_X = self._needs_input_rows(plan)
        X_init = data.X if val is None or not keep_X else _safe_indexing(data.X, train)
        return TrainingRows(X_init, Xtr, ytr, wtr, val, early, external, keep_X)

    def _start_fresh(self, rows, plan, loss, rng, weighted):
        """A fresh fit's state: ``init_`` fitted, the initial scores (refused when their
        loss overflows, before any fitted attribute is set), the bins and empty lists."""
        K = loss.n_outputs
        ytr, wtr = rows.y, rows.sample_weight
        self.init_ = self._fit_init(plan.init, rows.X, ytr, wtr, weighted)
        if plan.init is None:
            init = np.atleast_1d(np.asarray(loss.init_raw(ytr, wtr), dtype=np.float64))
        else:
            init = np.zeros(K)
        self._init_raw = init
        raw = self._initial_raw(rows.X, ytr.shape[0], loss)
        carried = self._check_loss_is_finite(
            loss, ytr, raw, wtr, self._gradient_arrays(K, ytr.shape[0])
        )
        self.bin_mapper_ = BinMapper(
            self.max_bins, self._encoder.is_categorical_, random_state=rng.randint(2**31 - 1)
        )
        Xb = fit_transform_weighted(self.bin_mapper_, rows.Xe, wtr)
        self.trees_ = []
        # lists while fitting, arrays after (:meth:`_finish_fit`)
        self.train_score_: Any = []
        self.validation_score_: Any = []
        return BoostingState(raw, carried, Xb, [], [])

    def _resume(self, rows, loss):
        """A warm start's state: the scores of the trees fitted so far, on the bins of
        the first fit."""
        K = loss.n_outputs
        raw = self._raw_from_trees(rows.Xe, K, rows.X, loss)
        carried = self._check_loss_is_finite(
            loss, rows.y, raw, rows.sample_weight, self._gradient_arrays(K, rows.y.shape[0])
        )
        self.train_score_ = list(self.train_score_)
        self.validation_score_ = list(self.validation_score_)
        # iterations fitted without subsampling improved no out-of-bag loss
        done = len(self.trees_)
        oob_scores = list(getattr(self, "oob_scores_", np.zeros(done)))
        oob_improvement = list(getattr(self, "oob_improvement_", np.zeros(done)))
        return BoostingState(
            raw, carried, self.bin_mapper_.transform(rows.Xe), oob_scores, oob_improvement
        )

    def _validation_rows(self, data, rows, validation, loss, state):
        """Early stopping's :class:`ValidationRows` (None without early stopping): the
        external ones (checked as the training data, against the fitted encoder), the
        rows held out by the split, or (``validation_fraction=None``) the training
        rows themselves."""
        if not rows.early:
            return None
        if rows.external:
            X_v = validation[0]
            Xe_v = self._encode_X(X_v, reset=False)
            y_v = self._validate_validation_target(validation[1], Xe_v.shape[0])
            sw_v = self._weights(validation[2], Xe_v, y_v, data.classifier)
        elif rows.val is not None:
            val = rows.val
            X_v = _safe_indexing(data.X, val) if rows.keep_X else None
            Xe_v, y_v, sw_v = data.Xe[val], data.y[val], data.sample_weight[val]
        else:
            X_v, Xe_v, y_v, sw_v = rows.X, rows.Xe, rows.y, rows.sample_weight
        return ValidationRows(
            X_v,
            y_v,
            sw_v,
            self.bin_mapper_.transform(Xe_v),
            self._raw_from_trees(Xe_v, loss.n_outputs, X_v, loss),
        )

    def _stage_setup(self, plan, rows, constraints):
        """What every iteration reads (:class:`StageSetup`): the grower and its stopping
        rules on the training rows, the subsample's stream and buffers."""
        wtr = rows.sample_weight
        newton = plan.split_gain == "hessian"
        n_rows = int(np.count_nonzero(wtr > 0))
        msl = resolve_count(plan.min_samples_leaf, n_rows)
        stopping = StoppingRules(
            max_depth=plan.max_depth,
            # a split needs min_samples_leaf rows on each side anyway
            min_samples_split=max(resolve_count(plan.min_samples_split, n_rows), 2 * msl, 2),
            min_samples_leaf=msl,
            min_weight_leaf=plan.min_child_weight
            if newton
            else plan.min_weight_fraction_leaf * float(wtr.sum()),
            min_impurity_decrease=plan.min_impurity_decrease,
            max_leaf_nodes=plan.max_leaf_nodes,
        )
        grower = TreeGrower(
            self.bin_mapper_,
            NEWTON if newton else SQUARED_ERROR,
            2,
            stopping,
            max_features=self.max_features_,
            l2_regularization=plan.l2_regularization,
            parallel=True,
            constraints=constraints,
            # the second-order gain grows LightGBM's trees (HistGradient-
            # Boosting's): ties and thresholds as theirs
            random_ties=self._random_ties and not newton,
            centered_thresholds=self._centered_thresholds and not newton,
        )
        positive_rows = np.flatnonzero(wtr > 0)
        n_rows_all = rows.Xe.shape[0]
        stats = np.empty((n_rows_all, 3))
        stats[:, 2] = wtr > 0
        return StageSetup(
            grower=grower,
            newton=newton,
            monotonic=None if constraints is None else constraints.monotonic_cst,
            missing_code=self.bin_mapper_.missing_values_code_,
            positive_rows=positive_rows,
            subsampled=plan.subsample < 1.0,
            # the subsample and the trees' seeds come from a stream of their own, started
            # from random_state as scikit-learn's is: the same rows for the same seed
            stage_rng=check_random_state(self.random_state),
            n_inbag=max(1, int(plan.subsample * n_rows_all)),
            bag=np.zeros(n_rows_all, bool),
            stats=stats,
            workspace=GrowerWorkspace(min_rows=positive_rows.size),
            lanes=OutputLanes(grower, stats, positive_rows.size),
        )

    def _fit_stages(self, plan, loss, rows, state, val, setup, scoring, monitor, cores):
        """Add iterations up to ``plan.n_iter`` (scikit-learn's ``_fit_stages``): each
        iteration's trees (:meth:`_fit_stage`), its scores, its out-of-bag loss, the
        verbose line and the monitor; stop early, at a diverged iteration (dropped) or
        when the monitor says so.  ``cores``: the fit's :class:`CoreShare`, which sets
        numba's thread count before each iteration."""
        scale = self._score_scale(loss)
        # the training loss of an iteration comes with the next one's gradients (one
        # pass), unless it is the loss of the in-bag rows only
        carry = loss.gradient_carries and not setup.subsampled
        reporter = None
        if self.verbose:
            reporter = self._reporter(plan, setup.subsampled, len(self.trees_))
        self._loss = loss  # a scorer predicts with the trees fitted so far
        self._start_scores(scoring)
        raw = state.raw  # the training rows' scores, which a monitor may read
        t0 = time.perf_counter()
        # a diverging fit overflows to inf / NaN in the scores and the loss; the loss of
        # every iteration is tested below instead of letting numpy warn along the way
        with np.errstate(over="ignore", invalid="ignore"):
            for it in range(len(self.trees_), plan.n_iter):
                cores.update()
                stage = self._fit_stage(plan, loss, rows, state, val, setup, carry)
                if not np.isfinite(stage.train_score) or not np.isfinite(
                    0.0 if stage.val_score is None else stage.val_score
                ):
                    self._warn_diverged(
                        it, "training" if not np.isfinite(stage.train_score) else "validation"
                    )
                    break
                self.trees_.append(stage.trees)
                stop = self._record_scores(stage.train_score, stage.val_score, scale, plan, scoring)
                self._record_oob(stage, state, loss, rows, scale)
                if reporter is not None:
                    reporter.update(it, self.train_score_[-1], state.oob_improvement[-1])
                elif self.verbose and ((it + 1) % int(self.verbose) == 0 or it + 1 == plan.n_iter):
                    self._report(
                        it, loss, time.perf_counter() - t0, stage.train_score, stage.val_score
                    )
                if monitor is not None and monitor(it, self, locals()):
                    break
                if stop:
                    break

    def _fit_stage(self, plan, loss, rows, state, val, setup, carry):
        """One iteration (scikit-learn's ``_fit_stage``): the gradients of the current
        scores, the rows drawn, one tree per output, the scores updated in place and
        the iteration's losses, as a :class:`Stage`."""
        ytr, wtr, raw = rows.y, rows.sample_weight, state.raw
        K = raw.shape[1]
        loss.start_iteration(ytr, _per_output(raw), wtr)
        if state.carried is not None:
            g, h = state.carried
            state.carried = None
        else:
            g, h = loss.gradient_hessian(ytr, _per_output(raw))
        # one output's gradients contiguous (the carried arrays already are)
        g = np.ascontiguousarray(g.reshape(-1, K).T)
        h = np.ascontiguousarray(h.reshape(-1, K).T)
        rows_in, inbag = self._draw_rows(setup, wtr)
        oob_before = None if inbag is None else _masked_loss(loss, ytr, raw, wtr, ~inbag)
        # the trees' seeds drawn in output order, whichever thread grows each
        seeds = [setup.stage_rng.randint(0, 2**31 - 1) for _ in range(K)]

        def fit_tree(k, lane=None):
            return self._fit_output_tree(
                k, plan, loss, rows, state, val, setup, g, h, rows_in, seeds[k], lane
            )

        lanes = lane_plan(K, numba.get_num_threads(), rows_in.size * self.n_features_in_)
        if lanes is not None:
            trees = setup.lanes.map(fit_tree, K, lanes)
        else:
            trees = [fit_tree(k) for k in range(K)]
        # with subsampling, scikit-learn's training loss is that of the in-bag rows
        if carry:
            # this iteration's gradients are no longer read: their arrays take the next
            # ones
            train_score, g_next, h_next = loss.loss_gradient_hessian(
                ytr, _per_output(raw), wtr, out=(_per_output(g.T), _per_output(h.T))
            )
            state.carried = (g_next, h_next)
        else:
            train_score = _masked_loss(loss, ytr, raw, wtr, inbag)
        val_score = None if val is None else loss(val.y, _per_output(val.raw), val.sample_weight)
        return Stage(trees, train_score, val_score, inbag, oob_before)

    @staticmethod
    def _draw_rows(setup, wtr):
        """The rows an iteration's trees grow on, and the in-bag mask (None without
        subsampling)."""
        rows = setup.positive_rows
        if not setup.subsampled:
            return rows, None
        # scikit-learn's draws from its stream: uniforms, then one seed per tree
        selection_sample(setup.stage_rng.uniform(size=setup.bag.size), setup.n_inbag, setup.bag)
        rows = np.flatnonzero(setup.bag & (wtr > 0))
        if rows.size == 0:  # every drawn row has zero weight
            rows = setup.positive_rows
        inbag = np.zeros(wtr.shape[0], bool)
        inbag[rows] = True
        return rows, inbag

    def _fit_output_tree(
        self, k, plan, loss, rows, state, val, setup, g, h, rows_in, seed, lane=None
    ):
        """The tree of output ``k`` on the gradients ``(g, h)`` of the rows ``rows_in``,
        its leaf values from the loss times ``learning_rate``, added to the training
        and validation scores; grown with ``lane`` (:mod:`._output_lanes`) or, without
        one, the fit's grower and buffers."""
        ytr, wtr, raw, Xb = rows.y, rows.sample_weight, state.raw, state.Xb
        newton, mc = setup.newton, setup.missing_code
        if lane is None:
            grower, stats, workspace = setup.grower, setup.stats, setup.workspace
        else:
            grower, stats, workspace = lane.grower, lane.stats, lane.workspace
        grower.random_state = seed
        # Friedman's original (not newton): least squares on the negative gradient,
        # with its variance sq
        sq = boosting_rows(stats, wtr, g, h, k, newton)
        tree, leaves = grower.grow(Xb, stats, None if newton else sq, rows_in, workspace)
        # the second-order gain's node values already are the Newton step
        samples = LeafSamples(
            None,
            tree.node_count,
            rows_in,
            ytr,
            raw[:, k],
            wtr,
            g[k],
            h[k],
            plan.l2_regularization,
            tree.value[:, 0] if newton else None,
            leaf_of_sample=leaves,
        )
        tree.value = (self.learning_rate * loss.leaf_values(samples))[:, None]
        if setup.monotonic is not None:
            # a line search's leaf values (medians, quantiles) back in order
            tree.value[:, 0] = monotone_leaf_values(
                tree.children_left,
                tree.children_right,
                tree.feature,
                tree.value[:, 0],
                setup.monotonic,
            )
        values = np.ascontiguousarray(tree.value[:, 0])
        if rows_in.size < wtr.shape[0]:
            # the rows the tree did not see are in no leaf's range
            add_leaf_values(raw, k, values, tree.apply_binned(Xb, mc))
        else:
            leaves.add_values(raw, k, values)
        if val is not None:
            val.raw[:, k] += tree.value[tree.apply_binned(val.Xb, mc), 0]
        return tree

    @staticmethod
    def _record_oob(stage, state, loss, rows, scale):
        """Append the iteration's out-of-bag loss and its improvement (0 without
        subsampling)."""
        if stage.inbag is None:
            state.oob_scores.append(0.0)
            state.oob_improvement.append(0.0)
            return
        oob_after = _masked_loss(loss, rows.y, state.raw, rows.sample_weight, ~stage.inbag)
        state.oob_scores.append(scale * oob_after)
        state.oob_improvement.append(scale * (stage.oob_before - oob_after))

    def _finish_fit(self, state, loss):
        """The fitted attributes once the iterations are done."""
        self.n_estimators_ = len(self.trees_)
        self.train_score_ = np.asarray(self.train_score_, dtype=np.float64)
        self.validation_score_ = np.asarray(self.validation_score_, dtype=np.float64)
        oob_scores, oob_improvement = state.oob_scores, state.oob_improvement
        if any(oob_scores) or any(oob_improvement):
            self.oob_scores_ = np.asarray(oob_scores, dtype=np.float64)
            self.oob_improvement_ = np.asarray(oob_improvement, dtype=np.float64)
            self.oob_score_ = float(self.oob_scores_[-1]) if len(oob_scores) else np.nan
        else:  # no subsampled iteration: scikit-learn has no out-of-bag attributes
            for name in ("oob_scores_", "oob_improvement_", "oob_score_"):
                self.__dict__.pop(name, None)
        self._loss = loss
        self._packed = None
        self._packer()  # built now, so that predict never changes the estimator
        return self

    def _warn_deprecated(self):
        """Warn of deprecated parameters set at fit (none here)."""

    def _check_interaction_cst(self, n_features):
        """``interaction_cst`` as a list of sets of feature indices, the features it does
        not name as one more set (scikit-learn's HistGradientBoosting method)."""
        return check_interaction_cst(getattr(self, "interaction_cst", None), n_features)

    def _constraints(self, n_outputs):
        """The trees' :class:`~treeboost.engine.constraints.Constraints` (None without any),
        checked against the data being fitted."""
        cst = check_monotonic_cst(
            self,
            getattr(self, "monotonic_cst", None),
            self.n_features_in_,
            self._encoder.is_categorical_,
        )
        if cst is not None and n_outputs > 1:
            raise ValueError(
                "monotonic constraints are not supported for multiclass classification."
            )
        return grower_constraints(cst, self._check_interaction_cst(self.n_features_in_))

    def _needs_input_rows(self, plan):
        """Whether the fit reads the rows of X as given (beyond the encoded ones): for an
        initial estimator (this fit's, or a warm start's earlier one)."""
        return any(
            init is not None and not isinstance(init, str)
            for init in (plan.init, getattr(self, "init_", None))
        )

    def _fit_init(self, init, X, y, sample_weight, weighted):
        """``init_``: None (the loss's best constant), ``"zero"``, or ``init`` fitted."""
        if init is None or (isinstance(init, str) and init == "zero"):
            return init
        return fit_init_estimator(init, X, y, sample_weight, weighted)

    def _initial_raw(self, X, n_samples, loss):
        """The raw scores, shape (n_samples, n_outputs), every row starts at: the
        initial estimator's predictions of ``X`` plus ``_init_raw``."""
        init = getattr(self, "init_", None)
        raw = np.tile(self._init_raw, (n_samples, 1))
        if init is not None and not isinstance(init, str):
            raw += init_raw_predictions(init, X, loss, isinstance(self, ClassifierMixin))
        return raw

    @staticmethod
    def _gradient_arrays(n_outputs, n_samples):
        """Arrays ``(g, h)`` of the raw scores' shape that hold the gradients of one
        iteration after another, each output's contiguous (transposes of
        ``(n_outputs, n_samples)`` arrays): the trees of an iteration read one output
        each."""
        g = np.empty((n_outputs, n_samples)).T
        h = np.empty((n_outputs, n_samples)).T
        return _per_output(g), _per_output(h)

    @staticmethod
    def _check_loss_is_finite(loss, y, raw, sample_weight, out=None):
        """Refuse a target whose loss at the start of the fit (``raw``: the initial score,
        or a warm start's current scores) overflows float64, the squared error of a target
        near 1e300: the training loss of every iteration would be infinite, and the
        gradient sums of the split search overflow with it.

        Returns the gradient and hessian of ``raw`` (into ``out`` when given) when the
        loss computes them with its value
        (:attr:`~treeboost.losses.base.Loss.gradient_carries`), else None.
        """
        carried = None
        with np.errstate(over="ignore", invalid="ignore"):
            if loss.gradient_carries:
                value, g, h = loss.loss_gradient_hessian(
                    y, _per_output(raw), sample_weight, out=out
                )
                carried = (g, h)
            else:
                value = loss(y, _per_output(raw), sample_weight)
        if not np.isfinite(value):
            raise ValueError(
                f"y is too large for loss={loss.name!r}: its loss at the start of the fit "
                f"overflows float64 (largest |y| = {float(np.max(np.abs(y))):.3g}). Rescale y "
                f"(divide it by a constant such as its largest absolute value)."
            )
        return carried

    def _warn_diverged(self, it, which):
        warnings.warn(
            f"Boosting diverged at iteration {it + 1}: the {which} loss overflows "
            f"(learning_rate={self.learning_rate!r} may be too large). "
            f"The fit stopped and keeps the {len(self.trees_)} iteration(s) before it.",
            RuntimeWarning,
            stacklevel=4,
        )

    @staticmethod
    def _should_stop(scores, n_iter_no_change, tol):
        """HistGradientBoosting's rule: stop when none of the last ``n_iter_no_change``
        validation losses is below the one before them by more than ``tol``."""
        k = n_iter_no_change
        if len(scores) <= k:
            return False
        return min(scores[-k:]) > scores[-k - 1] - tol

    def _score_scale(self, loss):
        """Factor of the loss in ``train_score_`` (scikit-learn's GradientBoosting:
        :attr:`Loss.score_scale`)."""
        return loss.score_scale

    def _split_seed(self, rng):
        """``random_state`` of the early-stopping split."""
        return rng.randint(2**31 - 1)

    def _reporter(self, plan, subsampled, begin_at_stage):
        """The verbose table's printer, or None for the LightGBM-style lines of
        :meth:`_report`."""
        return None

    def _report(self, it, loss, elapsed, train_loss, val_loss):
        name = loss.metric_name
        line = f"[{it + 1}]\ttraining's {name}: {train_loss:.6g}"
        if val_loss is not None:
            line += f"\tvalid's {name}: {val_loss:.6g}"
        print(line + f"\t({elapsed:.2f} s)", flush=True)

    def _start_scores(self, data):
        """Record the scores before the first iteration of this fit (none here)."""

    def _record_scores(self, train_loss, val_loss, scale, plan, data):
        """Append one iteration's ``train_score_`` (and ``validation_score_``): the
        losses times ``scale``; return whether early stopping stops here."""
        self.train_score_.append(scale * train_loss)
        if val_loss is None:
            return False
        self.validation_score_.append(scale * val_loss)
        return self._should_stop(self.validation_score_, plan.n_iter_no_change, plan.tol)

    def _check_scores(self, where, checked, n_iter):
        """The rule of the loaded scores (``checked``: the values of ``_state_spec``) of
        ``n_iter`` iterations that the spec cannot say."""
        val = checked["validation_score_"]
        if val.size > n_iter:
            raise ValueError(
                f"{where}.validation_score_: more scores ({val.size}) than iterations ({n_iter})."
            )

    # -- prediction --------------------------------------------------------------------------
    def _raw_from_trees(self, Xe, K, X, loss):
        """Raw scores of the encoded ``Xe`` (``X`` as given, for an initial estimator)."""
        raw = self._initial_raw(X, Xe.shape[0], loss)
        if self.trees_:
            packer = self._packer()
            # on the threads its rows x trees feed and other busy processes leave free
            with CoreShare(n_cells=Xe.shape[0] * packer.roots.shape[0], reuse=True):
                packer.predict(Xe, K, out=raw)
        return raw

    def _packer(self):
        flat = [t for trees in self.trees_ for t in trees]
        packed = getattr(self, "_packed", None)
        # keyed on the trees themselves, not their count: packed trees of another fit
        # (a refit or warm start with as many trees) are never reused
        if (
            packed is None
            or len(packed[0]) != len(flat)
            or any(a is not b for a, b in zip(packed[0], flat))
        ):
            outputs = [k for trees in self.trees_ for k in range(len(trees))]
            # a fit that diverged at its first iteration keeps no tree: predict returns
            # the initial score without packed trees
            packed = self._packed = (tuple(flat), PackedTrees(flat, outputs) if flat else None)
        return packed[1]

    def _raw_predict(self, X):
        check_is_fitted(self, "trees_")
        Xe = self._encode_X(X, reset=False)
        return self._raw_from_trees(Xe, self._loss.n_outputs, X, self._loss)

    def _staged_raw_predict(self, X):
        check_is_fitted(self, "trees_")
        Xe = self._encode_X(X, reset=False)
        raw = self._initial_raw(X, Xe.shape[0], self._loss)
        for trees in self.trees_:
            for k, tree in enumerate(trees):
                raw[:, k] += tree.predict(Xe)[:, 0]
            yield raw.copy()

    @property
    def init_score_(self) -> Float64Array:
        """The initial raw score ``F0``, one per output, shape (n_outputs,): the loss's
        best constant on the training rows (without the validation split of early
        stopping): the log-odds ``ln(sum w y / sum w (1 - y))`` for two classes, the log
        of each class's weight share for K, the weighted mean of ``y`` (squared error),
        its median (absolute error, Huber) or ``alpha``-quantile (quantile loss); 0 with
        ``init="zero"`` or an initial estimator.  The raw score of a row is
        ``init_score_`` (plus the initial estimator's raw score) plus the leaf value of
        every tree it reaches (``decision_function`` for a classifier, ``predict`` for a
        regressor)."""
        check_is_fitted(self, "trees_")
        return self._init_raw.copy()

    def apply(self, X: MatrixLike) -> NDArray[np.int64]:
        """The leaf each row reaches in each tree, as scikit-learn's gradient boosting
        gives it.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        leaves : ndarray of int64, shape (n_samples, n_estimators_, n_outputs)
            ``leaves[i, m, k]``: the node id (a row of ``trees_[m][k]``'s arrays) of the
            leaf row ``i`` reaches in iteration ``m``'s tree of output ``k`` (one output
            for two classes, K for K classes); a regressor's, as scikit-learn's, of shape
            (n_samples, n_estimators_).
        """
        check_is_fitted(self, "trees_")
        Xe = self._encode_X(X, reset=False)
        K = self._init_raw.shape[0]
        out = np.empty((Xe.shape[0], len(self.trees_), K), np.int64)
        for m, trees in enumerate(self.trees_):
            for k, tree in enumerate(trees):
                out[:, m, k] = tree.apply(Xe)
        return out

    @property
    def feature_importances_(self) -> Float64Array:
        """Total second-order gain (or squared-error decrease) of each feature over all
        trees, normalised to sum to 1."""
        check_is_fitted(self, "trees_")
        total = np.zeros(self.n_features_in_)
        for trees in self.trees_:
            for tree in trees:
                total += tree.compute_feature_importances(normalize=False)
        s = total.sum()
        return total / s if s > 0 else total

    @property
    def estimators_(self) -> NDArray[np.object_]:
        """ndarray of :class:`~treeboost.DecisionTreeRegressor` of shape
        (n_estimators_, n_outputs): ``estimators_[i, k]`` predicts the leaf values of
        ``trees_[i][k]``, the engine tree it shares (built on first access, not by
        ``fit``).  Unlike scikit-learn's, its leaf values hold the learning rate already:
        the raw score is the initial score plus the sum of their predictions; and its
        parameters are the estimator's current ones (after a warm start with other
        parameters, also those of the earlier iterations)."""
        check_is_fitted(self, "trees_")
        cached = getattr(self, "_estimators", None)
        flat = [t for trees in self.trees_ for t in trees]
        if (
            cached is None
            or cached.size != len(flat)
            or any(m.tree_ is not t for m, t in zip(cached.ravel(), flat))
        ):
            K = self._init_raw.shape[0]
            cached = np.empty((len(self.trees_), K), dtype=object)
            for i, trees in enumerate(self.trees_):
                for k, tree in enumerate(trees):
                    cached[i, k] = self._member(tree)
            self._estimators = cached
        return cached

    def _member(self, tree):
        """A fitted DecisionTreeRegressor around the engine tree ``tree``."""
        plan = self._plan()
        member = DecisionTreeRegressor(
            max_depth=plan.max_depth,
            max_leaf_nodes=plan.max_leaf_nodes,
            min_samples_leaf=plan.min_samples_leaf,
            min_weight_fraction_leaf=plan.min_weight_fraction_leaf,
            min_impurity_decrease=plan.min_impurity_decrease,
            max_features=plan.max_features,
            max_bins=self.max_bins,
            categorical_features=self.categorical_features,
        )
        for name in (
            "n_features_in_",
            "feature_names_in_",
            "_encoder",
            "bin_mapper_",
            "max_features_",
        ):
            if hasattr(self, name):
                setattr(member, name, getattr(self, name))
        member.tree_ = tree
        return member

    def __len__(self) -> int:
        """Number of fitted iterations."""
        check_is_fitted(self, "trees_")
        return len(self.trees_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        return tags

    # -- the state read from a model file ---------------------------------------------------

    _persist_attributes = (
        "classes_",
        "n_classes_",
        "bin_mapper_",
        "trees_",
        "_init_raw",
        "_loss",
        "n_estimators_",
        "train_score_",
        "validation_score_",
        "init_",
        "max_features_",
        "oob_scores_",
        "oob_improvement_",
        "oob_score_",
    )
    #: the packed trees of predict and the members of ``estimators_``, rebuilt on demand
    _persist_transient: tuple[str, ...] = ("_packed", "_estimators")
    #: the arrays and numbers of a loaded booster, by :func:`check_state`: ``n_outputs``
    #: is its loss's, ``n_iter`` the iterations of ``trees_``
    _state_spec = {
        "_init_raw": array("float64", ("n_outputs",), finite=True),
        "n_estimators_": integer(),
        "train_score_": array("float64", ("n_iter",)),
        "validation_score_": array("float64", ndim=1),
        "oob_scores_": array("float64", ("n_iter",), optional=True),
        "oob_improvement_": array("float64", ("n_iter",), optional=True),
    }

    def _validate_state(self, where="model", **context):
        """Check a loaded booster: its loss (the log-loss of its number of classes, or a
        regression loss), ``trees_`` (one list of one tree per output per iteration, each
        on the booster's bins) whose leaf values, added to the initial score, stay finite,
        ``_state_spec`` and what it cannot say (``n_estimators_`` the iterations, no more
        validation scores than iterations, ``init_``)."""
        super()._validate_state(where, **context)
        classifier = isinstance(self, ClassifierMixin)
        required = [
            "n_features_in_",
            "_encoder",
            "bin_mapper_",
            "trees_",
            "_init_raw",
            "_loss",
            "n_estimators_",
            "train_score_",
            "validation_score_",
        ]
        if classifier:
            required += ["classes_", "n_classes_"]
        if not check_fitted(self, where, required):
            return
        n = self.n_features_in_
        flags = self._encoder.is_categorical_
        validate_part(
            self.bin_mapper_,
            f"{where}.bin_mapper_",
            expect=BinMapper,
            n_features=n,
            categorical=flags,
        )
        loss = self._loss
        if not isinstance(loss, Loss):
            raise ValueError(f"{where}._loss: not a loss.")
        validate_part(loss, f"{where}._loss")
        if classifier:
            n_classes = check_classes(self, where, at_least=2)
            want = (BinaryLogLoss, ExponentialLoss) if n_classes == 2 else (MultinomialLogLoss,)
            if type(loss) not in want or (
                isinstance(loss, MultinomialLogLoss) and loss.n_classes != n_classes
            ):
                names = " or ".join(w.__name__ for w in want)
                raise ValueError(
                    f"{where}._loss: {n_classes} classes need {names}"
                    f"{'' if n_classes == 2 else f' of {n_classes} classes'}, "
                    f"got {type(loss).__name__}."
                )
        elif loss.is_classification:
            raise ValueError(
                f"{where}._loss: a regressor needs a regression loss, got {type(loss).__name__}."
            )
        K = loss.n_outputs
        trees = self.trees_
        if not isinstance(trees, list) or any(
            not isinstance(t, list) or len(t) != K for t in trees
        ):
            raise ValueError(
                f"{where}.trees_: must be a list holding, per iteration, a list "
                f"of {K} tree(s) (one per output)."
            )
        checked = check_state(self, where, self._state_spec, {"n_outputs": K, "n_iter": len(trees)})
        bound = np.abs(checked["_init_raw"])
        for i, per_output in enumerate(trees):
            for k, tree in enumerate(per_output):
                validate_part(
                    tree,
                    f"{where}.trees_[{i}][{k}]",
                    expect=Tree,
                    n_features=n,
                    n_outputs=1,
                    categorical=flags,
                    bin_mapper=self.bin_mapper_,
                )
                bound[k] += np.abs(tree.value).max()
        if not np.all(bound < 1e300):
            raise ValueError(
                f"{where}.trees_: the initial score and the leaf values sum to "
                f"more than 1e300 (the raw scores would overflow)."
            )
        n_iter = checked["n_estimators_"]
        if n_iter != len(trees):
            raise ValueError(
                f"{where}.n_estimators_: must be the number of iterations in "
                f"trees_ ({len(trees)}), got {n_iter}."
            )
        self._check_scores(where, checked, len(trees))
        check_init_estimator(
            getattr(self, "init_", None),
            f"{where}.init_",
            n,
            self.n_classes_ if classifier else None,
        )


class BoostedRegressor(RegressorMixin, BaseGradientBoosting):
    """Regression losses and predictions shared by the regressors (``_alpha()``: the
    quantile of the quantile and Huber losses)."""

    #: the losses whose target has a domain, by name
    _TARGET_RULES = {"poisson": PoissonLoss, "gamma": GammaLoss}

    def _make_loss(self):
        return {
            "squared_error": SquaredError,
            "absolute_error": AbsoluteError,
            "huber": lambda: HuberLoss(self._alpha()),
            "quantile": lambda: QuantileLoss(self._alpha()),
            "poisson": PoissonLoss,
            "gamma": GammaLoss,
        }[self.loss]()

    def _validate_target(self, y, n_samples, reset):
        y = check_regression_target(y, n_samples)
        rule = self._TARGET_RULES.get(self.loss)
        return y if rule is None else rule.check_target(y)

    def _validate_validation_target(self, y, n_samples):
        return self._validate_target(y, n_samples, False)

    def predict(self, X: MatrixLike) -> Float64Array:
        """Sum of the initial score and every tree's leaf value (through the loss's
        inverse link: ``exp`` of it for ``poisson`` and ``gamma``)."""
        raw = self._raw_predict(X)[:, 0]  # checks that the model is fitted
        return self._loss.predict(raw)

    def apply(self, X: MatrixLike) -> NDArray[np.int64]:
        return super().apply(X)[:, :, 0]

    apply.__doc__ = BaseGradientBoosting.apply.__doc__

    def staged_predict(self, X: MatrixLike) -> Iterator[Float64Array]:
        """Predictions after each iteration (a generator)."""
        for raw in self._staged_raw_predict(X):
            yield self._loss.predict(raw[:, 0])


class BoostedClassifier(ClassifierMixin, BaseGradientBoosting):
    """Classification losses and predictions shared by the classifiers."""

    def _make_loss(self):
        if self.loss == "exponential":
            if self.n_classes_ != 2:
                raise ValueError(
                    f"loss='exponential' is only suitable for a binary "
                    f"classification problem, you have n_classes="
                    f"{self.n_classes_}. Please use loss='log_loss' instead."
                )
            return ExponentialLoss()
        if self.n_classes_ == 2:
            return BinaryLogLoss()
        return MultinomialLogLoss(self.n_classes_)

    def _validate_target(self, y, n_samples, reset):
        classes, y_enc = encode_classification_target(y, n_samples)
        if classes.shape[0] < 2:
            raise ValueError(
                f"{self.loss} needs at least 2 classes in y; got only one "
                f"class: {classes.tolist()!r}."
            )
        if reset:
            self.classes_ = classes
            self.n_classes_ = classes.shape[0]
        elif not np.array_equal(classes, self.classes_):
            raise ValueError("warm_start: y has other classes than the first fit.")
        return y_enc

    def _validate_validation_target(self, y, n_samples):
        """``y_val`` as indices of ``classes_``; a class not in ``y`` is refused."""
        classes, y_enc = encode_classification_target(y, n_samples)
        index = np.clip(np.searchsorted(self.classes_, classes), 0, self.n_classes_ - 1)
        unknown = classes[self.classes_[index] != classes]
        if unknown.size:
            raise ValueError(f"y_val has classes not in y: {unknown.tolist()!r}.")
        return index[y_enc]

    def decision_function(self, X: MatrixLike) -> Float64Array:
        """Raw scores: the log-odds (n_samples,) for two classes, else (n_samples, K)."""
        raw = self._raw_predict(X)
        return raw[:, 0] if self.n_classes_ == 2 else raw

    def staged_decision_function(self, X: MatrixLike) -> Iterator[Float64Array]:
        for raw in self._staged_raw_predict(X):
            yield raw[:, 0] if self.n_classes_ == 2 else raw

    def _proba(self, raw):
        return self._loss.proba(_per_output(raw))

    def predict_proba(self, X: MatrixLike) -> Float64Array:
        """Class probabilities: ``expit(F)`` (``expit(2F)`` for the exponential loss) or
        ``softmax(F)``."""
        return self._proba(self._raw_predict(X))

    def predict_log_proba(self, X: MatrixLike) -> Float64Array:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X: MatrixLike) -> NDArray[Any]:
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def staged_predict_proba(self, X: MatrixLike) -> Iterator[Float64Array]:
        for raw in self._staged_raw_predict(X):
            yield self._proba(raw)

    def staged_predict(self, X: MatrixLike) -> Iterator[NDArray[Any]]:
        for raw in self._staged_raw_predict(X):
            yield self.classes_[np.argmax(self._proba(raw), axis=1)]


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
        "min_samples_split": [
            Interval(Integral, 2, None, closed="left"),
            Interval(RealNotInt, 0.0, 1.0, closed="right"),
        ],
        "min_samples_leaf": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0.0, 1.0, closed="neither"),
        ],
        "min_weight_fraction_leaf": [Interval(Real, 0.0, 0.5, closed="both")],
        "min_impurity_decrease": [Interval(Real, 0.0, None, closed="left")],
        "max_features": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0.0, 1.0, closed="right"),
            StrOptions({"sqrt", "log2"}),
            None,
        ],
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
            n_iter_no_change=self.n_iter_no_change,
            tol=self.tol,
        )

    def _split_seed(self, rng):
        # scikit-learn splits with random_state itself
        return self.random_state

    @staticmethod
    def _should_stop(scores, n_iter_no_change, tol):
        """scikit-learn's GradientBoosting rule: stop when the validation loss plus
        ``tol`` is not below the worst of the ``n_iter_no_change`` losses before it."""
        k = n_iter_no_change
        if len(scores) <= k:
            return False
        return scores[-1] + tol >= max(scores[-k - 1 : -1])

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
        (:mod:`treeboost.engine.constraints`).
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
    alpha : float in (0, 1), default=0.9
        Quantile of ``loss="quantile"``; for ``"huber"``, the quantile of the absolute
        residuals that sets ``delta``."""
        + _GB_DOC
    )

    _parameter_constraints = {
        **_SklearnGradientBoosting._parameter_constraints,
        "loss": [StrOptions({"squared_error", "absolute_error", "huber", "quantile"})],
        "alpha": [Interval(Real, 0.0, 1.0, closed="neither")],
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
        alpha: float = 0.9,
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
        "loss": [StrOptions({"log_loss", "exponential"})],
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


register(
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    AbsoluteError,
    BinaryLogLoss,
    ExponentialLoss,
    GammaLoss,
    HuberLoss,
    MultinomialLogLoss,
    PoissonLoss,
    QuantileLoss,
    SquaredError,
)
