"""The structure of a scipy.sparse X, checked before anything reads it by its indices,
and its canonical form (each slice's indices sorted, duplicates summed).

Compiled kernels and scipy's own conversions index with ``indptr`` / ``indices`` (or COO
coordinates) unchecked: a corrupt matrix would be a crash, not an error.
"""

import numpy as np

__all__ = ["check_sparse_structure", "canonical_sparse"]


def _check_compressed(indptr, indices, n_data, n_major, n_minor, what):
    """Raise ValueError unless ``indptr`` / ``indices`` describe a valid compressed
    (CSR, CSC or BSR) structure of ``n_major`` slices over ``n_minor`` positions with
    ``n_data`` stored values: the checks of scipy's ``check_format(full_check=True)``,
    without its pruning of the caller's matrix in place."""

    def bad(reason):
        return ValueError(f"X is not a valid {what} matrix: {reason}.")

    if indptr.ndim != 1 or indices.ndim != 1:
        raise bad("indptr and indices must be 1-D")
    if indptr.dtype.kind not in "iu" or indices.dtype.kind not in "iu":
        raise bad(f"indptr ({indptr.dtype}) and indices ({indices.dtype}) must be integers")
    if indptr.shape[0] != n_major + 1:
        raise bad(f"indptr has {indptr.shape[0]} entries, not {n_major + 1}")
    if indptr[0] != 0:
        raise bad(f"indptr starts at {indptr[0]}, not 0")
    if indices.shape[0] != n_data:
        raise bad(f"{indices.shape[0]} indices for {n_data} stored values")
    if indptr[-1] > n_data:
        raise bad(f"indptr ends at {indptr[-1]}, past the {n_data} stored values")
    if n_major and np.diff(indptr).min() < 0:
        raise bad("indptr must be non-decreasing")
    # (values past indptr[-1] belong to no slice: scipy prunes them)
    indices = indices[: indptr[-1]]
    if indices.shape[0] and (indices.min() < 0 or indices.max() >= n_minor):
        raise bad(
            f"an index is outside [0, {n_minor}): indices span [{indices.min()}, {indices.max()}]"
        )


def _is_canonical(indptr, indices):
    """Whether each slice of a valid compressed structure holds strictly ascending
    indices (sorted, no duplicate), read from the arrays: scipy's cached
    ``has_canonical_format`` goes stale when the caller edits the arrays."""
    ascending = np.diff(indices) > 0
    # the pair across a slice boundary (last of one slice, first of the next) is free
    starts = indptr[1:-1]
    starts = starts[(starts > 0) & (starts < indices.shape[0])]
    ascending[starts - 1] = True
    return bool(ascending.all())


def check_sparse_structure(X):
    """Check the structure of a scipy.sparse X before anything reads it by its indices:
    CSR, CSC and BSR index pointers and indices, COO coordinates.  Compiled kernels and
    scipy's own conversions index with them unchecked (a corrupt matrix is a crash, not
    an error).

    Parameters
    ----------
    X : scipy.sparse matrix or array

    Raises
    ------
    ValueError
        Naming what is wrong.
    """
    fmt = X.format
    if X.ndim != 2:
        return  # check_array refuses it
    n_rows, n_cols = X.shape
    if fmt in ("csr", "csc"):
        major, minor = (n_rows, n_cols) if fmt == "csr" else (n_cols, n_rows)
        _check_compressed(
            np.asarray(X.indptr),
            np.asarray(X.indices),
            np.asarray(X.data).reshape(-1).shape[0],
            major,
            minor,
            fmt.upper(),
        )
    elif fmt == "bsr":
        R, C = X.blocksize
        _check_compressed(
            np.asarray(X.indptr),
            np.asarray(X.indices),
            np.asarray(X.data).shape[0],
            n_rows // R,
            n_cols // C,
            "BSR",
        )
    elif fmt == "coo":
        row, col = np.asarray(X.row), np.asarray(X.col)
        if not (row.shape == col.shape == np.asarray(X.data).shape):
            raise ValueError("X is not a valid COO matrix: row, col and data differ in length.")
        if row.size and (
            row.min() < 0 or row.max() >= n_rows or col.min() < 0 or col.max() >= n_cols
        ):
            raise ValueError(
                f"X is not a valid COO matrix: a coordinate is outside its shape {X.shape}."
            )


def canonical_sparse(X):
    """A CSR or CSC X with each slice's indices sorted and duplicates summed (as
    ``toarray`` sums them) and no value past its last slice: X itself when it is so
    already, else a canonical copy."""
    if X.indptr[-1] == X.indices.shape[0] and _is_canonical(X.indptr, X.indices):
        return X
    X = X.copy()
    X.prune()
    # the flags of the copy may be stale: say it is neither sorted nor canonical, so
    # that scipy sorts and sums
    X.has_sorted_indices = False
    X.has_canonical_format = False
    X.sum_duplicates()
    return X
