"""scikit-learn's ``HistGradientBoostingClassifier`` / ``Regressor``: the parameter names
and defaults of scikit-learn's histogram boosting (LightGBM's: 31 leaves grown best-first,
20 samples per leaf, the second-order gain), on treeboost's one boosting loop
(:class:`~treeboost.ensembles.gradient_boosting.BaseGradientBoosting`)."""

from __future__ import annotations

from numbers import Integral, Real
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, Literal, TypeVar

import numpy as np
from sklearn.base import is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import train_test_split
from sklearn.utils import _safe_indexing, check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..losses.multi_quantile import check_quantiles
from ..losses.tweedie import TweedieLoss
from ..persistence import register
from ..persistence._spec import array
from ._booster_params import (
    BOOSTER_PARAM_CONSTRAINTS,
    BoosterParamsMixin,
)
from ._eval_request import EvalRequest
from .early_stopping import ScorePlateau
from .gradient_boosting import (
    CONSTRAINTS_DOC,
    BaseGradientBoosting,
    BoostedClassifier,
    BoostedRegressor,
    BoostingPlan,
)

if TYPE_CHECKING:
    from .._typing import (
        ArrayLike,
        ClassWeight,
        HistCategoricalFeatures,
        HistRegressionLoss,
        InteractionCst,
        MatrixLike,
        MonotonicCst,
        NDArray,
        RandomStateLike,
    )

    # to the type checker, the mixin is the booster it is mixed into
    _Booster = BaseGradientBoosting
    # the estimator itself, of its own class (typing.Self needs Python 3.11)
    Self = TypeVar("Self", bound="_HistGradientBoosting")
else:
    _Booster = object

#: scikit-learn's "auto": early stopping above this many rows
AUTO_EARLY_STOPPING_ROWS = 10_000
#: a scorer other than the loss scores the training data on at most this many rows
SMALL_TRAINSET_ROWS = 10_000


