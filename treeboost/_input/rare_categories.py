"""Categorical columns of any cardinality: more than 255 categories in at most 255 codes.

The trees store a categorical split as a 256-bit set of category codes, so a column
reaches them with at most ``MAX_CATEGORIES`` (255) codes.  A column with more categories
than that is grouped at fit, by its target when the model has a target to rank
categories by (:func:`group_by_target`), else by frequency (:func:`group_categories`).

**By target** (regression, and classification with two classes):

1. a category with at least ``MIN_TARGET_ROWS`` rows is *ranked* by its smoothed target
   mean ``(sum_i w_i y_i + s m) / (sum_i w_i + s)``, ``s = CAT_SMOOTH`` (LightGBM's
   ``cat_smooth``, which the boosting split search uses too), ``m`` the column's weighted
   mean of ``y`` (for two classes, ``y`` is 1 for the second class of ``classes_``);
2. the ranked categories are cut, in that order, into ``G = n // TARGET_GROUP_ROWS``
   groups (at least 1, at most 254) of about ``n / G`` rows each, ``n`` their rows;
   group ``g`` is code ``g``;
3. the other categories (fewer rows, or declared but unused) share the code ``G``.

A category with few rows has a target mean that is mostly noise; ranking it would let a
split separate the training rows by their own labels (an identifier column would become
a perfect, useless predictor), which is why it shares a code instead, as LightGBM leaves
such categories out of its split search.  The groups of similar means keep what the
categories' effects say about the target: with 1,000 categories the trees see about as
much as LightGBM does with one bin per category (``python
benchmarks/bench_categorical.py``).

**By frequency** (no target, or more than two classes):

1. the categories with at least ``MIN_OWN_ROWS`` rows in the training data are ranked by
   their number of rows, most frequent first, ties in the order of the column's
   categories (sorted labels, or a pandas ``category`` dtype's own order);
2. the first ``MAX_CATEGORIES - 1`` (254) of them keep a code of their own, numbered
   ``0..k-1`` in the column's order of categories;
3. every other category seen at fit (fewer rows, or beyond the 254th) is *rare* and takes
   the shared code ``k``.

A column with at most 255 categories is not grouped: each category keeps its code, however
few its rows, as before grouped columns existed (``benchmarks/bench_categorical.py``
measures both choices; ``--n-categories 250`` the ungrouped one).  A category never
seen at fit is missing at predict; a rare one takes the shared code there too.
"""

from typing import NamedTuple, Optional

import numpy as np

from ..engine import CAT_SMOOTH, MAX_CATEGORIES

__all__ = [
    "MIN_OWN_ROWS",
    "MIN_TARGET_ROWS",
    "TARGET_GROUP_ROWS",
    "OTHER_LABEL",
    "Grouping",
    "group_categories",
    "group_by_target",
    "describe_other",
    "describe_group",
]

#: rows a category needs at fit to keep its own code in a grouped column (LightGBM's
#: default ``min_data_in_bin`` for its category bins)
MIN_OWN_ROWS = 3
#: rows a category needs at fit to be ranked by its target mean: a category of one or two
#: rows is mostly its own label; above this, 10 rows (the ``CAT_SMOOTH`` a category needs
#: to take part in boosting's split search) lost accuracy on the benchmark
MIN_TARGET_ROWS = 5
#: rows per group of a column grouped by its target (chosen by measurement, see the
#: module docstring)
TARGET_GROUP_ROWS = 500
#: the label of the shared code in ``categories_`` (made unique if a category has it)
OTHER_LABEL = "other (rare)"
#: the label of group ``g`` of a column grouped by its target
GROUP_LABEL = "target group {}"
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
    rare_codes : ndarray of int64 or None
        A column grouped by its target: ``own`` is empty, ``rare`` holds every category
        seen at fit and ``rare_codes`` their codes, and ``group_labels`` names the codes.
        None: the rare categories share code ``k``.
    group_labels : ndarray or None
        The labels of the codes of a column grouped by its target.
    """

    own: np.ndarray
    rare: Optional[np.ndarray]
    other_label: Optional[str]
    rare_codes: Optional[np.ndarray] = None
    group_labels: Optional[np.ndarray] = None

    @property
    def labels(self):
        """One label per code: ``own``, then ``other_label`` when grouped."""
        if self.group_labels is not None:
            return self.group_labels
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
    own[ranked[: MAX_CATEGORIES - 1]] = True
    return Grouping(categories[own], categories[~own], _unique_other_label(categories))


def group_by_target(categories, row_category, target, weight):
    """The codes of a column's categories grouped by their smoothed target mean (the rule
    of this module).

    Parameters
    ----------
    categories : ndarray of shape (m,)
        The column's distinct categories, in the column's order (``m > 255``).
    row_category : ndarray of int, shape (n,)
        Each non-missing training row's position in ``categories``.
    target : ndarray of float, shape (n,)
        Those rows' targets (0/1 for two classes).
    weight : ndarray of float, shape (n,)
        Those rows' sample weights (rows of weight 0 count for nothing).

    Returns
    -------
    Grouping
        With ``own`` empty, ``rare`` the categories and ``rare_codes`` their codes.
    """
    categories = np.asarray(categories, dtype=object)
    m = categories.shape[0]
    positive = weight > 0
    rows = np.bincount(row_category[positive], minlength=m)
    w = np.bincount(row_category, weights=weight, minlength=m)
    wy = np.bincount(row_category, weights=weight * target, minlength=m)
    prior = wy.sum() / w.sum() if w.sum() > 0 else 0.0
    mean = (wy + CAT_SMOOTH * prior) / (w + CAT_SMOOTH)
    ranked = np.flatnonzero(rows >= MIN_TARGET_ROWS)
    ranked = ranked[np.argsort(mean[ranked], kind="stable")]
    n = rows[ranked].sum()
    n_groups = int(min(MAX_CATEGORIES - 1, max(1, n // TARGET_GROUP_ROWS)))
    codes = np.full(m, n_groups, dtype=np.int64)
    if ranked.shape[0]:
        # a category's group is where the middle of its rows falls in the ranked rows
        middle = np.cumsum(rows[ranked]) - rows[ranked] / 2.0
        codes[ranked] = np.minimum((middle * n_groups / n).astype(np.int64), n_groups - 1)
    # codes in use, renumbered without gaps (a group may receive no category)
    used = np.unique(codes)
    codes = np.searchsorted(used, codes).astype(np.int64)
    n_ranked_codes = int(np.searchsorted(used, n_groups))
    labels = [GROUP_LABEL.format(g) for g in range(n_ranked_codes)]
    if used[-1] == n_groups:
        labels.append(OTHER_LABEL)
    labels = _distinct_from(labels, categories)
    return Grouping(categories[:0], categories, None, codes, np.array(labels, dtype=object))


def _distinct_from(labels, categories):
    """``labels``, each followed by as many ``*`` as make it differ from every category."""
    taken = {c for c in categories.tolist() if isinstance(c, str)}
    out = []
    for label in labels:
        while label in taken:
            label += "*"
        out.append(label)
    return out


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


def describe_group(label, members):
    """Readable text for a code of a column grouped by its target.

    Returns
    -------
    str
        ``"target group 3 (17: a, b, c, ...)"``: the label, how many categories, the
        first three of them (``describe_other``'s text for the shared code).
    """
    if label.startswith(OTHER_LABEL):
        return describe_other(members)
    shown = ", ".join(str(c) for c in members[:_LISTED].tolist())
    more = ", …" if members.shape[0] > _LISTED else ""
    return f"{label} ({members.shape[0]}: {shown}{more})"
