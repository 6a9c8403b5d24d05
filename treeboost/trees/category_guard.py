"""The category guard of the trees' categorical splits: its parameters and defaults.

A categorical split of a tree sends a subset of the node's categories left.  Its search
orders the categories by their mean target (class rate) and takes the best prefix of that
order, the optimal subset (Fisher 1958; Breiman et al. 1984).  With many categories of
few rows each, that optimum is mostly noise: a category of three rows sits at an end of
the order by its own labels, and the subset separates the training rows rather than the
categories' effects.  At a node with more than ``MAX_CAT_EXACT`` (4) categories present
every tree estimator therefore applies two rules, the ones boosting applies as
LightGBM does (:mod:`treeboost.engine.split.search`, the same code):

* ``min_samples_per_category``: a category with fewer rows in the node is left out of
  the search and treated as a missing value there: its rows go with the node's missing
  values, to the side the search finds better for them;
* ``cat_smooth``: the others are ordered by their smoothed mean
  ``(sum_i w_i y_i + s m) / (sum_i w_i + s)``, ``s = cat_smooth``, ``m`` the node's mean
  (for classification, each class's weight ``y_i = 1`` for that class, ``m`` the node's
  rate of it), so that a category of few rows sits near the node's mean.

At every categorical split, a category with no row in the node (never seen at fit, or
not in this node) goes where the node's missing values go: the side learned from them
when the node has some (missing values, or categories set aside by the first rule), else
the larger child.  A node with at most 4 categories present keeps the exact search.

``min_samples_per_category=0, cat_smooth=0`` is the exact search of every prefix
(scikit-learn's trees have no categories; their ordinal codes are cut as numbers).  The
defaults were chosen on the bench of small data sets
(``python benchmarks/bench_twins.py``; see the user guide's page on categorical data).
"""

from numbers import Integral, Real

from sklearn.utils._param_validation import Interval

__all__ = ["MIN_SAMPLES_PER_CATEGORY", "CAT_SMOOTH", "GUARD_CONSTRAINTS", "category_guard"]

#: the default of ``min_samples_per_category`` of every tree estimator
MIN_SAMPLES_PER_CATEGORY = 5
#: the default of ``cat_smooth`` of every tree estimator
CAT_SMOOTH = 10.0

#: the parameters' constraints, as ``_parameter_constraints`` entries
GUARD_CONSTRAINTS = {
    "min_samples_per_category": [Interval(Integral, 0, None, closed="left")],
    "cat_smooth": [Interval(Real, 0.0, None, closed="left")],
}


def category_guard(estimator):
    """The grower's :class:`~treeboost.engine.grow.grower.CategoryGuard` of a tree estimator
    (its parameters, the defaults for an estimator of an older version without them)."""
    from ..engine import CategoryGuard

    params = vars(estimator)
    return CategoryGuard(
        int(params.get("min_samples_per_category", MIN_SAMPLES_PER_CATEGORY)),
        float(params.get("cat_smooth", CAT_SMOOTH)),
    )
