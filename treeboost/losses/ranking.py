"""Learning-to-rank losses over query groups: LambdaMART with NDCG (LightGBM's
``lambdarank``) and the pairwise logistic loss (RankNet, XGBoost's ``rank:pairwise``).

Both are sums over the pairs ``(i, j)`` of one query whose labels differ, ``i`` the more
relevant, of ``w_ij log(1 + exp(-sigma (F_i - F_j)))``; with ``p_ij = 1 / (1 + exp(sigma
(F_i - F_j)))`` each pair adds ``-sigma w_ij p_ij`` to ``g_i``, the opposite to ``g_j``,
and ``sigma^2 w_ij p_ij (1 - p_ij)`` to both hessians.  The pairwise loss has
``w_ij = 1`` over all pairs.  LambdaMART ranks the query by the current scores, takes
the pairs whose better-ranked member lies in the first ``truncation_level`` positions,
and weighs each by the change of NDCG its swap would make,
``w_ij = |gain(l_i) - gain(l_j)| |1/log2(2 + r_i) - 1/log2(2 + r_j)| / IDCG@truncation``
(``r``: the 0-based ranks), divided by ``0.01 + |F_i - F_j|`` and, per query, the
gradients and hessians scaled by ``log2(1 + S) / S`` (``S`` the sum of ``|lambda|``)
when ``norm`` is on: LightGBM's ``lambdarank_norm``.

One numba kernel computes a fit's gradients, hessians and loss, a query per thread.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..engine import parallel_kernel
from ..metrics._groups import check_label_gain
from ..metrics.ranking import max_dcg
from ..persistence import register
from ..persistence._spec import array, integer, real
from .base import Loss


@parallel_kernel
def _pair_gradients(offsets, labels, raw, gain, inverse_idcg, truncation, sigma, ndcg, norm, g, h):
    n_queries = offsets.shape[0] - 1
    losses = np.zeros(n_queries)
    for q in prange(n_queries):
        s, e = offsets[q], offsets[q + 1]
        n = e - s
        for i in range(s, e):
            g[i] = 0.0
            h[i] = 0.0
        if n < 2 or (ndcg and inverse_idcg[q] == 0.0):
            continue
        order = np.argsort(-raw[s:e], kind="mergesort")
        spread = raw[s + order[0]] != raw[s + order[n - 1]]
        top = min(n - 1, truncation) if ndcg else n - 1
        total_lambda = 0.0
        loss = 0.0
        for a in range(top):
            i = s + order[a]
            for b in range(a + 1, n):
                j = s + order[b]
                if labels[i] == labels[j]:
                    continue
                if labels[i] > labels[j]:
                    hi, lo, r_hi, r_lo = i, j, a, b
                else:
                    hi, lo, r_hi, r_lo = j, i, b, a
                diff = raw[hi] - raw[lo]
                weight = 1.0
                if ndcg:
                    weight = (
                        (gain[labels[hi]] - gain[labels[lo]])
                        * abs(1.0 / np.log2(r_hi + 2.0) - 1.0 / np.log2(r_lo + 2.0))
                        * inverse_idcg[q]
                    )
                    if norm and spread:
                        weight /= 0.01 + abs(diff)
                z = sigma * diff
                # p = 1 / (1 + exp(z)) and log(1 + exp(-z)), without overflow
                if z >= 0:
                    t = np.exp(-z)
                    p = t / (1.0 + t)
                    loss += weight * np.log1p(t)
                else:
                    t = np.exp(z)
                    p = 1.0 / (1.0 + t)
                    loss += weight * (np.log1p(t) - z)
                lam = -sigma * weight * p
                hess = sigma * sigma * weight * p * (1.0 - p)
                g[hi] += lam
                g[lo] -= lam
                h[hi] += hess
                h[lo] += hess
                total_lambda -= 2.0 * lam
        if ndcg and norm and total_lambda > 0:
            factor = np.log2(1.0 + total_lambda) / total_lambda
            for i in range(s, e):
                g[i] *= factor
                h[i] *= factor
        losses[q] = loss
    return losses.mean()


#: the least hessian of a row: a query whose labels all tie has no pairs, so its rows'
#: gradients and hessians are 0, and a node of such rows alone (every row, when no query
#: has two labels) would divide 0 by 0 in its Newton step ``-G / H``
MIN_HESSIAN = 1e-16


class _QueryLoss(Loss):
    """A loss over query groups.  The ranker binds the groups of its training (and
    validation) targets to the loss for one fit (:meth:`bind`); they are not saved."""

    _persist_transient = ("_bound",)

    @property
    def gradient_carries(self):
        return True

    def bind(self, y, offsets):
        """The queries (``offsets``, :func:`~treeboost.metrics._groups.query_offsets`) of
        the target array ``y`` the booster will pass back."""
        labels = np.ascontiguousarray(y, dtype=np.int64)
        idcg = self._inverse_idcg(offsets, labels)
        self.__dict__.setdefault("_bound", []).append((y, offsets, labels, idcg))

    def _queries(self, y):
        """The bound queries of ``y``: the same array, else the one bound target of its
        length."""
        bound = self.__dict__.get("_bound", [])
        for entry in bound:
            if entry[0] is y:
                return entry
        same = [entry for entry in bound if entry[0].shape[0] == y.shape[0]]
        if len(same) != 1:
            raise ValueError(
                f"{type(self).__name__} has no query groups for {y.shape[0]} rows: it is "
                f"fitted by HistGradientBoostingRanker, which passes them."
            )
        return same[0]

    def _inverse_idcg(self, offsets, labels):
        return np.zeros(offsets.shape[0] - 1)

    def loss_gradient_hessian(self, y, raw, sample_weight, out=None):
        _, offsets, labels, idcg = self._queries(y)
        raw = np.ascontiguousarray(raw, dtype=np.float64)
        g, h = (np.empty_like(raw), np.empty_like(raw)) if out is None else out
        value = _pair_gradients(offsets, labels, raw, *self._kernel_options(idcg), g, h)
        np.maximum(h, MIN_HESSIAN, out=h)
        return float(value), g, h

    def gradient_hessian(self, y, raw):
        _, g, h = self.loss_gradient_hessian(y, raw, None)
        return g, h

    def __call__(self, y, raw, sample_weight=None):
        """The mean over the queries of the pairs' weighted logistic loss."""
        return self.loss_gradient_hessian(y, raw, sample_weight)[0]

    def init_raw(self, y, sample_weight):
        # a constant shifts every score of a query alike: ranks and loss unchanged
        return 0.0


