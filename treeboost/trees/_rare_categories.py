"""Categorical columns of any cardinality: frequent categories keep their own code, rare
ones share one.

The trees store a categorical split as a 256-bit set of category codes, so a column
reaches them with at most ``MAX_CATEGORIES`` (255) codes.  A column with more categories
than that is grouped at fit by this rule:

1. the categories with at least ``MIN_OWN_ROWS`` rows in the training data are ranked by
   their number of rows, most frequent first, ties in the order of the column's
   categories (sorted labels, or a pandas ``category`` dtype's own order);
2. the first ``MAX_CATEGORIES - 1`` (254) of them keep a code of their own, numbered
   ``0..k-1`` in the column's order of categories;
3. every other category seen at fit (fewer rows, or beyond the 254th) is *rare* and takes
   the shared code ``k``.

A column with at most 255 categories is not grouped: each category keeps its code, however
few its rows, as before grouped columns existed (benchmarks/README.md, "Categorical
features of 1,000 categories", has the measurements behind both choices).  A category never
seen at fit is missing at predict; a rare one takes the shared code there too.
"""
from typing import NamedTuple, Optional

import numpy as np

from ..engine.binning import MAX_CATEGORIES

__all__ = ["MIN_OWN_ROWS", "OTHER_LABEL", "Grouping", "group_categories", "describe_other"]

#: rows a category needs at fit to keep its own code in a grouped column (LightGBM's
#: default ``min_data_in_bin`` for its category bins)
MIN_OWN_ROWS = 3
#: the label of the shared code in ``categories_`` (made unique if a category has it)
OTHER_LABEL = "other (rare)"
#: rare categories listed by :func:`describe_other`
_LISTED = 3


class Grouping(NamedTuple):
    """How one categorical column's categories map to codes.

    Attributes
    ----------
    own : ndarray of shape (k,)
        Categories with a code of their own: ``own[i]`` is encoded as ``i``.
    rare : ndarray or None
        Categories that share code ``k`` (None: the column is not grouped).
    other_label : str or None
        The label of code ``k`` (None when not grouped).
    """
    own: np.ndarray
    rare: Optional[np.ndarray]
    other_label: Optional[str]

    @property
    def labels(self):
        """One label per code: ``own``, then ``other_label`` when grouped."""
        if self.rare is None:
            return self.own
        return np.concatenate([self.own, np.array([self.other_label], dtype=object)])


def group_categories(categories, counts):
    """The codes of a column's categories by the rule of this module.

    Parameters
    ----------
    categories : ndarray of shape (m,)
        The column's distinct categories, in the column's order.
    counts : ndarray of int, shape (m,)
        Rows of each category in the training data (0 for a declared, unused category).

    Returns
    -------
    Grouping
    """
    categories = np.asarray(categories, dtype=object)
    counts = np.asarray(counts, dtype=np.int64)
    if categories.shape[0] <= MAX_CATEGORIES:
        return Grouping(categories, None, None)
    eligible = np.flatnonzero(counts >= MIN_OWN_ROWS)
    # most rows first; a stable sort keeps the column's order among equal counts
    ranked = eligible[np.argsort(-counts[eligible], kind="stable")]
    own = np.zeros(categories.shape[0], bool)
    own[ranked[:MAX_CATEGORIES - 1]] = True
    return Grouping(categories[own], categories[~own], _unique_other_label(categories))


def _unique_other_label(categories):
    """``OTHER_LABEL``, followed by as many ``*`` as make it differ from every category."""
    taken = {c for c in categories.tolist() if isinstance(c, str)}
    label = OTHER_LABEL
    while label in taken:
        label += "*"
    return label


def describe_other(rare):
    """Readable text for the shared code: how many categories, the first few of them.

    Parameters
    ----------
    rare : ndarray
        The categories of the shared code.

    Returns
    -------
    str
        ``"other (n rare: a, b, c, ...)"`` listing at most three.
    """
    shown = ", ".join(str(c) for c in rare[:_LISTED].tolist())
    more = ", …" if rare.shape[0] > _LISTED else ""
    return f"other ({rare.shape[0]} rare: {shown}{more})"
