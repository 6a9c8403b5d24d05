"""What a boosted regressor and a boosted classifier add to the boosting loop: their
losses by name, their targets, and their predictions from the raw scores."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin

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
from .._input.targets import check_regression_target, encode_classification_target

if TYPE_CHECKING:
    from .._typing import (
        Float64Array,
        MatrixLike,
        NDArray,
    )

from ._boosting import BaseGradientBoosting
from ._boosting_records import _per_output
from ._custom_loss import user_loss


def _raw_first(self, X, num_iteration):
    """``_raw_predict`` of the first ``num_iteration`` iterations (every one when None:
    the call a wrapper of ``_raw_predict(X)`` takes)."""
    if num_iteration is None:
        return self._raw_predict(X)
    return self._raw_predict(X, num_iteration)


class BoostedRegressor(RegressorMixin, BaseGradientBoosting):
    """Regression losses and predictions shared by the regressors (``_alpha()``: the
    quantile of the quantile and Huber losses)."""

    _raw_first = _raw_first

    #: the losses whose target has a domain, by name
    _TARGET_RULES = {"poisson": PoissonLoss, "gamma": GammaLoss}

    def _make_loss(self):
        custom = user_loss(self.loss, 1, False)
        if custom is not None:
            return custom
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
        rule = self._TARGET_RULES.get(self.loss) if isinstance(self.loss, str) else None
        return y if rule is None else rule.check_target(y)

    def _validate_validation_target(self, y, n_samples):
        return self._validate_target(y, n_samples, False)

    def predict(self, X: MatrixLike, num_iteration: int | str | None = None) -> Float64Array:
        """Sum of the initial score and every tree's leaf value (through the loss's
        inverse link: ``exp`` of it for ``poisson`` and ``gamma``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        num_iteration : None, int or "best", default=None
            The iterations added up: every one, the first ``num_iteration``, or
            ``best_iteration_`` (LightGBM's ``num_iteration``, XGBoost's
            ``iteration_range=(0, k)``).
        """
        raw = self._raw_first(X, num_iteration)[:, 0]  # checks that the model is fitted
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

    if TYPE_CHECKING:
        # a classification loss (built in or a user's): a Loss with ``proba``
        _loss: Any

    _raw_first = _raw_first

    def _make_loss(self):
        K = 1 if self.n_classes_ == 2 else self.n_classes_
        custom = user_loss(self.loss, K, True)
        if custom is not None:
            return custom
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
                f"{self.loss!r:.40} needs at least 2 classes in y; got only one "
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

    def decision_function(
        self, X: MatrixLike, num_iteration: int | str | None = None
    ) -> Float64Array:
        """Raw scores: the log-odds (n_samples,) for two classes, else (n_samples, K).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        num_iteration : None, int or "best", default=None
            The iterations added up: every one, the first ``num_iteration``, or
            ``best_iteration_`` (LightGBM's ``num_iteration``, XGBoost's
            ``iteration_range=(0, k)``).
        """
        raw = self._raw_first(X, num_iteration)
        return raw[:, 0] if self.n_classes_ == 2 else raw

    def staged_decision_function(self, X: MatrixLike) -> Iterator[Float64Array]:
        for raw in self._staged_raw_predict(X):
            yield raw[:, 0] if self.n_classes_ == 2 else raw

    def _proba(self, raw):
        return self._loss.proba(_per_output(raw))

    def predict_proba(self, X: MatrixLike, num_iteration: int | str | None = None) -> Float64Array:
        """Class probabilities: ``expit(F)`` (``expit(2F)`` for the exponential loss) or
        ``softmax(F)``; ``num_iteration`` as in :meth:`decision_function`."""
        return self._proba(self._raw_first(X, num_iteration))

    def predict_log_proba(
        self, X: MatrixLike, num_iteration: int | str | None = None
    ) -> Float64Array:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X, num_iteration))

    def predict(self, X: MatrixLike, num_iteration: int | str | None = None) -> NDArray[Any]:
        """The class of highest probability; ``num_iteration`` as in
        :meth:`decision_function`."""
        proba = self.predict_proba(X, num_iteration)
        return self.classes_[np.argmax(proba, axis=1)]

    def staged_predict_proba(self, X: MatrixLike) -> Iterator[Float64Array]:
        for raw in self._staged_raw_predict(X):
            yield self._proba(raw)

    def staged_predict(self, X: MatrixLike) -> Iterator[NDArray[Any]]:
        for raw in self._staged_raw_predict(X):
            yield self.classes_[np.argmax(self._proba(raw), axis=1)]
