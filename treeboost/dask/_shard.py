"""A worker's share of a distributed boosting fit: its rows, binned where they lie.

One :class:`BoostingShard` lives on each worker that holds partitions of the training
data (a Dask actor).  It keeps its rows' codes, targets, weights and raw scores for the
whole fit, and answers the trainer's steps: the histograms of the root or of the
children of some nodes, the partition of its rows at the chosen splits, the leaf
values added to its raw scores, the losses and next gradients.  Nothing but
histograms, counts and sums leaves the worker.
"""

import numba
import numpy as np

from ._channel import one_step_at_a_time, serve
from ._losses import constant_sums, unpack_loss
from ..losses.custom import check_gradient_hessian
from ..engine import (
    LeafRanges,
    boosting_rows,
    feature_pairs,
    node_histograms,
    SampleStatistics,
    partition_nodes,
    SUM_BLOCK,
    sum_rows_blocked,
    key_digit_weights,
    order_keys,
    first_digit_weights,
)

#: statistic columns of a row: (w g, w h, count)
N_COLS = 3


def _concat(parts):
    """One block of the partitions ``parts`` (NumPy arrays or pandas objects)."""
    if not parts:
        return None
    if hasattr(parts[0], "iloc"):
        import pandas as pd

        return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    return (
        np.concatenate([np.asarray(p) for p in parts]) if len(parts) > 1 else np.asarray(parts[0])
    )


def _rows(part):
    return 0 if part is None else part.shape[0]


class _Block:
    """Rows of one kind (training or validation) on this worker: X as its partitions
    (each encoded and binned on its own, so that no second copy of the rows is made),
    y and the weights as one array each."""

    def __init__(self, parts):
        self.parts = [p[0] for p in parts]
        self.y = _concat([p[1] for p in parts])
        sizes = [_rows(X) for X in self.parts]
        n = sum(sizes)
        weights = [p[2] for p in parts]
        if any(w is not None for w in weights):
            self.w = np.concatenate(
                [
                    np.ones(m) if w is None else np.asarray(w, dtype=np.float64).reshape(-1)
                    for m, w in zip(sizes, weights)
                ]
            )
        else:
            self.w = np.ones(n)
        if self.y is not None and _rows(self.y) != n:
            raise ValueError(
                f"a partition of y has {_rows(self.y)} rows for {n} rows of X; "
                f"X and y must be partitioned alike."
            )
        if self.w.shape[0] != n:
            raise ValueError(
                f"a partition of sample_weight has {self.w.shape[0]} rows for "
                f"{n} rows of X; X and sample_weight must be partitioned alike."
            )
        self.n = n

    def rows(self, positions):
        """The rows at ``positions`` (increasing) as given (X of the first partition's
        kind), taken partition by partition: no copy of all the rows is made."""
        starts = np.cumsum([0] + [_rows(X) for X in self.parts])
        cuts = np.searchsorted(positions, starts)
        picked = [
            (X.iloc if hasattr(X, "iloc") else np.asarray(X))[positions[a:b] - s]
            for X, s, a, b in zip(self.parts, starts, cuts[:-1], cuts[1:])
        ]
        return _concat(picked)

    def bin(self, model):
        """Each partition encoded and binned with the fitted ``model``; the codes of all
        of them, feature-major."""
        codes = np.empty(
            (model.n_features_in_, self.n),
            np.uint8 if model.bin_mapper_.missing_values_code_ < 256 else np.uint16,
        )
        at = 0
        for X in self.parts:
            m = _rows(X)
            if m:
                codes[:, at : at + m] = model.bin_mapper_.transform(model._encode_X(X, reset=False))
            at += m
        self.parts = None  # the codes are all the fit reads
        return codes


