"""Weighted quantiles of rows spread over the shards: the initial score and the leaf
values of the absolute-error and quantile losses.

Each is selected digit by digit (:mod:`treeboost.engine.quantile`): the shards sum
their rows' weights by the next digit of the residuals' order keys, the trainer sums
those over the shards and fixes the digit, and after
:data:`~treeboost.engine.KEY_ROUNDS` rounds the key, hence the value, is the one the
one-machine selection finds (up to the summation order of the weights, where the
cumulative weight meets ``alpha`` of the total within rounding).  Only ``(n_leaves,
256)`` sums travel per round; no row leaves its worker.
"""

import numpy as np

from ..engine import KEY_DIGIT_BITS, KEY_ROUNDS, key_values, next_digits
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

    def __init__(self, shards, k, grown, l2_regularization):
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
