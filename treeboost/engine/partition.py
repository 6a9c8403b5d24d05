"""Splitting a node's samples into its two children (stable, in place)."""
import numpy as np
from numba import njit, prange


@njit(nogil=True, cache=True, inline="always")
def goes_left_binned(b, missing_code, missing_left, is_cat, bitset_row, bin_threshold):
    """Does a sample with code ``b`` go left at this split?"""
    if b == missing_code:
        return missing_left
    if is_cat:
        return (bitset_row[b >> 6] >> np.uint64(b & 63)) & np.uint64(1) == 1
    return b <= bin_threshold


@njit(nogil=True, cache=True, parallel=True)
def partition_parallel(idx, s0, e0, col, missing_code, missing_left, is_cat, bitset_row,
                       bin_threshold, buf, n_chunks):
    """Stable partition of ``idx[s0:e0]`` on several threads; returns the left count.

    Each chunk first counts its left samples; prefix sums give every chunk its place in
    the left and right parts, and a second pass writes them through ``buf``.
    """
    n = e0 - s0
    chunk = (n + n_chunks - 1) // n_chunks
    counts = np.zeros(n_chunks, np.int64)
    for t in prange(n_chunks):
        c = 0
        for i in range(s0 + t * chunk, min(e0, s0 + (t + 1) * chunk)):
            if goes_left_binned(col[idx[i]], missing_code, missing_left, is_cat, bitset_row,
                                bin_threshold):
                c += 1
        counts[t] = c
    n_left = counts.sum()
    left_at = np.zeros(n_chunks, np.int64)
    right_at = np.zeros(n_chunks, np.int64)
    for t in range(1, n_chunks):
        size = min(n, (t) * chunk) - min(n, (t - 1) * chunk)
        left_at[t] = left_at[t - 1] + counts[t - 1]
        right_at[t] = right_at[t - 1] + size - counts[t - 1]
    for t in prange(n_chunks):
        pl = left_at[t]
        pr = n_left + right_at[t]
        for i in range(s0 + t * chunk, min(e0, s0 + (t + 1) * chunk)):
            s = idx[i]
            if goes_left_binned(col[s], missing_code, missing_left, is_cat, bitset_row,
                                bin_threshold):
                buf[pl] = s
                pl += 1
            else:
                buf[pr] = s
                pr += 1
    for t in prange(n_chunks):
        for i in range(t * chunk, min(n, (t + 1) * chunk)):
            idx[s0 + i] = buf[i]
    return n_left
