"""Leaf values and impurities that need each node's samples, not only its sums.

``absolute_error`` predicts the weighted median of a node's targets and reports the mean
absolute deviation around it; ``poisson`` reports the half Poisson deviance
``sum w y log(y / mean) / W`` (scikit-learn's, which leaves out ``sum w (mean - y)``, zero
at the mean).  Neither is a function of ``(w, w*y)``, so after growth one pass over every
node's samples computes them: a grown tree keeps its samples in partition order, node
``i`` holding ``idx[start[i]:end[i]]`` (internal nodes too: their children only reorder
their range).  The deviance is summed term by term, as scikit-learn sums it, rather than
as ``sum w y log y - S log(S/W)``, whose two terms cancel in a nearly pure node.

Compiled only the first time a tree uses one of these criteria.
"""

import numpy as np

from ..split.criteria import ABSOLUTE_ERROR
from ..split.absolute_error import weighted_median
from .._numba.jit import kernel


@kernel
def _node_values(median, y, w, idx, start, end, value, impurity):
    for node in range(start.shape[0]):
        n = end[node] - start[node]
        ys = np.empty(n)
        ws = np.empty(n)
        for o in range(n):
            s = idx[start[node] + o]
            ys[o] = y[s]
            ws[o] = w[s]
        total = 0.0
        for o in range(n):
            total += ws[o]
        if not total > 0.0:
            impurity[node] = 0.0
            continue
        if median:
            order = np.argsort(ys, kind="mergesort")
            med, dev = weighted_median(ys[order], ws[order], n)
            value[node, 0] = med
            impurity[node] = dev / total
            continue
        mean = value[node, 0]
        dev = 0.0
        if mean > 0.0:
            for o in range(n):
                if ys[o] > 0.0:
                    dev += ws[o] * (ys[o] * np.log(ys[o] / mean))
        impurity[node] = dev / total


def node_target_values(criterion, y, w, idx, start, end, value, impurity):
    """Set ``value`` (the weighted median, ``absolute_error``; the mean is kept for
    ``poisson``) and ``impurity`` of every node in place.

    Parameters
    ----------
    criterion : int
        ``POISSON`` or ``ABSOLUTE_ERROR`` (:mod:`.criteria`).
    y, w : ndarray of shape (n_samples,)
        The targets and sample weights.
    idx : ndarray of int
        The tree's samples in partition order.
    start, end : ndarray of int, shape (n_nodes,)
        Node ``i`` holds ``idx[start[i]:end[i]]``.
    value : ndarray of shape (n_nodes, 1)
        The nodes' weighted means on entry.
    impurity : ndarray of shape (n_nodes,)
    """
    _node_values(
        criterion == ABSOLUTE_ERROR, y, w, np.ascontiguousarray(idx), start, end, value, impurity
    )
