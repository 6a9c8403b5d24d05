"""Absolute error ``L = |y - F|``."""

import numpy as np
from numba import prange

from ..persistence import register
from .base import Loss, weighted_quantile
from ..engine import parallel_kernel


@parallel_kernel
def _loss_grad_hess(y, raw, w, g, h):
    # the loss and the gradients in one pass over the rows
    total = 0.0
    w_total = 0.0
    for i in prange(raw.shape[0]):
        g[i] = np.sign(raw[i] - y[i])
        h[i] = 1.0
        total += w[i] * abs(y[i] - raw[i])
        w_total += w[i]
    return total / w_total


class AbsoluteError(Loss):
    """``L = |y - F|``; ``g = sign(F - y)``; the hessian is 0, so the trees are grown on
    the gradient with a unit hessian and each leaf is set to the weighted median of the
    residuals ``y - F`` of its samples (the Newton step is undefined).

    Initial score: the weighted median of y.
    """

    name = "absolute_error"
    metric_name = "l1"
    init_quantile = 0.5

    def pointwise(self, y, raw):
        return np.abs(y - raw)

    def gradient_hessian(self, y, raw):
        return np.sign(raw - y), np.ones_like(raw)

    loss_gradient_kernel = staticmethod(_loss_grad_hess)

    def init_raw(self, y, sample_weight):
        return float(weighted_quantile(y, sample_weight, 0.5))

    def leaf_values(self, samples):
        """Weighted median of the residuals ``y - F`` of each leaf."""
        return samples.residual_quantiles(0.5)


register(AbsoluteError)
