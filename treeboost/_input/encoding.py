"""FeatureEncoder: raw X (numpy or pandas, numeric + categorical + datetime + NaN) to a
float matrix.

A scipy.sparse X (numeric columns only) is checked and kept sparse: the engine bins it
column by column (:mod:`treeboost.engine.binning.sparse_columns`), keeps the codes of a very
sparse one as its entries (:mod:`treeboost.engine.binning.sparse_codes`) and predicts it on its
rows (:mod:`treeboost.engine.predict.csr_rows`).

Categorical columns become category codes ``0..k-1`` (stored as floats, NaN for a
missing value or a category never seen in training); a column of more than 255 categories
is grouped into at most 255 codes, by the categories' target means when a target is
given, else by frequency (the rules are in :mod:`treeboost.trees._rare_categories`).  Datetime
columns become seconds since the
epoch (:mod:`treeboost.trees._datetimes`), numeric columns stay as they are.  The trees
then test numeric columns with ``x <= threshold`` and categorical ones with "code in the
left subset", on this one matrix.
"""

import numbers
import sys
from functools import partial
from operator import is_not

import numpy as np
from scipy.sparse import issparse
from sklearn.utils.validation import (
    _check_feature_names,
    _check_n_features,
    _check_sample_weight,
    check_array,
)

from .._atomic import AtomicRefitMixin
from ..engine import MAX_CATEGORIES
from ..persistence._checks import check_array as check_saved_array, check_labels
from ..persistence._spec import array, check_state
from . import polars_frames
from .fast_path import numeric_rows
from .datetimes import format_epoch_seconds, is_datetime, is_tz_aware, to_epoch_seconds
from .rare_categories import describe_group, describe_other, group_by_target, group_categories
from .targets import check_class_weight


_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)

#: ``datetime_zones_`` of a column of datetimes without / with a time zone
_NAIVE = "naive"
_UTC = "UTC"


def _is_frame(X):
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


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


def _canonical(X):
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


def _frame_is_categorical(dtype):
    import pandas as pd

    return (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_object_dtype(dtype)
        or pd.api.types.is_string_dtype(dtype)
    )


def _missing_mask(values):
    """Missing-value mask (NaN, None, ``pd.NA``, ``NaT``) of an object or numeric array.

    Parameters
    ----------
    values : array-like of shape (n,)

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    values = np.asarray(values)
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype.kind == "O":
        # pd.NA answers `!=` with NA, whose truth value raises: only pandas can test it.
        # A pd.NA can only exist once pandas is imported, so pandas is never imported here.
        pd = sys.modules.get("pandas")
        if pd is not None:
            return np.asarray(pd.isna(values), dtype=bool)
        return np.asarray((values != values) | np.equal(values, None), dtype=bool)
    return np.zeros(values.shape, bool)


def _check_finite_array(X, **kwargs):
    """scikit-learn's ``check_array``, without its warning on large finite values.

    Its first pass sums X to find a non-finite value quickly; values near the largest
    float (1e308 and -1e308 in one X) overflow that sum to NaN, and numpy warns
    ("invalid value encountered in reduce") about data that is valid.  The second pass
    it then makes finds any infinity value by value, so ignoring the sum's
    floating-point warnings changes no decision.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        return check_array(X, **kwargs)


def _first_non_numeric_column(X):
    """Index of the first column of ``X`` that does not convert to float, or None."""
    try:
        A = np.asarray(X, dtype=object)
    except (TypeError, ValueError):  # ragged rows: not a column problem
        return None
    if A.ndim != 2:
        return None
    for f in range(A.shape[1]):
        try:
            A[:, f].astype(np.float64)
        except (TypeError, ValueError):
            return f
    return None


def _not_numeric(f, names, fit, cause=None):
    """The error for a column of non-numbers where numbers are expected.

    Parameters
    ----------
    f : int
        Index of the column.
    names : list of str or None
        Column names of a DataFrame (the error then names the column), else None.
    fit : bool
        Whether the error arises in fit (declare the column categorical) or at predict
        (the model learned it as numeric: refit to treat it as categorical).
    cause : Exception or None
        The conversion error, quoted for its offending value.

    Returns
    -------
    ValueError or TypeError
        A TypeError when ``cause`` is one, else a ValueError.
    """
    name = names[f] if names else f
    detail = f" ({cause})" if cause is not None else ""
    if fit:
        hint = f"declare it in categorical_features (e.g. categorical_features=[{name!r}])"
        if names:
            hint += " or give it a category dtype"
    else:
        hint = (
            f"the model was fitted with it numeric; to treat it as categorical, refit "
            f"with categorical_features=[{name!r}]"
        )
    # the type of the conversion error is kept: a TypeError (an object such as a dict)
    # stays one, as scikit-learn's input checks expect
    cls = TypeError if isinstance(cause, TypeError) else ValueError
    return cls(f"Column {name!r} is not numeric{detail}; {hint}.")


