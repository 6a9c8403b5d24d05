"""Exponential loss (AdaBoost's loss) for two classes."""

import numpy as np
from scipy.special import expit, logit

from ..persistence import register
from .base import Loss


class ExponentialLoss(Loss):
    """``L = exp(-u F)`` with ``u = 2 y - 1`` in {-1, 1}, y in {0, 1}.

    Gradient boosting on this loss recovers AdaBoost (Friedman, Hastie & Tibshirani
    2000): ``g = -u exp(-u F)``, ``h = exp(-u F)`` (``u^2 = 1``).  Initial score: the
    minimiser of the weighted loss, half the log-odds ``1/2 log(sum w y / sum w (1 - y))``.
    Leaf value: the Newton step ``sum(w u exp(-u F)) / sum(w exp(-u F))``, scikit-learn's.
    Probability of the positive class: ``expit(2 F)``.
    """

    name = "exponential"
    metric_name = "exponential"
    is_classification = True

    @staticmethod
    def _margin(y, raw):
        return (2.0 * np.asarray(y, dtype=np.float64) - 1.0) * raw

    def pointwise(self, y, raw):
        return np.exp(-self._margin(y, raw))

    def gradient_hessian(self, y, raw):
        u = 2.0 * np.asarray(y, dtype=np.float64) - 1.0
        e = np.exp(-u * raw)
        return -u * e, e

    def init_raw(self, y, sample_weight):
        pos = float(np.sum(sample_weight * y))
        neg = float(np.sum(sample_weight * (1 - y)))
        # as the log-loss's: a class without weight gets eps of the total weight
        floor = np.finfo(float).eps * (pos + neg)
        return 0.5 * float(np.log(max(pos, floor) / max(neg, floor)))

    def link(self, predictions):
        """``1/2 logit(p)`` of the positive class's probability, clipped to
        ``[eps, 1 - eps]`` (the inverse of :meth:`proba`)."""
        eps = np.finfo(np.float64).eps
        return 0.5 * logit(np.clip(np.asarray(predictions, np.float64)[:, 1], eps, 1 - eps))

    @staticmethod
    def proba(raw):
        """``[1 - expit(2 F), expit(2 F)]`` of raw scores of shape (n_samples,)."""
        p = expit(2.0 * raw)
        return np.column_stack([1.0 - p, p])


register(ExponentialLoss)
