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
``n_samples x (n_stats + 1)`` doubles per tree (24 bytes per sample for two classes, plus
as many temporaries) next to the bootstrap weights it has anyway.  Boosting's gradients
change every iteration and are given as an array.

The kernels tell the sources apart by the types of the arrays (:attr:`SampleStatistics.
arrays`): ``(stats 2-d, sq)``, ``(int class codes, w)``, ``(float y, w)``.  Each source
thus gets its own compiled grower with straight-line per-sample code; a source tested
at run time in those loops made a forest's fit a fifth slower.
"""
import numpy as np
from numba import types
from numba.extending import overload

SOURCE_ARRAY, SOURCE_CLASSES, SOURCE_REGRESSION = 0, 1, 2

_NONE_1D = np.zeros(1)


class SampleStatistics:
    """Per-sample statistics as the kernels take them.

    Use the constructors :meth:`classes`, :meth:`regression` and :meth:`given`.

    Attributes
    ----------
    source : int
        ``SOURCE_CLASSES``, ``SOURCE_REGRESSION`` or ``SOURCE_ARRAY``.
    n_cols : int
        Statistic columns, the count column included.
    arrays : tuple of two ndarrays
        What the kernels read: ``(stats, sq)`` (float64, 2-d and 1-d; ``sq`` is a
        one-element placeholder when not given), ``(y, w)`` with int64 class codes or
        float64 targets, and float64 weights.
    """

    def __init__(self, source, n_cols, arrays):
        self.source = source
        self.n_cols = n_cols
        self.arrays = arrays

    @property
    def n_samples(self):
        return self.arrays[0].shape[0]

    @classmethod
    def classes(cls, y_encoded, sample_weight, n_classes):
        """Class ``y_encoded[i]`` (in ``0 .. n_classes - 1``) with weight
        ``sample_weight[i]``."""
        return cls(SOURCE_CLASSES, n_classes + 1,
                   (np.ascontiguousarray(y_encoded, dtype=np.int64),
                    np.ascontiguousarray(sample_weight, dtype=np.float64)))

    @classmethod
    def regression(cls, y, sample_weight):
        """Target ``y[i]`` with weight ``sample_weight[i]``."""
        return cls(SOURCE_REGRESSION, 3,
                   (np.ascontiguousarray(y, dtype=np.float64),
                    np.ascontiguousarray(sample_weight, dtype=np.float64)))

    @classmethod
    def given(cls, stats, sq=None):
        """Rows given as an array of shape (n_samples, n_stats + 1), and optionally
        ``w*y^2`` (the squared-error criterion's variance)."""
        stats = np.ascontiguousarray(stats, dtype=np.float64)
        sq = _NONE_1D if sq is None else np.ascontiguousarray(sq, dtype=np.float64)
        return cls(SOURCE_ARRAY, stats.shape[1], (stats, sq))

    def materialize(self):
        """The rows as an array of shape (n_samples, n_cols) and ``w*y^2`` (None for
        classification): what the kernels read, for tests and inspection."""
        if self.source == SOURCE_ARRAY:
            stats, sq = self.arrays
            return stats, (None if sq is _NONE_1D else sq)
        y, w = self.arrays
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


def _source_of(arrays):
    """The source a tuple of array types stands for (at compile time)."""
    first = arrays[0]
    if first.ndim == 2:
        return SOURCE_ARRAY
    return SOURCE_CLASSES if isinstance(first.dtype, types.Integer) else SOURCE_REGRESSION


def add_sample(dst, j, arrays, s):
    """``dst[j, :] +=`` the statistics of sample ``s`` (in the kernels)."""
    raise NotImplementedError("a numba kernel helper")


def gather_samples(ostats, idx, start, n, arrays):
    """``ostats[i, :] =`` the statistics of sample ``idx[start + i]`` for ``i < n``: the
    node's rows in partition order, for the histograms to read sequentially (in the
    kernels)."""
    raise NotImplementedError("a numba kernel helper")


def sample_sq(arrays, s):
    """``w*y^2`` of sample ``s``, read by the squared-error criterion only (in the
    kernels)."""
    raise NotImplementedError("a numba kernel helper")


@overload(add_sample)
def _add_sample(dst, j, arrays, s):
    source = _source_of(arrays)
    if source == SOURCE_ARRAY:
        def impl(dst, j, arrays, s):
            stats = arrays[0]
            for c in range(dst.shape[1]):
                dst[j, c] += stats[s, c]
    elif source == SOURCE_CLASSES:
        def impl(dst, j, arrays, s):
            y, w = arrays
            ws = w[s]
            dst[j, y[s]] += ws
            if ws > 0.0:
                dst[j, dst.shape[1] - 1] += 1.0
    else:
        def impl(dst, j, arrays, s):
            y, w = arrays
            ws = w[s]
            dst[j, 0] += ws
            dst[j, 1] += ws * y[s]
            if ws > 0.0:
                dst[j, 2] += 1.0
    return impl


@overload(gather_samples)
def _gather_samples(ostats, idx, start, n, arrays):
    source = _source_of(arrays)
    if source == SOURCE_ARRAY:
        def impl(ostats, idx, start, n, arrays):
            stats = arrays[0]
            for i in range(n):
                s = idx[start + i]
                for c in range(ostats.shape[1]):
                    ostats[i, c] = stats[s, c]
    elif source == SOURCE_CLASSES:
        def impl(ostats, idx, start, n, arrays):
            y, w = arrays
            last = ostats.shape[1] - 1
            for i in range(n):
                s = idx[start + i]
                ws = w[s]
                for c in range(last):
                    ostats[i, c] = 0.0
                ostats[i, y[s]] = ws
                ostats[i, last] = 1.0 if ws > 0.0 else 0.0
    else:
        def impl(ostats, idx, start, n, arrays):
            y, w = arrays
            for i in range(n):
                s = idx[start + i]
                ws = w[s]
                ostats[i, 0] = ws
                ostats[i, 1] = ws * y[s]
                ostats[i, 2] = 1.0 if ws > 0.0 else 0.0
    return impl


@overload(sample_sq)
def _sample_sq(arrays, s):
    source = _source_of(arrays)
    if source == SOURCE_ARRAY:
        def impl(arrays, s):
            return arrays[1][s]
    elif source == SOURCE_REGRESSION:
        def impl(arrays, s):
            y, w = arrays
            return w[s] * y[s] * y[s]
    else:
        def impl(arrays, s):
            return 0.0
    return impl
