"""SampleStatistics: the per-sample statistics a tree is grown from, and how the grower
reads them.

Every sample contributes a row of ``n_stats + 1`` numbers that the grower sums per node
and per histogram bin; the last column counts the sample (1 when its weight is positive):

* classification (``SOURCE_CLASSES``): the weight ``w`` in the column of the sample's
  class, 0 in the others;
* regression (``SOURCE_REGRESSION``): ``(w, w*y, 1)``, and ``w*y^2`` for the variance;
* boosting (``SOURCE_ARRAY``): the rows are given, ``(g, h, 1)`` for the Newton step.

Classification and regression rows are derived inside the kernels from the targets and
the weights, where they are read: a forest would otherwise materialise
``n_samples x (n_stats + 1)`` doubles per tree next to the bootstrap weights it has
anyway.  Boosting's gradients change every iteration and are given as an array.

Every source travels in one record of one type, :class:`StatisticSource` (the arrays a
source does not use are empty), so that one compiled grower serves them all; the
kernels below test the source once per call, outside their loops over samples.
"""

from collections import namedtuple

import numpy as np
from numba import prange
from .._numba.borrowed_views import flat
from .._numba.jit import compiled, inlined, internal, kernel, parallel_kernel, serial_and_parallel

SOURCE_ARRAY, SOURCE_CLASSES, SOURCE_REGRESSION = 0, 1, 2

StatisticSource = namedtuple(
    "StatisticSource",
    [
        "kind",  # SOURCE_*
        "stats",  # (n, n_cols) float64 given rows (SOURCE_ARRAY), else (0, n_cols)
        "sq",  # (n,) w * y^2 given with the rows, else empty
        "labels",  # (n,) int64 class codes (SOURCE_CLASSES), else empty
        "targets",  # (n,) float64 targets (SOURCE_REGRESSION), else empty
        "weights",  # (n,) float64 sample weights (classes and regression), else empty
    ],
)

_EMPTY_F = np.zeros(0)
_EMPTY_I = np.zeros(0, np.int64)


class SampleStatistics:
    """Per-sample statistics as the kernels take them.

    Use the constructors :meth:`classes`, :meth:`regression` and :meth:`given`.

    Attributes
    ----------
    arrays : StatisticSource
        What the kernels read.
    """

    def __init__(self, arrays):
        self.arrays = arrays

    @property
    def source(self):
        """``SOURCE_CLASSES``, ``SOURCE_REGRESSION`` or ``SOURCE_ARRAY``."""
        return self.arrays.kind

    @property
    def n_cols(self):
        """Statistic columns, the count column included (the width of ``stats``, which
        derived sources give as an empty array of that width)."""
        return self.arrays.stats.shape[1]

    @property
    def n_samples(self):
        a = self.arrays
        return (a.stats if a.kind == SOURCE_ARRAY else a.weights).shape[0]

    @classmethod
    def classes(cls, y_encoded, sample_weight, n_classes):
        """Class ``y_encoded[i]`` (in ``0 .. n_classes - 1``) with weight
        ``sample_weight[i]``."""
        return cls(
            StatisticSource(
                SOURCE_CLASSES,
                np.zeros((0, n_classes + 1)),
                _EMPTY_F,
                np.ascontiguousarray(y_encoded, dtype=np.int64),
                _EMPTY_F,
                np.ascontiguousarray(sample_weight, dtype=np.float64),
            )
        )

    @classmethod
    def regression(cls, y, sample_weight):
        """Target ``y[i]`` with weight ``sample_weight[i]``."""
        return cls(
            StatisticSource(
                SOURCE_REGRESSION,
                np.zeros((0, 3)),
                _EMPTY_F,
                _EMPTY_I,
                np.ascontiguousarray(y, dtype=np.float64),
                np.ascontiguousarray(sample_weight, dtype=np.float64),
            )
        )

    @classmethod
    def regression_outputs(cls, Y, sample_weight):
        """Targets ``Y[i, k]`` of ``K`` outputs with weight ``sample_weight[i]``: rows
        ``(w, w*y_1, .., w*y_K, 1)`` and ``w * sum_k y_k^2``, given as an array (a
        multi-output regression tree; one output takes :meth:`regression`)."""
        Y = np.asarray(Y, dtype=np.float64)
        w = np.ascontiguousarray(sample_weight, dtype=np.float64)
        n, K = Y.shape
        rows = np.empty((n, K + 2))
        rows[:, 0] = w
        np.multiply(Y, w[:, None], out=rows[:, 1 : K + 1])
        rows[:, K + 1] = w > 0
        return cls.given(rows, w * np.einsum("ij,ij->i", Y, Y))

    @classmethod
    def given(cls, stats, sq=None):
        """Rows given as an array of shape (n_samples, n_stats + 1), and optionally
        ``w*y^2`` (the squared-error criterion's variance)."""
        stats = np.ascontiguousarray(stats, dtype=np.float64)
        sq = _EMPTY_F if sq is None else np.ascontiguousarray(sq, dtype=np.float64)
        return cls(StatisticSource(SOURCE_ARRAY, stats, sq, _EMPTY_I, _EMPTY_F, _EMPTY_F))

    def subset(self, rows):
        """The statistics of the samples ``rows`` (an array of sample ids), in that order:
        the same source over copies of its per-sample arrays (a subtree grown from its
        own rows, :mod:`.subtrees`)."""
        a = self.arrays

        def take(x):
            return x[rows] if x.shape[0] else x

        return SampleStatistics(
            StatisticSource(
                a.kind,
                take(a.stats) if a.kind == SOURCE_ARRAY else a.stats,
                take(a.sq),
                take(a.labels),
                take(a.targets),
                take(a.weights),
            )
        )

    def materialize(self):
        """The rows as an array of shape (n_samples, n_cols) and ``w*y^2`` (None for
        classification): what the kernels read, for tests and inspection."""
        a = self.arrays
        if self.source == SOURCE_ARRAY:
            return a.stats, (a.sq if a.sq.shape[0] else None)
        w = a.weights
        y = a.labels if self.source == SOURCE_CLASSES else a.targets
        n = y.shape[0]
        out = np.zeros((n, self.n_cols))
        if self.source == SOURCE_CLASSES:
            out[np.arange(n), y] = w
            out[:, -1] = w > 0
            return out, None
        out[:, 0] = w
        out[:, 1] = w * y
        out[:, 2] = w > 0
        return out, w * y * y


