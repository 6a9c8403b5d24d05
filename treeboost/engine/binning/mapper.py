"""BinMapper: the one-time discretisation of X that every tree of an estimator shares."""

import numbers

import numba
import numpy as np
from numba import prange
from scipy.sparse import issparse

from .codes import edge_table, numeric_code
from .quantile_edges import UNSUITED, ColumnCut, select_cut
from .sparse_codes import SparseCodes
from .sparse_columns import (
    add_zeros,
    map_sparse_to_bins,
    sorted_stored_values,
    sparse_missing_columns,
    to_csc,
)
from .._numba.jit import inlined, kernel, parallel_kernel
from ..parallel.thread_pools import region_threads, run_tasks
from ...persistence._spec import array, check_state, integer, list_of

MAX_CATEGORIES = 255

#: a sparse X of at most this fraction of stored values is binned into
#: :class:`~.sparse_codes.SparseCodes` (about ten bytes an entry, against one byte a cell
#: for dense codes); a denser one into dense codes, which the grower reads faster
SPARSE_CODES_MAX_DENSITY = 0.05

#: ``max_bins="auto"``: a numeric column of at most this many distinct values gets one bin
#: per value (the thresholds of an exact tree), a column of more gets
#: :data:`AUTO_MAX_BINS` quantile bins
AUTO_EXACT_MAX_VALUES = 16_384
#: ``max_bins="auto"``: the quantile bins of a column of more than
#: :data:`AUTO_EXACT_MAX_VALUES` distinct values
AUTO_MAX_BINS = 255


def resolve_auto_bins(max_bins, n_distinct):
    """The ``max_bins`` a numeric column of ``n_distinct`` distinct values is cut with:
    ``max_bins`` itself, except ``"auto"``: None (one bin per distinct value) up to
    :data:`AUTO_EXACT_MAX_VALUES` distinct values, else :data:`AUTO_MAX_BINS`."""
    if isinstance(max_bins, str):
        return None if n_distinct <= AUTO_EXACT_MAX_VALUES else AUTO_MAX_BINS
    return max_bins


def _bin_centers(distinct, edges):
    """``(min + max) / 2`` of the sorted distinct values of each bin cut by ``edges``.

    Every bin holds at least one distinct value (each edge lies between two of them), so
    bin ``j`` spans ``distinct[first[j]:first[j + 1]]``: one binary search per edge,
    not per value."""
    if distinct.size == 0:
        return np.zeros(1)
    first = np.concatenate([[0], np.searchsorted(distinct, edges, side="right")])
    last = np.concatenate([first[1:], [distinct.size]]) - 1
    return distinct[first] / 2.0 + distinct[last] / 2.0


def _is_auto(max_bins):
    """Whether ``max_bins`` is ``"auto"``."""
    return isinstance(max_bins, str) and max_bins == "auto"


def _midpoints(a, b):
    """Midpoints of adjacent distinct values, kept strictly below ``b`` (and finite).

    ``a/2 + b/2`` does not overflow for huge values; when rounding puts the midpoint on
    ``b`` (adjacent floats) the lower value is used so that ``x <= t`` still separates.
    """
    # -inf (HistGradientBoosting takes infinite X) has a finite edge above it, the
    # lowest float: a threshold in a model file is always finite
    mid = np.maximum(a / 2.0 + b / 2.0, -np.finfo(np.float64).max)
    return np.where(mid >= b, a, mid)


def _distinct_counts(col):
    """Distinct values and their counts of a sorted column, NaN (sorted last) dropped."""
    col = col[: np.searchsorted(col, np.nan)] if col.size and np.isnan(col[-1]) else col
    if not col.size:
        return np.empty(0), np.empty(0, np.int64)
    new_value = np.empty(col.size, bool)
    new_value[0] = True
    np.not_equal(col[1:], col[:-1], out=new_value[1:])
    starts = np.flatnonzero(new_value)
    return col[starts], np.diff(np.append(starts, col.size))


def _edges(distinct, counts, max_bins):
    """Bin edges of a numeric column from its sorted distinct values and their counts:
    the midpoints between adjacent distinct values, all of them when they fit in
    ``max_bins`` bins (or ``max_bins`` is None), else those where the cumulative count
    crosses each quantile (``"auto"``: :func:`resolve_auto_bins`)."""
    if distinct.size <= 1:
        return np.empty(0)
    max_bins = resolve_auto_bins(max_bins, distinct.size)
    if max_bins is None or distinct.size <= max_bins:
        return _midpoints(distinct[:-1], distinct[1:])
    # cut where the cumulative count crosses each quantile, between the distinct value
    # reached and the next one
    cum = np.cumsum(counts)
    targets = cum[-1] * np.arange(1, max_bins) / max_bins
    i = np.unique(np.searchsorted(cum, targets, side="left"))
    i = i[i < distinct.size - 1]
    return _midpoints(distinct[i], distinct[i + 1])


