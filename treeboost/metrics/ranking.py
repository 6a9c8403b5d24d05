"""Ranking metrics over query groups: NDCG@k and MAP@k, one numba kernel over the queries.

Documents of one query are ranked by descending score; tied scores keep the order of the
rows (a stable sort, as LightGBM), so a metric never depends on the sort's whims.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..engine import kernel, parallel_kernel
from ._groups import check_label_gain, check_relevance, query_offsets


@kernel
def ranked(scores):
    """The positions of ``scores`` by descending score, ties in row order (a stable
    sort, as LightGBM)."""
    return np.argsort(-scores, kind="mergesort")


@kernel
def dcg(gains, k):
    """DCG@k of gains in ranked order: ``sum_{i < k} gains[i] / log2(i + 2)``."""
    total = 0.0
    for i in range(min(k, gains.shape[0])):
        total += gains[i] / np.log2(i + 2.0)
    return total


@kernel
def max_dcg(offsets, labels, gain, k):
    """The ideal DCG@k of every query (labels sorted by descending gain)."""
    n_queries = offsets.shape[0] - 1
    out = np.zeros(n_queries)
    for q in range(n_queries):
        out[q] = dcg(np.sort(gain[labels[offsets[q] : offsets[q + 1]]])[::-1], k)
    return out


@parallel_kernel
def _ndcg_per_query(offsets, labels, scores, gain, k):
    n_queries = offsets.shape[0] - 1
    out = np.empty(n_queries)
    for q in prange(n_queries):
        s, e = offsets[q], offsets[q + 1]
        gains = gain[labels[s:e]]
        best = dcg(np.sort(gains)[::-1], k)
        out[q] = dcg(gains[ranked(scores[s:e])], k) / best if best > 0 else 1.0
    return out


@parallel_kernel
def _ap_per_query(offsets, labels, scores, k):
    n_queries = offsets.shape[0] - 1
    out = np.empty(n_queries)
    for q in prange(n_queries):
        s, e = offsets[q], offsets[q + 1]
        order = ranked(scores[s:e])
        n_relevant = 0
        for i in range(s, e):
            n_relevant += labels[i] > 0
        hits = 0
        total = 0.0
        for i in range(min(k, e - s)):
            if labels[s + order[i]] > 0:
                hits += 1
                total += hits / (i + 1.0)
        out[q] = total / min(k, n_relevant) if n_relevant > 0 else 1.0
    return out


def _inputs(y_true, y_score, group, qid, k, n_gains):
    y_score = np.asarray(y_score, dtype=np.float64)
    labels = check_relevance(y_true, n_gains, "y_true")
    if y_score.shape != labels.shape:
        raise ValueError(
            f"y_true and y_score must have one shape, got {labels.shape} and {y_score.shape}."
        )
    if not np.all(np.isfinite(y_score)):
        raise ValueError("y_score must be finite.")
    offsets = query_offsets(labels.shape[0], group, qid, required=False)
    if k is None:
        k = labels.shape[0]
    elif isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer or None, got {k!r}.")
    return labels, y_score, offsets, int(k)


def ndcg_score(y_true, y_score, *, group=None, qid=None, k=None, label_gain=None):
    """Mean NDCG@k over the queries.

    ``DCG@k = sum_{i<k} gain[l_(i)] / log2(i + 2)`` over the documents ranked by
    descending score (ties in the order of the rows), ``NDCG@k = DCG@k / IDCG@k`` with
    ``IDCG@k`` the DCG@k of the best order; a query whose ``IDCG@k`` is 0 (no relevant
    document) scores 1, as LightGBM's ``ndcg``.

    Parameters
    ----------
    y_true : array-like of int of shape (n_samples,)
        Relevance labels 0, 1, 2, ...
    y_score : array-like of shape (n_samples,)
    group, qid : array-like, optional
        The queries (sizes, or a contiguous query id per row); neither: one query.
    k : int or None, default=None
        Truncation level (None: every document).
    label_gain : array-like or None, default=None
        ``gain[l]`` of each label; None: ``2**l - 1``. ``label_gain=range(n)`` gives
        :func:`sklearn.metrics.ndcg_score`'s linear gains.

    Returns
    -------
    float
    """
    gain = check_label_gain(label_gain)
    labels, scores, offsets, k = _inputs(y_true, y_score, group, qid, k, gain.size)
    return float(_ndcg_per_query(offsets, labels, scores, gain, k).mean())


def map_score(y_true, y_score, *, group=None, qid=None, k=None):
    """Mean average precision at k over the queries.

    A document is relevant when its label is positive; with ``R`` relevant documents
    in a query, ``AP@k = sum_{i<k} rel_(i) P@(i+1) / min(k, R)``, and a query without a
    relevant document scores 1 (LightGBM's ``map``).

    Parameters
    ----------
    y_true : array-like of int of shape (n_samples,)
    y_score : array-like of shape (n_samples,)
    group, qid : array-like, optional
    k : int or None, default=None

    Returns
    -------
    float
    """
    labels, scores, offsets, k = _inputs(y_true, y_score, group, qid, k, np.iinfo(np.int64).max)
    return float(_ap_per_query(offsets, labels, scores, k).mean())


def query_metric(name, labels, scores, offsets, gain):
    """The metric named ``"ndcg"``, ``"ndcg@k"``, ``"map"`` or ``"map@k"`` of checked
    inputs (the ranker's early stopping)."""
    base, _, level = name.partition("@")
    k = int(level) if level else labels.shape[0]
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    if base == "ndcg":
        return float(_ndcg_per_query(offsets, labels, scores, gain, k).mean())
    return float(_ap_per_query(offsets, labels, scores, k).mean())
