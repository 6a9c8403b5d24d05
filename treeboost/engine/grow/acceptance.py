"""The rules that accept a node's split, written once for every loop that grows a tree
(the compiled grower, :mod:`.examine`, and the stepped grower of the data-parallel
trainer, :mod:`.stepped`):

* **stopping**: :func:`stopping_allows`, whether the stopping rules let a node split (the
  compiled grower, the data-parallel trainer, and the choice of a tree's subtree tasks);
* **ties**: :func:`better_score`, the best feature's score against the next one's, where
  scores equal within the rounding of their sums go to the lowest feature index;
* **gain**: :func:`gain_accepted`, whether the best split's gain is large enough to keep;
* **attribute costs**: :func:`cost_sensitive_measure`, what the features' best splits are
  compared by when measuring each feature has a cost (Mitchell, 3.7.5).
"""

from typing import NamedTuple

import numpy as np

from .._numba.jit import inlined
from ..split.criteria import NEWTON

#: GrowthParams.cost_measure: the features' scores compared as they are, Tan and
#: Schlimmer's measure, Nunez's
NO_COST, TAN_SCHLIMMER, NUNEZ = 0, 1, 2
#: the measures by the names the estimators take
COST_MEASURE_CODES = {"tan_schlimmer": TAN_SCHLIMMER, "nunez": NUNEZ}


class AttributeCosts(NamedTuple):
    """What a tree grown with attribute costs compares its features by."""

    #: (n_features,) float64 > 0: the cost of measuring each feature
    cost: np.ndarray
    #: "tan_schlimmer" or "nunez"
    measure: str
    #: Nunez's w in [0, 1]
    weight: float


#: a regularised second-order gain must exceed this fraction of the split's score
#: ``G_L^2/(H_L+l) + G_R^2/(H_R+l)``: below it the gain is rounding error, at any scale
#: of the gradients
NEWTON_GAIN_RTOL = 1e-12
#: an impurity decrease within this fraction of the root weight of zero still counts
#: (ties of exactly equal impurity must not be lost to rounding)
DECREASE_ATOL = 1e-12
#: scores closer than this (relative) are equal when ties go to the lowest feature index
SCORE_RTOL = 1e-10


@inlined
def stopping_allows(depth, n_samples, weight, params):
    """Whether the stopping rules let a node at ``depth`` of ``n_samples`` samples and
    total sample weight ``weight`` split:

    ``(max_depth < 0 or depth < max_depth) and n_samples >= min_samples_split and
    n_samples >= 2 min_samples_leaf and weight >= 2 min_weight_leaf``

    (``params`` a :class:`~..records.GrowthParams` or any record with those four fields,
    ``max_depth`` -1 for none).  Written with ``&`` and ``|``, it takes arrays of nodes
    as well as one node (the subtree tasks ask it of all of a tree's leaves at once)."""
    return (
        ((params.max_depth < 0) | (depth < params.max_depth))
        & (n_samples >= params.min_samples_split)
        & (n_samples >= 2 * params.min_samples_leaf)
        & (weight >= 2 * params.min_weight_leaf)
    )


@inlined
def better_score(score, best_score, best):
    """Whether a feature scoring ``score`` replaces the best so far (``best_score`` of
    feature ``best``, -1 when none): only by more than :data:`SCORE_RTOL` relative, so
    that equal scores within the rounding of their sums go to the lowest index whatever
    order the histograms were summed in (threads, or the data-parallel trainer)."""
    return score > best_score and (best < 0 or score - best_score > SCORE_RTOL * abs(best_score))


@inlined
def gain_accepted(gain, score, params, root_w):
    """Whether the best split, of ``score`` and ``gain`` (its decrease of the node's
    impurity), is kept.

    For the second-order gain (``params.criterion == NEWTON``), with ``gain`` the
    regularised ``(G_L^2/(H_L+l) + G_R^2/(H_R+l) - G^2/(H+l)) / 2``: it must exceed
    :data:`NEWTON_GAIN_RTOL` times ``score`` (no rounding error passes for a gain) and
    reach ``params.min_decrease`` (LightGBM's ``min_split_gain``, halved: LightGBM's
    gain has no factor 1/2).  For an impurity decrease: ``gain >= min_decrease *
    root_w`` within :data:`DECREASE_ATOL` ``* root_w`` (scikit-learn's
    ``min_impurity_decrease``, scaled by the root weight ``root_w``).
    """
    if params.criterion == NEWTON:
        return gain > NEWTON_GAIN_RTOL * score and gain >= params.min_decrease
    return gain + DECREASE_ATOL * root_w >= params.min_decrease * root_w


@inlined
def cost_sensitive_measure(gain, cost, measure, weight):
    """The cost-sensitive measure of a feature whose split gains ``gain`` at a node
    (the node's impurity minus its children's, weighted by their share of the node:
    ``Gain(S, A)``) and whose measurement costs ``cost``: Tan and Schlimmer's
    ``Gain^2 / Cost`` (``measure == TAN_SCHLIMMER``) or Nunez's ``(2^Gain - 1) / (Cost +
    1)^w`` (``NUNEZ``, ``w = weight``).  Both rise with the gain at a fixed cost, so a
    feature's best split is the same with or without costs; only the choice between
    features changes."""
    if measure == TAN_SCHLIMMER:
        return gain * gain / cost
    return np.expm1(gain * np.log(2.0)) / (cost + 1.0) ** weight
