"""Quantiles of rows spread over the shards: the binning sample (the rows the
one-machine fit draws for its bin edges, :func:`bin_sample`), and the weighted
quantiles of the initial score and the leaf values of the absolute-error and quantile
losses.

Each is selected digit by digit (:mod:`treeboost.engine.statistics.quantile`): the shards sum
their rows' weights by the next digit of the residuals' order keys, the trainer sums
those over the shards and fixes the digit, and after
:data:`~treeboost.engine.KEY_ROUNDS` rounds the key, hence the value, is the one the
one-machine selection finds (up to the summation order of the weights, where the
cumulative weight meets ``alpha`` of the total within rounding).  Only ``(n_leaves,
256)`` sums travel per round; no row leaves its worker but the binning sample's.
"""

import numpy as np

from ..engine import KEY_DIGIT_BITS, KEY_ROUNDS, key_values, next_digits, subsample_rows
from ..losses.base import LeafSamples


def select_quantiles(shards, alpha, k, leaves):
    """The weighted ``alpha``-quantile of the residuals ``y - raw[:, k]`` of each
    leaf's rows across ``shards`` (``leaves``: the tree's leaves in the shards'
    numbering; None: of the target over all the rows, before the first tree).

    Returns an array of one value per leaf (one value for None), and the round trips
    taken.
    """
    weights = shards.sum(shards.call("quantile_start", k, leaves))
    target = alpha * weights.sum(axis=1)
    below = np.zeros(weights.shape[0])
    prefix = np.zeros(weights.shape[0], np.uint64)
    shift = 64
    for r in range(KEY_ROUNDS):
        shift -= KEY_DIGIT_BITS
        if r:
            weights = shards.sum(shards.call("quantile_round", prefix, shift))
        digit, below = next_digits(weights, below, target)
        prefix = (prefix << np.uint64(KEY_DIGIT_BITS)) | digit
    return key_values(prefix), KEY_ROUNDS


class SelectedLeafSamples(LeafSamples):
    """A grown tree's leaves as a loss's :meth:`~treeboost.losses.base.Loss.leaf_values`
    reads them, when their rows stay on the shards: the Newton step of each node
    (from the summed statistics) and the residual quantiles of each leaf (selected
    across the shards)."""

    __slots__ = ("_shards", "_k", "_leaves", "_positions", "n_rounds")

    def __init__(self, shards, k, grown, l2_regularization, l1_regularization=0.0):
        tree = grown.tree
        super().__init__(
            np.empty(0, np.int64),
            tree.node_count,
            None,
            None,
            None,
            None,
            None,
            None,
            l2_regularization,
            tree.value[:, 0],
            l1_regularization=l1_regularization,
        )
        self._shards = shards
        self._k = k
        self._leaves = grown.leaves
        self._positions = grown.leaf_positions
        self.n_rounds = 0

    def residual_quantiles(self, alpha):
        """The weighted ``alpha``-quantile of the residuals of each leaf's rows, 0 for
        the other nodes (as the one-machine :class:`LeafSamples`)."""
        values, rounds = select_quantiles(self._shards, alpha, self._k, self._leaves)
        self.n_rounds += rounds
        out = np.zeros(self.n_nodes)
        out[self._positions] = values
        return out


def bin_sample(shards, subsample, random_state):
    """The rows a Dask fit learns its bin edges (and input encoder) from: those the
    one-machine :class:`~treeboost.engine.BinMapper` draws, fetched from the shards.

    The one-machine fit bins the rows of positive weight of X in the order of its
    partitions, drawing :func:`~treeboost.engine.subsample_rows` of them.  The shards
    tell their partitions' rows of positive weight, which number every such row (the
    partitions in order); the client draws the same row numbers with the same seed and
    asks each shard for its own.  Only the drawn rows travel, at most ``subsample`` of
    them: the client holds them, and the row numbers (8 bytes each), whatever the rows
    of the data.

    Parameters
    ----------
    shards : _Shards
        Their ``partitions``: the indices of each shard's training partitions in X
        (None: each shard's after the previous one's).
    subsample : int or None
        None: every row of positive weight (the exact binning of ``max_bins=None``).
    random_state : int, RandomState instance or None
        The one-machine fit's seed of its BinMapper.

    Returns
    -------
    list of tuple
        ``(X, y, sample_weight)`` of each shard that holds drawn rows, in the shards'
        order.
    """
    counts = [np.asarray(c, np.int64) for c in shards.call("positive_rows")]
    partitions = shards.partitions
    if partitions is None:
        ends = np.cumsum([c.size for c in counts])
        partitions = [np.arange(e - c.size, e) for e, c in zip(ends, counts)]
    partitions = [np.asarray(p, np.int64) for p in partitions]
    per_partition = np.zeros(sum(p.size for p in partitions), np.int64)
    for p, c in zip(partitions, counts):
        per_partition[p] = c
    starts = np.concatenate([[0], np.cumsum(per_partition)])
    rows = subsample_rows(int(starts[-1]), subsample, random_state)
    futures = []
    for actor, p, c in zip(shards.actors, partitions, counts):
        if not c.sum():
            continue  # validation rows only, or rows of no weight: nothing to draw
        if rows is None:
            positions = np.arange(int(c.sum()))
        else:
            # the drawn numbers within each of its partitions, in the shard's own
            # numbering of its rows of positive weight (its partitions one after another)
            lo, hi = np.searchsorted(rows, starts[p]), np.searchsorted(rows, starts[p + 1])
            shift = np.cumsum(c) - c - starts[p]
            positions = np.concatenate([rows[a:b] + d for a, b, d in zip(lo, hi, shift)])
            if not positions.size:
                continue
        futures.append(shards.send(actor, "sample", positions))
    return [shards.answer(f, "sample") for f in futures]
