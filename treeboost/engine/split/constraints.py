"""Monotonic and interaction constraints: which splits a node may take, which values it
may hold.

**Monotonic constraints** (``monotonic_cst[f]`` = +1 increasing, -1 decreasing, 0 none)
follow the bounds method of scikit-learn's trees and of LightGBM's "basic" method.
Every node carries an interval ``[lower, upper]`` of the values it may predict (the root
``(-inf, inf)``).  A node's value ``v`` is what the tree predicts there on the scale the
constraint speaks of: the mean target (regression), the rate of the positive class
(binary classification), the Newton step ``-G / (H + lambda)`` (boosting).

- A split on a constrained feature is valid only if its children's values ``v_L, v_R``
  lie in the node's interval and are ordered, ``(v_L - v_R) * cst <= 0``.
- Its children's intervals meet at ``m = (v_L + v_R) / 2``: for ``cst = +1`` the left
  child gets ``[lower, m]`` and the right one ``[m, upper]`` (mirrored for -1); a split
  on an unconstrained feature passes the node's interval to both.
- Every node's value is clipped to its interval.

Then each leaf of a left subtree of a ``+1`` split is at most ``m`` and each leaf of its
right subtree at least ``m``, so raising the feature (which moves a sample from left to
right at the splits on it, and nowhere else) never lowers the prediction.  In
boosting the children's Newton values are clipped to the interval before the split is
scored, its score is the second-order loss at the clipped values,
``-(2 G v + (H + lambda) v^2)`` per child (LightGBM's), and only the order is checked.

Leaf values set after growth (boosting's line searches: medians, quantiles) are put
back into order by :func:`monotone_leaf_values`.

**Interaction constraints** (boosting): a list of feature sets; the features of one
branch must all belong to one set.  A node keeps the sets that hold every feature split
on above it, as a bitmask (``n_words`` 64-bit words); a feature may split it when one
of those sets holds it (scikit-learn's HistGradientBoosting and LightGBM's rule).
"""

from collections import namedtuple

import numpy as np

from .criteria import NEWTON, is_regression, l1_threshold, newton_leaf_value
from .._numba.jit import inlined, internal

#: the columns of the grower's node intervals (NodeArrays.interval): one array for the
#: three, as every array of the grower's records is one more field its kernels pass
LOWER, UPPER, MIDDLE = 0, 1, 2

#: a tree's constraints, in the form the grower reads (see TreeGrower)
Constraints = namedtuple(
    "Constraints",
    [
        "monotonic_cst",  # (n_features,) int8 in {-1, 0, 1}, or None
        "interaction_cst",  # list of sequences of feature indices, or None
    ],
)

#: what the split search needs of one node and feature
MonotonicCheck = namedtuple(
    "MonotonicCheck",
    [
        "active",  # bool: the tree has a monotonic constraint
        "cst",  # the feature's constraint, -1, 0 or 1
        "lower",
        "upper",  # the node's interval
    ],
)


@inlined
def clip(v, lower, upper):
    return lower if v < lower else (upper if v > upper else v)


@internal
def child_values(left, total, crit, l1, l2):
    """The values ``(v_L, v_R)`` of the two children of a split whose left child has the
    sums ``left`` and whose node has ``total``: the Newton step, the mean target, or the
    positive-class rate."""
    if crit == NEWTON:
        gl = left[0]
        hl = left[1]
        return (
            newton_leaf_value(gl, hl, l1, l2),
            newton_leaf_value(total[0] - gl, total[1] - hl, l1, l2),
        )
    if is_regression(crit):
        wl = left[0]
        wr = total[0] - wl
        sl = left[1]
        return (sl / wl if wl > 0.0 else 0.0, (total[1] - sl) / wr if wr > 0.0 else 0.0)
    c0 = left[0]
    c1 = left[1]
    r0 = total[0] - c0
    r1 = total[1] - c1
    return (c1 / (c0 + c1) if c0 + c1 > 0.0 else 0.0, r1 / (r0 + r1) if r0 + r1 > 0.0 else 0.0)


