"""Quantile (pinball) loss."""

import numpy as np

from .base import Loss, weighted_quantile
from ..persistence._spec import real


class QuantileLoss(Loss):
    """``L = alpha (y - F)`` if ``y >= F`` else ``(1 - alpha)(F - y)``.

    ``g = (1 - alpha)`` where ``F > y`` and ``-alpha`` elsewhere; unit hessian for the
    splits; leaf value: the weighted ``alpha``-quantile of the leaf's residuals.
    Initial score: the weighted ``alpha``-quantile of y.

    Parameters
    ----------
    alpha : float in (0, 1), default=0.9
    """

    name = "quantile"
    metric_name = "quantile"

    def __init__(self, alpha=0.9):
        self.alpha = alpha

    @property
    def init_quantile(self):
        return self.alpha

    def pointwise(self, y, raw):
        d = y - raw
        return np.where(d >= 0, self.alpha * d, (self.alpha - 1.0) * d)

    def gradient_hessian(self, y, raw):
        return np.where(raw > y, 1.0 - self.alpha, -self.alpha), np.ones_like(raw)

    def init_raw(self, y, sample_weight):
        return float(weighted_quantile(y, sample_weight, self.alpha))

    def leaf_values(self, samples):
        """Weighted ``alpha``-quantile of the residuals ``y - F`` of each leaf."""
        return samples.residual_quantiles(self.alpha)

    _persist_attributes = ("alpha",)
    _state_spec = {"alpha": real(0, 1, low_open=True, high_open=True)}
