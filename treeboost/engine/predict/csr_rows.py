"""Walking trees over the rows of a CSR matrix, without a dense copy.

Each row's stored values are scattered into a dense row of zeros (one per chunk of
rows), the tree walked on it, and the row cleared again: O(stored values + depth) per
row and tree, no dense copy of X.  Every walk reads the values through the one raw
predicate (:func:`.routing.goes_left_raw`), so a sparse X gives exactly the results of its
dense form (an explicit NaN is missing, as in the dense walk).
"""

from collections import namedtuple

import numpy as np
from numba import prange
from scipy import sparse

from .routing import leaf_of_row
from .._numba.jit import inlined, parallel_kernel


class CSRRows(namedtuple("CSRRows", ["indptr", "indices", "data", "n_features"])):
    """A sparse X in the form the kernels read (:func:`prepared_csr`): CSR ``indptr``,
    ``indices`` (int64) and ``data`` (float64) without duplicate entries, and the number
    of columns.  Made once, it serves every tree of a forest."""

    __slots__ = ()

    @property
    def shape(self):
        return (self.indptr.shape[0] - 1, int(self.n_features))


def prepared_csr(X):
    """X (a scipy sparse matrix or array) as :class:`CSRRows` (one compiled copy of the
    kernels).  The structure is checked in full (``indptr`` monotone and within the
    stored values, indices within the columns): the kernels index it unchecked."""
    Xr = sparse.csr_matrix(X, copy=True)
    Xr.check_format(full_check=True)
    Xr.sum_duplicates()  # a repeated (row, column) is the sum, as in toarray()
    return CSRRows(
        Xr.indptr.astype(np.int64, copy=False),
        Xr.indices.astype(np.int64, copy=False),
        Xr.data.astype(np.float64, copy=False),
        np.int64(Xr.shape[1]),
    )


#: chunks of rows the threads share out: each chunk scatters its rows into its own dense
#: row of values (enough chunks for the threads to balance, few enough that the dense
#: rows cost nothing)
N_CHUNKS = 64


@inlined
def _set_row(row, indptr, indices, data, i, clear):
    """Scatter row ``i``'s stored values into the dense ``row`` (one row of zeros
    elsewhere), or zero them again with ``clear``."""
    for p in range(indptr[i], indptr[i + 1]):
        row[0, indices[p]] = 0.0 if clear else data[p]


@inlined
def _leaf_of_csr_row(row, csr, i, splits):
    """The leaf row ``i`` of ``csr`` (:class:`CSRRows`) reaches: its stored values scattered
    into the dense ``row`` (one row of zeros), the tree walked on it, and ``row`` cleared again
    (scikit-learn's sparse walk): O(stored values + depth)."""
    _set_row(row, csr.indptr, csr.indices, csr.data, i, False)
    node = leaf_of_row(row, 0, splits, 0)
    _set_row(row, csr.indptr, csr.indices, csr.data, i, True)
    return node


@parallel_kernel
def apply_csr(csr, splits, out):
    """Leaf of each row of ``csr`` (:class:`CSRRows`) in the tree of ``splits``
    (:class:`~.routing.Splits`), into ``out``.  The threads take chunks of rows, each chunk
    with its own dense row (:func:`_leaf_of_csr_row`)."""
    n = out.shape[0]
    n_chunks = min(n, N_CHUNKS)
    for c in prange(n_chunks):
        row = np.zeros((1, csr.n_features))
        for i in range(c * n // n_chunks, (c + 1) * n // n_chunks):
            out[i] = _leaf_of_csr_row(row, csr, i, splits)


@parallel_kernel
def accumulate_csr(csr, splits, value, out):
    """``out[i] += value[leaf of row i]``, rows walked as in :func:`apply_csr`."""
    n = out.shape[0]
    n_chunks = min(n, N_CHUNKS)
    for c in prange(n_chunks):
        row = np.zeros((1, csr.n_features))
        for i in range(c * n // n_chunks, (c + 1) * n // n_chunks):
            node = _leaf_of_csr_row(row, csr, i, splits)
            for k in range(value.shape[1]):
                out[i, k] += value[node, k]
