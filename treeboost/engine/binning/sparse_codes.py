"""The bin codes of a sparse X, stored as its non-zeros are: memory in proportion to them.

A column of a sparse matrix is mostly the value 0, so most of its codes are the code of
0, the feature's *zero code*.  :class:`SparseCodes` keeps only the entries whose code
differs from it, twice: by column (CSC, to find a feature's entries in a node) and by
row (CSR, to find a row's code of a feature, and a node's entries of many features in
one pass over its rows).  An entry takes five bytes in each (a 4-byte index and a
1-byte code); the dense codes would take ``n_samples x n_features`` bytes.

The grower never reads a whole column.  A node's compressed histogram of feature ``f``
(:func:`feature_histogram`) is made of the node's entries of ``f`` alone; the node's
other rows share the zero code, and their statistics are the node's total minus the
entries' (the zero bin by subtraction, as LightGBM fills its most frequent bin).  The
entries of ``f`` in a node come from the cheapest of three sources:

* the column's entries, each kept when its row is in the node (``position``, the place
  of every row in the grower's partition order): ``O(nnz(f))``;
* a binary search of ``f`` in each of the node's rows: ``O(n_node log nnz(row))``;
* buckets of the node's entries of every feature searched at the node, filled in one
  pass over the node's rows (:func:`fill_buckets`): ``O(nnz(node))`` for all of them,
  which is what a search of every feature (boosting) costs at the least.

Codes wider than one byte (``max_bins`` above 255) keep the dense layout.
"""

from collections import namedtuple

import numpy as np
from scipy import sparse

from .sparse_columns import entry_codes
from .._numba.jit import inlined, kernel

#: a row's binary search costs about this many reads of the row per lookup
_SEARCH_COST = 4


