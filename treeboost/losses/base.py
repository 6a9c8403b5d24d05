"""The Loss interface every gradient-boosting loss implements."""
import numpy as np


def weighted_quantile(values, weights, alpha):
    """Smallest ``v`` of ``values`` whose cumulative weight reaches ``alpha`` of the total
    (the inverted empirical CDF, as scikit-learn's weighted percentile)."""
    order = np.argsort(values, kind="stable")
    cw = np.cumsum(weights[order])
    i = np.searchsorted(cw, alpha * cw[-1], side="left")
    return values[order[min(i, len(values) - 1)]]


def grouped_weighted_quantile(groups, values, weights, alpha, n_groups):
    """:func:`weighted_quantile` of ``values`` within each group ``0..n_groups-1`` at once.

    One lexicographic sort by (group, value), then one ``searchsorted`` on the running
    weight: no loop over samples or groups.  Groups with no member get 0.
    """
    order = np.lexsort((values, groups))
    g = groups[order]
    v = values[order]
    cw = np.cumsum(weights[order])
    counts = np.bincount(g, minlength=n_groups)
    ends = np.cumsum(counts)
    starts = ends - counts
    base = np.where(starts > 0, cw[np.maximum(starts - 1, 0)], 0.0)
    total = np.where(counts > 0, cw[np.maximum(ends - 1, 0)] - base, 0.0)
    target = base + alpha * total
    pos = np.searchsorted(cw, target, side="left")
    pos = np.clip(pos, starts, np.maximum(ends - 1, starts))
    out = np.where(counts > 0, v[np.minimum(pos, len(v) - 1)], 0.0)
    return out


class Loss:
    """A differentiable loss ``L(y, F)`` of a raw score ``F``.

    Gradient boosting fits each tree to the negative gradient ``-dL/dF`` (or, with the
    second-order gain, to ``(g, h) = (dL/dF, d2L/dF2)``), then sets each leaf to the
    value that minimises the loss of its samples, as the table of the module lists.

    Subclasses define ``name``, ``__call__`` (weighted mean loss), :meth:`gradient_hessian`,
    :meth:`init_raw` and, when the Newton step ``-sum g / sum h`` is not the leaf value,
    :meth:`leaf_values`.
    """

    name = None
    is_classification = False
    #: whether the Newton step -G/(H + lambda) is the loss's leaf value
    newton_leaves = True
    n_outputs = 1

    def __call__(self, y, raw, sample_weight):
        """Weighted mean loss."""
        raise NotImplementedError

    def pointwise(self, y, raw):
        raise NotImplementedError

    def gradient_hessian(self, y, raw):
        """``(g, h)``: first and second derivative of the loss in ``raw``, per sample."""
        raise NotImplementedError

    def init_raw(self, y, sample_weight):
        """The constant raw score that minimises the weighted loss."""
        raise NotImplementedError

    def leaf_values(self, leaf_of_sample, n_leaves_total, y, raw, sample_weight, newton):
        """Leaf values given the samples of each leaf (ids ``0..n_nodes-1``).

        ``newton`` holds the Newton step of every node; losses whose optimum in a leaf is
        not the Newton step (absolute error, Huber, quantile) override this.
        """
        return newton

    def _mean(self, values, sample_weight):
        return float(np.average(values, weights=sample_weight))
