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
"""
import numpy as np
from numba import njit

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
    arrays : tuple of ndarray
        ``(stats, sq, y, w)`` for the kernels; what a source does not read is a
        one-element placeholder.
    """

    def __init__(self, source, n_cols, stats, sq, y, w):
        self.source = source
        self.n_cols = n_cols
        self.arrays = (stats, sq, y, w)

    @property
    def n_samples(self):
        stats, _, y, _ = self.arrays
        return stats.shape[0] if self.source == SOURCE_ARRAY else y.shape[0]

    @classmethod
    def classes(cls, y_encoded, sample_weight, n_classes):
        """Class ``y_encoded[i]`` (in ``0 .. n_classes - 1``) with weight
        ``sample_weight[i]``."""
        return cls(SOURCE_CLASSES, n_classes + 1, np.zeros((1, n_classes + 1)), _NONE_1D,
                   np.ascontiguousarray(y_encoded, dtype=np.float64),
                   np.ascontiguousarray(sample_weight, dtype=np.float64))

    @classmethod
    def regression(cls, y, sample_weight):
        """Target ``y[i]`` with weight ``sample_weight[i]``."""
        return cls(SOURCE_REGRESSION, 3, np.zeros((1, 3)), _NONE_1D,
                   np.ascontiguousarray(y, dtype=np.float64),
                   np.ascontiguousarray(sample_weight, dtype=np.float64))

    @classmethod
    def given(cls, stats, sq=None):
        """Rows given as an array of shape (n_samples, n_stats + 1), and optionally
        ``w*y^2`` (the squared-error criterion's variance)."""
        stats = np.ascontiguousarray(stats, dtype=np.float64)
        sq = _NONE_1D if sq is None else np.ascontiguousarray(sq, dtype=np.float64)
        return cls(SOURCE_ARRAY, stats.shape[1], stats, sq, _NONE_1D, _NONE_1D)

    def materialize(self):
        """The rows as an array of shape (n_samples, n_cols) and ``w*y^2`` (None for
        classification): what the kernels read, for tests and inspection."""
        stats, sq, y, w = self.arrays
        if self.source == SOURCE_ARRAY:
            return stats, (None if sq is _NONE_1D else sq)
        n = y.shape[0]
        out = np.zeros((n, self.n_cols))
        if self.source == SOURCE_CLASSES:
            out[np.arange(n), y.astype(np.int64)] = w
            out[:, -1] = w > 0
            return out, None
        out[:, 0] = w
        out[:, 1] = w * y
        out[:, 2] = w > 0
        return out, w * y * y


@njit(nogil=True, cache=True, inline="always")
def add_sample(dst, j, source, arrays, s):
    """``dst[j, :] +=`` the statistics of sample ``s``."""
    stats, sq, y, w = arrays
    if source == SOURCE_ARRAY:
        for c in range(dst.shape[1]):
            dst[j, c] += stats[s, c]
    elif source == SOURCE_CLASSES:
        ws = w[s]
        dst[j, np.int64(y[s])] += ws
        if ws > 0.0:
            dst[j, dst.shape[1] - 1] += 1.0
    else:
        ws = w[s]
        dst[j, 0] += ws
        dst[j, 1] += ws * y[s]
        if ws > 0.0:
            dst[j, 2] += 1.0


@njit(nogil=True, cache=True, inline="always")
def copy_sample(dst, i, source, arrays, s):
    """``dst[i, :] =`` the statistics of sample ``s``."""
    stats, sq, y, w = arrays
    if source == SOURCE_ARRAY:
        for c in range(dst.shape[1]):
            dst[i, c] = stats[s, c]
    elif source == SOURCE_CLASSES:
        ws = w[s]
        for c in range(dst.shape[1]):
            dst[i, c] = 0.0
        dst[i, np.int64(y[s])] = ws
        dst[i, dst.shape[1] - 1] = 1.0 if ws > 0.0 else 0.0
    else:
        ws = w[s]
        dst[i, 0] = ws
        dst[i, 1] = ws * y[s]
        dst[i, 2] = 1.0 if ws > 0.0 else 0.0


@njit(nogil=True, cache=True, inline="always")
def sample_sq(source, arrays, s):
    """``w*y^2`` of sample ``s`` (read by the squared-error criterion only)."""
    stats, sq, y, w = arrays
    if source == SOURCE_REGRESSION:
        return w[s] * y[s] * y[s]
    return sq[s]
