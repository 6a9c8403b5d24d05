"""Huber loss with Friedman's M-TreeBoost leaf values."""
import numpy as np

from .base import Loss, grouped_weighted_quantile, weighted_quantile


class HuberLoss(Loss):
    """``L = r^2/2`` for ``|r| <= delta``, ``delta (|r| - delta/2)`` beyond, ``r = y - F``.

    ``delta`` is the weighted ``alpha``-quantile of ``|y - F|``, recomputed at every
    iteration (:meth:`update_delta`).  The trees fit the clipped negative gradient
    ``clip(r, -delta, delta)`` (unit hessian); each leaf is set as in Friedman's
    M-TreeBoost (2001, algorithm 4):
    ``gamma = median(r) + mean(sign(r - median(r)) * min(delta, |r - median(r)|))``
    (weighted median and mean over the leaf).  Initial score: the weighted median of y.
    """

    name = "huber"
    newton_leaves = False

    def __init__(self, alpha=0.9):
        self.alpha = alpha
        self.delta = None

    def update_delta(self, y, raw, sample_weight):
        self.delta = float(weighted_quantile(np.abs(y - raw), sample_weight, self.alpha))
        return self.delta

    def _delta(self, y, raw, sample_weight=None):
        if self.delta is None:
            self.update_delta(y, raw, np.ones_like(y) if sample_weight is None
                              else sample_weight)
        return self.delta

    def pointwise(self, y, raw):
        r = np.abs(y - raw)
        d = self._delta(y, raw)
        return np.where(r <= d, 0.5 * r * r, d * (r - 0.5 * d))

    def __call__(self, y, raw, sample_weight):
        return self._mean(self.pointwise(y, raw), sample_weight)

    def gradient_hessian(self, y, raw):
        d = self._delta(y, raw)
        return -np.clip(y - raw, -d, d), np.ones_like(raw)

    def init_raw(self, y, sample_weight):
        return float(weighted_quantile(y, sample_weight, 0.5))

    def leaf_values(self, leaf_of_sample, n_nodes, y, raw, sample_weight, newton):
        r = y - raw
        med = grouped_weighted_quantile(leaf_of_sample, r, sample_weight, 0.5, n_nodes)
        dev = r - med[leaf_of_sample]
        clipped = np.sign(dev) * np.minimum(self.delta, np.abs(dev))
        wsum = np.bincount(leaf_of_sample, weights=sample_weight, minlength=n_nodes)
        csum = np.bincount(leaf_of_sample, weights=sample_weight * clipped, minlength=n_nodes)
        return med + np.divide(csum, wsum, out=np.zeros(n_nodes), where=wsum > 0)
