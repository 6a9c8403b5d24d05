"""Columns of dates: ISO 8601, or day and month in either order (which field is the day is
read from the data), read as points in time."""

from __future__ import annotations

from typing import NamedTuple

from ._columns import _is_numeric
from ._messages import UserError, _pandas, _quoted

#: A cell that reads as a date: ISO 8601 (``2024-03-01``, ``2024-03-01 12:30``,
#: ``2024-03-01T12:30:00.5+01:00``).  A column whose every non-missing cell is one becomes
#: a datetime column, which the estimators split as points in time.
DATE_PATTERN = (
    r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"
    r"(?:Z|[+-]\d{2}:?\d{2})?"
)


#: A cell that reads as a date written day and month first in either order, with a
#: four-digit year: ``06/15/2012`` (the US), ``15.06.2012``, ``15/06/2012``,
#: ``15-06-2012`` (Europe), a time ``HH:MM`` or ``HH:MM:SS`` after a space allowed.
LOCAL_DATE_PATTERN = r"(\d{1,2})([/.-])(\d{1,2})\2\d{4}(?: \d{1,2}:\d{2}(:\d{2})?)?"


class DateFormat(NamedTuple):
    """How a column writes its dates: a format :func:`pandas.to_datetime` takes
    (``ISO8601``, or ``%m/%d/%Y`` and the like) and the words of the note."""

    format: str
    words: str


def _date_format(text):
    """The :class:`DateFormat` of ``text`` (the non-missing cells of a column, as stripped
    str), or None when some cell is not a date or the cells disagree.

    ISO 8601 first; else :data:`LOCAL_DATE_PATTERN`, one separator and one time shape for
    the whole column.  Which of the first two fields is the day is read from the data: a
    first field above 12 makes it the day, a second field above 12 the month (both: not
    dates).  Where no field tells, ``15.06.2012``'s dots mean day first, as in every
    country that writes them; a ``/`` or ``-`` means month first, as in the US (the note
    says it was not told).
    """
    if text.str.fullmatch(DATE_PATTERN).all():
        return DateFormat("ISO8601", "ISO 8601")
    parts = text.str.extract(f"^{LOCAL_DATE_PATTERN}$")
    if parts[0].isna().any() or parts[1].nunique() != 1:
        return None
    has_time, seconds = text.str.contains(":", regex=False), parts[3].notna()
    if has_time.any() != has_time.all() or seconds.any() != seconds.all():
        return None  # some cells with a time, some without: not one format
    first, second = parts[0].astype(int), parts[2].astype(int)
    sep = parts[1].iloc[0]
    if (first > 12).any() and (second > 12).any() or (first > 31).any() or (second > 31).any():
        return None
    if (first > 12).any():
        day_first, why = True, f"a first field above 12: {_quoted(text[first > 12].iloc[0])}"
    elif (second > 12).any():
        day_first, why = False, f"a second field above 12: {_quoted(text[second > 12].iloc[0])}"
    else:
        day_first = sep == "."
        why = f"no field above 12 tells; {'dots' if day_first else _quoted(sep)} taken for " + (
            "day first" if day_first else "month first, as in the US"
        )
    order = ("%d", "%m") if day_first else ("%m", "%d")
    fmt = f"{order[0]}{sep}{order[1]}{sep}%Y"
    if has_time.any():
        fmt += " %H:%M:%S" if seconds.all() else " %H:%M"
    names = ("day", "month") if day_first else ("month", "day")
    return DateFormat(fmt, f"{names[0]}{sep}{names[1]}{sep}year: {why}")


def _as_dates(series, fmt=None):
    """``(dates, format)``: ``series`` as datetimes when it holds text and every
    non-missing cell is a date as :func:`_date_format` reads them (or as ``fmt``, a
    :class:`DateFormat` a model was fitted with), else ``(None, None)``.  Cells with a
    time zone are converted to UTC."""
    pd = _pandas()
    if (
        _is_numeric(series)
        or pd.api.types.is_bool_dtype(series.dtype)
        or pd.api.types.is_datetime64_any_dtype(series.dtype)
    ):
        return None, None
    text = series.dropna().astype(str).str.strip()
    if text.empty:
        return None, None
    fmt = _date_format(text) if fmt is None else fmt
    if fmt is None:
        return None, None
    zoned = text.str.contains(r"(?:Z|[+-]\d{2}:?\d{2})$", regex=True)
    if zoned.any() and not zoned.all():
        return None, None  # some with a zone, some without: no common clock
    try:
        return pd.to_datetime(series, format=fmt.format, utc=bool(zoned.any())), fmt
    except (ValueError, TypeError, OverflowError):
        return None, None


def _parse_dates(frame, columns):
    """Turn the date columns among ``columns`` into datetimes, in place;
    ``{name: DateFormat}``."""
    found = {}
    for col in columns:
        dates, fmt = _as_dates(frame[col])
        if dates is not None:
            frame[col] = dates
            found[col] = fmt
    return found


def _refuse_non_dates(frame, columns, path, formats=None):
    """Read the model's date columns as dates (as ``formats``, ``{column: format}``,
    says where it has the column); a cell that is not one is named."""
    pd = _pandas()
    formats = formats or {}
    for col in columns:
        if pd.api.types.is_datetime64_any_dtype(frame[col].dtype):
            continue
        fmt = formats.get(col)
        dates, _ = _as_dates(frame[col], None if fmt is None else DateFormat(fmt, ""))
        if dates is None:
            text = frame[col].dropna().astype(str)
            pattern = DATE_PATTERN if fmt in (None, "ISO8601") else LOCAL_DATE_PATTERN
            bad = ~text.str.strip().str.fullmatch(pattern)
            example = f" ({_quoted(text[bad].iloc[0])})" if bad.any() else ""
            raise UserError(
                f"column {_quoted(col)} of {path} holds cells that are not dates"
                f"{example} but the model was fitted with dates in it"
                + ("" if fmt is None else f" written {fmt}")
            )
        frame[col] = dates
