"""Reading a CSV file as downloaded: its separator, decimal mark and thousands separator
guessed from its first lines (or named by ``--sep``, ``--decimal``, ``--thousands``), its
numbers read as numbers, files that are not text and duplicate headers refused."""

from __future__ import annotations

import os
from typing import Any, NamedTuple

from ._messages import UserError, _first_unencodable, _names, _note, _pandas, _quoted

#: A column holding numbers is noted as read as categories when at most this share of its
#: cells (or one cell) is text: a stray ``n/a`` or typo rather than a text column.
STRAY_TEXT_SHARE = 0.05

#: Separators tried, in this order, when ``--sep`` is not given.
SEPARATORS = (",", ";", "\t", "|")
#: How much of a file the separator and the way numbers are written are guessed from.
SNIFF_BYTES = 2**16

#: Characters a file may group thousands with (``3,750``, ``3.750``, ``3 750``, the
#: no-break spaces of French locales, the Swiss ``3'750``), for ``--thousands`` detection.
THOUSANDS = (",", ".", " ", "\u00a0", "\u202f", "'")
#: Cells pandas reads as missing by default: they say nothing of how numbers are written.
_NA_TEXT = frozenset(
    ["", "NA", "N/A", "n/a", "NaN", "nan", "-NaN", "-nan", "null", "NULL", "None", "#N/A", "<NA>"]
)


class NumberFormat(NamedTuple):
    """How a file writes its numbers: the decimal mark and the thousands separator (None:
    no grouping), as :func:`pandas.read_csv` takes them."""

    decimal: str = "."
    thousands: str | None = None
    #: columns of dates written with the thousands separator (``15.06.2012`` read with
    #: thousands ``.``), which pandas would read as the number 15062012: read as text
    text_columns: tuple = ()

    def describe(self):
        """``decimal ',' and thousands '.'``"""
        grouping = (
            "no thousands separator"
            if self.thousands is None
            else (f"thousands {self.thousands!r}")
        )
        return f"decimal {self.decimal!r} and {grouping}"


def _number_pattern(fmt):
    """A regular expression of a number as ``fmt`` writes it: groups of exactly three
    digits after the thousands separator, so that ``3.14`` is never a thousands ``.``."""
    import re

    point = re.escape(fmt.decimal)
    whole = r"\d+"
    if fmt.thousands is not None:
        whole = rf"(?:\d+|\d{{1,3}}(?:{re.escape(fmt.thousands)}\d{{3}})+)"
    return re.compile(rf"[-+]?(?:{whole}(?:{point}\d*)?|{point}\d+)(?:[eE][-+]?\d+)?")


def _loose_pattern(fmt):
    """What pandas reads as a number under ``fmt``: it drops every thousands separator
    between digits wherever it is (``3.14`` with thousands ``.`` is read as 314)."""
    import re

    point = re.escape(fmt.decimal)
    digits = rf"[\d{re.escape(fmt.thousands)}]" if fmt.thousands is not None else r"\d"
    return re.compile(rf"[-+]?\d{digits}*(?:{point}\d*)?(?:[eE][-+]?\d+)?")


def _read_sample(path, encoding):
    """The first :data:`SNIFF_BYTES` characters of ``path``, cut after its last full line."""
    try:
        with open(path, encoding=encoding, errors="replace", newline="") as fh:
            sample = fh.read(SNIFF_BYTES)
    except FileNotFoundError:
        raise UserError(f"no such file: {path}") from None
    except LookupError:
        raise UserError(f"--encoding {encoding}: no such encoding") from None
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(sample) == SNIFF_BYTES:  # the last line may be cut: leave it out
        sample = sample[: sample.rfind("\n") + 1] or sample
    return sample


def _sniff_separator(sample):
    """The first of :data:`SEPARATORS` that splits the file's first lines into the same
    number (at least two) of fields; a comma when none does (a one-column file)."""
    import csv
    import io

    for sep in SEPARATORS:
        try:
            widths = {len(row) for row in csv.reader(io.StringIO(sample), delimiter=sep) if row}
        except csv.Error:
            continue
        if len(widths) == 1 and widths.pop() > 1:
            return sep
    return ","


