"""FeatureEncoder: raw X (numpy, pandas or polars; numeric, categorical, datetime, NaN)
to the float matrix the engine bins.

A scipy.sparse X (numeric columns only) is checked (:mod:`.sparse_structure`) and kept
sparse: the engine bins it column by column (:mod:`treeboost.engine.binning.sparse_columns`),
keeps the codes of a very sparse one as its entries
(:mod:`treeboost.engine.binning.sparse_codes`) and predicts it on its rows
(:mod:`treeboost.engine.predict.csr_rows`).

Categorical columns (:mod:`.categorical_mask` says which) become category codes
``0..k-1`` (stored as floats, NaN for a missing value or a category never seen in
training); a column of more than 255 categories is grouped into at most 255 codes, by the
categories' target means when a target is given, else by frequency (the rules are in
:mod:`.rare_categories`).  Datetime columns become seconds since the epoch
(:mod:`.datetimes`), numeric columns stay as they are.  The trees then test numeric
columns with ``x <= threshold`` and categorical ones with "code in the left subset", on
this one matrix.  A model file's encoder is checked by :mod:`.encoder_state`.
"""

from functools import partial
from operator import is_not

import numpy as np
from scipy.sparse import issparse
from sklearn.utils.validation import _check_sample_weight, check_array

from ..engine import MAX_CATEGORIES
from ..persistence._spec import array
from . import polars_frames
from .categorical_mask import categorical_mask, from_dtypes
from .columns import (
    check_finite_array,
    first_non_numeric_column,
    is_frame,
    missing_mask,
    not_numeric,
)
from .datetimes import (
    NAIVE,
    UTC,
    format_epoch_seconds,
    is_datetime,
    is_tz_aware,
    to_epoch_seconds,
)
from .encoder_state import check_encoder_state
from .rare_categories import describe_group, describe_other, group_by_target, group_categories
from .sparse_structure import canonical_sparse, check_sparse_structure

__all__ = ["FeatureEncoder"]


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
        is grouped (see :mod:`~treeboost._input.rare_categories`): by frequency, it
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
        frame = is_frame(X) or polars
        # datetime64 arrays take the column path: check_array would turn them into numbers
        # of their unit
        if (
            not frame
            and from_dtypes(self.categorical_features)
            and not is_datetime(X)
            and (fit or not self._any_datetime())
        ):
            try:
                Xn = check_finite_array(
                    X, dtype=[np.float64, np.float32], ensure_all_finite=self._finite_rule
                )
            except (TypeError, ValueError) as exc:
                # numpy's "could not convert string to float" names neither the column
                # nor the remedy; find the column and say both
                f = first_non_numeric_column(X)
                if f is None:
                    raise
                raise not_numeric(f, None, fit, exc) from None
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
            self._reset(categorical_mask(self.categorical_features, X, n_features, names))
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
            mask = (
                categorical_mask(self.categorical_features, X, X.shape[1], None)
                if X.ndim == 2
                else None
            )
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
        Xs = canonical_sparse(
            check_finite_array(
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
                self.datetime_zones_[f] = UTC if is_tz_aware(col) else NAIVE
                return to_epoch_seconds(col)
            return self._numeric(col, f, names, fit)
        zones = vars(self).get("datetime_zones_")
        if zones is None:
            # a model file from before datetime columns: it learned their integer
            # representation, which it still gets
            return self._numeric(col, f, names, fit)
        name = names[f] if names else f
        if zones[f] is not None:
            aware = zones[f] == UTC
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
            raise not_numeric(f, names, fit, exc) from None
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
        missing = missing_mask(values)
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
        return format_epoch_seconds(float(value), utc=zones[f] == UTC)

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
        """Raise ValueError unless the learned columns can encode X for the model (the
        rules are in :mod:`treeboost._input.encoder_state`)."""
        check_encoder_state(self, where, n_features)


def _declared_codes(col, present, categories):
    """The position in ``categories`` (a declared category order) of each of the
    values ``present``: a pandas ``category`` column's codes, or a polars ``Enum``'s."""
    if hasattr(col, "cat"):
        codes = col.cat.codes.to_numpy()
        return codes[codes >= 0].astype(np.int64)
    distinct, inverse = np.unique(present, return_inverse=True)
    position = {c: i for i, c in enumerate(categories.tolist())}
    return np.array([position[c] for c in distinct.tolist()], np.int64)[inverse]