class BoostingShard:
    """The rows of one worker and the steps of the fit on them.

    Parameters
    ----------
    train : list of tuple
        ``(X, y, sample_weight)`` partitions of the training data held by this worker
        (``sample_weight`` None for unit weights).
    validation : list of tuple
        The same for the validation data (may be empty).
    """

    def __init__(self, train, validation):
        self.train = _Block(list(train))
        self.val = _Block(list(validation)) if validation else None
        self.n_threads = numba.get_num_threads()
        try:
            from distributed import get_worker

            # the threads Dask gives the worker, not every core of the machine: workers
            # sharing a machine would otherwise each start a thread per core
            self.n_threads = max(1, min(self.n_threads, get_worker().state.nthreads))
        except (ImportError, ValueError, AttributeError):
            pass

    def _threads(self):
        # numba's thread count belongs to the calling thread, and an actor's methods may
        # run in any of the worker's threads
        numba.set_num_threads(self.n_threads)

    def open_channel(self, key, accept_timeout):
        """Listen for the trainer's direct connection (:mod:`._channel`), opened with
        this shard's own ``key``, on this worker's host; its address, or None where the
        worker's comm is not plain TCP (TLS: the trainer then keeps calling the actor
        over Dask's own comm)."""
        try:
            from distributed import get_worker
            from distributed.comm import get_address_host, parse_address

            address = get_worker().address
        except (ImportError, ValueError, AttributeError):
            return None
        if parse_address(address)[0] != "tcp":
            return None
        try:
            return serve(self, get_address_host(address), key, accept_timeout, self._threads)
        except OSError:
            # the address others reach the worker at is not one of this host's (a
            # contact address through a proxy or a container's port mapping)
            return None

    # -- before the fit: what the trainer needs to bin and to start ------------------------
    @one_step_at_a_time
    def summary(self, classification):
        """Rows, rows of positive weight, and the distinct labels (classification)."""
        t = self.train
        labels = None
        if classification and t.n:
            labels = np.unique(np.asarray(t.y)[t.w > 0])
        return t.n, int(np.count_nonzero(t.w > 0)), labels

    @one_step_at_a_time
    def positive_rows(self):
        """The training rows of positive weight of each partition, in the order held."""
        t = self.train
        upto = np.concatenate([[0], np.cumsum(t.w > 0)])  # rows of positive weight before each
        return np.diff(upto[np.cumsum([0] + [_rows(X) for X in t.parts])]).astype(np.int64)

    @one_step_at_a_time
    def sample(self, positions):
        """The training rows of positive weight at ``positions`` (increasing, among this
        shard's rows of positive weight partition after partition), as given, with their
        targets and weights: the binning sample's rows (:func:`~._quantiles.bin_sample`)."""
        t = self.train
        rows = np.flatnonzero(t.w > 0)[positions]
        X = t.rows(rows)
        y = t.y.iloc[rows] if hasattr(t.y, "iloc") else np.asarray(t.y)[rows]
        return X, y, t.w[rows]

    @one_step_at_a_time
    def prepare(self, model, loss, n_outputs):
        """Encode and bin the rows with the trainer's fitted encoder and BinMapper
        (``model``, an estimator before its first tree); ``loss``: the fit's loss as
        :func:`~._losses.pack_loss` bytes (the only step that takes one).

        Returns the target's sums that the initial score needs (:meth:`_target_sums`)
        and, for a classifier, the rows of each class among the training and the
        validation rows (``class_weight`` "balanced" reads them; None for a
        regressor)."""
        self.model = model
        self.loss = unpack_loss(loss)
        self.K = n_outputs
        self.mc = int(model.bin_mapper_.missing_values_code_)
        classification = hasattr(model, "classes_")
        for block in (self.train, self.val):
            if block is None:
                continue
            block.codes = block.bin(model)
            if block.n:
                if classification:
                    block.y = model._validate_validation_target(block.y, block.n)
                else:
                    block.y = model._validate_target(block.y, block.n, False)
            else:
                block.y = np.zeros(0, np.intp if classification else np.float64)
            block.raw = np.zeros((block.n, n_outputs))
        self.pairs = feature_pairs(model.bin_mapper_.is_categorical_)
        self.compact = not model.bin_mapper_.is_categorical_.any()
        self._weigh_rows()
        counts = None
        if classification:
            k = model.n_classes_
            counts = (
                np.bincount(self.train.y, minlength=k),
                np.bincount(self.val.y, minlength=k) if self.val is not None else np.zeros(k),
            )
        return self._target_sums(), counts

    @one_step_at_a_time
    def weigh(self, class_weights, val_class_weights):
        """Multiply each row's weight by its class's (``class_weight``: per class
        index, for the training and the validation rows); returns the target's sums
        (:meth:`_target_sums`)."""
        self.train.w = self.train.w * class_weights[self.train.y]
        if self.val is not None:
            self.val.w = self.val.w * val_class_weights[self.val.y]
        self._weigh_rows()
        return self._target_sums()

    def _target_sums(self):
        """Per class weight (classification) or ``(sum w, sum w y)``."""
        t = self.train
        if hasattr(self.model, "classes_"):
            return np.bincount(t.y, weights=t.w, minlength=self.model.n_classes_)
        return np.array([t.w.sum(), np.dot(t.w, t.y)])

    def _weigh_rows(self):
        """The arrays of the rows of positive weight, for the training weights as they
        are."""
        t = self.train
        n_outputs = self.K
        self.positive = np.flatnonzero(t.w > 0)
        self.w_sum = float(t.w.sum())
        self.g = np.zeros((n_outputs, t.n))
        self.h = np.zeros((n_outputs, t.n))
        self.stats = np.zeros((t.n, N_COLS))
        self.stats[:, 2] = t.w > 0
        # the rows as the one-machine grower's kernels read them (the same array, refilled
        # in place for each tree)
        self.source = SampleStatistics.given(self.stats).arrays
        self.ostats = np.empty_like(self.stats)
        # the root's block sums (sum_rows_blocked)
        self.block_sums = np.empty((max(1, -(-self.positive.size // SUM_BLOCK)), N_COLS))
        self.idx = np.empty(self.positive.size, np.int32)
        self.buf = np.empty(self.positive.size, np.int32)
        # the quantile selection's order keys, their rows' weights and the positions
        # still in play (engine.statistics.quantile), by position
        self.row_keys = np.empty(t.n, np.uint64)
        self.unit_weights = bool(np.all(t.w == 1.0))
        self.keys = np.empty(self.positive.size, np.uint64)
        self.key_weights = np.empty(self.positive.size)
        self.candidates = np.empty(self.positive.size, np.int64)

    def _losses(self):
        """The training loss summed over the rows (its weighted mean times the weight)
        and the next gradients; the validation loss's sum."""
        t = self.train
        K = self.K

        def per_output(a):
            return a[:, 0] if K == 1 else a

        w_sum = self.w_sum
        if t.n and w_sum > 0:
            # the gradients of the tree before are read no more: their arrays
            # (output-major, as the one-machine booster's) take the next ones
            raw = per_output(t.raw)
            self.loss.start_iteration(t.y, raw, t.w)
            value, g, h = self.loss.loss_gradient_hessian(
                t.y, raw, t.w, out=(per_output(self.g.T), per_output(self.h.T))
            )
            if not self.loss.checks_own_gradients:
                # a user's loss: the one-machine fit's check (a no-op for treeboost's own)
                g, h = check_gradient_hessian(self.loss, g, h, raw)
            train = value * self._value_weight(t)
            self.g = np.ascontiguousarray(np.reshape(g, (-1, K)).T)
            self.h = np.ascontiguousarray(np.reshape(h, (-1, K)).T)
        else:
            train = 0.0
        val = 0.0
        v = self.val
        if v is not None and v.n and v.w.sum() > 0:
            val = self.loss(v.y, v.raw[:, 0] if self.K == 1 else v.raw, v.w) * self._value_weight(v)
        v_weight = 0.0 if v is None else self._value_weight(v)
        return train, self._value_weight(t), val, v_weight

    def _value_weight(self, block):
        """What the loss's value of ``block`` is a mean over (its rows' weight): the
        trainer divides the shards' summed ``value * weight`` by the summed weights."""
        return float(block.w.sum())

    @one_step_at_a_time
    def constant_sums(self, f):
        """``(sum w g, sum w h)`` per output of the training rows all at the raw score
        ``f``: a step of a custom loss's initial score (:mod:`._losses`)."""
        t = self.train
        return constant_sums(self.loss, t.y, t.w, np.asarray(f, np.float64), t.n)

    @one_step_at_a_time
    def start(self, init_raw, trees=None):
        """Every row's raw scores start at ``init_raw`` plus, for a warm start, the
        values of ``trees`` (the iterations fitted so far, in order); returns the losses
        before the first tree of this fit (:meth:`_losses`)."""
        for block in (self.train, self.val):
            if block is None:
                continue
            block.raw[:] = init_raw
            for iteration in trees or ():
                for k, tree in enumerate(iteration):
                    block.raw[:, k] += tree.value[tree.apply_binned(block.codes, self.mc), 0]
        return self._losses()

    # -- one tree ----------------------------------------------------------------------------
    @one_step_at_a_time
    def root(self, k, with_count):
        """Start the tree of output ``k``: every row of positive weight in the root;
        returns the root's histograms (with counts if ``with_count``) and summed
        statistics."""
        boosting_rows(self.stats, self.train.w, self.g, self.h, k, True)
        self.idx[:] = self.positive
        n = self.idx.size
        self.starts = [0]
        self.ends = [n]
        hist = self._histograms(
            np.zeros(1, np.int64), np.full(1, n, np.int64), np.full(1, with_count)
        )
        # the root's sums as the one-machine grower adds them (block by block)
        total = np.zeros(N_COLS)
        sum_rows_blocked(total, self.source, self.idx, 0, n, self.block_sums)
        return hist[0], total

    def _histograms(self, starts, ends, with_count):
        self._threads()
        F = self.train.codes.shape[0]
        with_count = np.asarray(with_count, np.bool_)
        if self.compact and not with_count.any():
            # every node read densely, no categorical feature: (w g, w h) alone are
            # built (rows of two columns streamed) and travel
            out = np.empty((starts.size, F, self.mc + 1, 2))
        else:
            out = np.empty((starts.size, F, self.mc + 1, N_COLS))
        node_histograms(
            self.train.codes,
            self.idx,
            starts,
            ends,
            with_count,
            self.model.bin_mapper_.is_categorical_,
            self.pairs,
            self.stats,
            self.ostats,
            out,
        )
        return out

    @one_step_at_a_time
    def split(self, nodes, features, bin_thresholds, missing_left, categories, build):
        """Split the nodes ``nodes`` (ids of this tree, in the order the trainer made
        them) at the given splits: the children of ``nodes[j]`` get the next two ids, left
        then right.  ``build[j]``: which children's histograms to return: 0 the left
        one, 1 the right one (both without counts but for categorical features), 2 both,
        with counts.  Returns the histograms, in the order of the nodes (left before
        right), and the left children's row counts."""
        nodes = np.asarray(nodes, np.int64)
        starts = np.array([self.starts[j] for j in nodes], np.int64)
        ends = np.array([self.ends[j] for j in nodes], np.int64)
        n_left = np.empty(nodes.size, np.int64)
        partition_nodes(
            self.idx,
            starts,
            ends,
            self.train.codes,
            np.asarray(features, np.int64),
            np.asarray(bin_thresholds, np.int64),
            np.asarray(missing_left, np.bool_),
            self.model.bin_mapper_.is_categorical_,
            np.ascontiguousarray(categories, np.uint64),
            self.mc,
            self.buf,
            n_left,
        )
        mid = starts + n_left
        h_starts, h_ends, with_count = [], [], []
        for j in range(nodes.size):
            self.starts += [starts[j], mid[j]]
            self.ends += [mid[j], ends[j]]
            if build[j] != 1:
                h_starts.append(starts[j])
                h_ends.append(mid[j])
                with_count.append(build[j] == 2)
            if build[j] != 0:
                h_starts.append(mid[j])
                h_ends.append(ends[j])
                with_count.append(build[j] == 2)
        hist = self._histograms(
            np.array(h_starts, np.int64), np.array(h_ends, np.int64), with_count
        )
        return hist, n_left

    # -- a weighted quantile of rows on several workers (engine.statistics.quantile) ----
    @one_step_at_a_time
    def quantile_start(self, k, leaves):
        """Start selecting the quantiles of the residuals ``y - raw[:, k]`` of the rows
        of each leaf ``leaves`` of this tree (None: of all the rows of positive weight,
        the target itself before the first tree, ``raw`` being 0); returns the weights
        by the keys' first digit
        (:func:`~treeboost.engine.statistics.quantile.first_digit_weights`).
        """
        self._threads()
        t = self.train
        if leaves is None:
            rows = self.positive
            starts = np.zeros(1, np.int64)
            ends = np.full(1, rows.size, np.int64)
        else:
            leaves = np.asarray(leaves, np.int64)
            rows = self.idx
            starts = np.array([self.starts[j] for j in leaves], np.int64)
            ends = np.array([self.ends[j] for j in leaves], np.int64)
        # the keys in row order first (one streaming pass), then gathered by leaf
        order_keys(np.asarray(t.y, dtype=np.float64), t.raw[:, k], self.row_keys)
        out = np.empty((starts.size, 256))
        first_digit_weights(
            self.row_keys,
            t.w,
            self.unit_weights,
            rows,
            starts,
            ends,
            self.keys,
            self.key_weights,
            self.candidates,
            out,
        )
        self._selection = (starts, ends - starts)
        return out

    @one_step_at_a_time
    def quantile_round(self, prefix, shift):
        """The weights of each range's rows whose keys start with ``prefix[j]``, by
        their digit at ``shift``."""
        self._threads()
        starts, counts = self._selection
        out = np.empty((starts.size, 256))
        key_digit_weights(
            self.keys,
            self.key_weights,
            starts,
            counts,
            self.candidates,
            np.asarray(prefix, np.uint64),
            int(shift),
            out,
        )
        return out

    @one_step_at_a_time
    def finish(self, k, tree, leaves, leaf_positions, next_k):
        """Add the values of ``tree`` (a :class:`~treeboost.engine.predict.tree.Tree`) to the
        raw scores of output ``k``: its leaves ``leaf_positions`` are this tree's nodes
        ``leaves`` here.  The validation rows go through the tree.

        Returns the losses (:meth:`_losses`) after the last output of an iteration (None
        otherwise), and the root of the next tree, of output ``next_k`` (None: no next
        tree): one round trip between two trees."""
        leaves = np.asarray(leaves, np.int64)
        starts = np.array([self.starts[j] for j in leaves], np.int64)
        ends = np.array([self.ends[j] for j in leaves], np.int64)
        values = tree.value[:, 0]
        LeafRanges(self.idx, leaf_positions, starts, ends, self.train.n).add_values(
            self.train.raw, k, values
        )
        if self.val is not None and self.val.n:
            self.val.raw[:, k] += values[tree.apply_binned(self.val.codes, self.mc)]
        losses = self._losses() if k == self.K - 1 else None
        return losses, None if next_k is None else self.root(*next_k)