class _HistGradientBoosting(_Booster):
    """The mapping of HistGradientBoosting's parameters onto the boosting loop."""

    _n_iter_name = "max_iter"
    #: a tie between features goes to the lowest index, as in scikit-learn's
    #: HistGradientBoosting and LightGBM (deterministic by feature order)
    _random_ties = False
    #: thresholds right above the left side's values, as theirs
    _centered_thresholds = False
    #: +-inf in X, as scikit-learn's HistGradientBoosting: the first and last bins
    _allows_infinite = True
    #: the early-stopping scorer of the last fit and its rows of the training data
    _persist_transient = BaseGradientBoosting._persist_transient + ("_scorer", "_small_train")

    _parameter_constraints = {
        **BaseGradientBoosting._parameter_constraints,
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "max_features": [Interval(Real, 0.0, 1.0, closed="right")],
        "subsample": [Interval(Real, 0.0, 1.0, closed="right")],
        "min_split_gain": [Interval(Real, 0.0, None, closed="left")],
        **BOOSTER_PARAM_CONSTRAINTS,
        "categorical_features": ["array-like", StrOptions({"auto", "from_dtype"}), None],
        "early_stopping": [StrOptions({"auto"}), "boolean"],
        "scoring": [str, callable, None],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0.0, None, closed="left")],
        # an integer is a number of rows; None validates on the training rows
        "validation_fraction": [
            Interval(RealNotInt, 0.0, 1.0, closed="neither"),
            Interval(Integral, 1, None, closed="left"),
            None,
        ],
    }

    def _encode_X(self, X, reset, y=None, sample_weight=None):
        Xe = super()._encode_X(X, reset, y=y, sample_weight=sample_weight)
        if reset:
            self._check_cardinality()
        return Xe

    def _check_cardinality(self):
        """scikit-learn's HistGradientBoosting gives each category its own bin, so it
        refuses a categorical column of more than ``max_bins`` categories (NaN apart);
        so do these classes, whose name promises its behaviour (treeboost's other
        estimators group the rare categories of such a column instead)."""
        # (the encoder's per-feature lists are read as lists of None by a type checker)
        enc: Any = self._encoder
        names = getattr(self, "feature_names_in_", None)
        for f in np.flatnonzero(enc.is_categorical_):
            n = sum(len(c) for c in (enc.categories_[f], enc.rare_categories_[f]) if c is not None)
            if enc.rare_categories_[f] is not None:
                n -= 1  # the group of the rare ones is not a category of X
            if n > self.max_bins:
                name = repr(str(names[f])) if names is not None else f"at index {f}"
                raise ValueError(
                    f"Categorical feature {name} is expected to have a "
                    f"cardinality <= {self.max_bins} but actually has a "
                    f"cardinality of {n}."
                )

    def _plan(self):
        def early_stopping(n_samples):
            if self.early_stopping == "auto":
                return n_samples > AUTO_EARLY_STOPPING_ROWS
            return bool(self.early_stopping)

        return BoostingPlan(
            n_iter=self.max_iter,
            max_depth=self.max_depth,
            max_leaf_nodes=self.max_leaf_nodes,
            min_samples_split=2,
            min_samples_leaf=self.min_samples_leaf,
            min_weight_fraction_leaf=0.0,
            # LightGBM's gain has no factor 1/2 (.grow.acceptance)
            min_impurity_decrease=self._min_split_gain() / 2.0,
            min_child_weight=self.min_child_weight,
            l2_regularization=self.l2_regularization,
            l1_regularization=float(self.reg_alpha),
            colsample_bytree=float(self.colsample_bytree),
            # a fraction of the features, also when given as the integer 1
            max_features=float(self.max_features),
            subsample=float(self.subsample),
            split_gain=self.split_gain,
            init=None,
            early_stopping=early_stopping,
            validation_fraction=self.validation_fraction,
            # scikit-learn's HistGradientBoosting rule on the scores
            stopping_rule=ScorePlateau(self.n_iter_no_change, self.tol),
        )

    def _min_split_gain(self):
        if self.min_split_gain > 0 and self.split_gain != "hessian":
            raise ValueError(
                f"min_split_gain={self.min_split_gain!r} is a second-order gain: it needs "
                f"split_gain='hessian', got split_gain={self.split_gain!r}."
            )
        return float(self.min_split_gain)

    # scikit-learn's HistGradientBoosting takes validation data and no ``monitor``
    def fit(  # type: ignore[override]
        self: Self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
        *,
        X_val: MatrixLike | None = None,
        y_val: ArrayLike | None = None,
        sample_weight_val: ArrayLike | None = None,
        eval_set: list[tuple[Any, Any]] | None = None,
        eval_names: list[str] | None = None,
        eval_metric: Any = None,
        eval_sample_weight: list[Any] | None = None,
        callbacks: list[Callable[[Any], object]] | None = None,
        init_score: ArrayLike | None = None,
        init_score_val: ArrayLike | None = None,
        eval_init_score: list[Any] | None = None,
    ) -> Self:
        """Fit the boosted trees.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
        X_val, y_val : array-like, default=None
            Validation data for early stopping instead of ``validation_fraction`` of X
            (both or neither; not with ``early_stopping=False``).
        sample_weight_val : array-like of shape (n_val_samples,), default=None
        eval_set, eval_names, eval_metric, eval_sample_weight, callbacks : optional
            Evaluation sets scored after every iteration, as LightGBM's ``fit``
            (:mod:`treeboost.ensembles.evaluation`); independent of early stopping's
            ``X_val``.
        init_score : array-like of shape (n_samples,) or (n_samples, n_outputs), \
default=None
            Per-row offsets of the raw score (LightGBM's ``init_score``, XGBoost's
            ``base_margin``): the fit boosts ``F(x_i) = init_score_i + sum_t f_t(x_i)``
            without the loss's best constant (as LightGBM: ``init_score_`` is 0).  Not
            kept by the model: ``predict(X, raw_score=True)`` is ``sum_t f_t(x)``, to
            which the caller adds the offsets of the rows it predicts.  The rows held
            out by ``validation_fraction`` keep their offsets; with early stopping, only
            ``scoring="loss"`` (a scorer predicts the rows without their offsets).
        init_score_val : array-like, default=None
            The offsets of ``X_val`` (given with ``init_score``).
        eval_init_score : list, default=None
            One offset (or None) per ``eval_set`` entry.

        Returns
        -------
        self
        """
        if (X_val is None) != (y_val is None):
            given, missing = ("X_val", "y_val") if y_val is None else ("y_val", "X_val")
            raise ValueError(f"{given} is provided, but {missing} was not provided.")
        if X_val is not None and self.early_stopping is False:
            raise ValueError(
                "X_val and y_val are passed to fit while at the same time "
                "early_stopping is False. When passing X_val and y_val to "
                "fit, early_stopping should be set to either 'auto' or True."
            )
        evaluation = EvalRequest.of(
            eval_set, eval_names, eval_metric, eval_sample_weight, callbacks, eval_init_score
        )
        if init_score_val is not None and X_val is None:
            raise ValueError("init_score_val is given without X_val.")
        return self._fit(
            X,
            y,
            sample_weight,
            validation=(X_val, y_val, sample_weight_val, init_score_val),
            evaluation=evaluation,
            init_score=init_score,
        )

    # -- scikit-learn's early-stopping scores ---------------------------------------------
    def _start_scores(self, data):
        """Without early stopping no score is kept; with it, the scores before the first
        iteration come first (once: a warm start continues the lists)."""
        if not data.early:
            self.train_score_, self.validation_score_ = [], []
            return
        if data.has_offset and self.scoring != "loss":
            raise ValueError(
                f"init_score with early stopping needs scoring='loss': the scorer "
                f"{self.scoring!r} predicts the rows without their offsets."
            )
        self._scorer = None if self.scoring == "loss" else check_scoring(self, self.scoring)
        self._small_train = None
        n = data.train.y.shape[0]
        if self._scorer is not None and n > SMALL_TRAINSET_ROWS:
            # scikit-learn scores the training data on a subset of this size
            rows = np.arange(n)
            stratify = data.train.y if is_classifier(self) else None
            self._small_train, _ = train_test_split(
                rows,
                train_size=SMALL_TRAINSET_ROWS,
                stratify=stratify,
                random_state=check_random_state(self.random_state).randint(2**31 - 1),
            )
        if not len(self.train_score_):
            self.train_score_.append(self._score(data, False, None))
            if data.has_validation:
                self.validation_score_.append(self._score(data, True, None))

    def _needs_input_rows(self, plan):
        # a scorer predicts the rows as given
        return self.scoring != "loss" or super()._needs_input_rows(plan)

    def _score(self, data, validation, loss_value):
        """Minus the loss (``scoring="loss"``), else the scorer's value of the model
        fitted so far."""
        rows = data.rows(validation)
        X, y, w, raw = rows.X, rows.y, rows.sample_weight, rows.raw
        if self._scorer is None:
            if loss_value is None:
                loss_value = data.loss(y, raw[:, 0] if raw.shape[1] == 1 else raw, w)
            return -float(loss_value)
        if not validation and self._small_train is not None:
            X, y, w = (
                _safe_indexing(X, self._small_train),
                y[self._small_train],
                w[self._small_train],
            )
        labels = self.classes_[y] if is_classifier(self) else y
        if np.all(w == 1.0):
            return float(self._scorer(self, X, labels))
        return float(self._scorer(self, X, labels, sample_weight=w))

    def _record_scores(self, train_loss, val_loss, scale, plan, data):
        if not data.early:
            return False
        self.train_score_.append(self._score(data, False, train_loss))
        if data.has_validation:
            self.validation_score_.append(self._score(data, True, val_loss))
        return plan.stopping_rule.should_stop(self._watched_scores(data.has_validation))

    def _watched_scores(self, has_validation):
        """The scores early stopping watches: the validation scores, or the training
        scores without validation rows (``validation_fraction=None``)."""
        return self.validation_score_ if has_validation else self.train_score_

    #: without early stopping no score is kept; with it, the initial one comes first
    _state_spec = {**BaseGradientBoosting._state_spec, "train_score_": array("float64", ndim=1)}

    def _check_scores(self, where, checked, n_iter):
        for name in ("train_score_", "validation_score_"):
            scores = checked[name]
            if scores.size > n_iter + 1:
                raise ValueError(
                    f"{where}.{name}: more scores ({scores.size}) than "
                    f"iterations ({n_iter}) and the initial one."
                )

    def _split_seed(self, rng):
        # scikit-learn's draw
        return rng.randint(np.iinfo(np.uint32).max, dtype="u8")

    @property
    def n_iter_(self) -> int:
        """Iterations fitted (fewer than ``max_iter`` after early stopping)."""
        return self.n_estimators_

    @property
    def is_categorical_(self) -> NDArray[np.bool_] | None:
        """Boolean mask of the categorical features, or None when there is none."""
        check_is_fitted(self, "trees_")
        mask = np.asarray(self._encoder.is_categorical_, dtype=bool)
        return mask.copy() if mask.any() else None


