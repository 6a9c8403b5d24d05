"""AdaBoost: SAMME for classification (Zhu et al. 2009), AdaBoost.R2 for regression
(Drucker 1997).

Each round fits the learner to reweighted samples (or, with ``boosting="resample"``, to a
sample drawn with probabilities proportional to the weights: low-weight samples are less
likely to be drawn again), then raises the weights of the samples it got wrong.  With a
treeboost tree as the learner, X is binned once and each round's tree is grown on the
shared bins from the current weights.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np
from scipy.special import softmax
from sklearn.base import ClassifierMixin, RegressorMixin, is_classifier, is_regressor
from sklearn.utils import check_random_state, get_tags
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..persistence import register
from ..persistence._spec import array, check_state
from ..trees.cart import BaseDecisionTree, DecisionTreeClassifier, DecisionTreeRegressor
from ..trees._params import store_params
from .._input.weights import check_weights
from ._base import BaseTreeEnsemble, grows_on_shared_bins
from .bagging import _takes_weight

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

    from .._typing import (
        ArrayLike,
        CategoricalFeatures,
        Float64Array,
        MatrixLike,
        MaxBins,
        NDArray,
        RandomStateLike,
    )

    # the estimator itself, of its own class (typing.Self needs Python 3.11)
    Self = TypeVar("Self", bound="BaseAdaBoost")


#: Bound on the sum of the learner weights: the vote (and the weighted median) divides by
#: their running sum, which must stay finite.
MAX_TOTAL_ESTIMATOR_WEIGHT = 1e300


def _weight_fits(alpha, weights):
    """Whether a learner of weight ``alpha`` keeps the learner weights' sum finite."""
    return bool(np.isfinite(alpha) and sum(weights) + alpha < MAX_TOTAL_ESTIMATOR_WEIGHT)


def _normalise(w):
    """Scale the sample weights ``w`` in place to sum to 1; False (``w`` unusable) when
    their sum overflowed or underflowed to zero."""
    total = float(np.sum(w))
    if not (np.isfinite(total) and total > 0):
        return False
    w /= total
    return True


def _warn_stopped(model, m, why):
    warnings.warn(
        f"{type(model).__name__}: boosting stopped at round {m + 1} of "
        f"{model.n_estimators} because {why} (learning_rate={model.learning_rate}); "
        f"{len(model.estimators_)} learner(s) kept. A smaller learning_rate boosts "
        f"further.",
        UserWarning,
        stacklevel=3,
    )