#: the root's rows are summed in blocks of this many positions: each block's sum from
#: zero in the rows' order, then the blocks' sums in order, the same bits whether one
#: thread sums the blocks (:func:`sum_rows_blocked`) or several do
#: (:func:`sum_rows_parallel`)
SUM_BLOCK = 16384


@kernel
def sum_rows(dst, src, idx, start, end):
    """``dst +=`` the statistics of samples ``idx[start:end]`` (``dst`` has ``n_cols``),
    one after the other."""
    _sum_range(dst, src, idx, start, end)


def _make_sum_rows_blocked(blocks):
    def sum_rows_blocked(dst, src, idx, start, end, parts):
        """``dst +=`` the statistics of samples ``idx[start:end]`` added block by block
        (:data:`SUM_BLOCK`): a range of one block is added into ``dst`` in order, a longer one
        block sum by block sum, each block's summed from zero into a row of ``parts`` (at
        least as many rows as blocks, ``dst``'s width)."""
        if end - start <= SUM_BLOCK:
            _sum_range(dst, src, idx, start, end)
            return
        n_blocks = (end - start + SUM_BLOCK - 1) // SUM_BLOCK
        for k in blocks(n_blocks):
            b = start + k * SUM_BLOCK
            _sum_block(parts[k], src, idx, b, min(end, b + SUM_BLOCK))
        _add_blocks(dst, parts, n_blocks)

    return sum_rows_blocked


#: the blocked sums on the calling thread, and with the blocks shared among numba's
#: threads (:func:`sum_rows_parallel`): the same bits
sum_rows_blocked, sum_rows_parallel = serial_and_parallel(_make_sum_rows_blocked)


@internal
def _sum_block(part, src, idx, start, end):
    """``part =`` the statistics of samples ``idx[start:end]``, summed from zero."""
    for c in range(part.shape[0]):
        part[c] = 0.0
    _sum_range(part, src, idx, start, end)


@internal
def _add_blocks(dst, parts, n_blocks):
    """``dst +=`` the rows ``parts[:n_blocks]`` in order."""
    for k in range(n_blocks):
        for c in range(dst.shape[0]):
            dst[c] += parts[k, c]


