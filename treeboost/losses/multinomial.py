"""Multinomial log-loss for K > 2 classes."""
import numpy as np
from scipy.special import logsumexp, softmax

from .base import Loss


class MultinomialLogLoss(Loss):
    """``L = -sum_k y_k log p_k`` with ``p = softmax(F)`` over K raw scores.

    One tree per class and iteration, fitted to ``g_k = p_k - y_k`` with the diagonal
    hessian ``h_k = p_k (1 - p_k)``; leaf value ``(K-1)/K * sum(w (y_k - p_k)) /
    sum(w p_k (1 - p_k))`` (Friedman 2001, algorithm 6).  Initial scores: the log of the
    weighted class priors.
    """

    name = "log_loss"
    is_classification = True

    def __init__(self, n_classes):
        self.n_classes = n_classes
        self.n_outputs = n_classes

    def pointwise(self, y, raw):
        return logsumexp(raw, axis=1) - raw[np.arange(raw.shape[0]), y]

    def __call__(self, y, raw, sample_weight):
        return self._mean(self.pointwise(y, raw), sample_weight)

    def gradient_hessian(self, y, raw):
        p = softmax(raw, axis=1)
        g = p.copy()
        g[np.arange(raw.shape[0]), y] -= 1.0
        return g, np.maximum(p * (1.0 - p), 1e-16)

    def init_raw(self, y, sample_weight):
        prior = np.bincount(y, weights=sample_weight, minlength=self.n_classes)
        prior = np.maximum(prior / prior.sum(), np.finfo(float).eps)
        return np.log(prior)

    def newton_factor(self):
        return (self.n_classes - 1) / self.n_classes

    @staticmethod
    def proba(raw):
        return softmax(raw, axis=1)



