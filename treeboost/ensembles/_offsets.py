"""Per-row offsets of a boosting fit (``fit(..., init_score=...)``, LightGBM's
``init_score``, XGBoost's ``base_margin``): a raw score each row starts from, added to
the model's own, that the model does not keep.

A fit with an offset ``o`` boosts ``F(x_i) = o_i + sum_t f_t(x_i)``: the gradients of
every iteration are those of ``o_i`` plus the trees fitted so far.  As in LightGBM, the
loss's best constant (``boost_from_average``) is then not added: ``init_score_`` is 0
(an ``init`` estimator's predictions still are).  ``predict(X, raw_score=True)`` gives
``sum_t f_t(x)``; the caller adds the offsets of the rows it predicts.
"""

from __future__ import annotations

import numpy as np


def check_offset(values, n_samples, n_outputs, name="init_score"):
    """``values`` as a float64 array of shape (n_samples, n_outputs), or None.

    Parameters
    ----------
    values : array-like of shape (n_samples,) or (n_samples, n_outputs), or None
        One offset per row (shape (n_samples,): the same on every output), or one per
        row and output.
    n_samples, n_outputs : int
    name : str
        The parameter the errors name.

    Raises
    ------
    TypeError
        ``values`` is not numeric.
    ValueError
        Its shape is neither of the two, or it holds NaN or an infinite value.
    """
    if values is None:
        return None
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be an array of numbers, got {type(values).__name__} ({exc})."
        ) from None
    want = f"({n_samples},) or ({n_samples}, {n_outputs})"
    if arr.ndim == 1 and arr.shape[0] == n_samples:
        arr = np.repeat(arr[:, None], n_outputs, axis=1)
    elif arr.ndim != 2 or arr.shape != (n_samples, n_outputs):
        raise ValueError(f"{name} must be of shape {want} (the rows' raw scores), got {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        bad = int(np.flatnonzero(~np.isfinite(arr).all(axis=1))[0])
        raise ValueError(
            f"{name} must be finite: row {bad} holds {arr[bad].tolist()!r} (an offset is a raw "
            f"score, such as log(exposure) for a log link)."
        )
    return np.ascontiguousarray(arr)


def check_offsets(values, n_sets, name="eval_init_score"):
    """``values`` (one offset or None per evaluation set) as a list of ``n_sets``
    entries, each checked later against its set's rows by :func:`check_offset`."""
    if values is None:
        return [None] * n_sets
    if isinstance(values, np.ndarray) or not isinstance(values, (list, tuple)):
        raise TypeError(
            f"{name} must be a list holding one offset (or None) per eval_set entry, "
            f"got {type(values).__name__}."
        )
    if len(values) != n_sets:
        raise ValueError(
            f"{name} must hold one entry per eval_set entry ({n_sets}), got {len(values)}."
        )
    return list(values)


def take_rows(offset, rows):
    """The offsets of ``rows`` (None without offsets)."""
    return None if offset is None else offset[rows]


def add_offset(raw, offset):
    """``raw + offset`` in place (nothing without offsets); returns ``raw``."""
    if offset is not None:
        raw += offset
    return raw