class BinMapper:
    """Map each column of X to small integer codes, once per estimator.

    Numeric columns: the distinct training values are cut into at most ``max_bins``
    bins at quantiles of the data; every bin edge is the midpoint between two adjacent
    distinct training values, so a split "code <= j" is the textbook bi-partition
    ``x <= (a_i + a_{i+1}) / 2``.  With ``max_bins=None`` every distinct value gets its
    own bin (exact CART); with ``max_bins="auto"`` a column of at most
    :data:`AUTO_EXACT_MAX_VALUES` distinct values does, a column of more gets
    :data:`AUTO_MAX_BINS` quantile bins.  A value ``x`` falls in bin ``j`` when
    ``edge[j-1] < x <= edge[j]``.

    Categorical columns (already encoded as category indices ``0..k-1`` by
    :class:`~treeboost.trees.FeatureEncoder`) keep their index as code.

    Missing values (NaN) get the reserved code ``missing_values_code_``, one past the
    largest bin of any feature (255 for the default ``max_bins=255``).

    Parameters
    ----------
    max_bins : int, None or "auto", default=255
        Maximum number of bins for non-missing values of a numeric feature, in
        ``[2, 65535]``, None for one bin per distinct value, or ``"auto"``: one bin per
        distinct value for a column of at most :data:`AUTO_EXACT_MAX_VALUES` of them
        (counted on the subsample), :data:`AUTO_MAX_BINS` quantile bins for a column of
        more.
    is_categorical : array-like of bool of shape (n_features,), default=None
        Which columns hold category indices.
    subsample : int or None, default=200_000
        Number of rows used to compute the quantiles when binning (all rows for None
        and always for ``max_bins=None``).
    random_state : int, RandomState instance or None
        Seeds the subsample.

    Attributes
    ----------
    bin_thresholds_ : list of ndarray
        The bin edges of each numeric feature (empty for categorical ones).
    n_bins_ : ndarray of shape (n_features,)
        Number of non-missing bins per feature.
    has_missing_ : ndarray of bool, shape (n_features,)
        Whether the feature had missing values in the training data.
    missing_values_code_ : int
        The code of a missing value.
    dtype_ : numpy dtype
        ``uint8`` when every code fits, else ``uint16`` (``uint32`` for exact binning of
        more than 65535 distinct values).
    """

    def __init__(self, max_bins=255, is_categorical=None, subsample=200_000, random_state=None):
        self.max_bins = max_bins
        self.is_categorical = is_categorical
        self.subsample = subsample
        self.random_state = random_state

    def fit(self, X):
        """Learn the bin edges of each feature from X (n_samples, n_features), NaN = missing.

        X may be a scipy.sparse matrix or array of numeric features: each column's
        edges are then learned from its stored values and its implicit zeros (see
        :mod:`treeboost.engine.binning.sparse_columns`), the same edges as from ``X.toarray()``.
        """
        if not (self.max_bins is None or _is_auto(self.max_bins)) and (
            not isinstance(self.max_bins, numbers.Integral)
            or isinstance(self.max_bins, bool)
            or not 2 <= self.max_bins <= 65535
        ):
            raise ValueError(
                f"max_bins must be an integer in [2, 65535], None or 'auto', got {self.max_bins!r}."
            )
        sparse_input = issparse(X)
        if sparse_input:
            X = to_csc(X)
        n_samples, n_features = X.shape
        is_cat = (
            np.zeros(n_features, bool)
            if self.is_categorical is None
            else np.asarray(self.is_categorical, bool)
        )
        if sparse_input and is_cat.any():
            raise TypeError(
                "Categorical features of a sparse X are not supported; pass a "
                "dense X to use categorical_features."
            )
        rows = subsample_rows(
            n_samples, None if self.max_bins is None else self.subsample, self.random_state
        )
        numeric = np.flatnonzero(~is_cat)
        max_bins = self.max_bins
        if _is_auto(max_bins) and (n_samples if rows is None else rows.shape[0]) <= (
            AUTO_EXACT_MAX_VALUES
        ):
            # no column of these rows has more distinct values than "auto" keeps exact
            max_bins = None

        def cut(distinct, counts):
            """A column's edges and bin centers from its distinct values."""
            edges = _edges(distinct, counts, max_bins)
            return ColumnCut(distinct, edges, _bin_centers(distinct, edges))

        if sparse_input:
            sample = to_csc(X if rows is None else X[rows])

            def cut_of(f):
                values, n_zeros = sorted_stored_values(sample, f)
                return cut(*add_zeros(*_distinct_counts(values), n_zeros))
        else:
            # the numeric columns sorted in parallel (NaN sorts last), each column's
            # NaN flag from all the rows, and its edges cut in the same task
            summaries = _cut_columns(X, numeric, rows, cut, max_bins)
            cut_of = lambda f: summaries[f][1]  # noqa: E731
        self.bin_thresholds_ = []
        n_bins = np.zeros(n_features, np.int64)
        # whether each bin of a numeric feature holds one distinct training value (its
        # center): every value has its bin, counted on all the rows
        single = np.zeros(n_features, bool)
        centers = {}
        for f in range(n_features):  # loop over columns; each column is vectorised
            if is_cat[f]:
                col = np.asarray(X[:, f], dtype=np.float64)
                finite = col[~np.isnan(col)]
                n_bins[f] = int(finite.max()) + 1 if finite.size else 1
                self.bin_thresholds_.append(np.empty(0))
                continue
            distinct, edges, centers[f] = cut_of(f)
            self.bin_thresholds_.append(edges)
            n_bins[f] = edges.size + 1
            single[f] = (
                rows is None
                and distinct is not None
                and edges.size + 1 == distinct.size
                # the batched cut of short columns gives a single-value column's
                # distinct values as its centers (the same array)
                and (distinct is centers[f] or np.array_equal(centers[f], distinct))
            )
        self.n_bins_ = n_bins
        self._single_value_bins = single
        self._centers = (self.bin_thresholds_, centers)
        if sparse_input:
            self.has_missing_ = sparse_missing_columns(X)
        else:
            self.has_missing_ = np.array(
                [
                    bool(np.isnan(X[:, f]).any()) if is_cat[f] else summaries[f][0]
                    for f in range(n_features)
                ],
                dtype=bool,
            )
        self.is_categorical_ = is_cat
        self.missing_values_code_ = int(n_bins.max()) if n_features else 1
        code = self.missing_values_code_
        self.dtype_ = np.dtype(
            np.uint8 if code <= 255 else np.uint16 if code <= 65535 else np.uint32
        )
        return self

    def single_value_bins(self):
        """Whether each bin of each feature holds a single distinct training value, its
        center (False for categorical features, for columns of more distinct values
        than bins, and for a mapper fitted on a subsample or loaded from a file)."""
        n = len(self.n_bins_)
        single = getattr(self, "_single_value_bins", None)
        return np.zeros(n, bool) if single is None or len(single) != n else single

    def transform(self, X):
        """Codes of X, **feature-major**: shape (n_features, n_samples), C-contiguous,
        so that each feature's column is contiguous for the histogram kernels.

        A scipy.sparse X of density at most :data:`SPARSE_CODES_MAX_DENSITY` (and codes
        of one byte) gives :class:`~.sparse_codes.SparseCodes`, memory in proportion to
        its non-zeros; a denser one is written column by column from its CSC form (the
        code of 0 everywhere, then the stored entries), never as a dense float matrix.
        Either way the codes are those of ``X.toarray()``."""
        sparse_input = issparse(X)
        if sparse_input:
            X = to_csc(X)
        n_samples, n_features = X.shape
        if n_features != self.n_bins_.shape[0]:
            raise ValueError(
                f"X has {n_features} features, the BinMapper was fitted on {self.n_bins_.shape[0]}."
            )
        edges, n_edges = edge_table(self.bin_thresholds_)
        args = (edges, n_edges, self.is_categorical_, self.n_bins_, self.missing_values_code_)
        if (
            sparse_input
            and self.dtype_ == np.uint8
            and (X.nnz <= SPARSE_CODES_MAX_DENSITY * n_samples * n_features)
        ):
            return SparseCodes.from_csc(X, *args)
        out = np.empty((n_features, n_samples), dtype=self.dtype_)
        if sparse_input:
            map_sparse_to_bins(X, *args, out)
        else:
            grids = _edge_grids(edges, n_edges, self.is_categorical_, n_samples)
            _map_to_bins(X, *args, grids, out)
        return out

    def fit_transform(self, X):
        return self.fit(X).transform(X)

    def thresholds_of(self, features, bin_thresholds):
        """Real thresholds of the splits "code <= bin_threshold" of ``features`` (inf past
        a feature's last edge)."""
        table = self.edge_table()
        return table[features, np.minimum(bin_thresholds, table.shape[1] - 1)]

    def edge_table(self):
        """``(n_features, width)`` array: each feature's bin edges, ``inf`` past its last
        (the threshold of the split "code <= b" of feature ``f`` is ``table[f, min(b,
        width - 1)]``)."""
        edges = self.bin_thresholds_
        cached = getattr(self, "_edge_table", None)
        # keyed on the edges it was built from: a refit of this mapper makes a new list
        if cached is None or cached[0] is not edges:
            width = max(1, max(e.size for e in edges)) + 1
            table = np.full((len(edges), width), np.inf)
            for f, e in enumerate(edges):
                table[f, : e.size] = e
            cached = self._edge_table = (edges, table)
        return cached[1]

    def bin_centers(self):
        """``(n_features, missing_values_code_ + 1)`` array: the middle of the training
        values of each bin, ``(min + max) / 2`` (the value itself for a bin of one
        distinct value; 0 for categorical features and unused bins).

        Extra-Trees draw their cut uniformly between the centers of a node's smallest and
        largest bin.  A mapper read from a model file, which keeps no training values,
        places each center between its bin's edges instead.
        """
        edges = self.bin_thresholds_
        table = getattr(self, "_center_table", None)
        if table is not None and table[0] is edges:
            return table[1]
        cached = getattr(self, "_centers", None)
        known = cached[1] if cached is not None and cached[0] is edges else {}
        table = np.zeros((len(edges), self.missing_values_code_ + 1))
        for f, e in enumerate(edges):
            if f in known:
                c = known[f]
            elif e.size:
                c = np.concatenate([[e[0]], _midpoints(e[:-1], e[1:]), [e[-1]]])
            else:
                continue
            table[f, : c.size] = c
        # -0.0 becomes +0.0: the random cut's search reads ``c < u`` as the sign bit of
        # ``c - u``, and ``-0.0 - 0.0`` has it set (see random_cuts.draw_cut)
        table += 0.0
        self._center_table = (edges, table)
        return table

    # -- the state read from a model file ---------------------------------------------------

    _persist_attributes = (
        "max_bins",
        "is_categorical",
        "subsample",
        "random_state",
        "bin_thresholds_",
        "n_bins_",
        "has_missing_",
        "is_categorical_",
        "missing_values_code_",
        "dtype_",
    )
    #: a cache of :meth:`thresholds_of`, rebuilt on demand
    _persist_transient = ("_edge_table", "_centers", "_center_table", "_single_value_bins")
    #: what :meth:`_validate_state` checks attribute by attribute (a flag per feature of
    #: ``n_bins_``)
    _state_spec = {
        "max_bins": integer(2, 65535, none_ok=True, words=("auto",)),
        "subsample": integer(1, none_ok=True),
        "n_bins_": array("int64", ndim=1),
        "is_categorical_": array("bool", ("n_bins_",)),
        "has_missing_": array("bool", ("n_bins_",)),
        "missing_values_code_": integer(),
        "bin_thresholds_": list_of(
            array("float64", ndim=1, finite=True), "n_bins_", "must be a list of {length} arrays."
        ),
    }

    def _validate_state(self, where="bin_mapper", n_features=None, categorical=None):
        """Raise ValueError unless the fitted bins are what :meth:`fit` makes.

        :func:`_map_to_bins` and the grower write and index with these numbers: per
        feature, sorted finite edges and ``n_bins_`` one more than their count (a
        categorical feature: no edges, at most 256 codes, which index a 256-bit set),
        ``missing_values_code_`` the largest ``n_bins_`` (the last histogram row) and
        ``dtype_`` the smallest unsigned type that holds it.

        Parameters
        ----------
        where : str
        n_features : int or None
            The owner's number of features.
        categorical : ndarray of bool or None
            The owner's categorical flags (its input encoder's).
        """
        state = vars(self)
        if "n_bins_" not in state:
            raise ValueError(f"{where}: a bin mapper that was never fitted.")
        for name in self._persist_attributes:
            if name not in state:
                raise ValueError(f"{where}: incomplete bin mapper (no {name}).")
        checked = check_state(self, where, self._state_spec)
        n_bins, is_cat = checked["n_bins_"], checked["is_categorical_"]
        p = n_bins.shape[0]
        if p == 0 or (n_features is not None and p != n_features):
            raise ValueError(
                f"{where}.n_bins_: {p} features, the model has "
                f"{n_features if n_features is not None else 'at least 1'}."
            )
        if categorical is not None and not np.array_equal(is_cat, categorical):
            raise ValueError(
                f"{where}.is_categorical_: the categorical features differ from "
                f"the input encoder's."
            )
        if self.is_categorical is not None and not (
            isinstance(self.is_categorical, np.ndarray)
            and np.array_equal(np.asarray(self.is_categorical, bool), is_cat)
        ):
            raise ValueError(f"{where}.is_categorical: must match is_categorical_.")
        edges = checked["bin_thresholds_"]
        most = 65535 if self.max_bins is None or _is_auto(self.max_bins) else self.max_bins
        for f, e in enumerate(edges):
            w = f"{where}.bin_thresholds_[{f}]"
            if is_cat[f]:
                if e.size or not 1 <= n_bins[f] <= MAX_CATEGORIES + 1:
                    raise ValueError(
                        f"{where}: categorical feature {f} must have no edges "
                        f"and 1 to {MAX_CATEGORIES + 1} codes, got {e.size} "
                        f"edges and n_bins_ {int(n_bins[f])}."
                    )
                continue
            if np.any(np.diff(e) <= 0):
                raise ValueError(f"{w}: the edges must be increasing.")
            if n_bins[f] != e.size + 1 or (self.max_bins is not None and n_bins[f] > most):
                raise ValueError(
                    f"{where}.n_bins_[{f}]: must be one more than the "
                    f"{e.size} edges of the feature (at most {most}), got "
                    f"{int(n_bins[f])}."
                )
        code = checked["missing_values_code_"]
        if code != int(n_bins.max()):
            raise ValueError(
                f"{where}.missing_values_code_: must be {int(n_bins.max())} "
                f"(one past the largest code), got {code}."
            )
        dtype = np.dtype(np.uint8 if code <= 255 else np.uint16 if code <= 65535 else np.uint32)
        if not isinstance(self.dtype_, np.dtype) or self.dtype_ != dtype:
            raise ValueError(
                f"{where}.dtype_: must be {dtype} for missing code {code}, got {self.dtype_!r}."
            )