class SparseCodes:
    """Codes of a sparse X whose code differs from its feature's code of 0.

    Made by :meth:`BinMapper.transform` from a sparse X (see :meth:`from_csc`).  Shaped
    as the dense codes are, feature-major: ``shape == (n_features, n_samples)``.

    Attributes
    ----------
    zero_code : ndarray of int64, shape (n_features,)
        Each feature's code of the value 0.
    col_ptr, col_rows, col_codes : ndarray
        The entries by feature: those of feature ``f`` are ``col_ptr[f]:col_ptr[f+1]``,
        rows ascending (int64, int32, uint8).
    row_ptr, row_features, row_codes : ndarray
        The same entries by row, features ascending.
    """

    dtype = np.dtype(np.uint8)

    def __init__(
        self, shape, zero_code, col_ptr, col_rows, col_codes, row_ptr, row_features, row_codes
    ):
        n_features, n_samples = shape
        self.shape = (int(n_features), int(n_samples))
        self.zero_code = np.ascontiguousarray(zero_code, np.int64)
        self.col_ptr = np.ascontiguousarray(col_ptr, np.int64)
        self.col_rows = np.ascontiguousarray(col_rows, np.int32)
        self.col_codes = np.ascontiguousarray(col_codes, np.uint8)
        self.row_ptr = np.ascontiguousarray(row_ptr, np.int64)
        self.row_features = np.ascontiguousarray(row_features, np.int32)
        self.row_codes = np.ascontiguousarray(row_codes, np.uint8)
        nnz = self.col_rows.shape[0]
        # the kernels index with these unchecked
        if (
            self.zero_code.shape != (n_features,)
            or self.col_ptr.shape != (n_features + 1,)
            or self.row_ptr.shape != (n_samples + 1,)
            or self.col_codes.shape != (nnz,)
            or self.row_features.shape != (nnz,)
            or self.row_codes.shape != (nnz,)
            or self.col_ptr[0] != 0
            or self.col_ptr[-1] != nnz
            or self.row_ptr[0] != 0
            or self.row_ptr[-1] != nnz
            or np.any(np.diff(self.col_ptr) < 0)
            or np.any(np.diff(self.row_ptr) < 0)
            or (
                nnz
                and (
                    self.col_rows.min() < 0
                    or self.col_rows.max() >= n_samples
                    or self.row_features.min() < 0
                    or self.row_features.max() >= n_features
                )
            )
        ):
            raise ValueError("Inconsistent sparse codes.")

    @classmethod
    def from_csc(cls, Xc, edges, n_edges, is_cat, n_bins, missing_code):
        """The codes of a canonical CSC matrix; the arguments after it as
        :func:`~.bin_codes.value_code` takes them."""
        n_samples, n_features = Xc.shape
        indptr = Xc.indptr.astype(np.int64, copy=False)
        codes = np.empty(Xc.data.shape[0], np.uint8)
        zero_code = np.empty(n_features, np.int64)
        entry_codes(indptr, Xc.data, edges, n_edges, is_cat, n_bins, missing_code, codes, zero_code)
        feature_of = np.repeat(np.arange(n_features), np.diff(indptr))
        keep = codes != zero_code[feature_of]
        counts = np.bincount(feature_of[keep], minlength=n_features)
        col_ptr = np.zeros(n_features + 1, np.int64)
        np.cumsum(counts, out=col_ptr[1:])
        col_rows = Xc.indices[keep].astype(np.int32, copy=False)
        col_codes = codes[keep]
        # the same entries by row (scipy's conversion sorts each row's features)
        by_row = sparse.csc_matrix(
            (col_codes, col_rows, col_ptr), shape=(n_samples, n_features)
        ).tocsr()
        row_ptr, row_features, row_codes = by_row.indptr, by_row.indices, by_row.data
        return cls(
            (n_features, n_samples),
            zero_code,
            col_ptr,
            col_rows,
            col_codes,
            row_ptr,
            row_features,
            row_codes,
        )

    @property
    def nnz(self):
        """Entries stored (each twice)."""
        return self.col_rows.shape[0]

    @property
    def nbytes(self):
        return sum(
            a.nbytes
            for a in (
                self.zero_code,
                self.col_ptr,
                self.col_rows,
                self.col_codes,
                self.row_ptr,
                self.row_features,
                self.row_codes,
            )
        )

    @property
    def max_column_entries(self):
        """Entries of the fullest feature."""
        return int(np.diff(self.col_ptr).max(initial=0))

    @property
    def rows(self):
        """The entries by row, as :func:`row_code` reads them."""
        return CodeRows(self.row_ptr, self.row_features, self.row_codes, self.zero_code)

    def toarray(self):
        """The dense feature-major codes, shape ``(n_features, n_samples)``."""
        out = np.repeat(self.zero_code.astype(np.uint8)[:, None], self.shape[1], axis=1)
        f = np.repeat(np.arange(self.shape[0]), np.diff(self.col_ptr))
        out[f, self.col_rows] = self.col_codes
        return out

    def __repr__(self):
        return f"SparseCodes(shape={self.shape}, nnz={self.nnz})"


#: the entries by row and the zero codes, all :func:`row_code` reads (the grower's
#: :class:`~.layout.BinnedData` has the same fields)
CodeRows = namedtuple("CodeRows", ["row_ptr", "row_features", "row_codes", "zero_code"])


