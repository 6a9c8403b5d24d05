"""The CSV files the command writes, made for the tools that read them: the output encoding
checked before anything is written, fields with line breaks quoted, and cells a
spreadsheet would run as formulas escaped (unless ``--no-escape-formulas``)."""

from __future__ import annotations

import sys

from ._columns import _is_numeric
from ._files import _write_file
from ._messages import UserError, _first_unencodable, _pandas, _quoted, _shorten

#: A text cell that starts with one of these is read by a spreadsheet as a formula
#: (``=cmd|' /C calc'!A0``): OWASP's list on CSV injection (= + - @ tab CR), with LF and
#: NUL (ASVS 1.2.10) ...
FORMULA_START = r"[=+\-@\t\r\n\x00]"
#: ... unless the whole cell is a number (``-1.5``, ``+3``, ``-2e-05``), which stays one.
PLAIN_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"


def _is_text_column(series):
    pd = _pandas()
    dtype = series.dtype
    return not (
        _is_numeric(series)
        or pd.api.types.is_bool_dtype(dtype)
        or pd.api.types.is_datetime64_any_dtype(dtype)
        or pd.api.types.is_timedelta64_dtype(dtype)
    )


def _as_text(column):
    """A text column as a Series whose ``.str`` methods see every cell: as it is when its
    cells are strings, else each cell as the csv writer writes it (``str``)."""
    pd = _pandas()
    if pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty"):
        return column
    return column.astype(object).map(str, na_action="ignore")


def _formula_like(texts):
    """Which cells of ``texts`` (a Series of str, missing values allowed), as a boolean
    array, a spreadsheet would run as a formula: they start as one
    (:data:`FORMULA_START`) and are not plain numbers."""
    import numpy as np

    starts = np.array(texts.str.match(FORMULA_START).fillna(False), dtype=bool)
    at = np.flatnonzero(starts)
    if at.size:  # the numbers among the few that start so: -1.5 stays a number
        number = texts.iloc[at].str.fullmatch(PLAIN_NUMBER).fillna(False).to_numpy(dtype=bool)
        starts[at[number]] = False
    return starts


def _escaped(values, found):
    """``values`` (a Series) as an object array with a ``'`` before the ``found`` ones."""
    values = values.to_numpy(dtype=object, copy=True)
    values[found] = ["'" + v for v in values[found]]  # the few found, not every cell
    return values


def _escape_formulas(table):
    """``table`` with a ``'`` before each text cell and column name that
    :func:`_formula_like` finds: spreadsheets show the text and run nothing."""
    pd = _pandas()
    names = pd.Series([str(c) for c in table.columns], dtype=object)
    table = table.set_axis(_escaped(names, _formula_like(names)).tolist(), axis=1)
    for k in range(table.shape[1]):
        column = table.iloc[:, k]
        if not _is_text_column(column):
            continue
        text = _as_text(column)
        found = _formula_like(text)
        if found.any():
            table.isetitem(k, pd.Series(_escaped(text, found), index=table.index))
    return table


def _refuse_unwritable(table, encoding, where):
    """The text cell or column name of ``table`` that ``encoding`` cannot hold, as one
    line, before anything is written."""
    import codecs

    import numpy as np

    utf8 = codecs.lookup(encoding).name in ("utf-8", "utf-8-sig")
    names = [str(c) for c in table.columns]
    for k in range(table.shape[1]):
        column = table.iloc[:, k]
        if not _is_text_column(column) or (
            utf8 and getattr(column.dtype, "storage", None) == "pyarrow"
        ):
            continue  # Arrow strings are UTF-8 by construction
        # each distinct cell once: a column of labels holds a few
        cells = list(map(str, column.dropna().drop_duplicates().tolist()))
        bad = _first_unencodable(cells, encoding)
        if bad is not None:
            text = _as_text(column).to_numpy(dtype=object)
            row = int(np.flatnonzero(text == cells[bad])[0]) + 1
            raise UserError(
                f"{where} cannot hold column {_quoted(names[k])} ({_quoted(cells[bad])} in "
                f"data row {row})"
            )
    bad = _first_unencodable(names, encoding)
    if bad is not None:
        raise UserError(f"{where} cannot hold the column name {_quoted(names[bad])}")


class _RowEnds:
    """A text stream that ends with ``\\n`` the rows that the csv writer ends with
    ``\\r\\n``: the writer quotes a field that holds a character of its line end, so
    that with ``\\r\\n`` a bare CR in an id is quoted, and the file keeps its ``\\n``
    line ends.  The writer writes each row (its end included) in one call."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, row):
        return self.stream.write(row[:-2] + "\n" if row.endswith("\r\n") else row)


def _write_csv(table, args, output):
    """``table`` as CSV to ``output`` (``-``: standard output): formulas escaped unless
    ``--no-escape-formulas``, in ``--encoding`` (standard output: its own), every field
    holding a CR or LF quoted."""
    if not getattr(args, "no_escape_formulas", False):
        table = _escape_formulas(table)

    def write(stream):
        table.to_csv(_RowEnds(stream), index=False, lineterminator="\r\n")

    if output == "-":
        encoding = getattr(_stdout(), "encoding", None) or "utf-8"
        _refuse_unwritable(
            table,
            encoding,
            f"standard output (encoding {encoding}; write a file with -o FILE, or set "
            f"PYTHONIOENCODING=utf-8)",
        )
        _write_stdout(write)
        return
    encoding = getattr(args, "encoding", None) or "utf-8"
    try:
        "".encode(encoding)
    except LookupError:
        raise UserError(f"--encoding {_shorten(encoding)}: no such encoding") from None
    _refuse_unwritable(table, encoding, f"{output} written as {encoding} (--encoding)")
    _write_file(output, write, encoding)


def _stdout():
    """Standard output, refused when it is closed (``treeboost ... >&-``)."""
    if sys.stdout is None or getattr(sys.stdout, "closed", False):
        raise UserError("standard output is closed: give an output file with -o FILE")
    return sys.stdout


def _write_stdout(write):
    """``write(stdout)``, then flush: a full device behind standard output is the user's
    error line (a reader that stopped early is handled by :func:`main`)."""
    stream = _stdout()
    try:
        write(stream)
        stream.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise UserError(f"cannot write standard output: {exc.strerror or exc}") from None
