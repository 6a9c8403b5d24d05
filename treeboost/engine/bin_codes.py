"""The bin code of one value: the rule every binning kernel (dense rows, sparse columns)
applies, so that a value gets the same code whatever the layout of X."""
import numpy as np
from ._jit import inlined


@inlined
def lower_bound(edges_f, coarse_f, x):
    """Index of the first edge >= x in the +inf-padded row ``edges_f``.

    Up to 256 edges: count the blocks of 16 whose last edge is < x, then the edges < x
    inside the block; both counts are independent compares the CPU overlaps, unlike
    the dependent loads of a binary search.  More edges: binary search.
    """
    nb = coarse_f.shape[0]
    if nb <= 16:
        blk = 0
        for k in range(nb):
            blk += coarse_f[k] < x
        if blk == nb:
            return edges_f.shape[0]
        b0 = blk * 16
        cnt = 0
        for k in range(16):
            cnt += edges_f[b0 + k] < x
        return b0 + cnt
    lo = 0
    hi = edges_f.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if edges_f[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@inlined
def value_code(x, f, edges, coarse, n_edges, is_cat, n_bins, missing_code):
    """Code of value ``x`` of feature ``f``: the number of the feature's edges below
    ``x``, the category index for a categorical feature, ``missing_code`` for NaN (and
    for a category index out of range).

    Parameters
    ----------
    x : float
    f : int
    edges : ndarray of float64, shape (n_features, width)
        Each feature's edges, padded with +inf to a multiple of 16.
    coarse : ndarray of float64, shape (n_features, width // 16)
        ``edges[:, 15::16]``, the last edge of each block of 16.
    n_edges, n_bins : ndarray of int64, shape (n_features,)
    is_cat : ndarray of bool, shape (n_features,)
    missing_code : int

    Returns
    -------
    int
    """
    if np.isnan(x):
        return missing_code
    if is_cat[f]:
        if x >= 0 and x < n_bins[f]:
            return np.int64(x)
        return missing_code
    return min(lower_bound(edges[f], coarse[f], x), n_edges[f])
