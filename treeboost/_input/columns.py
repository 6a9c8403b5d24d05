"""What one column of X is: a DataFrame detected, a categorical dtype, its missing
values, and the error for a column that does not convert to numbers."""

import sys

import numpy as np
from sklearn.utils.validation import check_array

__all__ = [
    "is_frame",
    "frame_is_categorical",
    "missing_mask",
    "check_finite_array",
    "first_non_numeric_column",
    "not_numeric",
]


def is_frame(X):
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


def frame_is_categorical(dtype):
    import pandas as pd

    return (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_object_dtype(dtype)
        or pd.api.types.is_string_dtype(dtype)
    )


def missing_mask(values):
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


def check_finite_array(X, **kwargs):
    """scikit-learn's ``check_array``, without its warning on large finite values.

    Its first pass sums X to find a non-finite value quickly; values near the largest
    float (1e308 and -1e308 in one X) overflow that sum to NaN, and numpy warns
    ("invalid value encountered in reduce") about data that is valid.  The second pass
    it then makes finds any infinity value by value, so ignoring the sum's
    floating-point warnings changes no decision.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        return check_array(X, **kwargs)


def first_non_numeric_column(X):
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


def not_numeric(f, names, fit, cause=None):
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
