"""A numeric column's quantile bin edges by selection, in linear time.

:class:`~.binning.BinMapper` cuts a column of more distinct values than ``max_bins``
where the cumulative count of its ``N`` non-missing values crosses each quantile
``t_k = N k / max_bins``: the edge is the midpoint between the distinct value ``v_k``
reached there and the next larger value, ``succ(v_k)``.  ``v_k`` is the value of rank
``r_k = ceil(t_k) - 1`` (0-based) of the column, an order statistic.  A bin's center,
``(min + max) / 2`` of the values it holds, is ``(succ(v_{k-1}) + v_k) / 2``, the
column's minimum and maximum at both ends.  So the edges and the centers need
``max_bins - 1`` order statistics and their successors, not the sorted column.

:func:`select_cut` finds them as a bucket selection does: one pass deals the values
into buckets of equal width between the column's minimum and maximum (counting each
bucket's values and keeping its smallest), the buckets that hold a wanted rank are
copied out and sorted, and the rest are never ordered.  A bucket holds sixteen values
on average; a skewed column puts more in a few buckets, and sorts those (at worst the
whole column, as a sort would).

A column of at most ``max_bins`` distinct values is counted in a small hash table
instead, which stops as soon as it sees one value more: a continuous column leaves
after ``max_bins + 1`` values.

The values are the ones sorting gives (:func:`~.binning._distinct_counts`): distinct by
``==``, so 0.0 and -0.0 are one value, written -0.0 when the column holds a -0.0 (it
sorts first); the same edges and centers to the bit (``tests/trees/test_binning.py``
compares them on awkward columns).
"""

from collections import namedtuple

import numpy as np

from .._numba.jit import inlined, kernel

#: a column that :func:`select_cut` leaves to a sort: an infinite value, a range too
#: wide or too narrow for buckets of equal width in float64, or an edge that rounding
#: put below its value (subnormals)
UNSUITED = None

#: values a bucket holds on average, when they spread evenly
_VALUES_PER_BUCKET = 16
_MIN_BUCKETS = 64
_MAX_BUCKETS = 1 << 16

#: ``select_cut``'s result: the column's sorted distinct values (None where they were
#: not all found: more than ``max_bins``), its edges and its bins' centers
ColumnCut = namedtuple("ColumnCut", ["distinct", "edges", "centers"])

_NEGATIVE_ZERO = np.uint64(0x8000000000000000)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@kernel
def _summary(col, bits):
    """The number of non-missing values, their minimum and maximum, and whether one is
    -0.0."""
    n = 0
    lo = np.inf
    hi = -np.inf
    negative_zero = False
    for i in range(col.shape[0]):
        x = col[i]
        if x == x:
            n += 1
            lo = min(lo, x)
            hi = max(hi, x)
            negative_zero |= bits[i] == _NEGATIVE_ZERO
    return n, lo, hi, negative_zero


@kernel
def _count_few(col, bits, limit, keys, counts, used, shift):
    """The distinct non-missing values of ``col`` and their counts in the open-addressing
    table ``keys`` / ``counts`` / ``used`` (``2 ** (64 - shift)`` slots, more than twice
    ``limit``; ``used`` all False on entry; 0.0 and -0.0 share the key 0).  Returns their
    number, or -1 as soon as there are more than ``limit``."""
    mask = np.uint64(keys.shape[0] - 1)
    m = 0
    for i in range(col.shape[0]):
        x = col[i]
        if x != x:
            continue
        k = bits[i] if x != 0.0 else np.uint64(0)
        h = (k * _GOLDEN) >> shift
        while used[h] and keys[h] != k:
            h = (h + np.uint64(1)) & mask
        if not used[h]:
            m += 1
            if m > limit:
                return -1
            used[h] = True
            keys[h] = k
            counts[h] = 0
        counts[h] += 1
    return m


@inlined
def _bucket(x, lo, scale, last):
    """The bucket of ``x``: ``(x - lo) * scale`` truncated, at most ``last``.  It never
    decreases with ``x`` (each rounding does not): equal values share a bucket, and
    every value of a later bucket is larger.  Both of :func:`_select`'s passes deal by
    it."""
    return min(np.int64((x - lo) * scale), last)