_HIST_DOC = (
    """
    learning_rate : float, default=0.1
        Shrinkage of every leaf value (> 0).
    max_iter : int, default=100
        Number of boosting iterations (trees per output).
    max_leaf_nodes : int or None, default=31
        Leaves per tree, grown best-first (LightGBM's ``num_leaves``).
    max_depth : int or None, default=None
        Maximum depth of each tree (None: limited by ``max_leaf_nodes`` only).
    min_samples_leaf : int, default=20
        Minimum number of samples per leaf.
    l2_regularization : float, default=0.0
        The ``lambda`` of the gain ``T(G)^2/(H+lambda)`` and the leaf value
        ``-T(G)/(H+lambda)`` (LightGBM's ``lambda_l2``, XGBoost's ``lambda``).
    reg_alpha : float, default=0.0
        The L1 penalty ``alpha >= 0`` of the leaf values (LightGBM's ``lambda_l1``,
        XGBoost's ``alpha``): the gradient sums of the gain and of the leaf values are
        soft-thresholded, ``T(G) = sign(G) max(|G| - alpha, 0)``, so that a split scores
        ``T(G_L)^2/(H_L+lambda) + T(G_R)^2/(H_R+lambda) - T(G)^2/(H+lambda)`` and a
        leaf's value is ``-T(G)/(H+lambda)`` (times ``learning_rate``): a leaf whose
        ``|G|`` is at most ``alpha`` predicts 0.  With ``split_gain="gradient"`` the
        leaf values only.
    max_features : float in (0, 1], default=1.0
        Fraction of the features sampled at each node (drawn among all the features; a
        node searches those of its tree's ``colsample_bytree`` draw).
    colsample_bytree : float in (0, 1], default=1.0
        Fraction of the features each tree may split on, drawn without replacement
        for every tree (one draw per tree, each of the classes' trees of an iteration
        its own) from a stream seeded by ``random_state`` (LightGBM's
        ``feature_fraction``, XGBoost's ``colsample_bytree``): ``round(colsample_bytree
        * n_features)`` features, at least 2 (LightGBM's count).  1.0 draws nothing.
    max_bins : int, default=255
        Bins per numeric feature (X is binned once per ``fit``).
    categorical_features : None, "from_dtype", "auto" or array-like, default="from_dtype"
        "from_dtype" (as "auto"): the categorical columns of a DataFrame; otherwise as in
        :class:`~treeboost.DecisionTreeClassifier`.
    warm_start : bool, default=False
        Keep the fitted trees and add iterations up to ``max_iter``.
    early_stopping : "auto" or bool, default="auto"
        Hold out ``validation_fraction`` of the rows and stop when the validation loss has
        not improved by more than ``tol`` for ``n_iter_no_change`` iterations; "auto": on
        above 10,000 rows.
    scoring : str, callable or None, default="loss"
        What early stopping watches: "loss" (minus the loss), a scikit-learn scorer
        name or callable ``scorer(estimator, X, y)``, or None (the estimator's ``score``);
        a scorer scores the training data on at most 10,000 rows.
    validation_fraction : float, int or None, default=0.1
        The share (an int: the number) of rows held out for early stopping; None: the
        training rows are the validation rows.
    n_iter_no_change : int, default=10
    tol : float, default=1e-7
        The improvement of the validation loss that counts, in the loss's own units.
    verbose : int, default=0
        ``k > 0`` prints the training (and validation) loss every ``k`` iterations and at
        the last one, LightGBM-style (``[10]  training's binary_logloss: ...``).
    random_state : int, RandomState instance or None, default=None
        Seeds feature sampling (``max_features``, ``colsample_bytree``) and the
        validation split.
    min_child_weight : float, default=1e-3
        Minimum hessian sum per leaf (scikit-learn's fixed ``min_hessian_to_split``).
    split_gain : {"hessian", "gradient"}, default="hessian"
        "hessian": second-order gain on ``(g, h)``; "gradient": each tree is a least-squares
        fit of the negative gradient.
    subsample : float in (0, 1], default=1.0
        Fraction of the rows each iteration's trees grow on, drawn without replacement
        (LightGBM's ``bagging_fraction`` with ``bagging_freq=1``, XGBoost's
        ``subsample``); the leaf values are those of the rows drawn.
    min_split_gain : float, default=0.0
        A split is kept only when its gain ``G_L^2/(H_L+lambda) + G_R^2/(H_R+lambda) -
        G^2/(H+lambda)`` is at least this (LightGBM's ``min_split_gain``, XGBoost's
        ``gamma`` up to its factor 1/2; ``split_gain="hessian"`` only), each ``G``
        read as ``T(G)`` with ``reg_alpha``.
    importance_type : {"split", "gain"} or None, default=None
        What ``feature_importances_`` gives: None, the normalised gain
        (scikit-learn's); ``"split"``, the number of splits on each feature; ``"gain"``,
        the total gain of its splits, not normalised (LightGBM's).
    n_jobs : int or None, default=None
        Threads of ``fit`` and ``predict`` (joblib's convention: -1 every core); None:
        numba's current count.  Scoped to the call: the thread count of the process is
        the same after it.
"""
    + CONSTRAINTS_DOC
    + """    Attributes
    ----------
    n_iter_ : int
        Iterations fitted.
    is_categorical_ : ndarray of bool of shape (n_features,) or None
        The categorical features (None when there is none).
    trees_ : list of list of Tree
        ``trees_[i][k]``: the tree of iteration ``i`` for output ``k``.
    init_score_ : ndarray of shape (n_outputs,)
        The initial raw score (the loss's best constant).
    train_score_ : ndarray of shape (n_iter_ + 1,) or (0,)
        With early stopping: the score (``scoring``; minus the loss for "loss") on the
        training rows before the first iteration and after each; empty without.
    validation_score_ : ndarray of shape (n_iter_ + 1,) or (0,)
        The same on the validation rows; empty without early stopping or with
        ``validation_fraction=None`` (early stopping then watches ``train_score_``).
    feature_importances_ : ndarray of shape (n_features,)
    bin_mapper_ : BinMapper
"""
)


