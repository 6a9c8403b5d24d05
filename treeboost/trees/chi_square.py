"""The chi-square test of a split, the pre-pruning rule of Quinlan's ID3 (1986) that
Mitchell (*Machine Learning*, 3.7.1) lists as a way to stop growing a tree.

With ``n_vk`` the (weighted) number of a node's samples of class ``k`` in branch ``v``
(known values only), ``n_v`` and ``n_k`` its margins and ``n`` its total, the split's
statistic is

``chi2 = sum_v sum_k (n_vk - e_vk)^2 / e_vk``,  ``e_vk = n_v n_k / n``,

with ``(V - 1)(K - 1)`` degrees of freedom, ``V`` the non-empty branches and ``K`` the
classes present.  Under the hypothesis that the attribute is irrelevant to the class,
``chi2`` follows the chi-square law; the p-value is ``P(X >= chi2)``.  A node is split only
if the chosen attribute's p-value is below ``chi2_alpha`` (the weights count as cases).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from scipy.stats import chi2 as _chi2

if TYPE_CHECKING:
    from .._typing import ArrayLike, Float64Array

__all__ = ["ChiSquare", "chi_square"]


class ChiSquare(NamedTuple):
    """The test of one contingency table (or of a stack of them)."""

    statistic: Float64Array
    dof: Float64Array
    p_value: Float64Array


def chi_square(table: ArrayLike) -> ChiSquare:
    """The chi-square statistic, degrees of freedom and p-value of each table.

    Parameters
    ----------
    table : array-like of shape (..., n_branches, n_classes)
        Class weights of each branch.  Empty branches and absent classes take no part
        (they add no degree of freedom).  A table with one branch or one class has
        statistic 0, 0 degrees of freedom and p-value 1.

    Returns
    -------
    ChiSquare
    """
    t = np.asarray(table, dtype=np.float64)
    nv = t.sum(axis=-1, keepdims=True)
    nk = t.sum(axis=-2, keepdims=True)
    n = nv.sum(axis=-2, keepdims=True)
    expected = nv * nk / np.where(n > 0, n, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        cells = np.where(expected > 0, (t - expected) ** 2 / expected, 0.0)
    stat = cells.sum(axis=(-2, -1))
    dof = (np.count_nonzero(nv[..., 0] > 0, axis=-1) - 1) * (
        np.count_nonzero(nk[..., 0, :] > 0, axis=-1) - 1
    )
    dof = np.maximum(dof, 0).astype(np.float64)
    p = np.where(dof > 0, _chi2.sf(stat, np.maximum(dof, 1.0)), 1.0)
    return ChiSquare(stat, dof, p)
