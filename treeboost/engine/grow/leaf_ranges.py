"""LeafRanges: which samples a grown tree put in each leaf, as the grower left them.

The grower partitions the tree's samples in place: at the end, every leaf holds a
contiguous range ``idx[start:end]`` of the samples in partition order, and the ranges of
the leaves tile ``idx``.  Boosting needs, after each tree, the raw-score update of every
row from its leaf; reading it from the ranges costs one pass over the samples, where a
``leaf_of_sample`` array costs an array of ``n_samples`` integers per tree, filled by a
scattered write and then read again by the update.
"""

import numpy as np
from numba import prange

from .._numba.jit import kernel, parallel_kernel
from ..parallel.thread_pools import region_threads
from ..statistics.quantile import range_quantiles

#: a tree of at least this many samples per thread copies its samples on threads
COPY_PARALLEL_MIN_SAMPLES = 100_000
#: ... and adds its leaf values on threads: a pass of scattered writes over every
#: training row, on one thread a serial step of every boosting iteration, worth a
#: parallel region from a few ten thousand rows
ADD_PARALLEL_MIN_SAMPLES = 25_000


@kernel
def _add_range_values(raw, k, value, idx, leaves, start, end, lo, hi):
    """``raw[s, k] += value[leaf]`` for every sample ``s`` of every leaf's range, within
    the positions ``[lo, hi)`` of ``idx``."""
    for j in range(leaves.shape[0]):
        v = value[leaves[j]]
        for i in range(max(lo, start[j]), min(hi, end[j])):
            raw[idx[i], k] += v


@parallel_kernel
def _add_range_values_parallel(raw, k, value, idx, leaves, start, end, n_chunks):
    """:func:`_add_range_values` over every position of ``idx``, ``n_chunks`` contiguous
    shares of them on numba's threads (each sample is in one range: the shares update
    different rows of raw)."""
    n = idx.shape[0]
    for t in prange(n_chunks):
        _add_range_values(raw, k, value, idx, leaves, start, end, t * n // n_chunks,
                          (t + 1) * n // n_chunks)  # fmt: skip


@parallel_kernel
def _copy_ids(src, dst, n_chunks):
    """``dst[:] = src`` on ``n_chunks`` threads, each a contiguous share."""
    n = src.shape[0]
    chunk = (n + n_chunks - 1) // n_chunks
    for t in prange(n_chunks):
        for i in range(min(n, t * chunk), min(n, (t + 1) * chunk)):
            dst[i] = src[i]


def copied_ids(idx, n_threads):
    """A copy of a grown tree's samples in partition order (the grower's own array
    serves the next tree), made on up to ``n_threads`` threads when it is long enough
    (a pass over every row of the tree, once a tree)."""
    out = np.empty_like(idx)
    n_chunks = region_threads(idx.shape[0], COPY_PARALLEL_MIN_SAMPLES, n_threads)
    if n_chunks > 1:
        _copy_ids(idx, out, n_chunks)
    else:
        out[:] = idx
    return out


@kernel
def _fill_leaf_ids(out, idx, leaves, start, end):
    """``out[s] = leaf`` for every sample ``s`` of every leaf's range."""
    for j in range(leaves.shape[0]):
        leaf = leaves[j]
        for i in range(start[j], end[j]):
            out[idx[i]] = leaf


class LeafRanges:
    """The samples of each leaf of a grown tree: leaf ``leaves[j]`` holds the samples
    ``idx[start[j]:end[j]]``.

    Indexing it by rows gives their leaves, as a ``leaf_of_sample`` array would
    (``-1`` for a row the tree did not see).

    Parameters
    ----------
    idx : ndarray of int32 of shape (n_tree_samples,)
        The tree's samples in partition order (a copy: the grower's own array serves
        the next tree).
    leaves, start, end : ndarray of int64 of shape (n_leaves,)
    n_samples : int
        Rows of the training data (the tree may have seen fewer).
    """

    def __init__(self, idx, leaves, start, end, n_samples):
        self.idx = idx
        self.leaves = np.ascontiguousarray(leaves, dtype=np.int64)
        self.start = np.ascontiguousarray(start, dtype=np.int64)
        self.end = np.ascontiguousarray(end, dtype=np.int64)
        self.n_samples = int(n_samples)
        self._leaf_of_sample = None

    @property
    def leaf_of_sample(self):
        """The leaf of every training row, ``-1`` for rows the tree did not see."""
        if self._leaf_of_sample is None:
            out = np.full(self.n_samples, -1, np.int64)
            _fill_leaf_ids(out, self.idx, self.leaves, self.start, self.end)
            self._leaf_of_sample = out
        return self._leaf_of_sample

    def __getitem__(self, rows):
        return self.leaf_of_sample[rows]

    def residual_quantiles(self, y, raw, weights, alpha, n_nodes):
        """The weighted ``alpha``-quantile of the residuals ``y - raw`` (weights
        ``weights``, all three indexed by training row) of each leaf's samples, 0 for
        the other nodes: an array of ``n_nodes`` values.  The leaves are shared among
        numba's threads (:func:`~.quantile.range_quantiles`)."""
        y = np.asarray(y, dtype=np.float64)
        raw = np.asarray(raw, dtype=np.float64)
        weights = np.asarray(weights, dtype=np.float64)
        # the kernel indexes these by the tree's samples, out by its leaves
        if (
            y.shape != (self.n_samples,)
            or raw.shape != (self.n_samples,)
            or weights.shape != (self.n_samples,)
            or (self.leaves.size and not 0 <= self.leaves.min() <= self.leaves.max() < n_nodes)
            or (self.start.size and (self.start.min() < 0 or self.end.max() > self.idx.shape[0]))
            or (self.idx.size and not 0 <= self.idx.min() <= self.idx.max() < self.n_samples)
        ):
            raise ValueError(
                f"y, raw and weights must have the {self.n_samples} training rows, and "
                f"the tree's {n_nodes} nodes hold its leaves."
            )
        out = np.zeros(n_nodes)
        n = self.idx.shape[0]
        range_quantiles(
            y, raw, weights, self.idx, self.leaves, self.start, self.end, float(alpha), out,
            np.empty(n), np.empty(n), region_threads(n, ADD_PARALLEL_MIN_SAMPLES),
        )  # fmt: skip
        return out

    def add_values(self, raw, k, value):
        """``raw[s, k] += value[leaf of s]`` for every sample of the tree (``raw`` a
        C-contiguous float64 array of shape (n_samples, n_outputs), ``value`` the
        tree's node values)."""
        value = np.ascontiguousarray(value, dtype=np.float64)
        # the kernel indexes raw by the tree's samples and value by its leaves
        if (
            raw.dtype != np.float64
            or raw.ndim != 2
            or not raw.flags.c_contiguous
            or raw.shape[0] != self.n_samples
            or not 0 <= k < raw.shape[1]
            or (self.leaves.size and value.shape[0] <= self.leaves.max())
        ):
            raise ValueError(
                f"raw must be a C-contiguous float64 array of "
                f"{self.n_samples} rows with an output {k}, and value cover "
                f"the tree's nodes."
            )
        args = (raw, k, value, self.idx, self.leaves, self.start, self.end)
        n = self.idx.shape[0]
        n_chunks = region_threads(n, ADD_PARALLEL_MIN_SAMPLES)
        if n_chunks <= 1:
            _add_range_values(*args, 0, n)
        else:
            # a parallel region, not a pool of Python threads: after the tree's own
            # regions numba's workers are still awake, and a pool's threads woken beside
            # them on every core waited for cores
            _add_range_values_parallel(*args, n_chunks)