def fit_transform_weighted(mapper, X, sample_weight):
    """Fit ``mapper`` on the rows of X of positive weight and return the codes of every
    row (zero-weight rows take no part in the fit, not even in the bin edges).

    A scipy.sparse X is converted to CSC once, for both.

    Parameters
    ----------
    mapper : BinMapper
    X : ndarray or scipy.sparse matrix / array of shape (n_samples, n_features)
    sample_weight : ndarray of shape (n_samples,)

    Returns
    -------
    ndarray or SparseCodes of shape (n_features, n_samples)
        :meth:`BinMapper.transform` of X; dense codes in place of sparse codes that
        hold no entry.
    """
    if issparse(X):
        X = to_csc(X)
    positive = sample_weight > 0
    mapper.fit(X if positive.all() else X[positive])
    codes = mapper.transform(X)
    if isinstance(codes, SparseCodes) and not codes.nnz:
        # no code differs from its feature's code of 0 (an all-zero X, say): the
        # grower's workspace sizes its sparse buffers by the entries and would index
        # empty ones, so the grower gets the dense codes, one constant code a feature
        return codes.toarray()
    return codes


def subsample_rows(n_samples, subsample, random_state):
    """The rows :meth:`BinMapper.fit` learns the bin edges from: ``subsample`` of the
    ``n_samples`` rows drawn without replacement, sorted, or None (every row) when there
    are no more rows than that or ``subsample`` is None.

    The one draw of the binning subsample: a Dask fit draws it on the client over the
    rows of every partition in order (:mod:`treeboost.dask`), so that its edges are the
    one-machine fit's on the same data and ``random_state``.

    Parameters
    ----------
    n_samples : int
    subsample : int or None
    random_state : int, RandomState instance or None
        Seeds the draw (a RandomState gives one integer of its stream).

    Returns
    -------
    ndarray of int64 or None
    """
    if subsample is None or n_samples <= subsample:
        return None
    rng = np.random.default_rng(_seed(random_state))
    return np.sort(rng.choice(n_samples, subsample, replace=False))


