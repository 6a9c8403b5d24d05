"""Binning a scipy.sparse X column by column, without a dense copy of it.

A sparse column stores some values and leaves the others implicit zeros.  Its sorted
distinct values and their counts, the input of the bin edges, are those of its stored
values with the zeros' count (``n_samples`` minus the column's stored entries) added to
the value 0, so the edges are bit for bit those of the dense column.  Its codes are the
code of 0 everywhere, then the code of each stored entry written over it.  An explicit
NaN stored in the matrix is a missing value, as in a dense X.

The codes are written here as the dense feature-major matrix (``codes_T``, one or two
bytes a cell) for a matrix of some density; a very sparse one keeps only its entries
(:mod:`.sparse_codes`, chosen by :meth:`~.binning.BinMapper.transform`).
"""

import numpy as np
from numba import prange

from .codes import value_code
from .._numba.jit import parallel_kernel


def to_csc(X):
    """X as a canonical CSC matrix (sorted indices, no duplicate entries): a no-op for
    one already, else one conversion (duplicate entries are summed, as ``toarray``
    sums them)."""
    Xc = X.tocsc() if X.format != "csc" else X
    if not Xc.has_canonical_format:
        Xc = Xc.copy() if Xc is X else Xc
        Xc.sum_duplicates()
    return Xc


def sorted_stored_values(Xc, f):
    """Sorted stored values of column ``f`` of a canonical CSC matrix (as float64, NaN
    last) and the number of its implicit zeros.

    Returns
    -------
    values : ndarray of float64
    n_zeros : int
    """
    stored = np.asarray(Xc.data[Xc.indptr[f] : Xc.indptr[f + 1]], dtype=np.float64)
    return np.sort(stored), Xc.shape[0] - stored.size


def add_zeros(distinct, counts, n_zeros):
    """The sorted distinct values and counts of the stored values, with ``n_zeros``
    more zeros: added to the count of 0, or 0 inserted in its place.

    Parameters
    ----------
    distinct : ndarray of float64, sorted
    counts : ndarray of int64
    n_zeros : int

    Returns
    -------
    distinct, counts : ndarray
    """
    if not n_zeros:
        return distinct, counts
    at = int(np.searchsorted(distinct, 0.0))
    if at < distinct.size and distinct[at] == 0.0:
        counts = counts.copy()
        counts[at] += n_zeros
        return distinct, counts
    return np.insert(distinct, at, 0.0), np.insert(counts, at, n_zeros)


def sparse_missing_columns(Xc):
    """Whether each column of a CSC matrix stores a NaN, shape (n_features,)."""
    nan_entries = np.flatnonzero(np.isnan(Xc.data))
    # column of each NaN entry: the last column whose first entry is at or before it
    cols = np.searchsorted(Xc.indptr, nan_entries, side="right") - 1
    out = np.zeros(Xc.shape[1], bool)
    out[cols] = True
    return out


@parallel_kernel
def entry_codes(indptr, data, edges, n_edges, is_cat, n_bins, missing_code, codes, zero_code):
    """The code of every stored entry of a CSC matrix (into ``codes``, in the order of
    ``data``) and each feature's code of 0 (into ``zero_code``); one column per task.
    The arguments after ``data`` as :func:`~.bin_codes.value_code` takes them."""
    for f in prange(zero_code.shape[0]):
        zero_code[f] = value_code(0.0, f, edges, n_edges, is_cat, n_bins, missing_code)
        for k in range(indptr[f], indptr[f + 1]):
            codes[k] = value_code(data[k], f, edges, n_edges, is_cat, n_bins, missing_code)


def map_sparse_to_bins(Xc, edges, n_edges, is_cat, n_bins, missing_code, out):
    """Write the feature-major codes of a canonical CSC matrix into ``out``
    (n_features, n_samples): each feature's code of 0, then its entries' codes
    (:func:`entry_codes`) over it."""
    indptr = Xc.indptr.astype(np.int64, copy=False)
    codes = np.empty(Xc.data.shape[0], out.dtype)
    zero_code = np.empty(out.shape[0], np.int64)
    entry_codes(indptr, Xc.data, edges, n_edges, is_cat, n_bins, missing_code, codes, zero_code)
    out[:] = zero_code[:, None]
    for f in range(out.shape[0]):  # per feature, not per sample
        out[f, Xc.indices[indptr[f] : indptr[f + 1]]] = codes[indptr[f] : indptr[f + 1]]
    return out
