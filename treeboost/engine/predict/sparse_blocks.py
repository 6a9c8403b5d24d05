"""Prediction on a scipy.sparse X in dense blocks of rows.

The trees walk a dense float matrix.  A sparse X is never densified whole: its rows are
taken a block at a time (from its CSR form), each block made dense with ``toarray`` and
walked, and the results stacked, so the memory of the dense copy stays bounded whatever
the number of rows.  The results are those of walking ``X.toarray()``: the walk reads
every value of a row the same way, stored or zero, and an explicit NaN stays NaN.
"""

import numpy as np
from scipy import sparse

#: rows of one dense block, at most
BLOCK_ROWS = 4096
#: values of one dense block, at most (2 MiB of float64; a wide X takes fewer rows): a
#: block the walk reads while it is still in cache from ``toarray`` writing it
BLOCK_VALUES = 1 << 18
#: values of a block that stays in a core's cache (512 KiB of float64) while many trees
#: walk it one after the other
CACHE_BLOCK_VALUES = 1 << 16


def to_csr(X):
    """X as a CSR matrix (itself when it is one), for slicing rows."""
    return X if X.format == "csr" else X.tocsr()


def block_rows(n_features, max_values=None):
    """Rows of a dense block of ``n_features`` columns: ``BLOCK_ROWS``, fewer for a wide
    X (at least one), so that a block holds at most ``max_values`` values
    (``BLOCK_VALUES`` when None)."""
    max_values = BLOCK_VALUES if max_values is None else max_values
    return int(max(1, min(BLOCK_ROWS, max_values // max(1, n_features))))


def dense_row_blocks(X, max_values=None):
    """``(start, block)`` pairs: the rows ``start:start + len(block)`` of a sparse X as a
    dense C-contiguous array of X's dtype, in row order, each of at most ``max_values``
    values (see :func:`block_rows`).  No block for a matrix of no rows."""
    Xr = to_csr(X)
    step = block_rows(Xr.shape[1], max_values)
    for start in range(0, Xr.shape[0], step):
        yield start, Xr[start : start + step].toarray()


def by_row_blocks(func, X):
    """``func(X)``, computed on dense blocks of rows when X is sparse.

    Parameters
    ----------
    func : callable
        Takes a dense 2-dimensional array and returns an ndarray or a scipy.sparse
        matrix with one row (along axis 0) per row of its input.
    X : ndarray or scipy.sparse matrix / array

    Returns
    -------
    ndarray or scipy.sparse CSR matrix
        ``func(X)`` for a dense X; for a sparse one, ``func`` of each block stacked
        along axis 0 (``sparse.vstack`` for sparse results).
    """
    if not sparse.issparse(X):
        return func(X)
    parts = [func(block) for _, block in dense_row_blocks(X)]
    if not parts:  # no rows: func says what an empty result is
        return func(np.zeros((0, X.shape[1]), dtype=X.dtype))
    if sparse.issparse(parts[0]):
        return sparse.vstack(parts, format="csr")
    return np.concatenate(parts, axis=0)


def into_row_blocks(func, X, out, max_values=None):
    """``func(X, out)`` writing row ``i`` of ``out`` from row ``i`` of X, called on each
    dense block of rows of a sparse X (of at most ``max_values`` values, see
    :func:`block_rows`) with the matching rows of ``out`` (a view: a row slice of a
    C-contiguous array stays C-contiguous).  Returns ``out``."""
    if not sparse.issparse(X):
        func(X, out)
        return out
    for start, block in dense_row_blocks(X, max_values):
        func(block, out[start : start + block.shape[0]])
    return out
