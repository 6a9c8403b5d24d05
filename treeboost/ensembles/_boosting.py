"""The one boosting loop (Friedman 2001) that scikit-learn's ``GradientBoosting*`` and
``HistGradientBoosting*`` families share.

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
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import numba
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import train_test_split
from sklearn.utils import _safe_indexing, check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_sample_weight

from ..engine import (
    CoreShare,
    NEWTON,
    SQUARED_ERROR,
    BinMapper,
    GrowerWorkspace,
    StoppingRules,
    TreeGrower,
    add_leaf_values,
    boosting_rows,
    fit_transform_weighted,
    monotone_leaf_values,
)
from ..persistence import PersistenceMixin
from ..losses.base import LeafSamples
from ..losses.custom import check_gradient_hessian
from ..trees._params import resolve_count, resolve_max_features
from .._input.estimator_input import EncoderMixin
from .._input.weights import check_weights
from ..trees.constraints import check_interaction_cst, check_monotonic_cst, grower_constraints
from ._booster_params import draw_tree_features, tree_feature_count
from ._bootstrap import selection_sample
from ._offsets import add_offset, check_offset, take_rows
from ._output_lanes import OutputLanes, lane_plan
from ._gb_init import fit_init_estimator, init_raw_predictions

if TYPE_CHECKING:
    from .._typing import (
        ArrayLike,
        MatrixLike,
    )

    # the estimator itself, of its own class (typing.Self needs Python 3.11)
    Self = TypeVar("Self", bound="BaseGradientBoosting")
from dataclasses import replace

from ._boosted_model import BoostedModel
from ._eval_request import EvalRequest
from .evaluation import EvalSet, Evaluation
from ._boosting_records import (
    BoostingState,
    FitInputs,
    ScoredRows,
    ScoringData,
    Stage,
    StageSetup,
    TrainingRows,
    ValidationRows,
    _masked_loss,
    _per_output,
)


class BaseGradientBoosting(BoostedModel, PersistenceMixin, EncoderMixin, BaseEstimator):
    """Fitting loop shared by the classifiers and the regressors.

    Subclasses define ``_plan()`` (their hyperparameters as a :class:`BoostingPlan`,
    whose ``stopping_rule`` is an :mod:`.early_stopping` rule object that the loop
    asks after each iteration) and ``_split_seed`` (the seed of the early-stopping
    split: scikit-learn's two families draw it differently)."""

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
        *,
        eval_set: list[tuple[Any, Any]] | None = None,
        eval_names: list[str] | None = None,
        eval_metric: Any = None,
        eval_sample_weight: list[Any] | None = None,
        callbacks: list[Callable[[Any], object]] | None = None,
        init_score: ArrayLike | None = None,
        eval_init_score: list[Any] | None = None,
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
        eval_set, eval_names, eval_metric, eval_sample_weight, callbacks : optional
            Evaluation sets scored after every iteration, as LightGBM's ``fit``
            (:mod:`treeboost.ensembles.evaluation`, the user guide's evaluation page).
        init_score : array-like of shape (n_samples,) or (n_samples, n_outputs), \
default=None
            Per-row offsets of the raw score (LightGBM's ``init_score``, XGBoost's
            ``base_margin``): the fit boosts ``F(x_i) = init_score_i + sum_t f_t(x_i)``,
            and, as LightGBM, without the loss's best constant (``init_score_`` is 0;
            an ``init`` estimator's predictions are still added).  Shape (n_samples,):
            the same offset on every output.  The model does not keep them:
            ``predict(X, raw_score=True)`` is ``sum_t f_t(x)`` and the caller adds the
            offsets of the rows it predicts.
            With early stopping, the held-out rows keep their offsets.
        eval_init_score : list, default=None
            One offset (or None) per ``eval_set`` entry, as ``init_score``.

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
        evaluation = EvalRequest.of(
            eval_set, eval_names, eval_metric, eval_sample_weight, callbacks, eval_init_score
        )
        return self._fit(
            X, y, sample_weight, monitor=monitor, evaluation=evaluation, init_score=init_score
        )

    def _fit(
        self,
        X,
        y,
        sample_weight,
        monitor=None,
        validation=None,
        evaluation=None,
        init_score=None,
    ):
        """:meth:`fit`; ``validation``: ``(X_val, y_val, sample_weight_val,
        init_score_val)`` given to early stopping instead of a split of ``X``
        (HistGradientBoosting's ``fit``); ``init_score``: the rows' offsets.

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
        offset = check_offset(init_score, data.Xe.shape[0], loss.n_outputs)
        data = replace(data, offset=offset)
        constraints = self._constraints(loss.n_outputs)
        self.max_features_ = resolve_max_features(plan.max_features, self.n_features_in_)
        rows = self._split_rows(data, plan, rng, validation)
        # every region of the fit (the binning, the initial scores, each iteration's
        # passes and trees) on the threads its work feeds and other busy processes
        # leave free: one look at the load now, then between iterations
        with CoreShare(n_cells=rows.Xe.shape[0] * self.n_features_in_) as cores:
            return self._fit_rows(
                plan, data, rows, rng, loss, constraints, validation, monitor, cores, evaluation
            )

    def _fit_rows(
        self, plan, data, rows, rng, loss, constraints, validation, monitor, cores, evaluation
    ):
        """:meth:`_fit` from the training rows on, inside its :class:`CoreShare`
        ``cores``."""
        if data.warm:
            state = self._resume(rows, loss)
        else:
            state = self._start_fresh(rows, plan, loss, rng, data.weighted)
        val = self._validation_rows(data, rows, validation, loss, state)
        setup = self._stage_setup(plan, rows, constraints)
        if evaluation is not None:
            setup = replace(setup, evaluation=self._evaluation(evaluation, data, loss))
        # what the early-stopping scores of a subclass may read (HistGradientBoosting's
        # scorers predict the original rows)
        scoring = ScoringData(
            rows.early,
            rows.external or rows.val is not None,
            loss,
            ScoredRows(rows.X, rows.y, rows.sample_weight, state.raw),
            None if val is None else ScoredRows(val.X, val.y, val.sample_weight, val.raw),
            has_offset=data.offset is not None,
        )
        try:
            self._fit_stages(plan, loss, rows, state, val, setup, scoring, monitor, cores)
        finally:
            setup.lanes.close()
        return self._finish_fit(state, loss, setup.evaluation)

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
            Xtr, ytr, wtr, otr = data.Xe, y, data.sample_weight, data.offset
        else:
            Xtr, ytr, wtr = data.Xe[train], y[train], data.sample_weight[train]
            otr = take_rows(data.offset, train)
        wtr = np.ascontiguousarray(wtr, dtype=np.float64)
        # the rows as given are copied only for what reads them (an initial estimator, a
        # scorer): early stopping otherwise copies the encoded rows alone
        keep_X = self._needs_input_rows(plan)
        X_init = data.X if val is None or not keep_X else _safe_indexing(data.X, train)
        return TrainingRows(X_init, Xtr, ytr, wtr, val, early, external, keep_X, otr)

    def _start_fresh(self, rows, plan, loss, rng, weighted):
        """A fresh fit's state: ``init_`` fitted, the initial scores (refused when their
        loss overflows, before any fitted attribute is set), the bins and empty lists."""
        K = loss.n_outputs
        ytr, wtr = rows.y, rows.sample_weight
        self.init_ = self._fit_init(plan.init, rows.X, ytr, wtr, weighted)
        if plan.init is None and rows.offset is None:
            init = np.atleast_1d(np.asarray(loss.init_raw(ytr, wtr), dtype=np.float64))
        else:
            # with offsets, no best constant: LightGBM's boost_from_average is off
            # when the data has an init_score
            init = np.zeros(K)
        self._init_raw = init
        raw = add_offset(self._initial_raw(rows.X, ytr.shape[0], loss), rows.offset)
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
        raw = add_offset(self._raw_from_trees(rows.Xe, K, rows.X, loss), rows.offset)
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
            o_v = check_offset(
                validation[3] if len(validation) > 3 else None,
                Xe_v.shape[0],
                loss.n_outputs,
                "init_score_val",
            )
            if (o_v is None) != (data.offset is None):
                raise ValueError(
                    "init_score and init_score_val go together: the validation rows "
                    "start from offsets when the training rows do."
                )
        elif rows.val is not None:
            val = rows.val
            X_v = _safe_indexing(data.X, val) if rows.keep_X else None
            Xe_v, y_v, sw_v = data.Xe[val], data.y[val], data.sample_weight[val]
            o_v = take_rows(data.offset, val)
        else:
            X_v, Xe_v, y_v, sw_v = rows.X, rows.Xe, rows.y, rows.sample_weight
            o_v = rows.offset
        return ValidationRows(
            X_v,
            y_v,
            sw_v,
            self.bin_mapper_.transform(Xe_v),
            add_offset(self._raw_from_trees(Xe_v, loss.n_outputs, X_v, loss), o_v),
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
            l1_regularization=plan.l1_regularization,
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
        n_tree_features = tree_feature_count(self.n_features_in_, plan.colsample_bytree)
        feature_rng = None
        if n_tree_features:
            # a stream of its own (LightGBM's feature_fraction_seed), seeded from
            # random_state: the subsample's rows and the trees' seeds are those of a fit
            # without colsample_bytree
            feature_rng = np.random.default_rng(
                check_random_state(self.random_state).randint(2**31 - 1)
            )
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
            n_tree_features=n_tree_features,
            feature_rng=feature_rng,
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
            begin = len(self.trees_)
            for it in range(begin, plan.n_iter):
                cores.update()
                stage = self._fit_stage(plan, loss, rows, state, val, setup, carry)
                if loss.has_value and (
                    not np.isfinite(stage.train_score)
                    or not np.isfinite(0.0 if stage.val_score is None else stage.val_score)
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
                if setup.evaluation is not None and setup.evaluation.after_iteration(
                    self, it, stage.trees, begin, plan.n_iter
                ):
                    break
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
            if not loss.checks_own_gradients:
                g, h = check_gradient_hessian(loss, g, h, _per_output(raw))
        # one output's gradients contiguous (the carried arrays already are)
        g = np.ascontiguousarray(g.reshape(-1, K).T)
        h = np.ascontiguousarray(h.reshape(-1, K).T)
        rows_in, inbag = self._draw_rows(setup, wtr)
        oob_before = None if inbag is None else _masked_loss(loss, ytr, raw, wtr, ~inbag)
        # the trees' seeds drawn in output order, whichever thread grows each; outputs
        # that are separate models side by side (several quantiles) share one, the seed
        # a model of one output draws
        if getattr(loss, "outputs_share_seed", False):
            seeds = [setup.stage_rng.randint(0, 2**31 - 1)] * K
        else:
            seeds = [setup.stage_rng.randint(0, 2**31 - 1) for _ in range(K)]
        # colsample_bytree: each tree's features, drawn in output order too (one draw
        # per tree, as LightGBM's feature_fraction)
        features = [draw_tree_features(setup, self.n_features_in_) for _ in range(K)]

        def fit_tree(k, lane=None):
            return self._fit_output_tree(
                k, plan, loss, rows, state, val, setup, g, h, rows_in, seeds[k], lane, features[k]
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
        self, k, plan, loss, rows, state, val, setup, g, h, rows_in, seed, lane=None, features=None
    ):
        """The tree of output ``k`` on the gradients ``(g, h)`` of the rows ``rows_in``,
        its leaf values from the loss times ``learning_rate``, added to the training
        and validation scores; grown with ``lane`` (:mod:`._output_lanes`) or, without
        one, the fit's grower and buffers, splitting on ``features`` only (the tree's
        draw of ``colsample_bytree``; None: every feature)."""
        ytr, wtr, raw, Xb = rows.y, rows.sample_weight, state.raw, state.Xb
        newton, mc = setup.newton, setup.missing_code
        if lane is None:
            grower, stats, workspace = setup.grower, setup.stats, setup.workspace
        else:
            grower, stats, workspace = lane.grower, lane.stats, lane.workspace
        grower.random_state = seed
        grower.tree_features = features
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
            output=k,
            l1_regularization=plan.l1_regularization,
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

    def _finish_fit(self, state, loss, evaluation=None):
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
        self._finish_evaluation(evaluation)
        self._packed = None
        self._packer()  # built now, so that predict never changes the estimator
        return self

    def _evaluation(self, request, data, loss):
        """The fit's :class:`~.evaluation.Evaluation`: each evaluation set checked as
        the training data (against the fitted encoder), binned and scored by the trees
        fitted so far."""
        sets = []
        for i, (X_e, y_e) in enumerate(request.eval_set):
            Xe = self._encode_X(X_e, reset=False)
            y_enc = self._validate_validation_target(y_e, Xe.shape[0])
            w = self._weights(request.sample_weights[i], Xe, y_enc, data.classifier)
            offset = check_offset(
                request.init_scores[i], Xe.shape[0], loss.n_outputs, f"eval_init_score[{i}]"
            )
            raw = add_offset(self._raw_from_trees(Xe, loss.n_outputs, X_e, loss), offset)
            sets.append(EvalSet(request.names[i], y_enc, w, Xe, raw))
        return Evaluation(sets, request.metrics, request.callbacks, loss)

    def _finish_evaluation(self, evaluation):
        """``evals_result_`` and ``best_iteration_`` of a fit with evaluation sets (the
        early-stopping callback's best iteration, else the best of the first metric on
        the last set); neither without."""
        if evaluation is None:
            return
        self.evals_result_ = evaluation.history
        if not any(getattr(c, "sets_best_iteration", False) for c in evaluation.callbacks):
            self.best_iteration_ = evaluation.best_iteration()

    def _warn_deprecated(self):
        """Warn of deprecated parameters set at fit (none here)."""

    def _check_interaction_cst(self, n_features):
        """``interaction_cst`` as a list of sets of feature indices, the features it does
        not name as one more set (scikit-learn's HistGradientBoosting method)."""
        return check_interaction_cst(getattr(self, "interaction_cst", None), n_features)

    def _constraints(self, n_outputs):
        """The trees' :class:`~treeboost.engine.split.constraints.Constraints` (None without any),
        checked against the data being fitted."""
        cst = check_monotonic_cst(
            self,
            getattr(self, "monotonic_cst", None),
            self.n_features_in_,
            self._encoder.is_categorical_,
        )
        if cst is not None and n_outputs > 1:
            raise ValueError(
                "monotonic constraints are not supported for multiclass classification "
                f"or several quantiles (a loss of {n_outputs} outputs)."
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
        if not loss.has_value:  # a callable objective: no value to test
            return None
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

    def _score_scale(self, loss):
        """Factor of the loss in ``train_score_`` (scikit-learn's GradientBoosting:
        :attr:`Loss.score_scale`)."""
        return loss.score_scale

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
        return plan.stopping_rule.should_stop(self.validation_score_)

    def _check_scores(self, where, checked, n_iter):
        """The rule of the loaded scores (``checked``: the values of ``_state_spec``) of
        ``n_iter`` iterations that the spec cannot say."""
        val = checked["validation_score_"]
        if val.size > n_iter:
            raise ValueError(
                f"{where}.validation_score_: more scores ({val.size}) than iterations ({n_iter})."
            )