class LambdaRankLoss(_QueryLoss):
    """LambdaMART with NDCG weights (LightGBM's ``lambdarank``; the module gives the
    formula).

    Parameters
    ----------
    truncation_level : int, default=30
        Pairs whose better-ranked member is in the first ``truncation_level`` positions
        (LightGBM's ``lambdarank_truncation_level``).
    label_gain : array-like or None, default=None
        Gain of each label (None: ``2**l - 1``).
    sigma : float, default=1.0
        The logistic's slope (LightGBM's ``sigmoid``).
    norm : bool, default=True
        LightGBM's ``lambdarank_norm``.
    """

    name = "lambdarank"
    metric_name = "lambdarank"

    def __init__(self, truncation_level=30, label_gain=None, sigma=1.0, norm=True):
        self.truncation_level = int(truncation_level)
        self.label_gain = check_label_gain(label_gain)
        self.sigma = float(sigma)
        self.norm = bool(norm)

    def _inverse_idcg(self, offsets, labels):
        best = max_dcg(offsets, labels, self.label_gain, self.truncation_level)
        return np.divide(1.0, best, out=np.zeros_like(best), where=best > 0)

    def _kernel_options(self, idcg):
        return (self.label_gain, idcg, self.truncation_level, self.sigma, True, self.norm)

    _persist_attributes = ("truncation_level", "label_gain", "sigma", "norm")
    _state_spec = {
        "truncation_level": integer(1),
        "label_gain": array("float64", ndim=1, finite=True),
        "sigma": real(0, None, low_open=True),
    }


class PairwiseRankLoss(_QueryLoss):
    """The pairwise logistic loss over every pair of a query whose labels differ
    (RankNet; XGBoost's ``rank:pairwise``), ``w_ij = 1``.

    Parameters
    ----------
    sigma : float, default=1.0
    """

    name = "pairwise"
    metric_name = "pairwise"

    def __init__(self, sigma=1.0):
        self.sigma = float(sigma)

    def _kernel_options(self, idcg):
        return (np.zeros(1), idcg, 0, self.sigma, False, False)

    _persist_attributes = ("sigma",)
    _state_spec = {"sigma": real(0, None, low_open=True)}


register(LambdaRankLoss, PairwiseRankLoss)
