"""Which columns are features: numbers and categories prepared for the estimators, cells of
infinity refused, and the columns that identify rows rather than describe them
(:func:`identifier_columns`) left out."""

from __future__ import annotations

from ._messages import UserError, _names, _note, _pandas, _quoted, _shorten


def _is_numeric(series):
    """Numbers (not booleans): what the trees split with ``x <= threshold``."""
    pd = _pandas()
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
        series.dtype
    )


def _prepare_features(frame):
    """Every column that is not numbers or dates (text of any pandas dtype: object,
    ``string``, pandas 3's ``str``; booleans) becomes categorical; missing values stay
    missing."""
    pd = _pandas()
    for col in frame.columns:
        if not (_is_numeric(frame[col]) or pd.api.types.is_datetime64_any_dtype(frame[col].dtype)):
            frame[col] = frame[col].astype("category")
    return frame


def _refuse_infinity(frame, columns, path):
    """A cell holding ``inf`` (which pandas reads as a number) is refused by column and
    row: the trees cannot place it, and the estimators' error would not name the file."""
    import numpy as np

    for col in columns:
        if not _is_numeric(frame[col]):
            continue
        values = frame[col].to_numpy(dtype=np.float64, na_value=np.nan)
        bad = np.flatnonzero(np.isinf(values))
        if bad.size:
            raise UserError(
                f"column {_quoted(col)} of {path} holds {values[bad[0]]} in data row "
                f"{_row_number(frame, bad[0])} ({bad.size} infinite cell(s)); "
                f"leave the cell empty for a missing value"
            )


def _row_number(frame, position):
    """1-based data row of ``frame``'s row at ``position`` (read_csv's index, kept through
    dropped rows)."""
    return int(frame.index[position]) + 1


#: A column needs at least this many non-missing values to be taken for an identifier: in
#: a small file the values of a genuine feature (yes / no) are all distinct by chance.
MIN_IDENTIFIER_VALUES = 20


#: An integer column of distinct values is a row number or a key when its values span at
#: most this many times as many integers as it has values (1, 2, 3 ... with gaps) ...
DENSE_SPAN = 2
#: ... or when a word of its name says it is one (``PassengerId``, ``customer_id``, ``key``).
ID_NAME = r"(?:^|[^a-z])(?:id|ids|key|index|no|num|number)(?:[^a-z]|$)|[a-z]I[dD](?:[^a-z]|$)"


def _looks_like_id_name(name):
    import re

    return bool(re.search(ID_NAME, name) or re.search(ID_NAME, name.lower()))


#: Names that R, pandas and spreadsheets give the column of row names or row numbers they
#: write before the data: R's ``write.csv`` writes ``""`` (pandas reads ``Unnamed: 0``),
#: the ``datasets`` CSV files ``rownames``, pandas' ``to_csv`` after ``reset_index``
#: ``index``.  Such a column in which no value repeats is an identifier whatever its size.
ROW_NAME_COLUMNS = frozenset(["rownames", "Unnamed: 0", "", "index"])
#: R's ``read.csv`` names a nameless first column ``X``: an identifier when it is first and
#: holds the row numbers 1, 2, 3 ...
R_ROW_NUMBERS = "X"


def _counts_rows(series):
    """Whether ``series`` holds the file's row numbers (1 for its first data row)."""
    import numpy as np

    return bool(np.array_equal(series.to_numpy(), np.asarray(series.index) + 1))


def identifier_columns(frame, exclude=()):
    """Columns of ``frame`` that identify rows rather than describe them.

    A column is an identifier when no non-missing value occurs twice
    (``nunique == count``) and

    * its name is one of :data:`ROW_NAME_COLUMNS` (``rownames``, ``Unnamed: 0`` for R's
      ``""``, ``index``), or it is the first column, named ``X`` (:data:`R_ROW_NUMBERS`),
      and holds the row numbers: the row names R and pandas write; or
    * it has at least :data:`MIN_IDENTIFIER_VALUES` non-missing values (in a small file
      the values of a genuine feature are all distinct by chance), and
    * it holds text (any non-numeric, non-boolean, non-date dtype): a category seen once
      cannot be learned from; or
    * it holds integers that count rows or name them: their values are dense (they span
      at most :data:`DENSE_SPAN` times as many integers as there are values, as row
      numbers do), they increase strictly down the file (sparse ids in row order: the
      rows kept of a larger table), or the column's name says it is a key
      (:data:`ID_NAME`: ``PassengerId``, ``order_id``, ``key``).  Other integers of
      distinct values are measurements (a quantity, an amount in cents) and stay
      features, as floats do.

    Parameters
    ----------
    frame : pandas.DataFrame
    exclude : iterable of str
        Columns never returned (the target).

    Returns
    -------
    list of str
        In the order of ``frame``'s columns.
    """
    pd = _pandas()
    found = []
    for position, col in enumerate(frame.columns):
        if col in exclude:
            continue
        series = frame[col]
        dtype = series.dtype
        if (
            pd.api.types.is_bool_dtype(dtype)
            or pd.api.types.is_float_dtype(dtype)
            or pd.api.types.is_datetime64_any_dtype(dtype)
        ):
            continue
        if _is_numeric(series) and not pd.api.types.is_integer_dtype(dtype):
            continue  # complex numbers, or anything else numeric but not integer
        count = int(series.count())
        if count == 0 or series.nunique(dropna=True) != count:
            continue
        if str(col) in ROW_NAME_COLUMNS or (
            position == 0
            and str(col) == R_ROW_NUMBERS
            and _is_numeric(series)
            and _counts_rows(series)
        ):
            found.append(col)
            continue
        if count < MIN_IDENTIFIER_VALUES:
            continue
        if _is_numeric(series):
            span = float(series.max()) - float(series.min()) + 1
            if (
                span > DENSE_SPAN * count
                and not series.is_monotonic_increasing
                and not _looks_like_id_name(str(col))
            ):
                continue
        found.append(col)
    return found


def _split_names(values):
    """``--drop a,b --drop c`` -> ``['a', 'b', 'c']`` (blanks ignored)."""
    return [n.strip() for v in values or [] for n in v.split(",") if n.strip()]


def _feature_columns(frame, args):
    """The columns ``fit`` learns from: all but the target, the ``--drop`` columns and,
    unless ``--keep-ids``, the identifier columns (a line names them)."""
    columns = [str(c) for c in frame.columns]
    drop = _split_names(args.drop)
    unknown = [c for c in drop if c not in columns]
    if unknown:
        raise UserError(
            f"--drop {_names(unknown)}: no such column in {args.data} (columns: {_names(columns)})"
        )
    if args.target in drop:
        raise UserError(f"--drop {_shorten(args.target)}: that is the target")
    if args.weight is not None and args.weight not in columns:
        raise UserError(
            f"--weight {_shorten(args.weight)}: no such column in {args.data} "
            f"(columns: {_names(columns)})"
        )
    if args.weight is not None:
        drop = [c for c in drop if c != args.weight]
    exclude = [args.target, args.weight]
    ids = [] if args.keep_ids else [c for c in identifier_columns(frame, exclude) if c not in drop]
    if ids:
        _note(
            f"not used as features, they identify rows (no value repeats): "
            f"{_names(ids)} (--keep-ids keeps them)"
        )
    if drop:
        print(f"not used as features (--drop): {_names(drop)}")
    features = [c for c in frame.columns if c not in exclude and c not in drop and c not in ids]
    if not features:
        raise UserError(
            f"{args.data} has no feature column left besides the target "
            f"{_quoted(args.target)}"
            + (" after --drop" if drop else "")
            + (" and the identifier columns" if ids else "")
        )
    return features