def _seed(random_state):
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    return random_state


#: cells of the grid that :func:`_map_to_bins` lays over each feature's edges, and the
#: most edges one of its cells may hold (a feature with more in a cell is searched as
#: :func:`~.bin_codes.lower_bound` does)
GRID_CELLS = 2048
GRID_MAX_STEPS = 4


@inlined
def _grid_cell(x, lo, scale):
    """The grid cell of ``x``: ``(x - lo) * scale`` truncated into ``[0, GRID_CELLS)``
    (NaN: 0).  Non-decreasing in ``x`` (each rounding is), which is all
    :func:`_map_to_bins` needs of it."""
    t = (x - lo) * scale
    if t >= 0.0:
        if t < GRID_CELLS:
            return np.int64(t)
        return GRID_CELLS - 1
    return 0


def _edge_grids(edges, n_edges, is_cat, n_samples):
    """Each numeric feature's grid of :data:`GRID_CELLS` equal cells from its first
    edge to its last (:func:`_map_to_bins`): its start and scale, the number of edges in
    the cells before each cell, and the most edges in one cell (0: too many for the
    grid, or no edge).

    A grid costs :data:`GRID_CELLS` counts a feature; it pays only when the feature
    has at least as many values to code (:data:`GRID_MIN_ROWS`).  For fewer rows every
    feature is searched (``steps`` 0) and the table of counts has one column: wide data
    of few rows (10 x 100,000) would otherwise build 800 MB of grids for 8 MB of X.
    The codes are the same either way."""
    n_features = edges.shape[0]
    lo_f = np.zeros(n_features)
    scale_f = np.zeros(n_features)
    steps_f = np.zeros(n_features, np.int64)
    if n_samples < GRID_MIN_ROWS:
        return lo_f, scale_f, steps_f, np.zeros((n_features, 1), np.int32)
    before = np.zeros((n_features, GRID_CELLS), np.int32)
    _fill_grids(edges, n_edges, is_cat, lo_f, scale_f, steps_f, before)
    return lo_f, scale_f, steps_f, before


