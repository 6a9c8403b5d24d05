"""Multinomial log-loss for K > 2 classes."""

import numpy as np
from numba import prange
from scipy.special import softmax

from ..persistence import register
from .base import CompiledLoss
from ..persistence._spec import integer
from ..engine import inlined, parallel_kernel


@inlined
def _row_max(raw, i):
    m = raw[i, 0]
    for k in range(1, raw.shape[1]):
        m = max(m, raw[i, k])
    return m


@parallel_kernel
def _multinomial_pointwise(y, raw, out):
    # logsumexp(F_i) - F_i[y_i], the row's maximum taken out: one pass per row, where
    # scipy's logsumexp makes several over the whole matrix
    n_classes = raw.shape[1]
    for i in prange(raw.shape[0]):
        m = _row_max(raw, i)
        s = 0.0
        for k in range(n_classes):
            s += np.exp(raw[i, k] - m)
        out[i] = m + np.log(s) - raw[i, y[i]]


@inlined
def _row_grad_hess(y, raw, i, g, h):
    """Row ``i``'s ``p = softmax(F_i)``: ``g = p - onehot(y)``, ``h = p (1 - p)``;
    returns ``logsumexp(F_i)``, which the loss needs too."""
    m = _row_max(raw, i)
    s = 0.0
    for k in range(raw.shape[1]):
        e = np.exp(raw[i, k] - m)
        g[i, k] = e
        s += e
    for k in range(raw.shape[1]):
        p = g[i, k] / s
        g[i, k] = p
        # a floor keeps the Newton step finite where a class's probability is 0 or 1
        h[i, k] = max(p * (1.0 - p), 1e-16)
    g[i, y[i]] -= 1.0
    return m + np.log(s)


@parallel_kernel
def _multinomial_grad_hess(y, raw, g, h):
    for i in prange(raw.shape[0]):
        _row_grad_hess(y, raw, i, g, h)


@parallel_kernel
def _multinomial_loss_grad_hess(y, raw, w, g, h):
    # the loss and the gradients share the row's softmax sum: one pass gives both
    total = 0.0
    w_total = 0.0
    for i in prange(raw.shape[0]):
        total += w[i] * (_row_grad_hess(y, raw, i, g, h) - raw[i, y[i]])
        w_total += w[i]
    return total / w_total


class MultinomialLogLoss(CompiledLoss):
    """``L = -sum_k y_k log p_k`` with ``p = softmax(F)`` over K raw scores.

    One tree per class and iteration, fitted to ``g_k = p_k - y_k`` with the diagonal
    hessian ``h_k = p_k (1 - p_k)``; leaf value ``(K-1)/K * sum(w (y_k - p_k)) /
    sum(w p_k (1 - p_k))`` (Friedman 2001, algorithm 6: the Newton step scaled by
    ``leaf_scale = (K-1)/K``, because the K trees of an iteration move the scores of a
    sample together and softmax ignores their common part).  Initial scores: the log of
    the weighted class priors.

    Parameters
    ----------
    n_classes : int
        K; y holds class indices ``0..K-1``.
    """

    name = "log_loss"
    metric_name = "multi_logloss"
    is_classification = True

    def __init__(self, n_classes):
        self.n_classes = n_classes
        self.n_outputs = n_classes

    @property
    def leaf_scale(self):
        """``(K-1)/K``."""
        return (self.n_classes - 1) / self.n_classes

    pointwise_kernel = staticmethod(_multinomial_pointwise)
    gradient_kernel = staticmethod(_multinomial_grad_hess)
    target_dtype = np.int64
    loss_gradient_kernel = staticmethod(_multinomial_loss_grad_hess)

    def init_raw(self, y, sample_weight):
        prior = np.bincount(y, weights=sample_weight, minlength=self.n_classes)
        prior = np.maximum(prior / prior.sum(), np.finfo(float).eps)
        return np.log(prior)

    def link(self, predictions):
        """``log p_k - mean_k log p_k`` of ``predict_proba`` clipped to ``[eps, 1 - eps]``
        (the symmetric inverse of the softmax, scikit-learn's)."""
        eps = np.finfo(np.float64).eps
        logp = np.log(np.clip(np.asarray(predictions, np.float64), eps, 1 - eps))
        return logp - logp.mean(axis=1, keepdims=True)

    @staticmethod
    def proba(raw):
        """``softmax(F)`` of raw scores of shape (n_samples, K)."""
        return softmax(raw, axis=1)

    _persist_attributes = ("n_classes", "n_outputs")
    #: two classes use the binary log-loss
    _state_spec = {"n_classes": integer(low=3)}

    def _validate_state(self, where="loss", n_outputs=None):
        """``n_classes`` an integer >= 3, one output per class."""
        super()._validate_state(where, n_outputs)
        if self.n_outputs != self.n_classes:
            raise ValueError(f"{where}.n_outputs: must be n_classes ({self.n_classes}).")


register(MultinomialLogLoss)
