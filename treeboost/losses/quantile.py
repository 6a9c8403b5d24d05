"""Quantile (pinball) loss."""

import numpy as np
from numba import prange

from ..persistence import register
from .base import Loss, weighted_quantile
from ..engine import parallel_kernel
from ..persistence._spec import real


@parallel_kernel
def _loss_grad_hess(y, raw, w, g, h, alpha):
    # the loss and the gradients in one pass over the rows
    total = 0.0
    w_total = 0.0
    for i in prange(raw.shape[0]):
        d = y[i] - raw[i]
        g[i] = 1.0 - alpha if raw[i] > y[i] else -alpha
        h[i] = 1.0
        total += w[i] * (alpha * d if d >= 0 else (alpha - 1.0) * d)
        w_total += w[i]
    return total / w_total


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

    loss_gradient_kernel = staticmethod(_loss_grad_hess)

    @property
    def kernel_parameters(self):
        return (float(self.alpha),)

    def init_raw(self, y, sample_weight):
        return float(weighted_quantile(y, sample_weight, self.alpha))

    def leaf_values(self, samples):
        """Weighted ``alpha``-quantile of the residuals ``y - F`` of each leaf."""
        return samples.residual_quantiles(self.alpha)

    _persist_attributes = ("alpha",)
    _state_spec = {"alpha": real(0, 1, low_open=True, high_open=True)}


register(QuantileLoss)
