"""The bin code of one value: the rule every binning kernel (dense rows, sparse columns)
applies, so that a value gets the same code whatever the layout of X."""

import numpy as np
from .._numba.jit import inlined


def edge_table(bin_thresholds):
    """The edges of every feature in one table, each row padded with +inf to one more
    than the most edges of a feature (every row ends with a +inf).

    Parameters
    ----------
    bin_thresholds : list of ndarray of float64

    Returns
    -------
    edges : ndarray of float64, shape (n_features, width)
    n_edges : ndarray of int64, shape (n_features,)
    """
    n_edges = np.array([e.size for e in bin_thresholds], dtype=np.int64)
    width = int(n_edges.max(initial=0)) + 1
    edges = np.full((len(bin_thresholds), width), np.inf)
    for f, e in enumerate(bin_thresholds):
        edges[f, : e.size] = e
    return edges, n_edges


@inlined
def lower_bound(edges_f, x):
    """Index of the first edge >= x in the +inf-padded row ``edges_f`` (of
    :func:`edge_table`), ``x`` not NaN: a binary search.  (The dense codes of most
    features are found through a grid instead: ``binning._map_to_bins``.)"""
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
def numeric_code(edges_f, n_edges_f, x, missing_code):
    """Code of value ``x`` of a numeric feature: the number of its edges below ``x``,
    ``missing_code`` for NaN."""
    code = min(lower_bound(edges_f, x), n_edges_f)
    return missing_code if x != x else code


@inlined
def value_code(x, f, edges, n_edges, is_cat, n_bins, missing_code):
    """Code of value ``x`` of feature ``f``: the number of the feature's edges below
    ``x``, the category index for a categorical feature, ``missing_code`` for NaN (and
    for a category index out of range).

    Parameters
    ----------
    x : float
    f : int
    edges : ndarray of float64, shape (n_features, width)
        Each feature's edges, padded with +inf (:func:`edge_table`).
    n_edges, n_bins : ndarray of int64, shape (n_features,)
    is_cat : ndarray of bool, shape (n_features,)
    missing_code : int

    Returns
    -------
    int
    """
    if is_cat[f]:
        if x >= 0 and x < n_bins[f]:
            return np.int64(x)
        return missing_code
    return numeric_code(edges[f], n_edges[f], x, missing_code)