class FeatureEncoder:
    """Learn which columns are categorical and their categories; encode X as floats.

    Parameters
    ----------
    categorical_features : None, "auto", array-like of bool, of int or of str
        ``None`` / ``"auto"``: the pandas columns of ``category``, object or string dtype
        (none for a numpy array).  A boolean mask, column indices or column names select
        the categorical columns explicitly.

    Attributes
    ----------
    is_categorical_ : ndarray of bool, shape (n_features,)
    categories_ : list
        For each feature, the label of each of its codes (None for numeric ones): its
        categories, sorted (or in the order of a pandas ``category`` dtype); category
        ``categories_[f][i]`` is encoded as ``i``.  A column of more than 255 categories
        is grouped (see :mod:`~treeboost.trees._rare_categories`): by frequency, it
        keeps codes for at most 254 frequent ones and its last label, ``"other (rare)"``,
        names the code its rare categories share; by target, its labels are
        ``"target group g"`` (and ``"other (rare)"`` for the categories of too few rows).
    rare_categories_ : list
        For each feature, the categories without a code of their own in a grouped column
        (every category of a column grouped by target), None for the other columns.
    rare_codes_ : list
        For each feature, the code of each of ``rare_categories_[f]`` in a column
        grouped by target; None for the other columns (in a column grouped by frequency
        the rare categories share the last code).
    datetime_zones_ : list
        For each feature, ``"naive"`` for a column of datetimes without a time zone,
        ``"UTC"`` for one with a time zone (of any zone: its instants are compared in
        UTC), None for the other columns.  Datetime columns are encoded as seconds since
        1970-01-01, ``NaT`` as missing.

    Notes
    -----
    A datetime column must come back as a datetime column at predict, of any unit and,
    when it had a time zone at fit, of any time zone (the instants are compared in UTC).
    A zone-aware column where a naive one was fitted, or the reverse, is refused: a naive
    time may be local time or UTC, and guessing would shift every instant by the offset.
    """

    def __init__(self, categorical_features=None, allow_infinite=False):
        self.categorical_features = categorical_features
        self.allow_infinite = allow_infinite

    @property
    def _finite_rule(self):
        """scikit-learn's ``ensure_all_finite``: NaN (missing) always passes; +-inf only
        with ``allow_infinite`` (scikit-learn's HistGradientBoosting takes them: they
        fall in the first and last bins)."""
        return False if getattr(self, "allow_infinite", False) else "allow-nan"

    # -- which columns --------------------------------------------------------------
    def _resolve_mask(self, X, n_features, names):
        cf = self.categorical_features
        # "from_dtype": scikit-learn's HistGradientBoosting name of "auto"
        if cf is None or (isinstance(cf, str) and cf in ("auto", "from_dtype")):
            if polars_frames.is_polars_frame(X):
                return polars_frames.categorical_mask(X)
            if _is_frame(X):
                return np.array([_frame_is_categorical(dt) for dt in X.dtypes], bool)
            return np.zeros(n_features, bool)
        if isinstance(cf, str):
            raise ValueError(
                f"categorical_features must be None, 'auto' or an array-like of bool, int or "
                f"str, got {cf!r}."
            )
        cf = np.asarray(cf)
        if cf.size == 0:
            return np.zeros(n_features, bool)
        # scikit-learn's rules and words (sklearn.utils.validation, HistGradientBoosting)
        if cf.dtype.kind not in "biuUO":
            raise ValueError(
                f"categorical_features must be an array-like of bool, int or "
                f"str, got: {cf.dtype.name}."
            )
        if cf.dtype.kind == "O" and {type(v) for v in cf.ravel()} != {str}:
            kinds = sorted({type(v).__name__ for v in cf.ravel()})
            raise ValueError(
                f"categorical_features must be an array-like of bool, int or "
                f"str, got: {', '.join(kinds)}."
            )
        if cf.dtype.kind == "b":
            if cf.shape != (n_features,):
                raise ValueError(
                    f"categorical_features set as a boolean mask must have shape "
                    f"(n_features,), got: {cf.shape} (n_features = {n_features})."
                )
            return cf.copy()
        mask = np.zeros(n_features, bool)
        if cf.dtype.kind in "iu":
            if cf.min() < 0 or cf.max() >= n_features:
                raise ValueError(
                    f"categorical_features set as integer indices must be in "
                    f"[0, n_features - 1] = [0, {n_features - 1}], got {cf.tolist()}."
                )
            mask[cf] = True
            return mask
        if names is None:
            raise ValueError(
                "categorical_features should be passed as an array of integers or as a "
                "boolean mask when the model is fitted on data without feature names. "
                "(Names need X as a pandas or polars DataFrame.)"
            )
        lookup = {n: i for i, n in enumerate(names)}
        for name in cf:
            if name not in lookup:
                raise ValueError(
                    f"categorical_features has an item value {str(name)!r} which is not a "
                    f"valid feature name of the training data. Observed feature names: "
                    f"{list(names)}"
                )
            mask[lookup[name]] = True
        return mask

    # -- fit / transform ---------------------------------------------------------------
    def fit(self, X, target=None, sample_weight=None):
        """Learn the categorical columns and their categories; returns self.

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
        target : array-like of float, shape (n_samples,), default=None
            What columns of more than 255 categories are grouped by: a regression
            target, or 1.0 for the rows of one class of two.  None: by frequency.
        sample_weight : array-like of shape (n_samples,), default=None
            The rows' weights in the target means (None: 1 each).
        """
        self._fit_transform(X, fit=True, target=target, sample_weight=sample_weight)
        return self

    def fit_transform(self, X, target=None, sample_weight=None):
        """:meth:`fit`, then :meth:`transform` of the same X."""
        return self._fit_transform(X, fit=True, target=target, sample_weight=sample_weight)

    def transform(self, X):
        """Encode X with the categories learned in :meth:`fit`."""
        return self._fit_transform(X, fit=False)

    def _fit_transform(self, X, fit, target=None, sample_weight=None):
        if issparse(X):
            return self._sparse(X, fit)
        polars = polars_frames.is_polars_frame(X)
        frame = _is_frame(X) or polars
        # datetime64 arrays take the column path: check_array would turn them into numbers
        # of their unit
        if (
            not frame
            and (
                self.categorical_features is None
                or (
                    isinstance(self.categorical_features, str)
                    and self.categorical_features in ("auto", "from_dtype")
                )
            )
            and not is_datetime(X)
            and (fit or not self._any_datetime())
        ):
            try:
                Xn = _check_finite_array(
                    X, dtype=[np.float64, np.float32], ensure_all_finite=self._finite_rule
                )
            except (TypeError, ValueError) as exc:
                # numpy's "could not convert string to float" names neither the column
                # nor the remedy; find the column and say both
                f = _first_non_numeric_column(X)
                if f is None:
                    raise
                raise _not_numeric(f, None, fit, exc) from None
            if fit:
                self._reset(np.zeros(Xn.shape[1], bool))
            elif self.is_categorical_.any():
                raise ValueError(
                    "X has no categorical columns here but the model was fitted on "
                    "categorical data; pass the same kind of X as in fit."
                )
            return Xn
        if polars:
            n_samples, n_features = X.shape
            names = polars_frames.column_names(X)
        elif frame:
            n_samples, n_features = X.shape
            names = [str(c) for c in X.columns]
            get = lambda f: X.iloc[:, f]  # noqa: E731
        else:
            Xa = check_array(X, dtype=None, ensure_all_finite=False)
            n_samples, n_features = Xa.shape
            names = None
            get = lambda f: Xa[:, f]  # noqa: E731
        if fit:
            self._reset(self._resolve_mask(X, n_features, names))
        elif n_features != self.is_categorical_.shape[0]:
            raise ValueError(
                f"X has {n_features} features, but the model was fitted on "
                f"{self.is_categorical_.shape[0]} features."
            )
        any_cat = self.is_categorical_.any()
        out = np.empty((n_samples, n_features), dtype=np.float64)
        if polars:
            is_cat = self.is_categorical_
            get = lambda f: polars_frames.read_column(X, f, bool(is_cat[f]))  # noqa: E731
        for f in range(n_features):  # loop over columns, each one vectorised
            col = get(f)
            if self.is_categorical_[f]:
                out[:, f] = self._encode_categorical(col, f, fit, names, target, sample_weight)
            else:
                col = col.values if polars else col
                out[:, f] = self._numeric_or_datetime(col, f, names, fit)
        if not any_cat and frame and not polars:
            # keep float32 input as float32 (memory) when no column needs encoding
            # (a text column of numbers has a pandas dtype that np.dtype refuses)
            dts = [getattr(dt, "numpy_dtype", dt) for dt in X.dtypes]
            if all(isinstance(dt, np.dtype) and dt == np.float32 for dt in dts):
                out = out.astype(np.float32)
        return out

    def _sparse(self, X, fit):
        """A scipy.sparse X: numeric columns only, checked without a dense copy.

        Returns it in its own format at fit (CSR or CSC; other formats become CSR), so
        that a learner fitted on it gets the matrix a scikit-learn ensemble would pass,
        and as CSR at predict, whose rows are walked in blocks.  A stored NaN is a
        missing value; infinity is refused as in a dense X.
        """
        if fit:
            mask = self._resolve_mask(X, X.shape[1], None) if X.ndim == 2 else None
            if mask is not None and mask.any():
                raise TypeError(
                    "A sparse X cannot have categorical features (categorical_features="
                    f"{self.categorical_features!r}); pass a dense X (X.toarray()) or a "
                    "DataFrame to use categorical features."
                )
        elif self.is_categorical_.any() or self._any_datetime():
            raise TypeError(
                "The model was fitted with categorical or datetime columns; a "
                "sparse X cannot hold them: pass the same kind of X as in fit."
            )
        check_sparse_structure(X)
        Xs = _canonical(
            _check_finite_array(
                X,
                accept_sparse=("csr", "csc"),
                dtype=[np.float64, np.float32],
                ensure_all_finite=self._finite_rule,
            )
        )
        if fit:
            self._reset(np.zeros(Xs.shape[1], bool))
            return Xs
        return Xs if Xs.format == "csr" else Xs.tocsr()

    def _reset(self, is_categorical):
        p = is_categorical.shape[0]
        self.is_categorical_ = is_categorical
        self.categories_ = [None] * p
        self.rare_categories_ = [None] * p
        self.rare_codes_ = [None] * p
        self.datetime_zones_ = [None] * p

    def _any_datetime(self):
        zones = vars(self).get("datetime_zones_")
        return zones is not None and any(map(partial(is_not, None), zones))

    def _rare(self, f):
        # a model file from before grouped columns has no rare_categories_
        rare = vars(self).get("rare_categories_")
        return None if rare is None else rare[f]

    def _rare_codes(self, f):
        # nor one from before columns grouped by target rare_codes_
        codes = vars(self).get("rare_codes_")
        return None if codes is None else codes[f]

    def _numeric_or_datetime(self, col, f, names, fit):
        found = is_datetime(col)
        if fit:
            if found:
                self.datetime_zones_[f] = _UTC if is_tz_aware(col) else _NAIVE
                return to_epoch_seconds(col)
            return self._numeric(col, f, names, fit)
        zones = vars(self).get("datetime_zones_")
        if zones is None:
            # a model file from before datetime columns: it learned their integer
            # representation, which it still gets
            return self._numeric(col, f, names, fit)
        name = names[f] if names else f
        if zones[f] is not None:
            aware = zones[f] == _UTC
            if not found:
                raise ValueError(
                    f"Column {name!r} held datetimes in fit but has dtype "
                    f"{getattr(col, 'dtype', type(col).__name__)} here; pass it as datetimes "
                    f"(numpy datetime64 or pandas datetime64"
                    f"{' with a time zone' if aware else ''})."
                )
            if is_tz_aware(col) != aware:
                have, had = ("naive", "zone-aware") if aware else ("zone-aware", "naive")
                hint = (
                    "localize it to the zone its times are in (Series.dt.tz_localize)"
                    if aware
                    else "make it naive as in fit (Series.dt.tz_convert(None) gives UTC times)"
                )
                raise ValueError(
                    f"Column {name!r} holds {have} datetimes ({col.dtype}) but was fitted "
                    f"with {had} ones, and a naive time may be local time or UTC: {hint}."
                )
            return to_epoch_seconds(col)
        if found:
            raise ValueError(
                f"Column {name!r} holds datetimes ({col.dtype}) but the model was fitted with "
                f"it numeric; refit with the datetime column to use it as instants."
            )
        return self._numeric(col, f, names, fit)

    def _numeric(self, col, f, names, fit):
        # a text column of numbers (pandas `str`/`string`, or object) converts; a cell that
        # is not a number is quoted in the error
        try:
            if hasattr(col, "to_numpy"):
                vals = col.to_numpy(dtype=np.float64, na_value=np.nan)
            else:
                vals = np.asarray(col, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise _not_numeric(f, names, fit, exc) from None
        if not getattr(self, "allow_infinite", False) and np.isinf(vals).any():
            name = names[f] if names else f
            raise ValueError(f"Input X contains infinity in column {name!r}.")
        return vals

    def _encode_categorical(self, col, f, fit, names, target=None, sample_weight=None):
        if isinstance(col, polars_frames.PolarsColumn):
            values, pd_categories = col.values, col.categories
        elif hasattr(col, "cat"):
            values = np.asarray(col.astype(object))
            pd_categories = np.asarray(col.cat.categories, dtype=object)
        else:
            values = np.asarray(col, dtype=object)
            pd_categories = None
        missing = _missing_mask(values)
        if fit:
            if pd_categories is not None:
                cats = pd_categories
                row_category = _declared_codes(col, values[~missing], cats)
            else:
                try:
                    cats, row_category = np.unique(values[~missing], return_inverse=True)
                except TypeError:
                    name = names[f] if names else f
                    raise TypeError(
                        f"Categorical column {name!r} mixes types that cannot be ordered "
                        f"(for example str and int); convert it to one type."
                    ) from None
            if cats.shape[0] > MAX_CATEGORIES and target is not None:
                target, sample_weight = self._target(target, sample_weight, values.shape[0])
            if cats.shape[0] > MAX_CATEGORIES and target is not None:
                grouping = group_by_target(
                    cats, row_category, target[~missing], sample_weight[~missing]
                )
            else:
                counts = np.bincount(row_category, minlength=cats.shape[0])
                grouping = group_categories(cats, counts)
            self.categories_[f] = grouping.labels
            self.rare_categories_[f] = grouping.rare
            self.rare_codes_[f] = grouping.rare_codes
        keys, key_codes = self._lookup_table(f)
        codes = np.full(values.shape[0], np.nan)
        if keys.shape[0] == 0:
            return codes
        present = ~missing
        vals = values[present]
        try:
            order = np.argsort(keys, kind="stable")
            sorted_keys = keys[order]
            pos = np.searchsorted(sorted_keys, vals)
        except TypeError:
            # values of another type than the categories: none of them is known
            return codes
        pos = np.minimum(pos, keys.shape[0] - 1)
        found = sorted_keys[pos] == vals
        codes[present] = np.where(found, key_codes[order[pos]], np.nan)
        return codes

    @staticmethod
    def _target(target, sample_weight, n):
        """``(target, weight)`` as float arrays of ``n`` rows; ``target`` may be a function
        returning both (estimators compute theirs only for a column that needs it), and
        a function may return ``(None, None)``: no target to group by."""
        if callable(target):
            target, sample_weight = target()
            if target is None or target.shape != (n,):
                return None, None  # the estimator's own checks of y speak later
        target = np.asarray(target, dtype=np.float64)
        if target.shape != (n,) or not np.isfinite(target).all():
            raise ValueError(
                f"target must be {n} finite numbers, one per row of X, got shape {target.shape}."
            )
        w = _check_sample_weight(sample_weight, np.empty((n, 0)))
        return target, w

    def _lookup_table(self, f):
        """``(keys, codes)``: every category seen at fit and its code (the shared one for
        the rare categories of a grouped column)."""
        labels = self.categories_[f]
        rare = self._rare(f)
        if rare is None:
            return labels, np.arange(labels.shape[0], dtype=np.float64)
        rare_codes = self._rare_codes(f)
        if rare_codes is not None:
            return rare, rare_codes.astype(np.float64)
        k = labels.shape[0] - 1
        keys = np.concatenate(
            [np.asarray(labels[:k], dtype=object), np.asarray(rare, dtype=object)]
        )
        codes = np.concatenate(
            [np.arange(k, dtype=np.float64), np.full(rare.shape[0], k, np.float64)]
        )
        return keys, codes

    # -- labels for exports ---------------------------------------------------------------
    def _fitted_column(self, f):
        if "is_categorical_" not in vars(self):
            raise ValueError("This FeatureEncoder is not fitted yet; call fit first.")
        p = self.is_categorical_.shape[0]
        if (
            isinstance(f, (bool, np.bool_))
            or not isinstance(f, (int, np.integer))
            or not 0 <= f < p
        ):
            raise ValueError(f"f must be a column index in [0, {p}), got {f!r}.")
        return int(f)

    def category_names(self, f, codes=None):
        """Readable labels of category codes of column ``f``, for rules and exports.

        Parameters
        ----------
        f : int
            A categorical column.
        codes : array-like of int or None, default=None
            Codes of the column (``0 <= code < len(categories_[f])``); None: all of them.

        Returns
        -------
        list of str
            ``str(categories_[f][code])``, and for the shared code of a grouped column
            ``"other (n rare: a, b, c, …)"`` (the number of categories it stands for and
            the first three of them); a code of a column grouped by target reads
            ``"target group g (n: a, b, c, …)"``.

        Raises
        ------
        ValueError
            ``f`` is not a categorical column, or a code is out of range.
        """
        f = self._fitted_column(f)
        if not self.is_categorical_[f]:
            raise ValueError(f"f={f} is a numeric column; it has no categories.")
        labels = self.categories_[f]
        n = labels.shape[0]
        codes = np.arange(n) if codes is None else np.asarray(codes)
        if codes.size == 0:
            return []
        if codes.ndim != 1 or codes.dtype.kind not in "iu" or codes.min() < 0 or codes.max() >= n:
            raise ValueError(
                f"codes must be a 1-dimensional array of integers in [0, {n}), got {codes!r:.80}."
            )
        rare = self._rare(f)
        rare_codes = self._rare_codes(f)
        if rare_codes is not None:
            return [describe_group(str(labels[c]), rare[rare_codes == c]) for c in codes.tolist()]
        other = n - 1 if rare is not None else -1
        return [describe_other(rare) if c == other else str(labels[c]) for c in codes.tolist()]

    def code_members(self, f, code):
        """The categories of column ``f`` that take code ``code``: the category itself,
        or the categories a code of a grouped column stands for."""
        f = self._fitted_column(f)
        labels = self.categories_[f]
        rare = self._rare(f)
        if rare is None:
            return [labels[code]]
        rare_codes = self._rare_codes(f)
        if rare_codes is not None:
            return rare[rare_codes == code].tolist()
        return rare.tolist() if code == labels.shape[0] - 1 else [labels[code]]

    def format_threshold(self, f, value):
        """A threshold of column ``f`` as a date or time, for a datetime column.

        Parameters
        ----------
        f : int
        value : float
            Seconds since 1970-01-01 (the column's encoding).

        Returns
        -------
        str or None
            ``YYYY-MM-DD`` when the instant is a midnight, else ``YYYY-MM-DD HH:MM:SS``
            (with ``.fff`` or ``.ffffff`` for a fraction of a second), followed by
            `` UTC`` for a column fitted with a time zone; None for a column that is not
            a datetime column, or a value that is not a finite time.
        """
        f = self._fitted_column(f)
        zones = vars(self).get("datetime_zones_")
        if zones is None or zones[f] is None:
            return None
        return format_epoch_seconds(float(value), utc=zones[f] == _UTC)

    # -- the state read from a model file ---------------------------------------------------

    _persist_attributes = (
        "categorical_features",
        "allow_infinite",
        "is_categorical_",
        "categories_",
        "rare_categories_",
        "rare_codes_",
        "datetime_zones_",
    )
    #: a flag per column (the lists of categories are checked column by column)
    _state_spec = {"is_categorical_": array("bool", ndim=1)}

    def _validate_state(self, where="encoder", n_features=None):
        """Raise ValueError unless the learned columns can encode X for the model.

        One flag per feature (``n_features`` of the owner), and per categorical feature a
        1-dimensional array of at most ``MAX_CATEGORIES`` distinct labels (their positions
        are the codes the trees' 256-bit category sets are indexed with), None for the
        others.  A grouped column (``rare_categories_[f]`` not None) has a non-empty
        array of rare categories, distinct and none of them a label of its own code, and
        a string as its last label (the shared code's); the codes are positions, so
        they are in range by construction, and the rare categories, looked up by binary
        search only, are bounded by the size of the file.  A column grouped by target
        (``rare_codes_[f]`` not None) has only string labels, one per code, and one code
        per rare category, each a position in its labels: these codes reach the trees'
        category sets, so they are checked.  ``datetime_zones_`` marks
        numeric columns only, with ``"naive"`` or ``"UTC"``.  A file written before
        grouped or datetime columns lacks the last two attributes: no column is
        grouped, and datetime columns are read as their integer representation, as that
        model learned them.
        """
        cf = self.categorical_features
        if not (
            cf is None
            or isinstance(cf, str)
            or (
                isinstance(cf, (list, tuple, np.ndarray))
                and all(isinstance(v, (bool, int, str, np.generic)) for v in np.ravel(cf))
            )
        ):
            raise ValueError(
                f"{where}.categorical_features: must be None, 'auto' or a list "
                f"of column flags, indices or names, got {cf!r:.60}."
            )
        if not isinstance(getattr(self, "allow_infinite", False), bool):
            raise ValueError(
                f"{where}.allow_infinite: must be a bool, got {self.allow_infinite!r:.40}."
            )
        state = vars(self)
        if "is_categorical_" not in state:
            return
        flags = check_state(self, where, self._state_spec)["is_categorical_"]
        p = flags.shape[0]
        if n_features is not None and p != n_features:
            raise ValueError(
                f"{where}.is_categorical_: {p} columns, the model has {n_features} features."
            )
        cats = state.get("categories_")
        if not isinstance(cats, list) or len(cats) != p:
            raise ValueError(f"{where}.categories_: must be a list of {p} entries.")
        rares = state.get("rare_categories_", [None] * p)
        if not isinstance(rares, list) or len(rares) != p:
            raise ValueError(f"{where}.rare_categories_: must be a list of {p} entries.")
        rare_codes = state.get("rare_codes_", [None] * p)
        if not isinstance(rare_codes, list) or len(rare_codes) != p:
            raise ValueError(f"{where}.rare_codes_: must be a list of {p} entries.")
        for f, (flag, c, rare, rc) in enumerate(zip(flags.tolist(), cats, rares, rare_codes)):
            w = f"{where}.categories_[{f}]"
            if not flag:
                if c is not None or rare is not None or rc is not None:
                    raise ValueError(f"{w}: a numeric column has no categories.")
                continue
            check_labels(c, w)
            if c.shape[0] > MAX_CATEGORIES:
                raise ValueError(f"{w}: {c.shape[0]} categories, at most {MAX_CATEGORIES}.")
            if rare is None:
                if rc is not None:
                    raise ValueError(
                        f"{where}.rare_codes_[{f}]: a column without rare "
                        f"categories has no codes for them."
                    )
                continue
            wr = f"{where}.rare_categories_[{f}]"
            check_labels(rare, wr, at_least=1)
            if rc is not None:
                if not all(isinstance(v, str) for v in c.tolist()) or c.shape[0] == 0:
                    raise ValueError(
                        f"{w}: a column grouped by target has one string label per code."
                    )
                check_saved_array(
                    rc,
                    f"{where}.rare_codes_[{f}]",
                    "int64",
                    shape=(rare.shape[0],),
                    low=0,
                    high=c.shape[0] - 1,
                )
                if not _distinct(rare.tolist()):
                    raise ValueError(f"{wr}: the categories must be distinct.")
                continue
            if c.shape[0] == 0 or not isinstance(c[-1], str):
                raise ValueError(
                    f"{w}: a grouped column ends with the label of its shared code (a string)."
                )
            own = c[:-1].tolist()
            rare_list = rare.tolist()
            if not _distinct(own + rare_list):
                raise ValueError(
                    f"{wr}: the rare categories must be distinct and differ "
                    f"from the categories with a code of their own."
                )
        if "datetime_zones_" not in state:
            return
        zones = state["datetime_zones_"]
        if (
            not isinstance(zones, list)
            or len(zones) != p
            or not all(z is None or z in (_NAIVE, _UTC) for z in zones)
        ):
            raise ValueError(
                f"{where}.datetime_zones_: must be a list of {p} entries, each "
                f"None, {_NAIVE!r} or {_UTC!r}."
            )
        if any(z is not None and flag for z, flag in zip(zones, flags.tolist())):
            raise ValueError(
                f"{where}.datetime_zones_: a categorical column is not a datetime column."
            )


def _declared_codes(col, present, categories):
    """The position in ``categories`` (a declared category order) of each of the
    values ``present``: a pandas ``category`` column's codes, or a polars ``Enum``'s."""
    if hasattr(col, "cat"):
        codes = col.cat.codes.to_numpy()
        return codes[codes >= 0].astype(np.int64)
    distinct, inverse = np.unique(present, return_inverse=True)
    position = {c: i for i, c in enumerate(categories.tolist())}
    return np.array([position[c] for c in distinct.tolist()], np.int64)[inverse]


def _distinct(labels):
    """Whether no two labels are equal (as a Python set sees them)."""
    try:
        return len(set(labels)) == len(labels)
    except TypeError:  # an unhashable label is not a category label
        return False


def check_int64_params(est):
    """Refuse an integer parameter of ``est`` outside an int64 (the engine's kernels take
    them as such: a larger one raised OverflowError or was wrapped around), naming it."""
    for name, value in est.get_params(deep=False).items():
        if (
            isinstance(value, numbers.Integral)
            and not isinstance(value, bool)
            and not _INT64_MIN <= int(value) <= _INT64_MAX
        ):
            raise ValueError(
                f"The {name!r} parameter of {type(est).__name__} must fit in a 64-bit "
                f"integer (at most 2**63 - 1), got {value!r}."
            )


class EncoderMixin(AtomicRefitMixin):
    """Input handling shared by every treeboost estimator with a ``categorical_features``
    parameter: feature names and count checked as scikit-learn does, X encoded by a
    :class:`FeatureEncoder` learned at fit.

    Through :class:`~treeboost._atomic.AtomicRefitMixin`, a refit installs its new state at
    once and predict reads one consistent state, even with other threads."""

    #: whether X may be a scipy.sparse matrix or array (numeric features only)
    _accepts_sparse = True
    #: whether X may hold +-inf (scikit-learn's HistGradientBoosting takes them)
    _allows_infinite = False

    def __sklearn_tags__(self):
        """scikit-learn's tags, plus what the encoder takes: categorical columns
        (``input_tags.categorical``) and text categories in a DataFrame
        (``input_tags.string``: a pandas or polars column of strings is read as
        categories)."""
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    def _validate_params(self):
        """scikit-learn's check of the parameters against ``_parameter_constraints``,
        then what its intervals leave open: an integer parameter must fit in an int64
        (the engine's kernels take them as such: a larger one raised OverflowError or
        was wrapped around), and ``class_weight`` must hold finite weights."""
        super()._validate_params()
        check_int64_params(self)
        if "class_weight" in self.get_params(deep=False):
            check_class_weight(self.class_weight)

    def _encode_X(self, X, reset, y=None, sample_weight=None):
        """X encoded; at a fit (``reset``), ``y`` and ``sample_weight`` rank the
        categories of a column of more than 255 (regression, or two classes).

        A prediction's plain float ndarray of a numeric model is taken as it is, without
        the full checks, where they would conclude the same
        (:func:`~treeboost._input.fast_path.numeric_rows`)."""
        if not reset:
            Xn = numeric_rows(self, X)
            if Xn is not None:
                return Xn
        if issparse(X) and not self._accepts_sparse:
            raise TypeError(
                f"{type(self).__name__} does not accept a sparse X "
                f"({type(X).__name__}); pass a dense array (X.toarray())."
            )
        _check_feature_names(self, X, reset=reset)
        if reset:
            self._encoder = FeatureEncoder(
                self.categorical_features, allow_infinite=self._allows_infinite
            )
            Xe = self._encoder.fit_transform(
                X, target=lambda: _grouping_target(self, y, sample_weight), sample_weight=None
            )
        else:
            Xe = self._encoder.transform(X)
        _check_n_features(self, Xe, reset=reset)
        if reset and Xe.shape[0] == 0:
            raise ValueError(
                f"Found array with 0 sample(s) (shape={Xe.shape}) while a minimum of 1 is required."
            )
        return Xe


def _grouping_target(est, y, sample_weight):
    """``(target, weight)`` that rank categories for ``est``: ``y`` as floats for a
    regressor, 1.0 for the second of exactly two classes of a classifier; ``(None,
    None)`` when there is none to rank by (no ``y``, more than two classes, or a ``y``
    or weights that the estimator's own checks will refuse after this)."""
    from sklearn.base import is_classifier

    if y is None:
        return None, None
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        return None, None
    try:
        if is_classifier(est):
            classes = np.unique(y)
            if classes.shape[0] != 2:
                return None, None
            target = (y == classes[1]).astype(np.float64)
        else:
            target = y.astype(np.float64)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        return None, None
    if not np.isfinite(target).all() or (
        w is not None and (w.shape != target.shape or not np.isfinite(w).all() or (w < 0).any())
    ):
        return None, None
    return target, w


#: Bounds on the total sample weight.  The trees sum weights (and weight times gradient,
#: hessian or target) over nodes; above ``MAX_TOTAL_WEIGHT`` such sums overflow to inf and
#: the leaf values become NaN (and the classic learners' entropies ``c log2 c``), below
#: ``MIN_TOTAL_WEIGHT`` the products of weight and hessian underflow to zero and a leaf's
#: Newton step divides by zero.
MAX_TOTAL_WEIGHT = 1e300
MIN_TOTAL_WEIGHT = 1e-300
#: Bound on ``sum(w * |y|)`` of a regression target: node sums of ``w * y`` (and of
#: ``w * g`` with ``|g| <= 2 max|y|`` in gradient boosting) stay finite with room to spare.
MAX_WEIGHTED_TARGET = 1e306


def check_weights(sample_weight, X, y=None):
    """Validated float64 sample weights: finite, non-negative, of a usable total.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,), scalar or None
        None gives unit weights, a scalar the same weight to every sample.
    X : ndarray of shape (n_samples, n_features)
        The (encoded) input; only its number of rows is used.
    y : ndarray of shape (n_samples,) or None, default=None
        A numeric regression target.  When given, ``sum(w * |y|)`` must be at most
        ``MAX_WEIGHTED_TARGET`` (1e306): the leaves are weighted means
        ``sum(w y) / sum(w)``, whose numerator must not overflow.

    Returns
    -------
    ndarray of shape (n_samples,)

    Raises
    ------
    ValueError
        Naming ``sample_weight``: a weight that is not a number, NaN, infinite or
        negative; all weights zero; a total above ``MAX_TOTAL_WEIGHT`` (1e300) or below
        ``MIN_TOTAL_WEIGHT`` (1e-300); with ``y``, ``sum(w * |y|)`` above
        ``MAX_WEIGHTED_TARGET``.

    Notes
    -----
    Weights whose total is out of range are refused rather than rescaled: every
    estimator would be unchanged by a common factor except through its absolute
    weight parameters (``min_child_weight`` and ``l2_regularization`` of gradient
    boosting) and the weighted counts it reports (``weighted_n_node_samples``), which
    rescaling would silently change.  The user can rescale knowing this.
    """
    try:
        sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    except TypeError:
        # scikit-learn's own words (a scalar, a wrong type): as scikit-learn raises them
        raise
    except ValueError as exc:
        if "sample_weight" in str(exc) or "Sample weights" in str(exc):
            raise
        # e.g. "could not convert string to float": say which argument held it
        raise ValueError(f"sample_weight must hold numbers: {exc}") from None
    # _check_sample_weight refuses NaN / inf and negative weights; kept as a guard
    if not np.all(np.isfinite(sw)):
        raise ValueError("sample_weight must be finite.")
    with np.errstate(over="ignore"):  # an overflow to inf is what is checked
        total = float(np.sum(sw))
    if total <= 0:
        raise ValueError("sample_weight sums to zero: at least one sample needs a positive weight.")
    if not total <= MAX_TOTAL_WEIGHT:
        raise ValueError(
            f"sample_weight sums to {total:.3g}; the total weight must be at "
            f"most {MAX_TOTAL_WEIGHT:.0e} (rescale the weights)."
        )
    if total < MIN_TOTAL_WEIGHT:
        raise ValueError(
            f"sample_weight sums to {total:.3g}; the total weight must be at "
            f"least {MIN_TOTAL_WEIGHT:.0e} (rescale the weights)."
        )
    if y is not None:
        with np.errstate(over="ignore"):
            ay = np.abs(np.asarray(y, dtype=np.float64))
            if ay.ndim == 2:  # several outputs: bound every output's sums at once
                ay = ay.max(axis=1)
            wy = float(np.sum(sw * ay))
        if not wy <= MAX_WEIGHTED_TARGET:
            raise ValueError(
                f"sample_weight times |y| sums to {wy:.3g}; it must be at most "
                f"{MAX_WEIGHTED_TARGET:.0e}, or the weighted means of the "
                f"targets overflow (rescale the weights or the targets)."
            )
    return sw
