"""Splitting a node's samples into its two children (stable, in place).

:func:`~..predict.routing.goes_left_binned` is the one predicate on bin codes: the
grower's partition and :func:`~..predict.tree.Tree.apply_binned` both use it.
"""

from collections import namedtuple

import numpy as np
from numba import prange

from ..binning.sparse_codes import row_code
from ..statistics.samples import gather_rows
from .._numba.jit import compiled, inlined, kernel
from ..predict.routing import goes_left_binned

#: rows of a node per thread from which the parallel grower partitions it on several
#: threads (:func:`partition_parallel`): the parallel partition moves every row twice
#: and starts two regions, which a share smaller than this does not repay (its second
#: region also gathers the statistics of the child examined next, which the serial path
#: does in a pass of its own)
PARALLEL_PARTITION_ROWS = 8_192


#: a split as the partition reads it: ``categories[row]`` is its category set
BinnedSplit = namedtuple(
    "BinnedSplit",
    ["missing_code", "missing_go_left", "is_categorical", "categories", "row", "bin_threshold"],
)


@inlined
def _goes_left(code, split):
    return goes_left_binned(
        code,
        split.missing_code,
        split.missing_go_left,
        split.is_categorical,
        split.categories,
        split.row,
        split.bin_threshold,
    )


@inlined
def _scatter(idx, lo, hi, col, split, left, at_left, right, at_right, step):
    """The samples ``idx[lo:hi]`` that go left to ``left[at_left]``,
    ``left[at_left + 1]``, ..., the others to ``right[at_right]``,
    ``right[at_right + step]``, ..., each side in its order; returns the left count.

    Both sides are written at every sample and the counts say which write stands (no
    branch on a side that is as good as random): the slot written in vain is the next
    one of its side, which that side's next sample writes again, or, where the sides
    share an array, a slot the other side's later samples fill."""
    n_left = 0
    n_right = 0
    for i in range(lo, hi):
        s = idx[i]
        go = _goes_left(col[s], split)
        left[at_left + n_left] = s
        right[at_right + step * n_right] = s
        n_left += go
        n_right += not go
    return n_left


@kernel
def partition_serial(idx, s0, e0, col, split, buf):
    """Stable partition of ``idx[s0:e0]`` at ``split``: the left samples in place (a
    left sample's slot is at or before its own, already read), the right ones through
    ``buf``; returns the left count."""
    n_left = _scatter(idx, s0, e0, col, split, idx, s0, buf, 0, 1)
    for i in range(e0 - s0 - n_left):
        idx[s0 + n_left + i] = buf[i]
    return n_left


@compiled(parallel=True, no_cfunc_wrapper=True, _nrt=True)
def partition_parallel(idx, s0, e0, col, split, buf, n_chunks, ostats, src, gather):
    """:func:`partition_serial` on ``n_chunks`` threads, each a contiguous share of the
    node's rows; returns the left count.  The same order as the serial partition (both
    are stable).

    In a first region each thread partitions its share into ``buf[lo:hi]``: its left
    samples from ``lo`` up, its right ones from ``hi - 1`` down; in a second, it copies
    both back to their places in ``idx``, after the shares before its own.  With
    ``gather``, the second region also fills ``ostats[i]`` with the statistics of the
    ``i``-th sample of the child with fewer rows (the left one on a tie), as
    :func:`~.statistics.gather_rows` would for that child once its rows are in place:
    the child the grower builds a histogram for next.  (With numba's runtime, which the
    parallel region needs.)
    """
    n = e0 - s0
    chunk = (n + n_chunks - 1) // n_chunks
    n_left = np.empty(n_chunks, np.int64)
    for t in prange(n_chunks):
        lo = s0 + min(n, t * chunk)
        hi = s0 + min(n, (t + 1) * chunk)
        n_left[t] = _scatter(idx, lo, hi, col, split, buf, lo, buf, hi - 1, -1)
    total = 0
    for t in range(n_chunks):
        total += n_left[t]
    gather_left = gather and total <= n - total
    gather_right = gather and not gather_left
    for t in prange(n_chunks):
        lo = s0 + min(n, t * chunk)
        hi = s0 + min(n, (t + 1) * chunk)
        before = 0  # left samples of the shares before this one
        for u in range(t):
            before += n_left[u]
        nl = n_left[t]
        nr = hi - lo - nl
        at_left = s0 + before
        at_right = s0 + total + (lo - s0 - before)
        for j in range(nl):
            idx[at_left + j] = buf[lo + j]
        for j in range(nr):
            idx[at_right + j] = buf[hi - 1 - j]
        if gather_left:
            gather_rows(ostats[before : before + nl], src, idx, at_left, nl)
        elif gather_right:
            o = lo - s0 - before
            gather_rows(ostats[o : o + nr], src, idx, at_right, nr)
    return total


@kernel
def partition_sparse(idx, s0, e0, data, f, split, buf, position):
    """:func:`partition_serial` on sparse codes (``data`` a
    :class:`~.layout.BinnedData` of :mod:`.sparse_codes`), whose feature ``f`` each row
    looks up; then the new place of every row of the node into ``position``."""
    n_left = 0
    n_right = 0
    for i in range(s0, e0):
        s = idx[i]
        if _goes_left(row_code(data, s, f), split):
            idx[s0 + n_left] = s
            n_left += 1
        else:
            buf[n_right] = s
            n_right += 1
    for i in range(n_right):
        idx[s0 + n_left + i] = buf[i]
    for i in range(s0, e0):
        position[idx[i]] = i
    return n_left
