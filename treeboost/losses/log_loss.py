"""Binary log-loss (deviance)."""

import numpy as np
from numba import prange
from scipy.special import expit, logit

from ..persistence import register
from .base import CompiledLoss
from ..engine import parallel_kernel


@parallel_kernel
def _binary_pointwise(y, raw, out):
    # log(1 + exp(F)) - y F without overflow: max(F, 0) + log1p(exp(-|F|)) - y F
    for i in prange(raw.shape[0]):
        f = raw[i]
        out[i] = max(f, 0.0) + np.log1p(np.exp(-abs(f))) - y[i] * f


@parallel_kernel
def _binary_grad_hess(y, raw, g, h):
    for i in prange(raw.shape[0]):
        f = raw[i]
        # expit without overflow
        if f >= 0:
            p = 1.0 / (1.0 + np.exp(-f))
        else:
            e = np.exp(f)
            p = e / (1.0 + e)
        g[i] = p - y[i]
        # a floor keeps the Newton step finite where p is 0 or 1
        h[i] = max(p * (1.0 - p), 1e-16)


@parallel_kernel
def _binary_loss_grad_hess(y, raw, w, g, h):
    # the loss and the gradients share exp(-|F|): one pass gives both
    total = 0.0
    w_total = 0.0
    for i in prange(raw.shape[0]):
        f = raw[i]
        e = np.exp(-abs(f))
        p = 1.0 / (1.0 + e) if f >= 0 else e / (1.0 + e)
        g[i] = p - y[i]
        h[i] = max(p * (1.0 - p), 1e-16)
        total += w[i] * (max(f, 0.0) + np.log1p(e) - y[i] * f)
        w_total += w[i]
    return total / w_total


class BinaryLogLoss(CompiledLoss):
    """``L = -[y log p + (1 - y) log(1 - p)]`` with ``p = expit(F)``, y in {0, 1}.

    ``g = p - y``, ``h = p (1 - p)``.  Initial score: the log-odds of the positive class,
    ``log(sum w y / sum w (1 - y))``.  Leaf value: the Newton (Taylor) step
    ``sum(w (y - p)) / sum(w p (1 - p))``.
    """

    name = "log_loss"
    metric_name = "binary_logloss"
    is_classification = True
    score_scale = 2.0

    pointwise_kernel = staticmethod(_binary_pointwise)
    gradient_kernel = staticmethod(_binary_grad_hess)
    loss_gradient_kernel = staticmethod(_binary_loss_grad_hess)

    def init_raw(self, y, sample_weight):
        pos = float(np.sum(sample_weight * y))
        neg = float(np.sum(sample_weight * (1 - y)))
        # a class without weight gets eps of the total, not an absolute eps: the log-odds
        # of weights of any scale stay those of their proportions
        floor = np.finfo(float).eps * (pos + neg)
        return float(np.log(max(pos, floor) / max(neg, floor)))

    def link(self, predictions):
        """``logit(p)`` of the positive class's probability (column 1 of
        ``predict_proba``), clipped to ``[eps, 1 - eps]``."""
        eps = np.finfo(np.float64).eps
        return logit(np.clip(np.asarray(predictions, np.float64)[:, 1], eps, 1 - eps))

    @staticmethod
    def proba(raw):
        """``[1 - expit(F), expit(F)]`` of raw scores of shape (n_samples,)."""
        p = expit(raw)
        return np.column_stack([1.0 - p, p])


register(BinaryLogLoss)
