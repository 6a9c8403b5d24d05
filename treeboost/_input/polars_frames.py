"""polars DataFrames as the encoder reads them, without importing polars.

A polars frame is recognised by its class's module (``polars...``), so that polars is
imported only by a caller who already passes one.  Its ``String``, ``Categorical`` and
``Enum`` columns are categorical by default, as a pandas frame's object, string and
``category`` columns are (scikit-learn's HistGradientBoosting detects polars
``Categorical`` and ``Enum``); the columns are read one at a time as numpy arrays:

* a categorical column as an object array of its values (``None`` for a null), with the
  categories of an ``Enum`` in their declared order (as a pandas ``category`` dtype's);
* a numeric or boolean column as float64 (a null as NaN);
* a date or datetime column as numpy ``datetime64`` (a null as ``NaT``).
"""

from typing import NamedTuple, Optional

import numpy as np


def is_polars_frame(X) -> bool:
    """Whether ``X`` is a ``polars.DataFrame`` (polars not imported to tell)."""
    cls = type(X)
    return cls.__module__.split(".")[0] == "polars" and cls.__name__ == "DataFrame"


def _dtype_name(dtype) -> str:
    # polars dtypes are classes or instances of them (Enum carries its categories)
    return dtype.__name__ if isinstance(dtype, type) else type(dtype).__name__


#: polars dtypes whose columns are categorical by default
CATEGORICAL_DTYPES = ("String", "Utf8", "Categorical", "Enum")


def categorical_mask(X) -> np.ndarray:
    """Which columns of the polars frame ``X`` are categorical by default."""
    return np.array([_dtype_name(dt) in CATEGORICAL_DTYPES for dt in X.dtypes], bool)


def column_names(X) -> list:
    """The column names of the polars frame ``X``, as str."""
    return [str(c) for c in X.columns]


class PolarsColumn(NamedTuple):
    """One column of a polars frame, as numpy.

    Attributes
    ----------
    values : ndarray of shape (n_samples,)
        object (categorical), float64 (numeric) or datetime64 (dates) values.
    categories : ndarray of object or None
        The declared categories of an ``Enum`` column, in their order; None otherwise
        (the categories are then the sorted distinct values).
    """

    values: np.ndarray
    categories: Optional[np.ndarray]


def read_column(X, f: int, categorical: bool) -> PolarsColumn:
    """Column ``f`` of the polars frame ``X`` as the encoder reads it.

    Parameters
    ----------
    X : polars.DataFrame
    f : int
        Column index.
    categorical : bool
        Whether the model reads the column as categories.

    Returns
    -------
    PolarsColumn
    """
    s = X.to_series(f)
    name = _dtype_name(s.dtype)
    if categorical:
        categories = None
        if name == "Enum":
            categories = np.asarray(s.dtype.categories.to_list(), dtype=object)
        if name in ("Categorical", "Enum"):
            s = s.cast(str)
        return PolarsColumn(np.asarray(s.to_list(), dtype=object), categories)
    if name in ("Date", "Datetime"):
        return PolarsColumn(s.to_numpy(), None)
    if s.dtype.is_numeric() or name == "Boolean":
        import polars as pl  # the caller passed a polars frame: polars is there

        return PolarsColumn(s.cast(pl.Float64).to_numpy(), None)
    # text (or any other) column read as numbers: the encoder converts it or says which
    # column is not numeric
    return PolarsColumn(np.asarray(s.to_list(), dtype=object), None)
