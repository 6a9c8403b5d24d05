"""Squared error ``L = (y - F)^2 / 2``."""

import numpy as np

from .base import Loss


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

    def init_raw(self, y, sample_weight):
        return float(np.average(y, weights=sample_weight))