@internal
def _sum_range(dst, src, idx, start, end):
    """``dst +=`` the statistics of samples ``idx[start:end]``, one after the other."""
    last = dst.shape[0] - 1
    if src.kind == SOURCE_ARRAY:
        stats = src.stats
        if dst.shape[0] == 3:
            # boosting's width in registers: a sum kept in dst would wait on its own
            # store at every sample (the order of the additions is the same)
            t0 = dst[0]
            t1 = dst[1]
            t2 = dst[2]
            for s in idx[start:end]:
                t0 += stats[s, 0]
                t1 += stats[s, 1]
                t2 += stats[s, 2]
            dst[0] = t0
            dst[1] = t1
            dst[2] = t2
        else:
            for i in range(start, end):
                s = idx[i]
                for c in range(dst.shape[0]):
                    dst[c] += stats[s, c]
    elif src.kind == SOURCE_CLASSES and last == 2:
        # two classes in registers, each sample's weight added to its class's sum and
        # 0.0 to the other's (which leaves a sum of non-negative weights as it is): no
        # store of a sum waiting on the previous one, no branch on the class
        t0 = dst[0]
        t1 = dst[1]
        tc = dst[2]
        labels = src.labels
        weights = src.weights
        for s in idx[start:end]:
            ws = weights[s]
            first = labels[s] == 0
            t0 += ws if first else 0.0
            t1 += 0.0 if first else ws
            tc += 1.0 if ws > 0.0 else 0.0
        dst[0] = t0
        dst[1] = t1
        dst[2] = tc
    elif src.kind == SOURCE_CLASSES:
        for i in range(start, end):
            s = idx[i]
            ws = src.weights[s]
            dst[src.labels[s]] += ws
            if ws > 0.0:
                dst[last] += 1.0
    else:
        for i in range(start, end):
            s = idx[i]
            ws = src.weights[s]
            dst[0] += ws
            dst[1] += ws * src.targets[s]
            if ws > 0.0:
                dst[2] += 1.0


@internal
def sum_sq(src, idx, start, end):
    """Summed ``w * y^2`` of samples ``idx[start:end]``: the variance a regression tree
    reports (0 for classification)."""
    t = 0.0
    if src.kind == SOURCE_ARRAY:
        if src.sq.shape[0] > 0:
            for i in range(start, end):
                t += src.sq[idx[i]]
    elif src.kind == SOURCE_REGRESSION:
        for i in range(start, end):
            s = idx[i]
            y = src.targets[s]
            t += src.weights[s] * y * y
    return t


@kernel
def gather_rows(ostats, src, idx, start, n):
    """``ostats[i, :] =`` the statistics of sample ``idx[start + i]`` for ``i < n``: the
    node's rows in partition order, for the histograms to read sequentially."""
    n_cols = ostats.shape[1]
    last = n_cols - 1
    if src.kind == SOURCE_ARRAY:
        # the node's ids as a slice (no test of ``start + i`` for a negative index), and
        # boosting's width unrolled
        node_idx = idx[start : start + n]
        stats = src.stats
        if n_cols == 3:
            for i in range(n):
                s = node_idx[i]
                ostats[i, 0] = stats[s, 0]
                ostats[i, 1] = stats[s, 1]
                ostats[i, 2] = stats[s, 2]
        else:
            for i in range(n):
                s = node_idx[i]
                for c in range(n_cols):
                    ostats[i, c] = stats[s, c]
    elif src.kind == SOURCE_CLASSES and last == 2:
        # two classes: the row written in one go, its class's column chosen by a select
        # (no store to a column that depends on the label, no loop)
        node_idx = idx[start : start + n]
        labels = src.labels
        weights = src.weights
        for i in range(n):
            s = node_idx[i]
            ws = weights[s]
            first = labels[s] == 0
            ostats[i, 0] = ws if first else 0.0
            ostats[i, 1] = 0.0 if first else ws
            ostats[i, 2] = 1.0 if ws > 0.0 else 0.0
    elif src.kind == SOURCE_CLASSES:
        for i in range(n):
            s = idx[start + i]
            ws = src.weights[s]
            for c in range(last):
                ostats[i, c] = 0.0
            ostats[i, src.labels[s]] = ws
            ostats[i, last] = 1.0 if ws > 0.0 else 0.0
    else:
        for i in range(n):
            s = idx[start + i]
            ws = src.weights[s]
            ostats[i, 0] = ws
            ostats[i, 1] = ws * src.targets[s]
            ostats[i, 2] = 1.0 if ws > 0.0 else 0.0


#: bits of each field of a packed row of two classes' integer weights
#: (:func:`gather_rows_packed`): class 0's weight, class 1's, the count of samples
PACK_BITS = 21
#: every sum of a field must stay below this, so that no field carries into the next
PACK_LIMIT = 1 << PACK_BITS


