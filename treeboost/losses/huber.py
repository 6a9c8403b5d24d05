"""Huber loss with Friedman's M-TreeBoost leaf values."""

import numpy as np

from ..persistence import register
from ..engine import huber_leaf_values
from .base import Loss, weighted_quantile
from ..persistence._spec import real


class HuberLoss(Loss):
    """``L = r^2/2`` for ``|r| <= delta``, ``delta (|r| - delta/2)`` beyond, ``r = y - F``.

    ``delta`` is the weighted ``alpha``-quantile of ``|y - F|``, re-estimated at the start
    of every iteration (:meth:`start_iteration`), so it follows the scale of the
    residuals (and of y).  The trees fit the clipped negative gradient
    ``clip(r, -delta, delta)`` (unit hessian); each leaf is set as in Friedman's
    M-TreeBoost (2001, algorithm 4):
    ``gamma = median(r) + mean(sign(r - median(r)) * min(delta, |r - median(r)|))``
    (weighted median and mean over the leaf).  Initial score: the weighted median of y.

    Parameters
    ----------
    alpha : float in (0, 1), default=0.9

    Attributes
    ----------
    delta : float or None
        The threshold of the last iteration (None before the first); the loss value and
        the gradients use it.
    """

    name = "huber"
    metric_name = "huber"

    def __init__(self, alpha=0.9):
        self.alpha = alpha
        self.delta = None

    def update_delta(self, y, raw, sample_weight):
        """Set ``delta`` to the weighted ``alpha``-quantile of ``|y - raw|``."""
        self.delta = float(weighted_quantile(np.abs(y - raw), sample_weight, self.alpha))
        return self.delta

    def start_iteration(self, y, raw, sample_weight):
        """Re-estimate ``delta`` from the current residuals."""
        self.update_delta(y, raw, sample_weight)

    def _delta(self, y, raw):
        # outside a fit (no iteration has set it), delta comes from these residuals
        if self.delta is None:
            self.update_delta(y, raw, np.ones_like(y))
        return self.delta

    def pointwise(self, y, raw):
        r = np.abs(y - raw)
        d = self._delta(y, raw)
        return np.where(r <= d, 0.5 * r * r, d * (r - 0.5 * d))

    def gradient_hessian(self, y, raw):
        d = self._delta(y, raw)
        return -np.clip(y - raw, -d, d), np.ones_like(raw)

    def init_raw(self, y, sample_weight):
        return float(weighted_quantile(y, sample_weight, 0.5))

    def leaf_values(self, samples):
        """Friedman's M-TreeBoost step of each leaf (see the class)."""
        delta = (
            self._delta(samples.y[samples.rows], samples.raw[samples.rows])
            if self.delta is None
            else self.delta
        )
        return huber_leaf_values(
            np.ascontiguousarray(samples.node, dtype=np.int64),
            np.ascontiguousarray(samples.rows, dtype=np.int64),
            np.ascontiguousarray(samples.y, dtype=np.float64),
            np.ascontiguousarray(samples.raw, dtype=np.float64),
            np.ascontiguousarray(samples.sample_weight, dtype=np.float64),
            float(delta),
            int(samples.n_nodes),
        )

    _persist_attributes = ("alpha", "delta")
    #: ``alpha`` in (0, 1); ``delta`` None (estimated at each iteration) or a finite
    #: number >= 0
    _state_spec = {
        "alpha": real(0, 1, low_open=True, high_open=True),
        "delta": real(low=0, none_ok=True),
    }


register(HuberLoss)