@internal
def newton_loss_score(g, h, l1, l2, v):
    """``-(2 T(G) v + (H + lambda) v^2)``: twice the second-order loss decrease of value
    ``v`` (``T(G)^2 / (H + lambda)`` at the unconstrained optimum ``v = -T(G) / (H +
    lambda)``; ``T`` the L1 threshold, :func:`~.criteria.l1_threshold`)."""
    return -(2.0 * l1_threshold(g, l1) * v + (h + l2) * v * v)


@internal
def newton_constrained(gl, hl, gr, hr, l1, l2, check):
    """A boosting split with children sums ``(G_L, H_L)``, ``(G_R, H_R)`` under the
    constraints: ``(score, middle)`` at the Newton values clipped to the node's interval,
    ``-inf`` when they break the feature's order."""
    vl = clip(newton_leaf_value(gl, hl, l1, l2), check.lower, check.upper)
    vr = clip(newton_leaf_value(gr, hr, l1, l2), check.lower, check.upper)
    if check.cst != 0 and (vl - vr) * check.cst > 0.0:
        return -np.inf, 0.0
    return (
        newton_loss_score(gl, hl, l1, l2, vl) + newton_loss_score(gr, hr, l1, l2, vr),
        0.5 * (vl + vr),
    )


@internal
def ordered_in_interval(vl, vr, check):
    """``(ok, middle)``: whether children of values ``vl``, ``vr`` satisfy the feature's
    constraint (for a constrained feature: both in the node's interval, in its order),
    and the middle ``(vl + vr) / 2`` where their intervals would meet."""
    if check.cst != 0:
        if not (check.lower <= vl <= check.upper and check.lower <= vr <= check.upper):
            return False, 0.0
        if (vl - vr) * check.cst > 0.0:
            return False, 0.0
    return True, 0.5 * (vl + vr)


@internal
def constrained_score(score, left, total, crit, l1, l2, check):
    """A candidate split under the constraints: ``(score, middle)``, its score (``-inf``
    when it breaks the feature's constraint; for boosting, the score at the clipped
    values) and the middle ``(v_L + v_R) / 2`` where the children's intervals meet."""
    if crit == NEWTON:
        return newton_constrained(
            left[0], left[1], total[0] - left[0], total[1] - left[1], l1, l2, check
        )
    vl, vr = child_values(left, total, crit, l1, l2)
    ok, mid = ordered_in_interval(vl, vr, check)
    return (score if ok else -np.inf), mid


@internal
def newton_decrease(score, total, l1, l2, check):
    """The loss decrease of a boosting split of score ``score`` (at clipped values, see
    :func:`newton_constrained`) from the node's own value clipped to its interval:
    ``1/2 (score - score of the node)``."""
    v = clip(newton_leaf_value(total[0], total[1], l1, l2), check.lower, check.upper)
    return 0.5 * (score - newton_loss_score(total[0], total[1], l1, l2, v))


def clip_node_values(value, lower, upper, classification):
    """Clip each node's value to its interval, in place: the single column of a
    regression or boosting tree, or the positive-class rate of a binary classifier (the
    negative class's rate then is its complement)."""
    if classification:
        value[:, 1] = np.clip(value[:, 1], lower, upper)
        value[:, 0] = 1.0 - value[:, 1]
    else:
        value[:, 0] = np.clip(value[:, 0], lower, upper)


