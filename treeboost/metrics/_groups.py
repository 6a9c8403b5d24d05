"""Query groups of learning to rank: the rows of each query, as LightGBM's ``group``
(sizes) or XGBoost's ``qid`` (a query id per row) give them, checked once."""

from __future__ import annotations

import numpy as np


def query_offsets(n_samples, group=None, qid=None, *, required=True, suffix=""):
    """The start of every query's rows and the end of the last, shape (n_queries + 1,).

    Parameters
    ----------
    n_samples : int
    group : array-like of int, optional
        The number of rows of each query, in the order of the rows (LightGBM's
        ``group``): every size at least 1, the sizes summing to ``n_samples``.
    qid : array-like, optional
        The query of each row (XGBoost's ``qid``): the rows of a query must be
        contiguous (sort the rows by ``qid`` first).
    required : bool, default=True
        Whether one of ``group`` and ``qid`` must be given; otherwise all rows are one
        query.
    suffix : str, default=""
        Appended to the parameter names in messages (``"_val"``).
    """
    gname, qname = f"group{suffix}", f"qid{suffix}"
    if group is not None and qid is not None:
        raise ValueError(f"Give {gname} or {qname}, not both.")
    if group is None and qid is None:
        if required:
            raise ValueError(
                f"Ranking needs the query of every row: pass {gname}= (the size of each "
                f"query) or {qname}= (a query id per row)."
            )
        return np.array([0, n_samples], dtype=np.int64)
    if group is not None:
        sizes = np.asarray(group)
        if sizes.ndim != 1 or sizes.size == 0:
            raise ValueError(
                f"{gname} must be a non-empty 1-D array of sizes, got shape {sizes.shape}."
            )
        if (
            sizes.dtype.kind not in "iuf"
            or not np.all(np.isfinite(sizes))
            or np.any(sizes != np.round(sizes))
        ):
            raise ValueError(f"{gname} must hold integer sizes, got {sizes[:5]!r}.")
        sizes = sizes.astype(np.int64)
        if sizes.min() < 1:
            raise ValueError(f"{gname} sizes must be at least 1, got {int(sizes.min())}.")
        if int(sizes.sum()) != n_samples:
            raise ValueError(
                f"{gname} sizes sum to {int(sizes.sum())}, but X has {n_samples} rows."
            )
        return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    ids = np.asarray(qid)
    if ids.ndim != 1 or ids.shape[0] != n_samples:
        raise ValueError(
            f"{qname} must hold one query id per row ({n_samples}), got shape {ids.shape}."
        )
    if n_samples == 0:
        raise ValueError(f"{qname} is empty.")
    starts = np.flatnonzero(ids[1:] != ids[:-1]) + 1
    if np.unique(ids).size != starts.size + 1:
        raise ValueError(
            f"The rows of each query must be contiguous in {qname} (a query id reappears "
            f"after another one); sort the rows by {qname} first."
        )
    return np.concatenate([[0], starts, [n_samples]]).astype(np.int64)


def check_relevance(y, n_gains, name="y"):
    """Relevance labels as int64: non-negative integers below ``n_gains`` (the length of
    ``label_gain``)."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D relevance labels, got shape {y.shape}.")
    if y.dtype.kind in "fc" and not np.all(np.isfinite(y)):
        raise ValueError(
            f"{name} contains NaN or infinity; it must hold integer relevance labels "
            f"(0, 1, 2, ...)."
        )
    if y.dtype.kind not in "iufb" or np.any(y != np.round(y)):
        raise ValueError(f"{name} must hold integer relevance labels (0, 1, 2, ...).")
    if y.size and (y.min() < 0 or y.max() >= n_gains):
        raise ValueError(
            f"{name} relevance labels must lie in [0, {n_gains}) (the length of "
            f"label_gain), got [{y.min()}, {y.max()}]."
        )
    return y.astype(np.int64)


def default_label_gain(n=31):
    """LightGBM's default gains ``2**l - 1`` of the labels ``l = 0 .. n-1``."""
    return 2.0 ** np.arange(n) - 1.0


def check_label_gain(label_gain):
    """``label_gain`` as float64 (None: :func:`default_label_gain`); finite, non-negative."""
    if label_gain is None:
        return default_label_gain()
    gain = np.asarray(label_gain, dtype=np.float64)
    if gain.ndim != 1 or gain.size == 0 or not np.all(np.isfinite(gain)) or gain.min() < 0:
        raise ValueError(
            f"label_gain must be a non-empty 1-D list of finite non-negative gains, "
            f"got {label_gain!r:.60}."
        )
    return gain
