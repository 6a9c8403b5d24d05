"""Datetime columns as one unit-independent number: seconds since the Unix epoch.

A column of numpy ``datetime64`` (any unit) or pandas ``datetime64`` (with or without a
time zone) means instants, not integers: its integer representation depends on the unit
(``datetime64[us]`` and ``datetime64[ns]`` of the same instant differ by a factor 1000),
so the encoder converts it to

    t = (instant - 1970-01-01T00:00:00) / 1 s      (float64, UTC for a zone-aware column)

and a missing instant (``NaT``) to NaN.  The conversion is exact up to float64 rounding of
the sum ``whole seconds + fraction``, each part computed exactly from the integer count of
the column's unit, so that one instant gives the same float in every unit.
"""

import numpy as np

__all__ = [
    "is_datetime",
    "is_tz_aware",
    "to_epoch_seconds",
    "format_epoch_seconds",
    "NAIVE",
    "UTC",
]

#: the encoder's ``datetime_zones_`` of a column of datetimes without / with a time zone
NAIVE = "naive"
UTC = "UTC"

#: units finer than a second: how many of them make a second
_PER_SECOND = {"ms": 10**3, "us": 10**6, "ns": 10**9, "ps": 10**12, "fs": 10**15, "as": 10**18}
_SECONDS_PER_DAY = 86_400
_US_PER_SECOND = 10**6


def _pandas_dtype_is_datetime(dtype):
    import sys

    pd = sys.modules.get("pandas")
    return (
        pd is not None
        and not isinstance(dtype, np.dtype)
        and bool(pd.api.types.is_datetime64_any_dtype(dtype))
    )


def is_datetime(col):
    """Whether a column (numpy array or pandas Series) holds datetimes by its dtype.

    Parameters
    ----------
    col : ndarray or pandas.Series

    Returns
    -------
    bool
        True for numpy ``datetime64`` of any unit and pandas ``datetime64`` with or
        without a time zone; object columns of ``datetime`` objects are not recognised
        (their dtype says nothing about their cells).
    """
    dtype = getattr(col, "dtype", None)
    if dtype is None:
        return False
    if isinstance(dtype, np.dtype):
        return dtype.kind == "M"
    return _pandas_dtype_is_datetime(dtype)


def is_tz_aware(col):
    """Whether a datetime column carries a time zone (pandas ``datetime64[unit, tz]``)."""
    return getattr(getattr(col, "dtype", None), "tz", None) is not None


def _naive_numpy(col):
    """The column as numpy ``datetime64`` without a zone: a zone-aware pandas column in UTC."""
    if is_tz_aware(col):
        col = col.dt.tz_convert("UTC").dt.tz_localize(None)
    if hasattr(col, "to_numpy"):
        col = col.to_numpy()
    return np.asarray(col)


def to_epoch_seconds(col):
    """Seconds since 1970-01-01T00:00:00 (UTC for a zone-aware column), NaN for ``NaT``.

    Parameters
    ----------
    col : ndarray of datetime64 or pandas.Series of datetime64 (naive or zone-aware)

    Returns
    -------
    ndarray of float64, shape (n,)
        ``floor(v / u) + (v mod u) / u`` for a count ``v`` of a unit finer than a second,
        ``u`` of them to a second; the count converted to seconds by numpy's calendar for
        coarser units (minutes, days, months, ...).
    """
    v = _naive_numpy(col)
    unit, count = np.datetime_data(v.dtype)
    if count != 1 or unit == "generic":
        v = v.astype("datetime64[s]" if unit == "generic" else f"datetime64[{unit}]")
        unit, count = np.datetime_data(v.dtype)
    nat = np.isnat(v)
    per_second = _PER_SECOND.get(unit)
    if per_second is None:
        # a second or coarser: whole seconds, exactly (a calendar unit such as a month
        # needs numpy's conversion)
        ints = v.astype("datetime64[s]").view(np.int64)
        out = ints.astype(np.float64)
    else:
        ints = v.view(np.int64)
        whole, part = np.divmod(ints, per_second)
        out = whole.astype(np.float64) + part.astype(np.float64) / per_second
    out[nat] = np.nan
    return out


def format_epoch_seconds(value, utc=False):
    """An instant given in seconds since the epoch as ISO text.

    Parameters
    ----------
    value : float
        Seconds since 1970-01-01T00:00:00, rounded to the microsecond.
    utc : bool, default=False
        Append `` UTC`` (the instant of a zone-aware column).

    Returns
    -------
    str or None
        ``YYYY-MM-DD`` at midnight, else ``YYYY-MM-DD HH:MM:SS`` with the fraction of a
        second when there is one (``.fff`` or ``.ffffff``); None for a value that is not
        finite or lies past numpy's range of microsecond datetimes.
    """
    if not np.isfinite(value) or abs(value) > 9.2e12:
        return None
    us = int(round(float(value) * _US_PER_SECOND))
    if us % (_SECONDS_PER_DAY * _US_PER_SECOND) == 0:
        unit = "D"
    elif us % _US_PER_SECOND == 0:
        unit = "s"
    elif us % 1000 == 0:
        unit = "ms"
    else:
        unit = "us"
    text = np.datetime_as_string(np.datetime64(us, "us"), unit=unit).replace("T", " ")
    return text + " UTC" if utc else text