class BaseAdaBoost(BaseTreeEnsemble):
    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0.0, None, closed="neither")],
        "boosting": [StrOptions({"reweight", "resample"})],
        "random_state": ["random_state"],
        "max_bins": [Interval(Integral, 2, 65535, closed="both"), StrOptions({"auto"}), None],
        "categorical_features": ["array-like", StrOptions({"auto"}), None],
        "verbose": ["verbose"],
    }

    def _report(self, m, err, weight):
        if self.verbose:
            print(f"[{m + 1}]\tweighted error {err:.6g}\testimator weight {weight:.6g}", flush=True)

    def _learner(self, default_depth):
        est = self.estimator
        if est is None:
            cls = DecisionTreeClassifier if is_classifier(self) else DecisionTreeRegressor
            return cls(
                max_depth=default_depth,
                max_bins=self.max_bins,
                categorical_features=self.categorical_features,
            )
        # refused when it says it is of the other kind; an estimator that does not say
        # (no classifier or regressor tag) is taken at its word, as scikit-learn does
        if is_classifier(self) and is_regressor(est):
            raise ValueError(f"estimator={est!r} is not a classifier.")
        if is_regressor(self) and is_classifier(est):
            raise ValueError(f"estimator={est!r} is not a regressor.")
        if self.boosting == "reweight" and not _takes_weight(est):
            raise ValueError(
                f"{type(est).__name__} doesn't support sample_weight: "
                f"estimator={est!r} does not accept sample_weight, which "
                f"AdaBoost reweighting needs (use boosting='resample')."
            )
        return est

    def _fit_round(self, base, Xe, Xb, y, weights, rng):
        """One learner fitted to the weighted (or resampled) data.

        Every ``random_state`` of the learner (nested ones too) is drawn from ``rng``.
        A resampled round fits the learner to the drawn rows without weights; a tree
        grown on the shared bins takes the draw counts as weights instead (the same
        tree, without a copy of the rows)."""
        est = self._new_member(base, rng, Xb is not None)
        if self.boosting == "resample":
            draws = rng.choice(y.shape[0], y.shape[0], p=weights / weights.sum())
            return self._fit_member(
                est,
                Xe=Xe,
                Xb=Xb,
                y=y,
                parallel=True,
                rows=lambda: draws,
                weights=np.bincount(draws, minlength=y.shape[0]).astype(np.float64),
            )
        return self._fit_member(est, Xe=Xe, Xb=Xb, y=y, weights=weights, parallel=True)

    @property
    def estimator_(self) -> BaseEstimator:
        """The learner every round copies: ``estimator``, or the default treeboost tree
        (scikit-learn's name)."""
        check_is_fitted(self, "estimators_")
        return self._learner(1 if is_classifier(self) else 3)

    @property
    def feature_importances_(self) -> Float64Array:
        """``sum_m alpha_m importances_m / sum_m alpha_m``: the learners' feature
        importances weighted by their learner weights ``alpha_m``, as scikit-learn's."""
        check_is_fitted(self, "estimators_")
        weights = np.asarray(self.estimator_weights_, dtype=np.float64)
        try:
            total = sum(a * est.feature_importances_ for a, est in zip(weights, self.estimators_))
        except AttributeError as exc:
            raise AttributeError(
                "feature_importances_ needs learners that have feature_importances_ (trees do)."
            ) from exc
        return total / weights.sum()

    def __sklearn_tags__(self):
        # NaN and a sparse X are the learner's to accept (a treeboost tree takes both)
        tags = super().__sklearn_tags__()
        if self.estimator is not None:
            tags.input_tags.allow_nan = get_tags(self.estimator).input_tags.allow_nan
            tags.input_tags.sparse = get_tags(self.estimator).input_tags.sparse
        return tags

    def _raw_member(self, est, Xe):
        if isinstance(est, BaseDecisionTree) and getattr(est, "_encoder", None) is self._encoder:
            out = est.tree_.predict(Xe)
            return np.argmax(out, axis=1) if is_classifier(self) else out[:, 0]
        pred = est.predict(Xe)
        return np.searchsorted(self.classes_, pred) if is_classifier(self) else pred

    # -- the state read from a model file ---------------------------------------------------

    _persist_attributes = ("estimator_weights_", "estimator_errors_")
    #: one finite weight and one error per member
    _state_spec = {
        "estimator_weights_": array("float64", ("n_members",), finite=True),
        "estimator_errors_": array("float64", ("n_members",)),
    }

    def _validate_state(self, where="model", **context):
        """Check a loaded AdaBoost model: one finite positive weight per member (the vote
        and the weighted median divide by their running sum, which must stay finite), one
        error per member, and members whose tree reads the ensemble's input on it."""
        super()._validate_state(where, **context)
        if not self._validate_ensemble(where, required=("estimator_weights_", "estimator_errors_")):
            return
        n = len(self.estimators_)
        weights = check_state(self, where, self._state_spec, {"n_members": n})["estimator_weights_"]
        if np.any(weights <= 0) or not weights.sum() < 1e300:
            raise ValueError(
                f"{where}.estimator_weights_: must hold {n} positive weight(s) with a finite sum."
            )
        for i, m in enumerate(self.estimators_):
            w = f"{where}.estimators_[{i}]"
            if isinstance(m, BaseDecisionTree) and m._encoder is self._encoder:
                self._check_same_input(m, w)  # its tree reads the ensemble's input
            elif m.n_features_in_ != self.n_features_in_:
                raise ValueError(
                    f"{w}.n_features_in_: the member has {m.n_features_in_} "
                    f"features, the ensemble {self.n_features_in_}."
                )


