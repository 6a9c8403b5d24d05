"""Squared error ``L = (y - F)^2 / 2``."""

import numpy as np
from numba import prange

from ..persistence import register
from .base import Loss
from ..engine import parallel_kernel


@parallel_kernel
def _loss_grad_hess(y, raw, w, g, h):
    # the loss and the gradients in one pass over the rows
    total = 0.0
    w_total = 0.0
    for i in prange(raw.shape[0]):
        d = y[i] - raw[i]
        g[i] = raw[i] - y[i]
        h[i] = 1.0
        total += w[i] * (0.5 * d * d)
        w_total += w[i]
    return total / w_total


class SquaredError(Loss):
    """``L = 1/2 (y - F)^2``; ``g = F - y``, ``h = 1``.

    Initial score: the weighted mean of y.  Leaf value: the Newton step
    ``-sum(w g) / (sum(w h) + lambda)``, i.e. the weighted mean residual of the leaf when
    ``lambda = 0``.
    """

    name = "squared_error"
    metric_name = "l2/2"
    score_scale = 2.0

    def pointwise(self, y, raw):
        return 0.5 * (y - raw) ** 2

    def gradient_hessian(self, y, raw):
        return raw - y, np.ones_like(raw)

    loss_gradient_kernel = staticmethod(_loss_grad_hess)

    def init_raw(self, y, sample_weight):
        return float(np.average(y, weights=sample_weight))


register(SquaredError)
