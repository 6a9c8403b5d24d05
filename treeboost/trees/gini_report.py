"""The Gini index of each value of each categorical attribute: the table a CART textbook
computes by hand before choosing a binary split ``a = v`` / ``a != v``.

With ``D`` the samples, ``p_k`` the (weighted) fraction of class ``k``, ``D^v`` the samples
with ``a = v`` and ``D^{-v}`` the others (Zhou, *Machine Learning*, 4.2.3; Breiman et
al., 1984):

* ``Gini(D) = 1 - sum_k p_k^2``;
* ``Gini(D, a = v) = |D^v|/|D| Gini(D^v) + |D^{-v}|/|D| Gini(D^{-v})``, the Gini index of
  the binary split on value ``v``, the quantity CART minimises;
* ``Gini_index(D, a) = sum_v |D^v|/|D| Gini(D^v)``, the multiway split's (Zhou's
  formula 4.6).

Missing values (NaN) take part in no split of their attribute: its rows are left out of
that attribute's lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._input.targets import encode_classification_target

if TYPE_CHECKING:
    import pandas as pd

    from .._typing import ArrayLike, Float64Array

__all__ = ["gini", "gini_report"]


def gini(counts: ArrayLike) -> Float64Array:
    """``Gini = 1 - sum_k p_k^2`` of each row of a (weighted) class-count array (0 for an
    empty row)."""
    c = np.asarray(counts, dtype=np.float64)
    total = c.sum(axis=-1)
    safe = np.where(total > 0, total, 1.0)
    return np.where(total > 0, 1.0 - ((c / safe[..., None]) ** 2).sum(axis=-1), 0.0)


def gini_report(
    X: pd.DataFrame, y: ArrayLike, sample_weight: ArrayLike | None = None
) -> pd.DataFrame:
    """One line per (attribute, value): the Gini index of the binary split on that value.

    Parameters
    ----------
    X : pandas DataFrame of shape (n_samples, n_features)
        Every column is read as categorical (its distinct values, NaN missing).
    y : array-like of shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    pandas DataFrame
        Columns ``feature``, ``value``, ``weight`` (``|D^v|``), ``gini_value``
        (``Gini(D^v)``), ``gini_rest`` (``Gini(D^{-v})``), ``gini_split``
        (``Gini(D, a = v)``), ``gini_index`` (the attribute's ``Gini_index(D, a)``) and
        ``best`` (the value of smallest ``gini_split`` of its attribute; ties: the first
        value).  ``attrs["gini"]`` is ``Gini(D)``.

    Examples
    --------
    >>> from treeboost.datasets import load_watermelon
    >>> from treeboost.trees.gini_report import gini_report
    >>> melons = load_watermelon()
    >>> table = gini_report(melons.data, melons.target)
    >>> row = table[(table.feature == "色泽") & (table.value == "浅白")]
    >>> round(float(row.gini_split.iloc[0]), 3)
    0.437
    """
    import pandas as pd

    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}.")
    _, y_enc = encode_classification_target(y, X.shape[0])
    if sample_weight is None:
        w = np.ones(X.shape[0])
    else:
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.shape != (X.shape[0],) or not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError(
                f"sample_weight must hold one finite weight >= 0 per row of X, got shape {w.shape}."
            )
    K = int(y_enc.max()) + 1 if y_enc.size else 0
    rows = []
    for name in X.columns:
        col = X[name]
        known = col.notna().to_numpy()
        codes, values = pd.factorize(col[known], sort=True)
        V = len(values)
        table = np.zeros((V, K))
        np.add.at(table, (codes, y_enc[known]), w[known])
        nv = table.sum(axis=1)
        total = nv.sum()
        if total <= 0:
            continue
        rest = table.sum(axis=0) - table
        split = (nv * gini(table) + (total - nv) * gini(rest)) / total
        index = float((nv * gini(table)).sum() / total)
        best = int(np.argmin(split))
        for v in range(V):
            rows.append(
                dict(
                    feature=name,
                    value=values[v],
                    weight=float(nv[v]),
                    gini_value=float(gini(table[v])),
                    gini_rest=float(gini(rest[v])),
                    gini_split=float(split[v]),
                    gini_index=index,
                    best=v == best,
                )
            )
    out = pd.DataFrame(rows)
    out.attrs["gini"] = float(gini(np.bincount(y_enc, weights=w, minlength=K)))
    return out