@kernel
def _select(col, lo, hi, ranks, n_buckets, v, succ):
    """``v[k]``: the value of rank ``ranks[k]`` among the non-missing values of ``col``
    (``ranks`` non-decreasing, each below their number); ``succ[k]``: the smallest value
    above it (NaN for the maximum).  ``lo`` < ``hi`` are the minimum and maximum, and
    ``n_buckets / (hi - lo)`` is finite."""
    scale = n_buckets / (hi - lo)
    last = n_buckets - 1
    counts = np.zeros(n_buckets, np.int64)
    smallest = np.full(n_buckets, np.inf)
    for i in range(col.shape[0]):
        x = col[i]
        if x == x:
            b = _bucket(x, lo, scale, last)
            counts[b] += 1
            smallest[b] = min(smallest[b], x)
    starts = np.empty(n_buckets + 1, np.int64)
    at = 0
    for b in range(n_buckets):
        starts[b] = at
        at += counts[b]
    starts[n_buckets] = at
    wanted = np.zeros(n_buckets, np.bool_)
    b = 0
    for k in range(ranks.shape[0]):
        while starts[b + 1] <= ranks[k]:
            b += 1
        wanted[b] = True
    # the wanted buckets' values at their ranks' places, each bucket then sorted
    seg = np.empty(at)
    fill = starts[:n_buckets].copy()
    for i in range(col.shape[0]):
        x = col[i]
        if x == x:
            b = _bucket(x, lo, scale, last)
            if wanted[b]:
                seg[fill[b]] = x
                fill[b] += 1
    for b in range(n_buckets):
        if wanted[b]:
            seg[starts[b] : starts[b + 1]].sort()
    b = 0
    for k in range(ranks.shape[0]):
        r = ranks[k]
        while starts[b + 1] <= r:
            b += 1
        v[k] = seg[r]
        if k > 0 and v[k] == v[k - 1]:
            succ[k] = succ[k - 1]
            continue
        j = r + 1
        end = starts[b + 1]
        while j < end and seg[j] == v[k]:
            j += 1
        if j < end:
            succ[k] = seg[j]
            continue
        succ[k] = np.nan
        for b2 in range(b + 1, n_buckets):
            if counts[b2] > 0:
                succ[k] = smallest[b2]
                break


def _canonical(a, zero):
    """``a`` with its zeros written as ``zero`` (the sign the sorted column keeps)."""
    return np.where(a == 0.0, zero, a)


def select_cut(col, max_bins, finish, midpoints):
    """The bin edges and centers of the float64 column ``col`` (NaN = missing), as
    :class:`ColumnCut` (:data:`UNSUITED` where a sort must find them), and the number
    of its non-missing values.

    ``max_bins`` at most 1024; ``finish(distinct, counts)`` cuts a column of at most
    ``max_bins`` distinct values (sorted, with their counts) and returns a
    :class:`ColumnCut`; ``midpoints(a, b)`` is the edge between adjacent distinct values
    (:func:`~.binning._midpoints`)."""
    bits = col.view(np.uint64)
    n, lo, hi, negative_zero = _summary(col, bits)
    zero = -0.0 if negative_zero else 0.0
    if n == 0:
        return finish(np.empty(0), np.empty(0, np.int64)), n
    log_size = (4 * max_bins).bit_length()
    keys = np.empty(1 << log_size, np.uint64)
    counts = np.empty(1 << log_size, np.int64)
    used = np.zeros(1 << log_size, np.bool_)
    m = _count_few(col, bits, max_bins, keys, counts, used, np.uint64(64 - log_size))
    if m >= 0:
        values = _canonical(keys[used].view(np.float64), zero)
        order = np.argsort(values, kind="stable")
        return finish(values[order], counts[used][order]), n
    n_buckets = int(min(max(n // _VALUES_PER_BUCKET, _MIN_BUCKETS), _MAX_BUCKETS))
    with np.errstate(over="ignore", divide="ignore"):
        width = hi - lo
        ok = np.isfinite(width) and np.isfinite(n_buckets / width)
    if not ok:
        return UNSUITED, n
    # the quantiles exactly as the cut of the sorted column computes them
    targets = np.int64(n) * np.arange(1, max_bins) / max_bins
    ranks = np.ceil(targets).astype(np.int64) - 1
    v = np.empty(ranks.shape[0])
    succ = np.empty(ranks.shape[0])
    _select(col, lo, hi, ranks, n_buckets, v, succ)
    # the maximum has no edge above it, and a value reached at several quantiles one edge
    keep = v < hi
    v, succ = v[keep], succ[keep]
    first = np.ones(v.shape[0], bool)
    np.not_equal(v[1:], v[:-1], out=first[1:])
    v = _canonical(v[first], zero)
    succ = _canonical(succ[first], zero)
    edges = midpoints(v, succ)
    if (edges < v).any():
        # an edge rounded below its value (subnormals): the sort's centers would
        # search the values for it
        return UNSUITED, n
    lows = np.concatenate([[_canonical(lo, zero)], succ])
    highs = np.concatenate([v, [_canonical(hi, zero)]])
    return ColumnCut(None, edges, lows / 2.0 + highs / 2.0), n