class HistGradientBoostingRegressor(_HistGradientBoosting, BoosterParamsMixin, BoostedRegressor):
    __doc__ = (
        """Histogram gradient boosting for regression with scikit-learn's
    ``HistGradientBoostingRegressor`` parameters and defaults.

    Parameters
    ----------
    loss : {"squared_error", "absolute_error", "quantile", "poisson", "gamma", \
            "tweedie"}, default="squared_error"
        ``"poisson"`` (y >= 0, a positive sum), ``"gamma"`` (y > 0) and ``"tweedie"``
        (y >= 0) boost ``log`` of the mean and predict ``exp`` of the raw score
        (:class:`~treeboost.losses.PoissonLoss`, :class:`~treeboost.losses.GammaLoss`,
        :class:`~treeboost.losses.TweedieLoss`); ``predict(X, raw_score=True)`` gives
        the raw score itself.
    tweedie_power : float in (1, 2), default=1.5
        The variance power of ``loss="tweedie"`` (LightGBM's
        ``tweedie_variance_power``).
    quantile : float in (0, 1), list of them, or None, default=None
        The quantile of ``loss="quantile"``.  A list of quantiles fits one lane of
        trees per quantile in one model (:class:`~treeboost.losses.MultiQuantileLoss`:
        the trees of each are those a model of that quantile alone grows on the same
        bins) and ``predict`` gives shape (n_samples, n_quantiles), a column per
        quantile in the list's order."""
        + _HIST_DOC
    )

    _parameter_constraints = {
        **_HistGradientBoosting._parameter_constraints,
        "loss": [
            StrOptions(
                {"squared_error", "absolute_error", "quantile", "poisson", "gamma", "tweedie"}
            ),
            callable,
        ],
        "quantile": [Interval(Real, 0.0, 1.0, closed="neither"), "array-like", None],
        "tweedie_power": [Interval(Real, 1.0, 2.0, closed="neither")],
    }
    _TARGET_RULES = {**BoostedRegressor._TARGET_RULES, "tweedie": TweedieLoss}

    def __init__(
        self,
        loss: HistRegressionLoss = "squared_error",
        *,
        quantile: float | Sequence[float] | None = None,
        tweedie_power: float = 1.5,
        learning_rate: float = 0.1,
        max_iter: int = 100,
        max_leaf_nodes: int | None = 31,
        max_depth: int | None = None,
        min_samples_leaf: int = 20,
        l2_regularization: float = 0.0,
        reg_alpha: float = 0.0,
        max_features: float = 1.0,
        colsample_bytree: float = 1.0,
        max_bins: int = 255,
        categorical_features: HistCategoricalFeatures = "from_dtype",
        monotonic_cst: MonotonicCst = None,
        interaction_cst: InteractionCst = None,
        warm_start: bool = False,
        early_stopping: Literal["auto"] | bool = "auto",
        scoring: str | Callable[..., float] | None = "loss",
        validation_fraction: int | float | None = 0.1,
        n_iter_no_change: int = 10,
        tol: float = 1e-7,
        verbose: int = 0,
        random_state: RandomStateLike = None,
        min_child_weight: float = 1e-3,
        split_gain: Literal["hessian", "gradient"] = "hessian",
        subsample: float = 1.0,
        min_split_gain: float = 0.0,
        importance_type: Literal["split", "gain"] | None = None,
        n_jobs: int | None = None,
    ) -> None:
        self.loss = loss
        self.quantile = quantile
        self.tweedie_power = tweedie_power
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.reg_alpha = reg_alpha
        self.max_features = max_features
        self.colsample_bytree = colsample_bytree
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.monotonic_cst = monotonic_cst
        self.interaction_cst = interaction_cst
        self.warm_start = warm_start
        self.early_stopping = early_stopping
        self.scoring = scoring
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.verbose = verbose
        self.random_state = random_state
        self.min_child_weight = min_child_weight
        self.split_gain = split_gain
        self.subsample = subsample
        self.min_split_gain = min_split_gain
        self.importance_type = importance_type
        self.n_jobs = n_jobs

    def _alpha(self):
        if self.loss == "quantile" and self.quantile is None:
            raise ValueError("The quantile must be set when loss='quantile'.")
        if self.quantile is not None and np.ndim(self.quantile) > 0:
            if self.loss != "quantile":
                raise ValueError(
                    f"quantile={self.quantile!r}: a list of quantiles needs "
                    f"loss='quantile', got loss={self.loss!r}."
                )
            return check_quantiles(self.quantile, "quantile")
        return self.quantile

    def _make_loss(self):
        self._alpha()
        if self.loss == "tweedie":
            return TweedieLoss(self.tweedie_power)
        return super()._make_loss()


