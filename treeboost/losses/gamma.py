"""Half Gamma deviance with a log link, for positive skewed targets."""

import numpy as np

from ..persistence import register
from .base import LogLinkLoss


class GammaLoss(LogLinkLoss):
    """``L = F + y exp(-F)`` (the half Gamma deviance up to terms free of ``F``),
    prediction ``mu = exp(F)``, y > 0.

    ``g = 1 - y exp(-F)``, ``h = y exp(-F)``.  Initial score: ``log`` of the weighted
    mean of y.  Leaf value: the Newton step ``sum w (y / mu - 1) / sum w y / mu``.
    """

    name = "gamma"
    metric_name = "gamma"

    def pointwise(self, y, raw):
        return raw + y * np.exp(-raw)

    def gradient_hessian(self, y, raw):
        r = y * np.exp(-raw)
        return 1.0 - r, r

    @staticmethod
    def check_target(y):
        if not np.all(y > 0):
            raise ValueError("loss='gamma' requires strictly positive y.")
        return y


register(GammaLoss)