def _sample_columns(sample, sep):
    """``(names, cells)``: the header and, per column, the sampled cells that are not
    empty or missing (stripped)."""
    import csv
    import io

    try:
        rows = list(csv.reader(io.StringIO(sample), delimiter=sep))
    except csv.Error:
        return [], []
    rows = [row for row in rows if row]
    if not rows:
        return [], []
    names = rows[0]
    cells: list[list[str]] = [[] for _ in names]
    for row in rows[1:]:
        for j, cell in enumerate(row[: len(names)]):
            cell = cell.strip()
            if cell not in _NA_TEXT:
                cells[j].append(cell)
    return names, cells


def _number_formats(sep, decimal=None, thousands=None):
    """The formats tried, the more likely first: the plain one, then a decimal comma
    before thousands groups where the separator is not a comma (European exports), the
    other way round where it is (a quoted ``"3,750"``).  ``decimal`` or ``thousands``
    (``""``: none) given keep only the formats that agree."""
    comma_first = sep != ","
    marks = [",", "."] if comma_first else [".", ","]
    formats = [NumberFormat()]
    for point in marks:
        for group in (None, *THOUSANDS):
            fmt = NumberFormat(point, group)
            # the field separator may group thousands: a quoted "3,750" of a US export
            if group == point or fmt in formats:
                continue
            formats.append(fmt)
    if decimal is not None:
        formats = [f for f in formats if f.decimal == decimal]
    if thousands is not None:
        formats = [f for f in formats if f.thousands == (thousands or None)]
    return formats


def _detect_number_format(sample, sep, decimal=None, thousands=None):
    """``(format, evidence)``: how the sampled file writes its numbers, and why.

    Each candidate of :func:`_number_formats` scores the columns whose every sampled cell
    it reads as a number (:func:`_number_pattern`); a candidate under which pandas would
    misread a cell (a ``3.14`` in a file read with thousands ``.``: :func:`_loose_pattern`)
    is left out.  The first of the best is taken, so that the plain format stays unless
    another reads more columns as numbers.  ``evidence`` is ``(column, n, of, example)``:
    the column with the most cells only the chosen format reads, or None.
    """
    import re

    names, cells = _sample_columns(sample, sep)
    # only the cells made of digits and marks can be numbers under some format (and be
    # misread under one); a column with any other cell is text under all of them
    marks = re.compile(r"[-+]?[\d.,' \u00a0\u202f]*\d[\d.,' \u00a0\u202f]*(?:[eE][-+]?\d+)?")
    numeric = [[c for c in column if marks.fullmatch(c)] for column in cells]
    whole = [bool(column) and len(n) == len(column) for n, column in zip(numeric, cells)]
    # German dates (15.06.2012) are text to every format, and kept so when read
    dotted = re.compile(r"\d{1,2}\.\d{1,2}\.\d{4}")
    dates = [ok and all(dotted.fullmatch(c) for c in n) for n, ok in zip(numeric, whole)]
    numeric = [[] if date else n for n, date in zip(numeric, dates)]
    whole = [ok and not date for ok, date in zip(whole, dates)]
    # a thousands separator that no cell holds reads as the format without one
    present = set().union(*map(set, (c for column in numeric for c in column)))
    candidates = [
        f
        for f in _number_formats(sep, decimal, thousands)
        if f.thousands is None or f.thousands in present
    ]
    if not candidates:
        return NumberFormat(decimal or ".", thousands or None), None
    plain = _number_pattern(NumberFormat())
    best, best_score = candidates[0], -1
    for fmt in candidates:
        strict, loose = _number_pattern(fmt), _loose_pattern(fmt)
        score = 0
        for column, all_marks in zip(numeric, whole):
            read = [bool(strict.fullmatch(c)) for c in column]
            if fmt.thousands is not None and any(
                not ok and loose.fullmatch(c) for ok, c in zip(read, column)
            ):
                score = -1  # a cell pandas would read as another number
                break
            score += all_marks and all(read)
        if score > best_score:
            best, best_score = fmt, score
    if best.thousands == ".":
        best = best._replace(text_columns=tuple(n for n, d in zip(names, dates) if d and n))
    evidence = None
    if best != NumberFormat():
        strict = _number_pattern(best)
        for name, column in zip(names, cells):
            only = [c for c in column if strict.fullmatch(c) and not plain.fullmatch(c)]
            if only and (evidence is None or len(only) > evidence[1]):
                evidence = (name, len(only), len(column), only[0])
    return best, evidence


