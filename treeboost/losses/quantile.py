"""Quantile (pinball) loss."""
import numpy as np

from .base import Loss, grouped_weighted_quantile, weighted_quantile


class QuantileLoss(Loss):
    """``L = alpha (y - F)`` if ``y >= F`` else ``(1 - alpha)(F - y)``.

    ``g = (1 - alpha)`` where ``F > y`` and ``-alpha`` elsewhere; unit hessian for the
    splits; leaf value: the weighted ``alpha``-quantile of the leaf's residuals.
    Initial score: the weighted ``alpha``-quantile of y.
    """

    name = "quantile"
    newton_leaves = False

    def __init__(self, alpha=0.9):
        self.alpha = alpha

    def pointwise(self, y, raw):
        d = y - raw
        return np.where(d >= 0, self.alpha * d, (self.alpha - 1.0) * d)

    def __call__(self, y, raw, sample_weight):
        return self._mean(self.pointwise(y, raw), sample_weight)

    def gradient_hessian(self, y, raw):
        return np.where(raw > y, 1.0 - self.alpha, -self.alpha), np.ones_like(raw)

    def init_raw(self, y, sample_weight):
        return float(weighted_quantile(y, sample_weight, self.alpha))

    def leaf_values(self, leaf_of_sample, n_nodes, y, raw, sample_weight, newton):
        return grouped_weighted_quantile(leaf_of_sample, y - raw, sample_weight, self.alpha,
                                         n_nodes)
