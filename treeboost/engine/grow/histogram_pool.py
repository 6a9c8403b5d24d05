"""The pool of dense histogram buffers a tree's nodes borrow and give back
(:class:`~..layout.HistogramPool`)."""

import numpy as np

from .._numba.jit import internal


@internal
def acquire(pool):
    """A free histogram buffer, or -1 when every buffer is taken: the node then gathers
    compressed histograms instead (the same sums; only its children lose the subtraction).
    A pool that never grows is never reallocated inside the loop, so its views stay
    borrowed (see ._borrow)."""
    if pool.n_free[0] == 0:
        return np.int64(-1)
    pool.n_free[0] -= 1
    return pool.free[pool.n_free[0]]


@internal
def release(pool, slot):
    if slot >= 0:
        pool.free[pool.n_free[0]] = slot
        pool.n_free[0] += 1
