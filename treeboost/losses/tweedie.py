"""Tweedie deviance with a log link, for non-negative targets with exact zeros
(insurance claims, rainfall): a compound Poisson-gamma between :mod:`.poisson` and
:mod:`.gamma`."""

import numpy as np

from .base import LogLinkLoss
from ..persistence import register
from ..persistence._spec import real


class TweedieLoss(LogLinkLoss):
    """``L = -y exp((1-p) F) / (1-p) + exp((2-p) F) / (2-p)`` (the Tweedie deviance of
    variance power ``p`` up to terms free of ``F``, as LightGBM's ``tweedie`` and
    XGBoost's ``reg:tweedie`` define it), prediction ``mu = exp(F)``, y >= 0 with a
    positive sum.

    ``g = -y exp((1-p) F) + exp((2-p) F)``,
    ``h = -(1-p) y exp((1-p) F) + (2-p) exp((2-p) F)`` (positive for ``1 < p < 2``).
    Initial score: ``log`` of the weighted mean of y.  Leaf value: the Newton step
    ``-G / (H + lambda)``.

    Parameters
    ----------
    power : float in (1, 2), default=1.5
        The variance power ``p`` (``Var(y) ~ mu^p``; LightGBM's
        ``tweedie_variance_power``, XGBoost's ``tweedie_variance_power``).  The limits
        are :class:`~treeboost.losses.PoissonLoss` (``p = 1``) and
        :class:`~treeboost.losses.GammaLoss` (``p = 2``).
    """

    name = "tweedie"
    metric_name = "tweedie"

    def __init__(self, power=1.5):
        power = float(power)
        if not 1.0 < power < 2.0:
            raise ValueError(
                f"power (tweedie_power) must be in (1, 2), got {power!r}; "
                "loss='poisson' is p = 1 and loss='gamma' p = 2."
            )
        self.power = power

    def pointwise(self, y, raw):
        a, b = 1.0 - self.power, 2.0 - self.power
        return -y * np.exp(a * raw) / a + np.exp(b * raw) / b

    def gradient_hessian(self, y, raw):
        a, b = 1.0 - self.power, 2.0 - self.power
        ea, eb = np.exp(a * raw), np.exp(b * raw)
        return eb - y * ea, b * eb - a * y * ea

    @staticmethod
    def check_target(y):
        if np.any(y < 0) or not np.sum(y) > 0:
            raise ValueError("loss='tweedie' requires non-negative y and sum(y) > 0.")
        return y

    _persist_attributes = ("power",)
    _state_spec = {"power": real(1, 2, low_open=True, high_open=True)}


register(TweedieLoss)