#: the least rows of X for which :func:`_map_to_bins` lays grids over the edges
GRID_MIN_ROWS = GRID_CELLS


@kernel
def _fill_grids(edges, n_edges, is_cat, lo_f, scale_f, steps_f, before):
    """:func:`_edge_grids`' grids, all features in one pass.  The cells of the edges are
    computed by :func:`_grid_cell`, the float operations the coding does."""
    in_cell = np.zeros(GRID_CELLS, np.int64)
    for f in range(edges.shape[0]):
        ne = n_edges[f]
        if is_cat[f] or ne == 0:
            continue
        e = edges[f]
        span = e[ne - 1] - e[0]
        scale = GRID_CELLS / span if span > 0.0 else 0.0
        if not np.isfinite(scale):
            scale = 0.0
        in_cell[:] = 0
        for j in range(ne):
            in_cell[_grid_cell(e[j], e[0], scale)] += 1
        at = 0
        most = 0
        for c in range(GRID_CELLS):
            before[f, c] = at
            at += in_cell[c]
            most = max(most, in_cell[c])
        lo_f[f] = e[0]
        scale_f[f] = scale
        steps_f[f] = most if most <= GRID_MAX_STEPS else 0


@parallel_kernel
def _map_to_bins(X, edges, n_edges, is_cat, n_bins, missing_code, grids, out):
    """``out[f, i]`` = :func:`~.bin_codes.value_code` of ``X[i, f]``.

    ``grids`` (:func:`_edge_grids`) lays a grid of equal cells over each numeric
    feature's edges, with the number of its edges in the cells before each cell: as the
    cell of a value never decreases with the value, every edge of an earlier cell is
    below ``x`` and every edge of a later cell above it, so the code of ``x`` is that
    count plus the edges below ``x`` in its own cell, found in as many branch-free
    steps as a cell holds edges at most (a few where bins are quantiles of the data).
    A feature with more edges in a cell is searched by :func:`~.bin_codes.lower_bound`.

    Rows are split in chunks, one per task; a chunk is coded feature by feature (the
    feature's edges and grid stay in the first-level cache, its codes are written
    contiguously)."""
    lo_f, scale_f, steps_f, before = grids
    n_samples, n_features = X.shape
    chunk = 2048
    n_chunks = (n_samples + chunk - 1) // chunk
    for c in prange(n_chunks):
        lo = c * chunk
        hi = min(n_samples, lo + chunk)
        for f in range(n_features):
            out_f = out[f]
            e = edges[f]
            ne = n_edges[f]
            steps = steps_f[f]
            if is_cat[f]:
                n_cat = n_bins[f]
                for i in range(lo, hi):
                    x = X[i, f]
                    out_f[i] = np.int64(x) if x >= 0 and x < n_cat else missing_code
            elif steps > 0:
                b = before[f]
                l0 = lo_f[f]
                sc = scale_f[f]
                for i in range(lo, hi):
                    x = X[i, f]
                    k = np.int64(b[_grid_cell(x, l0, sc)])
                    for _ in range(steps):
                        # e[ne] is +inf (the table is wider than the edges): k stops there
                        k += e[k] < x
                    out_f[i] = missing_code if x != x else k
            else:
                for i in range(lo, hi):
                    out_f[i] = numeric_code(e, ne, X[i, f], missing_code)