@inlined
def row_code(data, r, f):
    """Code of feature ``f`` in row ``r`` (``data`` a :class:`CodeRows`, or a
    :class:`~.layout.BinnedData` of sparse codes): a binary search of the row's
    features."""
    lo = data.row_ptr[r]
    hi = data.row_ptr[r + 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        g = data.row_features[mid]
        if g < f:
            lo = mid + 1
        elif g > f:
            hi = mid
        else:
            return np.int64(data.row_codes[mid])
    return data.zero_code[f]


@inlined
def feature_code(data, f, r):
    """Code of feature ``f`` in row ``r`` of the grower's :class:`~.layout.BinnedData`,
    dense or sparse (a search that reads a node's every sample, :mod:`.median_split`)."""
    if data.sparse:
        return row_code(data, r, f)
    return np.int64(data.codes_T[f, r])


@kernel
def node_entries(f, data, idx, start, end, position, out_pos, out_code):
    """The node's entries of feature ``f`` (the node holds ``idx[start:end]``; ``position``
    is each row's place in ``idx``, -1 for rows outside the tree): their place in the
    node and code into ``out_pos`` / ``out_code``; returns their number.  Reads the
    column or searches the node's rows, whichever is cheaper."""
    c0 = data.col_ptr[f]
    c1 = data.col_ptr[f + 1]
    m = 0
    if c1 - c0 <= _SEARCH_COST * (end - start):
        for k in range(c0, c1):
            p = position[data.col_rows[k]]
            if p >= start and p < end:
                out_pos[m] = p - start
                out_code[m] = data.col_codes[k]
                m += 1
        return m
    zero = data.zero_code[f]
    for i in range(start, end):
        code = row_code(data, idx[i], f)
        if code != zero:
            out_pos[m] = i - start
            out_code[m] = code
            m += 1
    return m


@kernel
def bucket_entries(feats, data, idx, start, end, rows, undo):
    """Bucket the node's entries of ``feats`` when one pass over its rows
    (:func:`fill_buckets`) costs less than finding each feature's entries on its own
    (:func:`node_entries`); returns whether it did.  With ``undo``, unmark the features
    bucketed before.  (One kernel for the three steps: each compiled kernel costs its
    own compile time on a first fit, sparse or not.)"""
    if undo:
        for s in range(feats.shape[0]):
            rows.slot_of[feats[s]] = -1
        return False
    if not _buckets_pay(feats, data, idx, start, end):
        return False
    fill_buckets(feats, data, idx, start, end, rows)
    return True


@inlined
def _buckets_pay(feats, data, idx, start, end):
    """Whether one pass over the node's rows (:func:`fill_buckets`) costs less than
    finding each feature's entries on its own (:func:`node_entries`)."""
    n_node = end - start
    per_feature = 0
    for i in range(feats.shape[0]):
        f = feats[i]
        per_feature += min(data.col_ptr[f + 1] - data.col_ptr[f], _SEARCH_COST * n_node)
    in_rows = feats.shape[0]
    for i in range(start, end):
        r = idx[i]
        in_rows += data.row_ptr[r + 1] - data.row_ptr[r]
        if in_rows >= per_feature:
            return False
    return in_rows < per_feature


@inlined
def fill_buckets(feats, data, idx, start, end, rows):
    """The node's entries of each feature of ``feats``, bucketed by feature in one pass
    over its rows (a counting sort): feature ``feats[s]``'s are
    ``rows.entry_pos/entry_code[rows.bucket_start[s]:rows.bucket_start[s + 1]]``, in node
    order, and ``rows.slot_of[feats[s]] == s``."""
    slot_of = rows.slot_of
    start_of = rows.bucket_start
    n_slots = feats.shape[0]
    for s in range(n_slots + 1):
        start_of[s] = 0
    for s in range(n_slots):
        slot_of[feats[s]] = s
    for i in range(start, end):
        r = idx[i]
        for k in range(data.row_ptr[r], data.row_ptr[r + 1]):
            s = slot_of[data.row_features[k]]
            if s >= 0:
                start_of[s + 1] += 1
    for s in range(n_slots):
        start_of[s + 1] += start_of[s]
    # each bucket filled from its start on (which moves start_of[s] to its end), then
    # the starts moved back one bucket
    for i in range(start, end):
        r = idx[i]
        for k in range(data.row_ptr[r], data.row_ptr[r + 1]):
            s = slot_of[data.row_features[k]]
            if s >= 0:
                at = start_of[s]
                rows.entry_pos[at] = i - start
                rows.entry_code[at] = data.row_codes[k]
                start_of[s] = at + 1
    for s in range(n_slots, 0, -1):
        start_of[s] = start_of[s - 1]
    start_of[0] = 0