def _separator_option(options):
    """``--sep`` as typed (``'\\t'`` and ``tab`` meaning a tab), or None."""
    sep: Any = getattr(options, "sep", None)
    return {"\\t": "\t", "tab": "\t"}.get(sep, sep)


def _char_option(options, name):
    """``--decimal`` or ``--thousands`` (``''`` or ``none``: no thousands separator)."""
    value = getattr(options, name, None)
    if value is None:
        return None
    if name == "thousands" and value.lower() in ("", "none"):
        return ""
    if len(value) != 1:
        raise UserError(f"--{name} takes one character, got {_quoted(value)}")
    return value


#: How each file was read: ``{(path, encoding, sep, decimal, thousands): (sep, format)}``,
#: so that a file read several times is sniffed, and noted, once.
_READ_AS: dict = {}


def _reading(path, options):
    """``(encoding, sep, number format)`` of ``path``: ``--sep``, ``--decimal`` and
    ``--thousands`` where given, else detected from the file's first lines; a note says
    what was detected when the numbers are not written plainly."""
    encoding = getattr(options, "encoding", None) or "utf-8"
    sep = _separator_option(options)
    decimal, thousands = _char_option(options, "decimal"), _char_option(options, "thousands")
    if decimal is not None and decimal == (thousands or None):
        raise UserError(f"--decimal and --thousands are both {decimal!r}")
    key = (str(path), encoding, sep, decimal, thousands)
    if key in _READ_AS:
        return (encoding, *_READ_AS[key])
    if os.path.isdir(path):
        raise UserError(f"{path} is a directory, not a CSV file")
    # sampled even when all is given: the dates a thousands '.' would turn into numbers
    sample = _read_sample(path, encoding)
    sep = _sniff_separator(sample) if sep is None else sep
    fmt, evidence = _detect_number_format(sample, sep, decimal, thousands)
    # what was detected rather than given, where it is not the plain way
    change = [
        f"--{name} {plain}"
        for name, given, found, plain in (
            ("decimal", decimal, fmt.decimal, "."),
            ("thousands", thousands, fmt.thousands, "none"),
        )
        if given is None and found not in (".", None)
    ]
    if evidence is not None and change:
        column, n, of, example = evidence
        _note(
            f"numbers of {path} read with {fmt.describe()} (detected: {n} of the {of} "
            f"sampled cells of column {_quoted(column)} are written so, e.g. "
            f"{_quoted(example)}); {' and '.join(change)} to change"
        )
    _READ_AS[key] = (sep, fmt)
    return encoding, sep, fmt


