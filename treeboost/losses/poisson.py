"""Half Poisson deviance with a log link, for counts and rates."""

import numpy as np

from ..persistence import register
from .base import LogLinkLoss


class PoissonLoss(LogLinkLoss):
    """``L = exp(F) - y F`` (the half Poisson deviance up to the term ``y log y - y``,
    which does not depend on ``F``), prediction ``mu = exp(F)``, y >= 0 with a positive
    sum.

    ``g = exp(F) - y``, ``h = exp(F)``.  Initial score: ``log`` of the weighted mean of y.
    Leaf value: the Newton step ``sum w (y - mu) / sum w mu``.
    """

    name = "poisson"
    metric_name = "poisson"

    def pointwise(self, y, raw):
        return np.exp(raw) - y * raw

    def gradient_hessian(self, y, raw):
        mu = np.exp(raw)
        return mu - y, mu

    @staticmethod
    def check_target(y):
        if np.any(y < 0) or not np.sum(y) > 0:
            raise ValueError("loss='poisson' requires non-negative y and sum(y) > 0.")
        return y


register(PoissonLoss)
