"""Impurity and gain formulas, one small numba function each.

Every criterion works on a vector ``s`` of summed per-sample statistics
(a histogram bin, a child, or a whole node):

=================  ==========================  ===========================================
criterion          statistics ``s``            node term ``T(s)`` (lower is purer)
=================  ==========================  ===========================================
``gini``           ``w_k`` per class           ``W - sum_k w_k^2 / W``   (``W * Gini``)
``entropy``        ``w_k`` per class           ``W log2 W - sum_k w_k log2 w_k`` (``W * Ent``)
``gain_ratio``     ``w_k`` per class           as ``entropy``; score = gain / split info
``squared_error``  ``(w, w*y)``, or            ``-(sum w y)^2 / W`` (``W * variance`` minus
                   ``(w, w*y_1, .., w*y_K)``   ``sum w y^2``, which cancels in a split),
                   for K outputs               averaged over the outputs
``friedman_mse``   ``(w, w*y)``                as ``squared_error``; a split is scored by
                                               Friedman's improvement
                                               ``W_L W_R (mean_L - mean_R)^2 / W``
``poisson``        ``(w, w*y)``                ``-S log(S / W)``, ``S = sum w y`` (``W *``
                                               half Poisson deviance minus
                                               ``sum w y log y``, which cancels)
``absolute_error`` ``(w, w*y)`` (its split    ``sum w |y - median|``: no sum gives it, the
                   search reads the samples)   split search sweeps the node's samples
                                               (:mod:`.median_split`)
``newton``         ``(g, h)`` (gradient,       ``-1/2 T(G)^2 / (H + lambda)``
                   hessian, sample-weighted)
=================  ==========================  ===========================================

``newton``'s ``T(G) = sign(G) max(|G| - alpha, 0)`` is the gradient sum soft-thresholded
by the L1 penalty ``alpha`` on the leaf values (LightGBM's ``lambda_l1``, XGBoost's
``alpha``; ``T(G) = G`` when ``alpha`` is 0), ``lambda`` the L2 penalty: every
second-order formula of the engine (a split's gain, a node's value ``-T(G)/(H +
lambda)``, the loss of a clipped value) reads ``G`` through :func:`l1_threshold`.

The weighted impurity decrease of a split of a parent ``P`` into ``L`` and ``R`` is
``T(P) - T(L) - T(R)``.  Divided by the total weight of the root it is scikit-learn's
``min_impurity_decrease`` quantity; for ``newton`` it is the second-order gain of
XGBoost / LightGBM, ``1/2 [T(G_L)^2/(H_L+l) + T(G_R)^2/(H_R+l) - T(G)^2/(H+l)]``.

A regression tree's leaves predict the weighted mean, or the weighted median for
``absolute_error``.  The impurity it reports is scikit-learn's: the weighted variance
(``squared_error``, ``friedman_mse``), the half Poisson deviance
``sum w y log(y / mean) / W`` (``poisson``; the deviance's other term,
``sum w (mean - y)``, is zero at the mean) or the mean absolute deviation
``sum w |y - median| / W`` (``absolute_error``).  The last two need each node's samples
(``sum w y log y``, the median), so the grower keeps the variance while it grows (its
purity test) and :mod:`.node_targets` computes them after growth.

The gain ratio (C4.5) divides the information gain ``(T(P) - T(L) - T(R)) / W_P`` by the
split information of the binary partition, ``IV = -sum_{c in L,R} W_c/W_P log2(W_c/W_P)``.
"""

import numpy as np
from .._numba.jit import inlined, kernel

GINI = 0
ENTROPY = 1
GAIN_RATIO = 2
SQUARED_ERROR = 3
NEWTON = 4
FRIEDMAN_MSE = 5
POISSON = 6
ABSOLUTE_ERROR = 7

CLASSIFICATION_CRITERIA = {
    "gini": GINI,
    "entropy": ENTROPY,
    "log_loss": ENTROPY,
    "gain_ratio": GAIN_RATIO,
}
REGRESSION_CRITERIA = {
    "squared_error": SQUARED_ERROR,
    "friedman_mse": FRIEDMAN_MSE,
    "poisson": POISSON,
    "absolute_error": ABSOLUTE_ERROR,
}

#: a child of a Poisson split must hold a sum of targets above this (scikit-learn's
#: EPSILON): its mean must be positive
POISSON_MIN_SUM = np.finfo(np.float64).eps
#: ... and above this fraction of its parent's sum: a child's sum is a difference of sums
#: whose rounding leaves a residue in proportion to the parent's sum (up to one
#: rounding per sample), which must not pass for the sum of a child of zeros
POISSON_SUM_RTOL = 1e-8

_LOG2 = np.log(2.0)