def monotone_leaf_values(children_left, children_right, feature, values, monotonic_cst):
    """Leaf values put in the order the constraints ask, for values set after growth
    (a boosting loss's line search).

    Top-down from the root's interval ``(-inf, inf)``: at a split on a constrained
    feature the children's intervals meet at the middle of the largest value of the
    subtree that must be lower and the smallest of the one that must be higher (each
    clipped to the node's interval); a leaf's value is clipped to its interval.  Values
    already in order are unchanged.

    Parameters
    ----------
    children_left, children_right, feature : ndarray of shape (n_nodes,)
        The tree (children after their parent, ``-1`` at leaves).
    values : ndarray of shape (n_nodes,)
        Node values; only the leaves' are read.
    monotonic_cst : ndarray of shape (n_features,)

    Returns
    -------
    ndarray of shape (n_nodes,)
    """
    n = values.shape[0]
    out = np.asarray(values, dtype=np.float64).copy()
    leaf = children_left < 0
    # smallest and largest leaf value of each subtree: children have larger ids
    lo_sub = np.where(leaf, out, np.inf)
    hi_sub = np.where(leaf, out, -np.inf)
    for i in range(n - 1, -1, -1):
        if not leaf[i]:
            a, b = children_left[i], children_right[i]
            lo_sub[i] = min(lo_sub[a], lo_sub[b])
            hi_sub[i] = max(hi_sub[a], hi_sub[b])
    lower = np.full(n, -np.inf)
    upper = np.full(n, np.inf)
    for i in range(n):
        lo, hi = lower[i], upper[i]
        if leaf[i]:
            out[i] = min(max(out[i], lo), hi)
            continue
        a, b = children_left[i], children_right[i]
        cst = monotonic_cst[feature[i]]
        if cst == 0:
            lower[a], upper[a], lower[b], upper[b] = lo, hi, lo, hi
            continue
        low_side, high_side = (a, b) if cst > 0 else (b, a)
        mid = 0.5 * (min(max(hi_sub[low_side], lo), hi) + min(max(lo_sub[high_side], lo), hi))
        lower[low_side], upper[low_side] = lo, mid
        lower[high_side], upper[high_side] = mid, hi
    return out


#: a tree's constraints as the grower's :class:`~.layout.GrowthParams` hold them
GrowthConstraints = namedtuple(
    "GrowthConstraints",
    [
        "monotonic",  # bool: some feature has a monotonic constraint
        "monotonic_cst",  # (n_features,) int8, zeros without constraints
        "interaction",  # (n_features, n_words) uint64 (interaction_masks)
        "fixed_features",  # bool: every node searches the same features (one set)
    ],
)


def growth_constraints(constraints, n_features, tree_features=None):
    """``constraints`` (a :class:`Constraints`, or None for none) as the grower reads
    them: a :class:`GrowthConstraints` of one type whatever was given, so that one
    compiled grower serves every estimator.  A ``monotonic_cst`` of another length
    than ``n_features`` is refused (ValueError).

    ``tree_features`` (indices, or None for all) are the only features the tree may
    split on (boosting's ``colsample_bytree``): the other features leave every
    interaction set, which the grower then never opens for them (:func:`.grow.sampling.
    allowed_features`); without interaction constraints the drawn features form the
    one set, and every node searches the same features (``fixed_features``)."""
    monotonic_cst = None if constraints is None else constraints.monotonic_cst
    monotonic = monotonic_cst is not None and bool(np.any(monotonic_cst))
    if monotonic_cst is None:
        monotonic_cst = np.zeros(n_features, np.int8)
    monotonic_cst = np.ascontiguousarray(monotonic_cst, dtype=np.int8)
    if monotonic_cst.shape != (n_features,):
        raise ValueError(
            f"monotonic_cst has {monotonic_cst.shape[0]} entries for {n_features} features."
        )
    interaction_cst = None if constraints is None else constraints.interaction_cst
    if tree_features is not None and interaction_cst is None:
        interaction_cst = [range(n_features)]
    masks = interaction_masks(interaction_cst, n_features)
    if tree_features is not None:
        drawn = np.zeros(n_features, bool)
        drawn[np.asarray(tree_features, dtype=np.int64)] = True
        masks[~drawn] = 0
    fixed = interaction_cst is not None and len(interaction_cst) == 1
    return GrowthConstraints(monotonic, monotonic_cst, masks, fixed)


def interaction_masks(interaction_cst, n_features):
    """The sets of ``interaction_cst`` as bitmasks: row ``f`` has bit ``s`` set when set
    ``s`` holds feature ``f``; shape ``(n_features, n_words)``, ``n_words = 0`` without
    constraints."""
    if interaction_cst is None:
        return np.zeros((n_features, 0), np.uint64)
    n_words = max(1, (len(interaction_cst) + 63) // 64)
    masks = np.zeros((n_features, n_words), np.uint64)
    for s, features in enumerate(interaction_cst):
        for f in features:
            masks[int(f), s >> 6] |= np.uint64(1) << np.uint64(s & 63)
    return masks