def _cut_columns(X, columns, rows, cut, max_bins):
    """Each of the given numeric columns' edges and bin centers (a
    :class:`~.quantile_edges.ColumnCut`) from its values in ``X[rows]`` (all rows for
    None), and whether it holds a NaN in any row of X: a dict column -> (has_nan, cut).

    ``cut(distinct, counts)`` cuts a column from its sorted distinct values (NaN dropped;
    :func:`_distinct_counts`) and their counts.  A column long enough is cut by
    selection instead (:func:`~.quantile_edges.select_cut`: the same edges and
    centers, in linear time), and sorted only where that does not apply.

    The columns are shared among threads (the kernels release the GIL, and so does most
    of the numpy work); each thread copies the sampled rows of a group of its columns
    into contiguous columns in one pass over the rows (a group of up to
    :data:`GATHER_COLUMNS` float64 columns spans about a cache line of each row) and
    cuts them: no copy of the sampled matrix, no sorted copy of it.  Groups are as wide
    as keeps every thread busy for as many of them: 40 columns make 14 groups of 3 on 16
    threads, 6 of 7 on 2.  The threads are the engine's kept pool
    (:func:`._threads.run_tasks`), not new ones a fit."""
    n_samples = X.shape[0]
    picked = np.arange(n_samples) if rows is None else np.ascontiguousarray(rows, np.int64)
    out = {}
    # ("auto" needs each column's count of distinct values: its columns are sorted)
    select = isinstance(max_bins, numbers.Integral) and max_bins <= SELECT_MAX_BINS
    if rows is not None:
        # a NaN outside the sample counts too: every column's flag in one pass over X
        # (a pass per group of columns would read each row once per group)
        flags = np.zeros(columns.shape[0], np.bool_)
        _nan_columns(X, np.ascontiguousarray(columns, np.int64), flags)
        nan = dict(zip(columns.tolist(), flags.tolist()))

    # columns too short for selection or the radix sort are sorted by numpy: many of
    # them at a time, and cut by one kernel (no Python work a column: 100,000 columns
    # of 10 rows took seconds)
    short = picked.shape[0] < min(SELECT_MIN_ROWS, RADIX_SORT_MIN_ROWS)

    def cut_short(js):
        block = max(1, SHORT_BLOCK_VALUES // max(1, picked.shape[0]))
        for g in range(0, js.shape[0], block):
            group = np.ascontiguousarray(js[g : g + block], dtype=np.int64)
            cols = np.empty((group.shape[0], picked.shape[0]))
            _gather_columns(X, picked, group, cols)
            # numpy's sort of each row, the sort _sort_column gives a short column
            cols.sort(axis=1)
            for j, has_nan, found in zip(group.tolist(), *_cut_sorted_rows(cols, max_bins)):
                out[j] = (has_nan if rows is None else bool(nan[j]), found)

    n_cpus = _cpu_count()
    # as few rounds of groups as columns of GATHER_COLUMNS allow, each round a group
    # for every thread
    rounds = max(1, -(-columns.shape[0] // (GATHER_COLUMNS * n_cpus)))
    width = max(1, -(-columns.shape[0] // (n_cpus * rounds)))

    def summarise(js):
        if short:
            return cut_short(js)
        for g in range(0, js.shape[0], width):
            group = np.ascontiguousarray(js[g : g + width], dtype=np.int64)
            cols = np.empty((group.shape[0], picked.shape[0]))
            _gather_columns(X, picked, group, cols)
            for t, j in enumerate(group):
                found = UNSUITED
                if select and picked.shape[0] >= SELECT_MIN_ROWS:
                    found, n_valid = select_cut(cols[t], max_bins, cut, _midpoints)
                    has_nan = n_valid < picked.shape[0]
                if found is UNSUITED:
                    col = _sort_column(cols[t])
                    has_nan = bool(col.size and np.isnan(col[-1]))
                    found = cut(*_distinct_counts(col))
                out[int(j)] = (has_nan if rows is None else bool(nan[int(j)]), found)

    # each thread at least CUT_MIN_VALUES of the values cut
    n_threads = region_threads(
        picked.shape[0] * columns.shape[0],
        CUT_MIN_VALUES,
        min(n_cpus, -(-columns.shape[0] // width)),
    )
    if n_threads <= 1:
        summarise(columns)
    else:
        # whole groups of adjacent columns to each thread
        groups = np.array_split(np.arange(-(-columns.shape[0] // width)), n_threads)
        parts = [columns[g[0] * width : (g[-1] + 1) * width] for g in groups]
        run_tasks(summarise, parts, n_threads)
    return out


#: the least values of X a thread of :func:`_cut_columns` cuts (two columns of 10,000
#: rows share two threads; one of them, or fewer rows, do not)
CUT_MIN_VALUES = 10_000


#: values of X that :func:`_cut_columns` sorts and cuts together, in short columns
SHORT_BLOCK_VALUES = 1 << 16

_LOWEST = -np.finfo(np.float64).max


@inlined
def _midpoint(a, b):
    """:func:`_midpoints` of one pair (the same float operations)."""
    mid = max(a / 2.0 + b / 2.0, _LOWEST)
    return a if mid >= b else mid


@kernel
def _cut_sorted_kernel(cols, max_bins, n_valid, distinct, n_distinct, edges, n_edges, centers):
    """Each sorted row of ``cols`` (NaN last) cut as :func:`_distinct_counts`,
    :func:`_edges` and :func:`_bin_centers` cut a sorted column (``max_bins`` 0 for
    None): its number of non-missing values, its distinct values, its edges and its
    bins' centers, row by row into the tables."""
    k, n = cols.shape
    counts = np.empty(max(n, 1), np.int64)
    for t in range(k):
        c = cols[t]
        nv = n
        while nv > 0 and c[nv - 1] != c[nv - 1]:
            nv -= 1
        n_valid[t] = nv
        d = distinct[t]
        m = 0
        for i in range(nv):
            if i == 0 or c[i] != c[i - 1]:
                d[m] = c[i]
                counts[m] = 0
                m += 1
            counts[m - 1] += 1
        n_distinct[t] = m
        e = edges[t]
        ne = 0
        if m > 1 and (max_bins == 0 or m <= max_bins):
            for j in range(m - 1):
                e[j] = _midpoint(d[j], d[j + 1])
            ne = m - 1
        elif m > 1:
            # cumulative counts, then the first distinct value whose count reaches
            # each quantile (searchsorted "left"), each once, the last one left out
            for j in range(1, m):
                counts[j] += counts[j - 1]
            total = counts[m - 1]
            j = 0
            previous = -1
            for q in range(1, max_bins):
                target = (total * q) / max_bins
                while counts[j] < target:
                    j += 1
                if j != previous and j < m - 1:
                    e[ne] = _midpoint(d[j], d[j + 1])
                    ne += 1
                    previous = j
        n_edges[t] = ne
        if m == 0:
            centers[t, 0] = 0.0
            continue
        # bin b spans the distinct values from the first above edge b - 1 to the
        # last at most edge b
        first = 0
        p = 0
        for b in range(ne + 1):
            if b < ne:
                while p < m and d[p] <= e[b]:
                    p += 1
                last = p - 1
            else:
                last = m - 1
            centers[t, b] = d[first] / 2.0 + d[last] / 2.0
            first = p


def _cut_sorted_rows(cols, max_bins):
    """The NaN flag and the :class:`~.quantile_edges.ColumnCut` fields of each sorted
    row of ``cols`` (NaN last), as ``cut(*_distinct_counts(row))`` in
    :meth:`BinMapper.fit` gives them, by :func:`_cut_sorted_kernel`: two lists."""
    k, n = cols.shape
    n_valid = np.empty(k, np.int64)
    n_distinct = np.empty(k, np.int64)
    n_edges = np.empty(k, np.int64)
    distinct = np.empty((k, n))
    edges = np.empty((k, max(n - 1, 0)))
    centers = np.empty((k, max(n, 1)))
    _cut_sorted_kernel(
        cols,
        0 if max_bins is None else max_bins,
        n_valid,
        distinct,
        n_distinct,
        edges,
        n_edges,
        centers,
    )
    has_nan = (n_valid < n).tolist()
    # a column whose every bin holds one distinct value (its center) gives its centers
    # as its distinct values, else None: BinMapper.fit needs them for nothing else
    one_value = n_distinct == n_edges + 1
    one_value[one_value] = (
        (centers[one_value, :n] == distinct[one_value])
        | (np.arange(n) >= n_distinct[one_value, None])
    ).all(axis=1)
    # the edges are kept by the mapper: each its own array, not a view of the table; the
    # centers are a transient cache (views of one table of the size of these values)
    cuts = []
    for t, ne, single in zip(range(k), n_edges.tolist(), one_value.tolist()):
        c = centers[t, : ne + 1]
        # ColumnCut's fields as a plain tuple: the namedtuple's constructor cost more
        # than the cut of a short column
        cuts.append((c if single else None, edges[t, :ne].copy(), c))
    return has_nan, cuts


#: columns of at least this many values are cut by selection
#: (:func:`~.quantile_edges.select_cut`), when ``max_bins`` is at most
#: :data:`SELECT_MAX_BINS` (its count of distinct values uses a table of
#: ``4 * max_bins`` slots); shorter ones and finer bins by sorting
SELECT_MIN_ROWS = 2048
SELECT_MAX_BINS = 1024


#: columns copied together from the rows of X by :func:`_gather_columns`: 8 float64
#: values are a cache line
GATHER_COLUMNS = 8


@kernel
def _gather_columns(X, rows, columns, out):
    """``out[j, k] = X[rows[k], columns[j]]`` as float64, one pass over the rows."""
    for k in range(rows.shape[0]):
        r = rows[k]
        for j in range(columns.shape[0]):
            out[j, k] = X[r, columns[j]]


#: rows of X a task of :func:`_nan_columns` reads
NAN_ROWS_PER_TASK = 16384


@parallel_kernel
def _nan_columns(X, columns, out):
    """``out[j]`` = whether column ``columns[j]`` of X holds a NaN (``out`` all False on
    entry): one pass over the rows, in shares of :data:`NAN_ROWS_PER_TASK` rows on
    numba's threads."""
    n = X.shape[0]
    k = columns.shape[0]
    n_tasks = max(1, -(-n // NAN_ROWS_PER_TASK))
    found = np.zeros((n_tasks, k), np.bool_)
    for t in prange(n_tasks):
        for i in range(t * NAN_ROWS_PER_TASK, min(n, (t + 1) * NAN_ROWS_PER_TASK)):
            for j in range(k):
                x = X[i, columns[j]]
                if x != x:
                    found[t, j] = True
    for t in range(n_tasks):
        for j in range(k):
            out[j] |= found[t, j]


#: columns of at least this many values are sorted by :func:`_radix_sort` (numpy's sort is
#: several times slower on float64 columns of tens of thousands of values); shorter ones
#: by numpy, whose sort costs less than the radix sort's counting tables
RADIX_SORT_MIN_ROWS = 2048
#: bits of the radix sort's digits: six passes over 64-bit keys, each scattering into
#: tables of 2**11 counts that stay in the first-level cache
_RADIX_BITS = 11
_RADIX_PASSES = 6


def _sort_column(col):
    """``col`` (a float64 copy the caller owns, which this may overwrite) sorted
    ascending, NaN last, as :func:`numpy.sort` (equal values are indistinguishable, but
    for the sign of a zero)."""
    if col.shape[0] < RADIX_SORT_MIN_ROWS:
        col.sort()
        return col
    return _radix_sort(col, np.empty_like(col))


@kernel
def _radix_sort(col, tmp):
    """``col`` sorted ascending with NaN last, by least-significant-digit radix sort of
    the values' bits: each float is turned into an unsigned key of the same order (the
    sign bit set for positives, every bit inverted for negatives, NaN the largest key),
    sorted in place between ``col`` and ``tmp``, and turned back.  Returns the array
    that holds the result (``col`` or ``tmp``); -0.0 sorts before 0.0."""
    n = col.shape[0]
    keys = col.view(np.uint64)
    other = tmp.view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    nan_key = ~np.uint64(0)
    for i in range(n):
        u = keys[i]
        if col[i] != col[i]:
            keys[i] = nan_key
        elif u & sign:
            keys[i] = ~u
        else:
            keys[i] = u | sign
    radix = 1 << _RADIX_BITS
    mask = np.uint64(radix - 1)
    counts = np.zeros((_RADIX_PASSES, radix), np.int64)
    for i in range(n):
        k = keys[i]
        for d in range(_RADIX_PASSES):
            counts[d, (k >> np.uint64(_RADIX_BITS * d)) & mask] += 1
    src = keys
    dst = other
    in_tmp = False
    for d in range(_RADIX_PASSES):
        shift = np.uint64(_RADIX_BITS * d)
        if n == 0 or counts[d, (src[0] >> shift) & mask] == n:
            continue  # every key has this digit: the pass would move nothing
        at = 0
        for b in range(radix):
            c = counts[d, b]
            counts[d, b] = at
            at += c
        for i in range(n):
            k = src[i]
            b = (k >> shift) & mask
            dst[counts[d, b]] = k
            counts[d, b] += 1
        src, dst = dst, src
        in_tmp = not in_tmp
    for i in range(n):
        k = src[i]
        if k == nan_key:
            src[i] = np.uint64(0x7FF8000000000000)  # NaN
        elif k & sign:
            src[i] = k ^ sign
        else:
            src[i] = ~k
    return tmp if in_tmp else col


def _cpu_count():
    """The threads the binning may share its columns among: numba's thread count for the
    calling thread (a fit's, :class:`~.core_share.CoreShare`, else the user's), not the
    machine's cores, which ``NUMBA_NUM_THREADS`` or a busy machine may deny it."""
    return numba.get_num_threads()