@inlined
def is_regression(crit):
    """Whether ``crit`` is a regression tree's criterion: statistics ``(w, w*y)``,
    leaves and categories ordered by the mean target."""
    return crit == SQUARED_ERROR or crit >= FRIEDMAN_MSE


@inlined
def node_weight(s, crit, n_stats):
    """Weight a node must keep for ``min_weight_leaf``: the sample weight for trees,
    the hessian sum (``min_child_weight``) for ``newton``."""
    if crit == NEWTON:
        return s[1]
    if is_regression(crit):
        return s[0]
    w = 0.0
    for k in range(n_stats):
        w += s[k]
    return w


@inlined
def l1_threshold(g, l1):
    """``T(G) = sign(G) max(|G| - alpha, 0)`` of a gradient sum ``g`` and the L1 penalty
    ``alpha = l1 >= 0``: the gradient sum every second-order formula reads (``g`` itself,
    the same bits, when ``l1`` is 0)."""
    if l1 == 0.0:
        return g
    if g > l1:
        return g - l1
    if g < -l1:
        return g + l1
    return 0.0


@inlined
def newton_gain_term(g, h, l1, l2):
    """``T(G)^2 / (H + lambda)`` of a node of sums ``(G, H) = (g, h)``, computed as
    ``T (T/(H+lambda))``: ``T^2`` alone would overflow for gradients near 1e155 and
    above."""
    t = l1_threshold(g, l1)
    return t * (t / (h + l2))


@inlined
def newton_leaf_value(g, h, l1, l2):
    """The Newton step ``-T(G) / (H + lambda)`` of a node of sums ``(G, H) = (g, h)``."""
    return -l1_threshold(g, l1) / (h + l2)


@kernel
def newton_leaf_values(G, H, l1, l2):
    """:func:`newton_leaf_value` of every node, ``G`` and ``H`` arrays of the nodes'
    sums; 0 where ``H + lambda`` is not positive (a node without samples)."""
    out = np.zeros(G.shape[0])
    for i in range(G.shape[0]):
        if H[i] + l2 > 0.0:
            out[i] = newton_leaf_value(G[i], H[i], l1, l2)
    return out


@kernel
def node_term(s, crit, n_stats, l1, l2):
    """``T(s)`` of the table above, so that a split's decrease is ``T(P)-T(L)-T(R)``."""
    if crit == NEWTON:
        # T (T/(H+l)): T^2 alone would overflow for gradients near 1e155 and above
        t = l1_threshold(s[0], l1)
        return -0.5 * t * (t / (s[1] + l2))
    if crit == SQUARED_ERROR or crit == FRIEDMAN_MSE:
        if s[0] <= 0.0:
            return 0.0
        # one (w*y) sum per output: the mean of the outputs' terms (multi-output trees,
        # as scikit-learn averages their impurities)
        t = 0.0
        for k in range(1, n_stats):
            t -= s[k] * s[k] / s[0]
        return t / (n_stats - 1)
    if crit == POISSON:
        if s[0] <= 0.0 or s[1] <= 0.0:
            return 0.0
        return -s[1] * np.log(s[1] / s[0])
    if crit == ABSOLUTE_ERROR:
        # not a function of the sums: its split search computes its decrease
        return 0.0
    w = 0.0
    for k in range(n_stats):
        w += s[k]
    if w <= 0.0:
        return 0.0
    if crit == GINI:
        sq = 0.0
        for k in range(n_stats):
            sq += s[k] * s[k]
        return w - sq / w
    # entropy and gain ratio
    t = w * np.log(w)
    for k in range(n_stats):
        if s[k] > 0.0:
            t -= s[k] * np.log(s[k])
    return t / _LOG2


@kernel
def node_impurity(s, sq_sum, crit, n_stats, l1, l2):
    """The impurity a fitted tree reports for a node (Gini index, entropy in bits,
    weighted variance, or ``-1/2 T(G)^2/(H+lambda)`` for ``newton``).  For ``poisson`` and
    ``absolute_error`` it is the variance too: the impurity a tree reports for them needs
    the node's samples, and is computed after growth (see the module docstring)."""
    if crit == NEWTON:
        return node_term(s, crit, n_stats, l1, l2)
    if is_regression(crit):
        if s[0] <= 0.0:
            return 0.0
        # the mean of the outputs' variances (one output: its variance); sq_sum sums
        # w * y_k^2 over the outputs
        msq = 0.0
        for k in range(1, n_stats):
            mean = s[k] / s[0]
            msq += mean * mean
        v = (sq_sum / s[0] - msq) / (n_stats - 1)
        return v if v > 0.0 else 0.0
    w = node_weight(s, crit, n_stats)
    if w <= 0.0:
        return 0.0
    return node_term(s, crit, n_stats, l1, l2) / w