def packable(stats, rows):
    """Whether the statistics of the samples ``rows`` pack into integers for
    :func:`gather_rows_packed`: two classes, integer weights, each field's sum over
    ``rows`` below :data:`PACK_LIMIT` (a forest's bootstrap counts of at most two
    million rows; a tree with unit weights)."""
    a = stats.arrays
    if a.kind != SOURCE_CLASSES or stats.n_cols != 3 or rows.shape[0] >= PACK_LIMIT:
        return False
    return _integer_weights_below(a.weights, rows, PACK_LIMIT)


@kernel
def _integer_weights_below(weights, rows, limit):
    """Every ``weights[rows]`` a non-negative integer, and their sum below ``limit``."""
    total = 0.0
    for i in range(rows.shape[0]):
        w = weights[rows[i]]
        if not (w >= 0.0 and w == np.floor(w)):  # NaN fails too
            return False
        total += w
    return total < limit


@inlined
def packed_rows(ostats):
    """The memory of a node's rows of statistics ``ostats`` as int64: where
    :func:`gather_rows_packed` writes a node's packed rows for the gathers of its
    features to read (:func:`~.histogram.gather_bitmap_packed`)."""
    return flat(ostats).view(np.int64)


@kernel
def gather_rows_packed(packed, src, idx, start, n):
    """``packed[i]`` = the statistics of sample ``s = idx[start + i]`` in one integer:
    of class ``y`` (0 or 1) and integer weight ``w``, ``w << (21 y)``, plus ``1 << 42``
    when ``w > 0``.  One integer addition then sums a class's weight and the count (the
    three columns of :func:`gather_rows`).  Valid where :func:`packable` said so: no
    field's sum reaches :data:`PACK_LIMIT`."""
    node_idx = idx[start : start + n]
    labels = src.labels
    weights = src.weights
    count = np.int64(1) << np.int64(2 * PACK_BITS)
    for i in range(n):
        s = node_idx[i]
        w = np.int64(weights[s])
        present = count if w > 0 else np.int64(0)
        packed[i] = (w << np.int64(PACK_BITS * labels[s])) + present


@compiled(parallel=True, no_cfunc_wrapper=True, _nrt=True)
def gather_rows_parallel(ostats, src, idx, start, n, n_chunks):
    """:func:`gather_rows` on ``n_chunks`` threads, each a contiguous share of the
    node's rows.  (With numba's runtime, which the parallel region needs, whatever the
    grower that calls it was compiled with.)"""
    chunk = (n + n_chunks - 1) // n_chunks
    for t in prange(n_chunks):
        lo = min(n, t * chunk)
        hi = min(n, lo + chunk)
        gather_rows(ostats[lo:hi], src, idx, start + lo, hi - lo)


@compiled(parallel=True, no_cfunc_wrapper=True, _nrt=True)
def copy_gather_rows_parallel(idx, sample_idx, ostats, src, n_chunks):
    """``idx[:] = sample_idx`` and :func:`gather_rows` of those rows into ``ostats``
    on ``n_chunks`` threads, each a contiguous share: a tree's root in one region."""
    n = idx.shape[0]
    chunk = (n + n_chunks - 1) // n_chunks
    for t in prange(n_chunks):
        lo = min(n, t * chunk)
        hi = min(n, lo + chunk)
        for i in range(lo, hi):
            idx[i] = sample_idx[i]
        gather_rows(ostats[lo:hi], src, idx, lo, hi - lo)


@parallel_kernel
def boosting_rows(stats, sample_weight, gradient, hessian, k, newton):
    """Fill the first two columns of boosting's given rows for output ``k`` (``gradient``
    and ``hessian`` of shape (n_outputs, n_samples), an output's row contiguous):
    ``(w g_k, w h_k)`` for the second-order gain (``newton``), ``(w, -w g_k)`` for a
    least-squares tree on the negative gradient.  Returns ``w g_k^2`` of the latter (its
    variance), an empty array for the former.

    One pass over the rows where numpy makes a temporary and a strided copy per column,
    for every tree of every iteration, on every thread (each row is its own).
    """
    n = stats.shape[0]
    g_k = gradient[k]
    h_k = hessian[k]
    if newton:
        for i in prange(n):
            w = sample_weight[i]
            stats[i, 0] = w * g_k[i]
            stats[i, 1] = w * h_k[i]
        return np.empty(0)
    sq = np.empty(n)
    for i in prange(n):
        w = sample_weight[i]
        g = g_k[i]
        stats[i, 0] = w
        stats[i, 1] = -w * g
        sq[i] = w * g**2
    return sq