class HistGradientBoostingClassifier(_HistGradientBoosting, BoosterParamsMixin, BoostedClassifier):
    __doc__ = (
        """Histogram gradient boosting for classification with scikit-learn's
    ``HistGradientBoostingClassifier`` parameters and defaults (log-loss: one tree per
    iteration for two classes, K for K classes).

    Parameters
    ----------
    loss : {"log_loss"}, default="log_loss"
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, ``{label: weight}`` or ``"balanced"``
        (``n_samples / (n_classes * count of the class)``), multiplied into
        ``sample_weight`` (also the validation rows' of early stopping)."""
        + _HIST_DOC
    )

    _parameter_constraints = {
        **_HistGradientBoosting._parameter_constraints,
        "loss": [StrOptions({"log_loss"}), callable],
        "class_weight": [dict, StrOptions({"balanced"}), None],
    }

    def __init__(
        self,
        loss: Literal["log_loss"] = "log_loss",
        *,
        learning_rate: float = 0.1,
        max_iter: int = 100,
        max_leaf_nodes: int | None = 31,
        max_depth: int | None = None,
        min_samples_leaf: int = 20,
        l2_regularization: float = 0.0,
        reg_alpha: float = 0.0,
        max_features: float = 1.0,
        colsample_bytree: float = 1.0,
        max_bins: int = 255,
        categorical_features: HistCategoricalFeatures = "from_dtype",
        monotonic_cst: MonotonicCst = None,
        interaction_cst: InteractionCst = None,
        warm_start: bool = False,
        early_stopping: Literal["auto"] | bool = "auto",
        scoring: str | Callable[..., float] | None = "loss",
        validation_fraction: int | float | None = 0.1,
        n_iter_no_change: int = 10,
        tol: float = 1e-7,
        verbose: int = 0,
        random_state: RandomStateLike = None,
        class_weight: ClassWeight = None,
        min_child_weight: float = 1e-3,
        split_gain: Literal["hessian", "gradient"] = "hessian",
        subsample: float = 1.0,
        min_split_gain: float = 0.0,
        importance_type: Literal["split", "gain"] | None = None,
        n_jobs: int | None = None,
    ) -> None:
        self.loss = loss
        self.class_weight = class_weight
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.reg_alpha = reg_alpha
        self.max_features = max_features
        self.colsample_bytree = colsample_bytree
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.monotonic_cst = monotonic_cst
        self.interaction_cst = interaction_cst
        self.warm_start = warm_start
        self.early_stopping = early_stopping
        self.scoring = scoring
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.verbose = verbose
        self.random_state = random_state
        self.min_child_weight = min_child_weight
        self.split_gain = split_gain
        self.subsample = subsample
        self.min_split_gain = min_split_gain
        self.importance_type = importance_type
        self.n_jobs = n_jobs


register(HistGradientBoostingClassifier, HistGradientBoostingRegressor)
