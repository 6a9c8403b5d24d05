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
    MultiQuantileLoss,
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


def quantile_loss(alpha):
    """The quantile loss of ``alpha``: :class:`QuantileLoss` of a number, and of a list
    of quantiles :class:`MultiQuantileLoss` (one output per quantile, in the list's
    order; checked by :func:`~treeboost.losses.multi_quantile.check_quantiles`)."""
    if np.ndim(alpha) == 0:
        return QuantileLoss(alpha)
    return MultiQuantileLoss(alpha)


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
            "quantile": lambda: quantile_loss(self._alpha()),
            "poisson": PoissonLoss,
            "gamma": GammaLoss,
        }[self.loss]()

    def _validate_target(self, y, n_samples, reset):
        y = check_regression_target(y, n_samples)
        rule = self._TARGET_RULES.get(self.loss) if isinstance(self.loss, str) else None
        return y if rule is None else rule.check_target(y)

    def _validate_validation_target(self, y, n_samples):
        return self._validate_target(y, n_samples, False)

    def predict(
        self,
        X: MatrixLike,
        raw_score: bool = False,
        num_iteration: int | str | None = None,
    ) -> Float64Array:
        """Sum of the initial score and every tree's leaf value, ``F(x) = F0 +
        sum_t f_t(x)``, through the loss's inverse link (``exp`` of it for ``poisson``,
        ``gamma`` and ``tweedie``; ``F`` itself for the others).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        raw_score : bool, default=False
            Return the raw score ``F(x)`` itself, before the inverse link (LightGBM's
            ``raw_score``, XGBoost's ``output_margin``): ``log`` of the prediction for a
            log link.  A model fitted with ``init_score`` does not hold the offsets:
            ``predict(X, raw_score=True) + offset`` is the raw score the fit boosted.
        num_iteration : None, int or "best", default=None
            The iterations added up: every one, the first ``num_iteration``, or
            ``best_iteration_`` (LightGBM's ``num_iteration``, XGBoost's
            ``iteration_range=(0, k)``).

        Returns
        -------
        ndarray of shape (n_samples,), or (n_samples, n_outputs) for a loss of several
        outputs (one column per quantile of ``quantile=[...]``)
        """
        raw = self._outputs(self._raw_first(X, num_iteration))  # checks that it is fitted
        return raw if raw_score else self._loss.predict(raw)

    def _outputs(self, raw):
        """The raw scores as predictions give them: (n_samples,) for one output, unless
        the loss keeps a column per output (several quantiles, also one)."""
        return raw if getattr(self._loss, "keeps_columns", False) else _per_output(raw)

    def apply(self, X: MatrixLike) -> NDArray[np.int64]:
        return super().apply(X)[:, :, 0]

    apply.__doc__ = BaseGradientBoosting.apply.__doc__

    def staged_predict(self, X: MatrixLike) -> Iterator[Float64Array]:
        """Predictions after each iteration (a generator)."""
        for raw in self._staged_raw_predict(X):
            yield self._loss.predict(self._outputs(raw))


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

    def predict(
        self,
        X: MatrixLike,
        raw_score: bool = False,
        num_iteration: int | str | None = None,
    ) -> NDArray[Any]:
        """The class of highest probability; ``num_iteration`` as in
        :meth:`decision_function`.

        ``raw_score=True`` gives the raw scores instead, :meth:`decision_function`
        (LightGBM's ``predict(X, raw_score=True)``): the log-odds, shape (n_samples,),
        for two classes, else (n_samples, K).  A model fitted with ``init_score`` does
        not hold the offsets: add them to these raw scores."""
        if raw_score:
            return self.decision_function(X, num_iteration)
        proba = self.predict_proba(X, num_iteration)
        return self.classes_[np.argmax(proba, axis=1)]

    def staged_predict_proba(self, X: MatrixLike) -> Iterator[Float64Array]:
        for raw in self._staged_raw_predict(X):
            yield self._proba(raw)

    def staged_predict(self, X: MatrixLike) -> Iterator[NDArray[Any]]:
        for raw in self._staged_raw_predict(X):
            yield self.classes_[np.argmax(self._proba(raw), axis=1)]