def _read_csv(path, options=None, **kwargs):
    """``path`` read by pandas with the separator and number format of :func:`_reading`
    and the ``--encoding`` of ``options``."""
    pd = _pandas()
    encoding, sep, fmt = _reading(path, options)
    dtype = kwargs.get("dtype")
    if fmt.text_columns and (dtype is None or isinstance(dtype, dict)):
        kwargs["dtype"] = {**{c: str for c in fmt.text_columns}, **(dtype or {})}
    try:
        return pd.read_csv(
            path,
            sep=sep,
            encoding=encoding,
            decimal=fmt.decimal,
            thousands=fmt.thousands,
            **kwargs,
        )
    except FileNotFoundError:
        raise UserError(f"no such file: {path}") from None
    except LookupError:
        raise UserError(f"--encoding {encoding}: no such encoding") from None
    except UnicodeDecodeError as exc:
        raise UserError(
            f"cannot read {path} as {encoding} text (byte {exc.start} is not "
            f"{encoding}): give its encoding, e.g. --encoding latin-1"
        ) from None
    except UnicodeEncodeError:
        # the file decodes to a lone surrogate (a codec such as utf-7 or unicode_escape
        # can): no tool after this one could write it, so it is refused where it is
        raise UserError(_not_text(path, sep, encoding)) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        raise UserError(f"cannot read {path} as CSV ({exc})") from None
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None


#: pandas' options that read every line, the header's too, as the strings it decodes to
_EVERY_CELL_AS_DECODED = {
    "encoding_errors": "surrogatepass",
    "header": None,
    "dtype": object,
    "keep_default_na": False,
}


def _not_text(path, sep, encoding):
    """The message for a file that decodes to something that is not text: the column and
    the row that hold it, found by reading the file again as it decodes (cells and header
    alike, as objects: pandas' text columns and names cannot hold such a string)."""
    pd = _pandas()
    where = "a cell"
    try:
        rows = pd.read_csv(path, sep=sep, encoding=encoding, **_EVERY_CELL_AS_DECODED)
    except Exception:  # an error path only: the message without the place
        rows = None
    if rows is not None and len(rows):
        names = list(map(str, rows.iloc[0].tolist()))
        for k in range(rows.shape[1]):
            cells = list(map(str, rows.iloc[:, k].tolist()))
            bad = _first_unencodable(cells)
            if bad == 0:
                where = f"the name of column {k + 1} ({_quoted(names[k])})"
            elif bad is not None:
                where = f"column {_quoted(names[k])} ({_quoted(cells[bad])} in data row {bad})"
            if bad is not None:
                break
    return (
        f"{path} read as {encoding}: {where} is not text (a lone surrogate, which UTF-8 "
        f"cannot encode): give the file's real encoding with --encoding"
    )


def _duplicate_columns(frame, path, options):
    """``{name: [column numbers]}`` of the names that the header of ``path`` (read into
    ``frame``) gives to more than one column.

    pandas renames the second ``Age`` to ``Age.1``: a model would learn the two as
    different features in the file's order, and a file with them swapped would be
    predicted differently.  The header is read again, as it is written, only when a name
    of ``frame`` ends like one pandas renamed (``.1``).
    """
    import re

    if not any(re.search(r"\.\d+$", str(c)) for c in frame.columns):
        return {}
    header = _read_csv(path, options, header=None, nrows=1, dtype=str, keep_default_na=False)
    numbers: dict[str, list[int]] = {}
    for i, name in enumerate(header.iloc[0].tolist() if len(header) else []):
        numbers.setdefault(str(name), []).append(i + 1)
    return {name: at for name, at in numbers.items() if len(at) > 1 and name != ""}


def _refuse_duplicate_columns(duplicates, path, why):
    """One line naming the columns that share a name (:func:`_duplicate_columns`)."""
    if duplicates:
        which = _names(
            (f"{_quoted(name)} (columns {_names(at)})" for name, at in duplicates.items()),
            show=str,
        )
        raise UserError(
            f"{path} gives the same name to several columns: {which}; {why}: rename them "
            f"so that each name is used once"
        )


def _as_numbers(values, fmt):
    """``values`` (text cells) as numbers written as ``fmt`` (a :class:`NumberFormat`)
    writes them, NaN for a cell that is not one."""
    pd = _pandas()
    text = values.astype(str).str.strip()
    if fmt.thousands is not None:
        text = text.str.replace(fmt.thousands, "", regex=False)
    if fmt.decimal != ".":
        text = text.str.replace(fmt.decimal, ".", regex=False)
    return pd.to_numeric(text, errors="coerce")