class AdaBoostClassifier(ClassifierMixin, BaseAdaBoost):
    """AdaBoost with the SAMME rule, two or more classes.

    Round ``m`` has weighted error ``err_m``; its weight is
    ``alpha_m = learning_rate * (log((1 - err_m) / err_m) + log(K - 1))`` and the weights of
    the misclassified samples are multiplied by ``exp(alpha_m)``.  The prediction is the
    class with the largest ``sum_m alpha_m [h_m(x) = k]``; ``decision_function`` and
    ``predict_proba`` code the votes as scikit-learn's SAMME does (``1`` for the predicted
    class, ``-1 / (K - 1)`` for the others) and give its numbers.  A perfect learner stops the
    boosting (it gets weight 1); a learner no better than chance stops it too.  With a large
    ``learning_rate`` the sample weights can overflow: boosting then stops with a
    ``UserWarning``, keeping the learners fitted so far (as scikit-learn does).

    Parameters
    ----------
    estimator : classifier or None, default=None
        Must accept ``sample_weight`` unless ``boosting="resample"``; default: a depth-1
        treeboost tree (a stump).
    n_estimators : int, default=50
    learning_rate : float, default=1.0
    boosting : {"reweight", "resample"}, default="reweight"
    random_state : int, RandomState instance or None
    max_bins, categorical_features
        As in :class:`~treeboost.DecisionTreeClassifier`.
    verbose : int, default=0
        Print each round's weighted error and learner weight.

    Attributes
    ----------
    estimators_, estimator_weights_, estimator_errors_, classes_
    """

    def __init__(
        self,
        estimator: BaseEstimator | None = None,
        n_estimators: int = 50,
        *,
        learning_rate: float = 1.0,
        boosting: Literal["reweight", "resample"] = "reweight",
        random_state: RandomStateLike = None,
        max_bins: MaxBins = 255,
        categorical_features: CategoricalFeatures = None,
        verbose: int = 0,
    ) -> None:
        store_params(self, locals())

    def fit(
        self: Self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
    ) -> Self:
        """Fit up to ``n_estimators`` rounds of SAMME (X may be sparse, as in
        :meth:`~treeboost.DecisionTreeClassifier.fit`; a learner that is not a treeboost
        tree gets the sparse matrix itself)."""
        self._validate_params()
        Xe = self._encode_X(X, reset=True, y=y, sample_weight=sample_weight)
        y = self._encode_target(y, Xe.shape[0], multi_output=False)
        K = self.n_classes_
        base = self._learner(1)
        w = check_weights(sample_weight, Xe)
        w = w / w.sum()
        Xb = self._bin(Xe, w) if grows_on_shared_bins(base) else None
        rng = check_random_state(self.random_state)
        self.estimators_, weights, errors = [], [], []
        for m in range(self.n_estimators):
            est = self._fit_round(base, Xe, Xb, y, w, rng)
            wrong = self._raw_member(est, Xe) != y
            err = float(np.sum(w[wrong]) / np.sum(w))
            if err <= 0:
                self.estimators_.append(est)
                weights.append(1.0)
                errors.append(0.0)
                break
            if err >= 1 - 1 / K:
                if not self.estimators_:
                    raise ValueError(
                        f"BaseClassifier in AdaBoostClassifier ensemble is worse "
                        f"than random, ensemble can not be fit: the first "
                        f"learner is no better than chance (weighted error "
                        f"{err:.3f}); AdaBoost cannot continue."
                    )
                break
            alpha = self.learning_rate * (np.log((1 - err) / err) + np.log(K - 1))
            if not _weight_fits(alpha, weights):
                if not self.estimators_:  # the vote is scale-free: one learner, weight 1
                    self.estimators_.append(est)
                    weights.append(1.0)
                    errors.append(err)
                _warn_stopped(self, m, "its learner weight would overflow")
                break
            self._report(m, err, alpha)
            self.estimators_.append(est)
            weights.append(alpha)
            errors.append(err)
            # exp(alpha) overflows with a large learning_rate and a near-perfect learner:
            # then the round's learner is kept (its weight is finite) and boosting stops,
            # before an infinite weight turns every later weight into NaN
            with np.errstate(over="ignore"):
                w = w * np.exp(alpha * wrong)
            if not _normalise(w):
                _warn_stopped(
                    self,
                    m,
                    "the sample weights overflowed (Sample weights have reached infinite values)",
                )
                break
        self.estimator_weights_ = np.array(weights)
        self.estimator_errors_ = np.array(errors)
        return self

    def _staged_decision(self, X):
        """SAMME's decision per class after each round, scikit-learn's coding:
        ``d_k = sum_m alpha_m c_mk / sum_m alpha_m`` with ``c_mk = 1`` when learner ``m``
        predicts class ``k`` and ``-1 / (K - 1)`` otherwise, that is
        ``d_k = (K v_k - 1) / (K - 1)`` with ``v_k`` the class's share of the vote."""
        Xe = self._encoded(X)
        K = self.n_classes_
        rows = np.arange(Xe.shape[0])
        total = np.zeros((Xe.shape[0], K))
        other = -1.0 / (K - 1) if K > 1 else 0.0
        norm = 0.0
        for est, alpha in zip(self.estimators_, self.estimator_weights_):
            # summed in scikit-learn's order, so that the numbers are its own
            code = np.full((Xe.shape[0], K), other * alpha)
            code[rows, self._raw_member(est, Xe)] = alpha
            total += code
            norm += alpha
            # a single class: no vote to code, every decision is 0 (as scikit-learn's)
            yield total / norm if K > 1 else np.zeros_like(total)

    def _decision(self, d):
        """One column for two classes, ``d_1 - d_0``; the ``K`` columns otherwise."""
        return d[:, 1] - d[:, 0] if self.n_classes_ == 2 else d

    def decision_function(self, X: MatrixLike) -> Float64Array:
        """SAMME's decision ``d_k = sum_m alpha_m c_mk / sum_m alpha_m`` per class,
        ``c_mk = 1`` when learner ``m`` predicts class ``k`` and ``-1 / (K - 1)``
        otherwise; for two classes one column, ``d_1 - d_0`` (positive for the second
        class).  The same numbers as scikit-learn's ``AdaBoostClassifier``."""
        for d in self._staged_decision(X):
            pass
        return self._decision(d)

    def staged_decision_function(self, X: MatrixLike) -> Iterator[Float64Array]:
        """:meth:`decision_function` after each round."""
        for d in self._staged_decision(X):
            yield self._decision(d)

    def predict_proba(self, X: MatrixLike) -> Float64Array:
        """``softmax(d / (K - 1))`` of the decision ``d`` of :meth:`decision_function`
        (for two classes ``softmax([-d, d] / 2)``), as scikit-learn's AdaBoost."""
        for d in self._staged_decision(X):
            pass
        return self._proba(d)

    def predict_log_proba(self, X: MatrixLike) -> Float64Array:
        """Logarithm of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def _proba(self, d):
        K = self.n_classes_
        if K == 1:
            return np.ones_like(d)
        if K == 2:
            # scikit-learn's stack of [-d, d] / 2 with d = d_1 - d_0
            dec = (d[:, 1] - d[:, 0]) / 2
            return softmax(np.column_stack([-dec, dec]), axis=1)
        return softmax(d / (K - 1), axis=1)

    def predict(self, X: MatrixLike) -> NDArray[Any]:
        """The class of the largest decision (of the largest vote share)."""
        for d in self._staged_decision(X):
            pass
        return self.classes_[np.argmax(d, axis=1)]

    def staged_predict(self, X: MatrixLike) -> Iterator[NDArray[Any]]:
        """Predictions after each round."""
        for d in self._staged_decision(X):
            yield self.classes_[np.argmax(d, axis=1)]

    def staged_predict_proba(self, X: MatrixLike) -> Iterator[Float64Array]:
        """:meth:`predict_proba` after each round."""
        for d in self._staged_decision(X):
            yield self._proba(d)

    def staged_score(
        self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> Iterator[float]:
        """Accuracy after each round."""
        from sklearn.metrics import accuracy_score

        for pred in self.staged_predict(X):
            yield accuracy_score(y, pred, sample_weight=sample_weight)


class AdaBoostRegressor(RegressorMixin, BaseAdaBoost):
    """AdaBoost.R2 (Drucker 1997).

    Each round fits the learner to a sample drawn with probabilities proportional to the
    weights (or to the weights themselves with ``boosting="reweight"``), computes every
    sample's loss ``L_i`` in [0, 1] from ``e_i = |y_i - h(x_i)| / max_j e_j`` (``linear``
    ``e``, ``square`` ``e^2``, ``exponential`` ``1 - exp(-e)``), the average loss
    ``L = sum w_i L_i``, ``beta = L / (1 - L)``, the learner weight
    ``learning_rate * log(1 / beta)`` and the new weights ``w_i * beta^((1 - L_i) * lr)``.
    It stops when ``L >= 0.5``.  The prediction is the weighted median of the learners'
    predictions.

    Parameters
    ----------
    estimator : regressor or None, default=None (a depth-3 treeboost tree)
    n_estimators : int, default=50
    learning_rate : float, default=1.0
    loss : {"linear", "square", "exponential"}, default="linear"
    boosting : {"resample", "reweight"}, default="resample"
    random_state, max_bins, categorical_features, verbose
    """

    _parameter_constraints = {
        **BaseAdaBoost._parameter_constraints,
        "loss": [StrOptions({"linear", "square", "exponential"})],
    }

    def __init__(
        self,
        estimator: BaseEstimator | None = None,
        n_estimators: int = 50,
        *,
        learning_rate: float = 1.0,
        loss: Literal["linear", "square", "exponential"] = "linear",
        boosting: Literal["reweight", "resample"] = "resample",
        random_state: RandomStateLike = None,
        max_bins: MaxBins = 255,
        categorical_features: CategoricalFeatures = None,
        verbose: int = 0,
    ) -> None:
        store_params(self, locals())

    def fit(
        self: Self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
    ) -> Self:
        """Fit up to ``n_estimators`` rounds of AdaBoost.R2 (X may be sparse, as in
        :meth:`AdaBoostClassifier.fit`)."""
        self._validate_params()
        Xe = self._encode_X(X, reset=True, y=y, sample_weight=sample_weight)
        y = self._encode_target(y, Xe.shape[0], multi_output=False)
        base = self._learner(3)
        w = check_weights(sample_weight, Xe)
        w = w / w.sum()
        Xb = self._bin(Xe, w) if grows_on_shared_bins(base) else None
        rng = check_random_state(self.random_state)
        self.estimators_, weights, errors = [], [], []
        for m in range(self.n_estimators):
            est = self._fit_round(base, Xe, Xb, y, w, rng)
            e = np.abs(self._raw_member(est, Xe) - y)
            e_max = e.max()
            if e_max > 0:
                e = e / e_max
            if self.loss == "square":
                e = e**2
            elif self.loss == "exponential":
                e = 1.0 - np.exp(-e)
            avg = float(np.sum(w * e))
            if avg <= 0:
                self.estimators_.append(est)
                weights.append(1.0)
                errors.append(0.0)
                break
            if avg >= 0.5:
                if not self.estimators_:
                    self.estimators_.append(est)
                    weights.append(1.0)
                    errors.append(avg)
                break
            beta = avg / (1 - avg)
            alpha = self.learning_rate * np.log(1 / beta)
            if not _weight_fits(alpha, weights):
                if not self.estimators_:  # the median is scale-free: one learner, weight 1
                    self.estimators_.append(est)
                    weights.append(1.0)
                    errors.append(avg)
                _warn_stopped(self, m, "its learner weight would overflow")
                break
            self._report(m, avg, alpha)
            self.estimators_.append(est)
            weights.append(alpha)
            errors.append(avg)
            # beta ** large underflows: every weight but the worst-fitted sample's may reach 0
            with np.errstate(under="ignore"):
                w = w * beta ** ((1 - e) * self.learning_rate)
            if not _normalise(w):
                _warn_stopped(self, m, "the sample weights underflowed to zero")
                break
        self.estimator_weights_ = np.array(weights)
        self.estimator_errors_ = np.array(errors)
        return self

    def _median(self, preds, weights):
        order = np.argsort(preds, axis=1)
        sorted_w = weights[order]
        cum = np.cumsum(sorted_w, axis=1)
        pos = np.argmax(cum >= 0.5 * cum[:, -1:], axis=1)
        return preds[np.arange(preds.shape[0]), order[np.arange(preds.shape[0]), pos]]

    def predict(self, X: MatrixLike) -> Float64Array:
        """Weighted median of the learners' predictions."""
        Xe = self._encoded(X)
        preds = np.column_stack([self._raw_member(e, Xe) for e in self.estimators_])
        return self._median(preds, np.asarray(self.estimator_weights_))

    def staged_predict(self, X: MatrixLike) -> Iterator[Float64Array]:
        """Predictions after each round."""
        Xe = self._encoded(X)
        preds = np.column_stack([self._raw_member(e, Xe) for e in self.estimators_])
        for m in range(1, len(self.estimators_) + 1):
            yield self._median(preds[:, :m], np.asarray(self.estimator_weights_[:m]))

    def staged_score(
        self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> Iterator[float]:
        """R² after each round."""
        from sklearn.metrics import r2_score

        for pred in self.staged_predict(X):
            yield r2_score(y, pred, sample_weight=sample_weight)


register(AdaBoostClassifier, AdaBoostRegressor)
