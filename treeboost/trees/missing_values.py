"""Missing values filled by the most common value at a node (Mitchell, *Machine Learning*,
3.7.4), the alternative to C4.5's fractional cases.

Mitchell's two rules, at each node ``n`` where ``Gain(S, A)`` is computed:

* ``"most_common"``: a missing value of ``A`` is replaced by the value most common among
  the training examples at ``n`` (weighted; ties: the smallest value);
* ``"most_common_class"``: by the value most common among the examples at ``n`` that have
  the same class (the node's overall most common value where no example of that class
  has a known value).

The filled values are used for the node's gains and to send its examples down the branches
(each whole, down one branch).  At prediction the class is unknown, so a missing (or
never seen) value follows the branch of the node's most common value under both rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .._typing import Float64Array, NDArray

__all__ = ["MISSING_RULES", "fill_node", "most_common"]

#: ``missing`` options of the classic trees: Quinlan's fractions and Mitchell's two fills
MISSING_RULES = ("fractional", "most_common", "most_common_class")


def most_common(x: Float64Array, w: Float64Array) -> float:
    """The value of largest total weight among the known ``x`` (ties: the smallest), or
    NaN when none is known."""
    known = ~np.isnan(x)
    if not known.any():
        return np.nan
    values, inverse = np.unique(x[known], return_inverse=True)
    return float(values[int(np.argmax(np.bincount(inverse, weights=w[known])))])


def fill_node(
    Xr: Float64Array, y: NDArray[np.int64], w: Float64Array, by_class: bool
) -> Float64Array:
    """A node's rows with every missing value filled.

    Parameters
    ----------
    Xr : ndarray of shape (n_rows, n_features)
        The node's rows (codes of categorical columns, values of continuous ones; NaN
        missing).
    y, w : the rows' class indices and weights
    by_class : bool
        Fill with the most common value among the rows of the same class.

    Returns
    -------
    filled : ndarray, a copy of ``Xr`` (a column with no known value stays missing)
    """
    filled = Xr.copy()
    missing = np.isnan(Xr)
    for f in np.flatnonzero(missing.any(axis=0)):
        x, miss = Xr[:, f], missing[:, f]
        overall = most_common(x, w)
        if not by_class:
            filled[miss, f] = overall
            continue
        for k in np.unique(y[miss]):
            same = y == k
            value = most_common(x[same], w[same])
            filled[miss & same, f] = overall if np.isnan(value) else value
    return filled
