"""Multinomial log-loss for K > 2 classes."""
import numpy as np
from scipy.special import logsumexp, softmax

from .base import Loss


class MultinomialLogLoss(Loss):
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

    def pointwise(self, y, raw):
        return logsumexp(raw, axis=1) - raw[np.arange(raw.shape[0]), y]

    def gradient_hessian(self, y, raw):
        p = softmax(raw, axis=1)
        g = p.copy()
        g[np.arange(raw.shape[0]), y] -= 1.0
        # a floor keeps the Newton step finite where a class's probability is 0 or 1
        return g, np.maximum(p * (1.0 - p), 1e-16)

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

    def _validate_state(self, where="loss", n_outputs=None):
        """``n_classes`` an integer >= 3 (two classes use the binary log-loss), one
        output per class."""
        from ..persistence import check_int
        check_int(self.n_classes, f"{where}.n_classes", low=3)
        super()._validate_state(where, n_outputs)
        if self.n_outputs != self.n_classes:
            raise ValueError(f"{where}.n_outputs: must be n_classes ({self.n_classes}).")
