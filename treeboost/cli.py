"""The ``treeboost`` command (also ``python -m treeboost``).

    treeboost                                       this help (also -h); --version
    treeboost demo [--out DIR]                      single tree against the ensembles
    treeboost fit DATA.csv --target COL [--model gbdt|rf|tree|bagging|adaboost|extratrees]
                  [--param k=v ...] [--drop COL,...] [--keep-ids] [--test-size 0.2]
                  [--valid VALID.csv] [--weight COL] [--task auto] -o MODEL
    treeboost predict MODEL DATA.csv [--id COL] [-o OUT.csv | -o -]
    treeboost explain MODEL [--tree N] [-o IMPORTANCES.csv]
    treeboost explain MODEL DATA.csv --shap [--top K] [--id COL] [-o SHAP.csv]
    (fit, predict, explain: [--sep CHAR] [--decimal CHAR] [--thousands CHAR]
     [--encoding NAME] [--threads N];
     predict, explain: [--no-escape-formulas])

``fit`` takes a CSV file as downloaded: its separator, decimal mark and thousands
separator are guessed from its first lines unless ``--sep``, ``--decimal`` and
``--thousands`` name them (:func:`_detect_number_format`: ``1.234,5`` in a ``;`` file,
a quoted ``"3,750"``); columns that identify rows rather than describe them
(:func:`identifier_columns`: R's and pandas' row names, text columns, or integer columns
that count rows, increase down the file or are named as keys, in which no value repeats,
such as a passenger id or a name) are not used as features; ``--drop`` leaves out others.
Columns of dates (ISO 8601, or ``06/15/2012`` and ``15.06.2012``, which field is the day
read from the data: :func:`_date_format`) are read as dates.  The task is the target's
(:func:`_detect_task`: integers are classes only when two or at most ten consecutive
ones).  Each decision the command takes on the data (how numbers are written,
identifiers, dates, the task, rows without a target, a number column read as categories
for a few text cells) is one ``treeboost: note:`` line on standard error; a fitted model
without a split and a score no better than its baseline (an accuracy at most the
baseline's, a ROC AUC at most 0.5, an R2 at most 0) one ``treeboost: warning:`` line.
The model keeps the names of the columns it was fitted with, and ``predict`` and
``explain`` read those columns of their file, whatever else it holds.  Importing this
module imports nothing heavy (numpy, pandas, scikit-learn and numba load when a command
needs them), so that ``--help`` is quick.

Mistakes (a missing file, an unknown column, a one-valued target, a bad ``--param``, a cell
holding infinity or text where numbers are expected, too few rows, a file that is not a
treeboost model, a training column missing from the file, an unknown ``--drop`` column, an
output that cannot be written or that is one of the inputs, a closed standard output, a
header that gives one name to two columns the command reads, a string that is not text, a
cell the output's encoding cannot hold) print one ``treeboost: error:`` line and exit with
status 2; they never print a traceback.  What the line quotes from the files or the
command line is shortened (:func:`_shorten`, :func:`_names`): at most
:data:`NAMES_SHOWN` names of at most :data:`NAME_CHARS` characters each, control
characters escaped, the line at most :data:`LINE_CHARS` characters.
A reader that stops early (``treeboost explain m.tbm | head -1``) ends the command as it
ends ``cat``: killed by SIGPIPE, without a word.

The CSV files the command writes (predictions, SHAP values, importances) are made for the
tools that read them: written in ``--encoding`` (UTF-8 by default; standard output in its
own encoding), a cell that encoding cannot hold refused before anything is written; a
field holding a CR or a newline quoted, lines ending in ``\\n``; and a text cell or column
name that a spreadsheet would run as a formula (starting with ``=``, ``+``, ``-``, ``@``, a
tab, CR, LF or NUL, and not a plain number such as ``-1.5``) written after a ``'``, unless
``--no-escape-formulas``.  A model file's strings (labels, categories, names) that UTF-8
cannot encode are refused when it is loaded, as is a CSV file that decodes to one.

Every regular file the command writes (model, predictions, pictures) is written to a
temporary file in the same directory and then moved onto its name: a failure midway leaves
the old file as it was, and the output is checked to be writable before the (possibly
long) fit starts.  A symbolic link stays a link (its target is rewritten); a device, FIFO
or ``/dev/stdout`` is written in place, never replaced (:func:`treeboost._atomic.atomic_write`).
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import tempfile
import time
import warnings
import zipfile
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Sequence

FEATURES = ["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]

MODELS = {
    "tree": ("DecisionTreeClassifier", "DecisionTreeRegressor"),
    "gbdt": ("GradientBoostingClassifier", "GradientBoostingRegressor"),
    "rf": ("RandomForestClassifier", "RandomForestRegressor"),
    "extratrees": ("ExtraTreesClassifier", "ExtraTreesRegressor"),
    "bagging": ("BaggingClassifier", "BaggingRegressor"),
    "adaboost": ("AdaBoostClassifier", "AdaBoostRegressor"),
}

#: parameters a model starts from before ``--param``: ``gbdt`` keeps the LightGBM-style
#: trees it has always fitted (31 leaves best-first, 20 rows per leaf, second-order gain)
#: rather than scikit-learn's depth-3 defaults of GradientBoosting*
MODEL_PARAMS = {
    "gbdt": {
        "max_depth": None,
        "max_leaf_nodes": 31,
        "min_samples_leaf": 20,
        "split_gain": "hessian",
    },
}


class UserError(Exception):
    """A mistake of the user's, reported as one line."""


# -- text from the user's files in messages ---------------------------------------------------
#: A message lists at most this many names (columns, labels) ...
NAMES_SHOWN = 20
#: ... each shown with at most this many characters (a header cell may hold megabytes) ...
NAME_CHARS = 60
#: ... and an error line has at most this many, the text of a library's error included.
LINE_CHARS = 3000


def _printable(text):
    """``text`` with each character a terminal would act on or cannot show (a newline, an
    escape sequence, a lone surrogate) written as its Python escape."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def _shorten(text, width=NAME_CHARS):
    """``text`` (a column name, a cell, a label, an option's value: anything that comes
    from a file or the command line) as a message shows it: printable (:func:`_printable`)
    and at most about ``width`` characters, its middle replaced by ``...`` when longer (the
    two ends tell apart names that share a prefix or a suffix)."""
    text = str(text)
    if len(text) <= width and text.isprintable():
        return text
    # only the ends that can be shown are escaped, never all of a 20 MB cell
    shown = _printable(text[: width + 1])
    if len(text) <= width and len(shown) <= width:
        return shown
    keep = max(width - 3, 2)
    head = shown[: keep - keep // 2]
    tail = _printable(text[-keep:])
    return f"{head}...{tail[len(tail) - keep // 2 :]}"


def _quoted(text):
    """A name or a cell between quotes, shortened (:func:`_shorten`)."""
    return f"'{_shorten(text)}'" if isinstance(text, str) else _shorten(repr(text))


def _names(names, limit=NAMES_SHOWN, show=_shorten):
    """``a, b, c ... and 7 more``: at most ``limit`` names, each shortened (``show``: how
    one is written, for names already shortened inside a longer text)."""
    names = [str(n) for n in names]
    shown = ", ".join(show(n) for n in names[:limit])
    return shown + (f" ... and {len(names) - limit} more" if len(names) > limit else "")


def _first_unencodable(texts, encoding="utf-8"):
    """Position in ``texts`` (a list of str) of the first that ``encoding`` cannot hold
    (any text but a lone surrogate for UTF-8), or None.  One join and one encode for all
    of them; the position is found from the offset of the failure."""
    import numpy as np

    if not texts:
        return None
    try:
        "\n".join(texts).encode(encoding)
    except UnicodeEncodeError as exc:
        ends = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1)
        return int(np.searchsorted(ends, exc.start, side="right"))
    return None


# -- output files -----------------------------------------------------------------------------
def _same_file(a, b):
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links
    except OSError:
        return False


def _probe_directory(directory, what):
    """Refuse ``directory`` unless a file can be created in it (tried, not guessed: the
    permission bits say nothing for root or on a read-only file system)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".treeboost-probe.")
    except OSError as exc:
        raise UserError(f"cannot write {what}: {exc.strerror or exc} ({directory})") from None
    os.close(fd)
    os.unlink(tmp)


def _check_output(path, inputs=()):
    """Refuse an output that is a directory, one of ``inputs``, or not writable.

    Returns how it will be written (:func:`treeboost._atomic.output_kind`): ``"replace"``
    for a new path or a regular file (a symbolic link's target), ``"through"`` for a
    device, a FIFO or ``/dev/stdout``, which are written in place, never replaced.
    """
    from ._atomic import output_kind

    try:
        kind, target = output_kind(path)
    except IsADirectoryError:
        raise UserError(f"the output {path} is a directory; give a file name") from None
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    for inp in inputs:
        if _same_file(path, inp):
            raise UserError(
                f"the output {path} is the input {inp}; writing it would destroy "
                f"the input: choose another output file"
            )
    if kind == "through":
        if not os.access(path, os.W_OK):
            raise UserError(f"cannot write {path}: permission denied")
        return kind
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        why = "is not a directory" if os.path.exists(directory) else "does not exist"
        raise UserError(f"cannot write {path}: {directory} {why}")
    _probe_directory(directory, path)
    return kind


def _check_output_directory(path):
    """Refuse a folder for pictures that cannot be created or written."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UserError(f"--out {path} exists and is not a directory")
    parent = os.path.abspath(path)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise UserError(f"cannot create --out {path}: {parent} is not a directory")
    _probe_directory(parent, f"--out {path}")


# -- demo ------------------------------------------------------------------------------------
def _titanic_features():
    """Titanic features as a DataFrame when pandas is there, else a numpy object array
    with Sex and Embarked declared categorical (the demo needs no optional package)."""
    from .datasets import load_titanic
    import importlib.util

    if importlib.util.find_spec("pandas") is None:
        data = load_titanic(as_frame=False)
        cols = [data.feature_names.index(c) for c in FEATURES]
        return data.data[:, cols], data.target, [1, 6]
    data = load_titanic(as_frame=True)
    return data.data[FEATURES], data.target, None


def compile_kernels(args):
    from ._prebuild import prebuild

    if args.jobs < 1:
        raise UserError(f"--jobs must be at least 1, got {args.jobs}")
    # into the user's cache folder (kernel_cache.user_prebuilt_dir), never the package
    print("Compiling treeboost's kernels for this machine ...", flush=True)
    report = prebuild(jobs=args.jobs)
    if report.failed:
        print(
            f"Some fits failed to compile (see above); the kernels of the others are "
            f"in {report.folder}",
            flush=True,
        )
        return 1
    if report.reused:
        print(f"Nothing to compile: the kernels of this source and machine are in {report.folder}")
        return 0
    print(f"Done in {report.seconds:.0f} s ({report.compiled} kernels): {report.folder}")
    return 0


def demo(args):
    from .demo import run_demo

    if args.folds < 2:
        raise UserError(f"--folds must be at least 2, got {args.folds}")
    if args.n_estimators < 1:
        raise UserError(f"--n-estimators must be at least 1, got {args.n_estimators}")
    if not args.no_plots:
        _check_output_directory(args.out)
    X, y, categorical = _titanic_features()
    try:
        return run_demo(
            X,
            y,
            categorical,
            FEATURES,
            out=args.out,
            folds=args.folds,
            n_estimators=args.n_estimators,
            plots=not args.no_plots,
        )
    except OSError as exc:  # the folder vanished or filled up during the run
        raise UserError(f"cannot write the pictures to {args.out}: {exc.strerror or exc}") from None


# -- fit / predict / explain ------------------------------------------------------------------
def _pandas():
    try:
        import pandas as pd
    except ImportError:
        raise UserError("reading CSV files needs pandas: pip install pandas") from None
    return pd


#: Notes waiting for the checks of the command line to pass (see :func:`_note`).
_NOTES: list[str] = []


def _note(text):
    """A line on standard error about a decision the command took on the data; kept until
    :func:`_flush_notes`, so that a command refused for a mistake prints its one error
    line alone."""
    _NOTES.append(f"treeboost: note: {text}")


def _flush_notes():
    while _NOTES:
        print(_NOTES.pop(0), file=sys.stderr)


def _warn(text):
    print(f"treeboost: warning: {text}", file=sys.stderr)


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


def _not_text(path, sep, encoding):
    """The message for a file that decodes to something that is not text: the column and
    the row that hold it, found by reading the file again as it decodes (cells and header
    alike, as objects: pandas' text columns and names cannot hold such a string)."""
    pd = _pandas()
    where = "a cell"
    try:
        rows = pd.read_csv(
            path,
            sep=sep,
            encoding=encoding,
            encoding_errors="surrogatepass",
            header=None,
            dtype=object,
            keep_default_na=False,
        )
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


#: An integer target is a classification (under ``--task auto``) when it has at most this
#: many distinct values and they are consecutive (0/1, 1..5 stars), or when it has two;
#: other integers (counts with gaps, amounts, years) are a regression.
MAX_INTEGER_CLASSES = 10
#: A text target with more distinct values than this is refused under ``--task auto``: a
#: classification would learn one class per value (numbers the file writes unread, names).
MAX_AUTO_CLASSES = 100


def _values_text(values, limit=MAX_INTEGER_CLASSES):
    """``0, 1, 2`` for a few sorted values, ``0 ... 312`` for more."""
    shown = [_shorten(v) for v in values]
    return ", ".join(shown) if len(shown) <= limit else f"{shown[0]} ... {shown[-1]}"


def _detect_task(y, name):
    """``(task, reason)`` for ``--task auto``: the task the target ``y`` (a Series
    without missing values) calls for, and the words of the note that says why.

    Text and booleans are classes.  Integers are classes when there are two of them, or
    at most :data:`MAX_INTEGER_CLASSES` consecutive ones (``0..k``, ``1..k``): a rating,
    a count of a few.  Other integers (``0, 1, 2, 3, 7, 12``: counts with gaps) and
    numbers with a fraction are a regression.  A text target of more than
    :data:`MAX_AUTO_CLASSES` labels, or of more than :data:`MAX_INTEGER_CLASSES` labels
    that are numbers written in another way, is refused (:class:`UserError`).
    """
    import numpy as np

    pd = _pandas()
    target = _quoted(name)
    if pd.api.types.is_bool_dtype(y.dtype):
        return "classification", f"the target {target} holds true/false values"
    if not _is_numeric(y):
        labels = sorted(map(str, y.unique()))
        k = len(labels)
        numbers = [f for f in _number_formats(",") if _looks_numeric(labels, f)]
        if k > MAX_AUTO_CLASSES or (numbers and k > MAX_INTEGER_CLASSES):
            plain = _number_pattern(NumberFormat())
            example = next((t for t in labels if not plain.fullmatch(t)), labels[0])
            how = (
                f"numbers written as text (such as {_quoted(example)}): read them with "
                f"--decimal {numbers[0].decimal}"
                + (f" --thousands {_quoted(numbers[0].thousands)}" if numbers[0].thousands else "")
                + " and --task regression, or "
                if numbers
                else ""
            )
            raise UserError(
                f"the target {target} holds {k} distinct text values in {len(y)} rows: a "
                f"classification would learn one class per value; {how}give --task "
                f"classification to fit {k} classes anyway"
            )
        shown = _values_text(labels)
        return "classification", f"the target {target} holds text, {k} labels ({shown})"
    values = np.unique(y.to_numpy(dtype=np.float64))
    k = values.size
    if not np.all(np.mod(values, 1) == 0):
        fraction = values[np.flatnonzero(np.mod(values, 1))[0]]
        why = f"the target {target} holds numbers that are not integers, such as {fraction:g}"
        return "regression", why
    shown = _values_text([f"{v:.0f}" for v in values])
    if k == 2:
        return "classification", f"the target {target} has 2 values ({shown})"
    consecutive = values[-1] - values[0] + 1 == k
    if k <= MAX_INTEGER_CLASSES and consecutive:
        return "classification", f"the target {target} has {k} consecutive integer values ({shown})"
    why = (
        "with gaps, as counts or amounts have"
        if k <= MAX_INTEGER_CLASSES
        else (f"more than {MAX_INTEGER_CLASSES}")
    )
    return "regression", f"the target {target} has {k} integer values ({shown}), {why}"


def _looks_numeric(texts, fmt):
    """Whether every one of ``texts`` is a number as ``fmt`` writes it."""
    pattern = _number_pattern(fmt)
    return all(pattern.fullmatch(t.strip()) for t in texts)


def _parse_params(pairs):
    params = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise UserError(f"--param takes key=value, got {_quoted(pair)}")
        key, value = pair.split("=", 1)
        try:
            params[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            params[key] = value
    return params


def _make_model(name, cls, pairs, base=None):
    """The estimator with the ``base`` parameters, then the ``--param`` values, checked
    before any fit."""
    params = _parse_params(pairs)
    model = cls(**(base or {}))
    known = model.get_params(deep=True)
    unknown = [k.split("__")[0] for k in params if k.split("__")[0] not in known]
    if unknown:
        raise UserError(
            f"bad --param for {name}: no parameter {_names(unknown)} (its "
            f"parameters: {', '.join(sorted(model.get_params(deep=False)))})"
        )
    for key in params:
        owner = key.split("__")[0]
        if "__" in key and known.get(owner) is None:
            raise UserError(
                f"bad --param for {name}: {key} sets a parameter of {owner}, which is None here"
            )
    try:
        model.set_params(**params)  # also nested ones: estimator__max_depth=3
    except (TypeError, ValueError) as exc:
        raise UserError(f"bad --param for {name}: {exc}") from None
    if hasattr(model, "_parameter_constraints"):
        try:
            model._validate_params()
        except (ValueError, TypeError) as exc:
            raise UserError(f"bad --param for {name}: {exc}") from None
    return model


def _target(frame, args):
    """``(y, task)`` with y as a numpy array; text labels as Python str."""
    import numpy as np

    y = frame[args.target]
    task = args.task
    if task == "auto":
        task, reason = _detect_task(y, args.target)
        if _is_numeric(y):  # text labels cannot be a regression
            other = "regression" if task == "classification" else "classification"
            reason += f"; use --task {other} to change"
        _note(f"{task}: {reason}")
    if task == "regression":
        if not _is_numeric(y):
            example = y.dropna().iloc[0]
            raise UserError(
                f"--task regression needs numbers in the target {_quoted(args.target)}, "
                f"but it holds text such as {_quoted(example)}; use --task "
                f"classification"
            )
        values = y.to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise UserError(
                f"the target {_quoted(args.target)} holds {values[bad[0]]} in data row "
                f"{_row_number(frame, bad[0])}"
            )
        return values, task
    if _is_numeric(y):
        values = y.to_numpy()
        if values.dtype.kind == "f" and np.all(np.mod(values, 1) == 0):
            # 0/1 read as floats because of an empty cell: the classes stay 0 and 1
            values = values.astype(np.int64)
        return values, task
    if y.dtype == bool:
        return y.to_numpy(dtype=bool), task
    # pandas 3 reads text as its `str` dtype; the model's classes_ (and the predictions
    # written later) are plain Python strings
    return y.astype(str).to_numpy(dtype=object), task


def _split(X, y, task, args, n_rows, weight=None):
    """Training and held-out parts: ``Xtr, Xte, ytr, yte, wtr``."""
    import numpy as np
    from sklearn.model_selection import train_test_split

    stratify = None
    if task == "classification":
        _, counts = np.unique(y, return_counts=True)
        stratify = y if counts.min() >= 2 else None
    arrays = [X, y] + ([] if weight is None else [weight])
    try:
        parts = train_test_split(
            *arrays, test_size=args.test_size, stratify=stratify, random_state=args.random_state
        )
    except ValueError as exc:
        raise UserError(
            f"{args.data} has {n_rows} rows with a target: too few to hold out "
            f"--test-size {args.test_size} ({exc})"
        ) from None
    Xtr, Xte, ytr, yte = parts[:4]
    if np.unique(ytr).size < 2:
        raise UserError(
            f"{args.data} has {n_rows} rows with a target: the training part "
            f"({len(ytr)} rows after holding out --test-size {args.test_size}) "
            f"has a single target value; nothing to learn"
        )
    return Xtr, Xte, ytr, yte, (parts[4] if weight is not None else None)


def _report(model, task, yte, pred, Xte, ytr):
    """Print the held-out scores; a warning for each that is no better than what
    predicting without the features scores (:func:`_no_better`)."""
    import numpy as np
    from sklearn import metrics
    from sklearn.exceptions import UndefinedMetricWarning

    scores = {}

    def show(label, score):
        # a metric undefined on this hold-out (one class in it) is said, not warned
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", UndefinedMetricWarning)
                value = score()
        except (ValueError, UndefinedMetricWarning):
            print(f"  {label:<9} undefined on this hold-out")
            return
        scores[label] = value
        print(f"  {label:<9} {value:.4f}")

    common = None
    if task == "classification":
        show("accuracy", lambda: metrics.accuracy_score(yte, pred))
        # what accuracy means here: that of always answering the training's commonest class
        labels, counts = np.unique(ytr, return_counts=True)
        common = labels[np.argmax(counts)]
        scores["baseline"] = float(np.mean(yte == common))
        print(
            f"  {'baseline':<9} {scores['baseline']:.4f}  (accuracy of always "
            f"predicting {_shorten(common)}, the most frequent class)"
        )
        if hasattr(model, "predict_proba"):
            proba = model.predict_proba(Xte)
            if proba.shape[1] == 2:
                show(
                    "ROC AUC", lambda: metrics.roc_auc_score(yte == model.classes_[1], proba[:, 1])
                )
            show("log loss", lambda: metrics.log_loss(yte, proba, labels=model.classes_))
    else:
        show("R2", lambda: metrics.r2_score(yte, pred))
        show("MAE", lambda: metrics.mean_absolute_error(yte, pred))
        show("RMSE", lambda: np.sqrt(metrics.mean_squared_error(yte, pred)))
    for line in _no_better(scores, common):
        _warn(line)


def _no_better(scores, common):
    """The warnings for the scores (``{label: value}``) no better than a guess: an
    accuracy at most the baseline's, a ROC AUC at most 0.5 (a coin's), an R2 at most 0
    (that of predicting the held-out rows' mean)."""
    accuracy, baseline = scores.get("accuracy"), scores.get("baseline")
    if accuracy is not None and baseline is not None and accuracy <= baseline:
        yield (
            f"the accuracy {accuracy:.4f} is {'below' if accuracy < baseline else 'that of'} "
            f"the baseline {baseline:.4f} of always predicting {_shorten(common)}: the model "
            f"does no better on these rows than ignoring the features"
        )
    auc = scores.get("ROC AUC")
    if auc is not None and auc <= 0.5:
        yield (
            f"the ROC AUC {auc:.4f} is {'below' if auc < 0.5 else 'that of'} 0.5, that of a "
            f"random ranking: the model ranks these rows no better than chance"
        )
    r2 = scores.get("R2")
    if r2 is not None and r2 <= 0:
        yield (
            f"the R2 {r2:.4f} is not above 0, that of always predicting the mean of these "
            f"rows: the model does no better on them than ignoring the features"
        )


#: A categorical column is named after the scores when at least this share of its held-out
#: values (and at least ``UNSEEN_MIN_ROWS`` of them) never occur in the training part.
UNSEEN_SHARE = 0.2
UNSEEN_MIN_ROWS = 5


def _unseen_categories(Xtr, Xte):
    """Lines naming the categorical columns whose held-out values the training part mostly
    never saw: the model reads an unseen category as a missing value, which is what the
    held-out scores then measure."""
    lines = []
    for col in Xte.columns:
        if not hasattr(Xte[col], "cat"):
            continue
        held = Xte[col].dropna()
        unseen = int((~held.isin(Xtr[col].dropna().unique())).sum())
        if unseen >= UNSEEN_MIN_ROWS and unseen >= UNSEEN_SHARE * len(held):
            lines.append(
                f"note: {unseen} of the {len(held)} held-out values of {_shorten(col)} never "
                f"occur in the training part; the model reads them as missing "
                f"values"
            )
    return lines


def _check_fit_options(args):
    if not 0 < args.test_size < 1:
        raise UserError(
            f"--test-size must be a fraction strictly between 0 and 1, got {args.test_size}"
        )
    if args.output == "-":
        raise UserError(
            "-o -: a model file is binary and is not written to standard "
            "output; give a file name such as model.tbm"
        )
    if args.weight is not None and args.weight == args.target:
        raise UserError(f"--weight {_shorten(args.weight)}: that is the target")
    _check_output(args.output, inputs=[args.data] + ([args.valid] if args.valid else []))


def _rows_with_target(frame, path, args):
    """``frame`` without its rows whose target is empty (a line says how many)."""
    if len(frame) == 0:
        raise UserError(f"{path} has a header but no data rows")
    if args.target not in frame.columns:
        raise UserError(
            f"column {_quoted(args.target)} is not in {path} (columns: {_names(frame.columns)})"
        )
    empty = int(frame[args.target].isna().sum())
    if empty == len(frame):
        raise UserError(f"the target {_quoted(args.target)} is empty in every row of {path}")
    if empty:
        _note(
            f"{empty} of the {len(frame)} rows of {path} have no {_shorten(args.target)} (an empty "
            f"cell): left out"
        )
    return frame.dropna(subset=[args.target])


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


def _note_text_in_numbers(frame, columns, fmt):
    """Name each column read as categories because a few of its cells are not numbers (a
    stray ``n/a``, a typo): its numbers lose their order, and the cells are worth fixing."""
    pd = _pandas()
    for col in columns:
        series = frame[col]
        if (
            _is_numeric(series)
            or pd.api.types.is_bool_dtype(series.dtype)
            or pd.api.types.is_datetime64_any_dtype(series.dtype)
        ):
            continue
        values = series.dropna()
        text = _as_numbers(values, fmt).isna().to_numpy()
        if 0 < text.sum() <= max(1, STRAY_TEXT_SHARE * len(values)) < len(values):
            i = int(text.argmax())
            _note(
                f"column {_quoted(col)} is read as categories, not numbers: "
                f"{int(text.sum())} of its {len(values)} cells are not numbers "
                f"({_quoted(values.iloc[i])} in data row {int(values.index[i]) + 1}); "
                f"correct or empty them to use its numbers"
            )


def _weights(frame, args):
    """The ``--weight`` column as finite, non-negative floats."""
    import numpy as np

    if args.weight is None:
        return None
    w = frame[args.weight]
    if not _is_numeric(w):
        raise UserError(f"--weight {_shorten(args.weight)}: the column holds text, not numbers")
    values = w.to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.flatnonzero(~(np.isfinite(values) & (values >= 0)))
    if bad.size:
        raise UserError(
            f"--weight {_shorten(args.weight)}: weights must be finite numbers >= 0, got "
            f"{values[bad[0]]} in data row {_row_number(frame, bad[0])}"
        )
    if not values.sum() > 0:
        raise UserError(f"--weight {_shorten(args.weight)}: every weight is 0")
    return values


def _base_params(model_name, n_train):
    """The parameters ``--model`` starts from (:data:`MODEL_PARAMS`), with a leaf size
    that lets a small file be learned from: at most a tenth of the training rows."""
    params = dict(MODEL_PARAMS.get(model_name, {}))
    if "min_samples_leaf" in params:
        params["min_samples_leaf"] = max(1, min(params["min_samples_leaf"], n_train // 10))
    return params


def _set_threads(args, model=None):
    """``--threads``: the engine's threads, and the jobs of an ensemble that has them."""
    n = getattr(args, "threads", None)
    if n is None:
        return
    if n < 1:
        raise UserError(f"--threads must be at least 1, got {n}")
    if model is None:
        import numba

        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    elif "n_jobs" in model.get_params(deep=False) and not any(
        p.startswith("n_jobs=") for p in getattr(args, "param", None) or []
    ):
        model.set_params(n_jobs=n)


def _warn_if_constant(model, n_train):
    """A model none of whose trees splits predicts the same for every row: say so."""
    trees = _trees_of(model)
    if trees and all(t.node_count <= 1 for t in trees):
        params = model.get_params(deep=False)
        leaf = params.get("min_samples_leaf")
        _warn(
            f"the fitted model makes no split: it predicts the same for every row "
            f"({n_train} training rows"
            + (f", min_samples_leaf={leaf}" if leaf else "")
            + "); try --param min_samples_leaf=1 or more rows"
        )


def _read_fit_csv(path, args):
    """A file ``fit`` learns from; one that names two columns alike is refused."""
    frame = _read_csv(path, args)
    _refuse_duplicate_columns(
        _duplicate_columns(frame, path, args),
        path,
        "the model would learn them as different features told apart only by their order "
        "in this file, and predict a file with them swapped wrongly",
    )
    return frame


def fit(args):
    import treeboost

    pd = _pandas()
    _check_fit_options(args)
    _set_threads(args)
    frame = _rows_with_target(_read_fit_csv(args.data, args), args.data, args)
    if frame.shape[1] < 2:
        raise UserError(f"{args.data} has no column besides the target {_quoted(args.target)}")
    # before the identifiers are picked: a column of distinct dates is a feature
    dates = _parse_dates(frame, [c for c in frame.columns if c not in (args.target, args.weight)])
    features = _feature_columns(frame, args)
    dates = {c: fmt for c, fmt in dates.items() if c in features}
    if dates:
        _note(
            "read as dates: "
            + _names((f"{_shorten(c)} ({fmt.words})" for c, fmt in dates.items()), show=str)
        )
    used = features + [args.target] + ([args.weight] if args.weight else [])
    n_train = len(frame)
    if args.valid is not None:
        valid = _rows_with_target(_read_fit_csv(args.valid, args), args.valid, args)
        missing = [c for c in used if c not in valid.columns]
        if missing:
            raise UserError(
                f"--valid {args.valid} lacks the columns {_names(missing)} of {args.data}"
            )
        _refuse_non_dates(valid, list(dates), args.valid, {c: f.format for c, f in dates.items()})
        # one frame, so that both files' columns get the same types and categories
        frame = pd.concat([frame[used], valid[used]])
    else:
        frame = frame[used]
    if frame[args.target].iloc[:n_train].nunique() < 2:
        raise UserError(
            f"the target {_quoted(args.target)} has a single value in {args.data}; nothing to learn"
        )
    _note_text_in_numbers(frame, features, _reading(args.data, args)[2])
    _refuse_infinity(frame, features, args.data)
    y, task = _target(frame, args)
    weight = _weights(frame, args)
    X = _prepare_features(frame[features].copy())
    name = MODELS[args.model][0 if task == "classification" else 1]
    cls = getattr(treeboost, name, None)
    if cls is None:
        raise UserError(f"--model {args.model} is not available in this treeboost")
    if args.valid is not None:
        Xtr, Xte, ytr, yte = X.iloc[:n_train], X.iloc[n_train:], y[:n_train], y[n_train:]
        wtr = None if weight is None else weight[:n_train]
        where = f"the {len(yte)} rows of --valid {args.valid}"
    else:
        Xtr, Xte, ytr, yte, wtr = _split(X, y, task, args, len(y), weight)
        where = f"the {len(yte)} held-out rows (--test-size {args.test_size:g})"
    model = _make_model(name, cls, args.param, _base_params(args.model, len(ytr)))
    _set_threads(args, model)
    _flush_notes()
    t = time.perf_counter()
    try:
        model.fit(Xtr, ytr, **({} if wtr is None else {"sample_weight": wtr}))
    except (ValueError, TypeError) as exc:
        raise UserError(f"cannot fit {name} on {args.data}: {exc}") from None
    fit_time = time.perf_counter() - t
    print(f"{name} fitted on {len(ytr)} rows x {X.shape[1]} columns in {fit_time:.2f} s.")
    _warn_if_constant(model, len(ytr))
    print(
        f"Scores on {where}, which the fit did not see"
        + (" (unweighted)" if weight is not None else "")
        + ":"
    )
    _report(model, task, yte, model.predict(Xte), Xte, ytr)
    for line in _unseen_categories(Xtr, Xte):
        print(line)
    model.treeboost_cli_ = {
        "target": args.target,
        "task": task,
        "columns": [str(c) for c in X.columns],
    }
    if dates:  # predict reads a file's dates as these were read, whatever its days tell
        model.treeboost_cli_["date_formats"] = {str(c): f.format for c, f in dates.items()}
    try:
        treeboost.save(model, args.output)  # atomic: a failure keeps the old file
    except OSError as exc:
        raise UserError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    print(f"model saved to {args.output}")
    return 0


#: What a damaged or crafted file can raise from the ZIP and JSON readers besides the
#: ValueError that :func:`treeboost.load` promises (encrypted or unknown-compression
#: entries, deep nesting); the command reports them as one line as well.
_LOAD_ERRORS = (
    ValueError,
    zipfile.BadZipFile,
    EOFError,
    RuntimeError,
    NotImplementedError,
    RecursionError,
    OverflowError,
)


def _load_model(path):
    import treeboost
    from sklearn.base import BaseEstimator

    if os.path.isdir(path):
        raise UserError(f"{path} is a directory, not a model file")
    try:
        model = treeboost.load(path)
    except FileNotFoundError:
        raise UserError(f"no such file: {path}") from None
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    except _LOAD_ERRORS as exc:
        text = str(exc)
        if isinstance(exc, ValueError) and str(path) in text:
            raise UserError(text) from None
        raise UserError(f"{path} is not a usable treeboost model ({text})") from None
    if not isinstance(model, BaseEstimator) or not hasattr(model, "predict"):
        raise UserError(f"{path} holds a {type(model).__name__}, not a fitted treeboost model")
    bad = _invalid_text(model)
    if bad is not None:
        # a label, a category or a name the command would write: no output could hold it
        where, value = bad
        raise UserError(
            f"{path} is not a usable treeboost model: {_where_in_model(model, where)} "
            f"{_quoted(value)}, which is not text (a lone surrogate, which UTF-8 cannot "
            f"encode)"
        )
    return model


#: How deep :func:`_invalid_text` looks into a model (an ensemble's members' encoders).
_TEXT_DEPTH = 6


def _invalid_text(obj, where=(), depth=0, seen=None):
    """``(where, value)`` of the first string of the fitted ``obj`` that UTF-8 cannot
    encode, or None; ``where`` is the path of attributes, keys and positions to it.

    A model file may hold any string JSON can (``"\\ud800"``); the strings a command
    writes (class labels, categories, column names, an ensemble's members' too) are all
    found here, at load, rather than as a traceback of the writer.
    """
    import numpy as np

    if isinstance(obj, str):
        return None if _first_unencodable([obj]) is None else (where, obj)
    seen = set() if seen is None else seen
    if depth > _TEXT_DEPTH or id(obj) in seen or isinstance(obj, (int, float, bool, bytes)):
        return None
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in "OU":
            return None  # numbers: the trees' arrays
        items = obj.ravel().tolist()
        texts = [v for v in items if isinstance(v, str)]
        bad = _first_unencodable(texts)
        if bad is not None:
            return (*where, items.index(texts[bad])), texts[bad]
        pairs: list[tuple[Any, Any]] = [
            (i, v) for i, v in enumerate(items) if not isinstance(v, str)
        ]
    elif isinstance(obj, dict):
        pairs = [(("key", k), k) for k in obj] + list(obj.items())
    elif isinstance(obj, (list, tuple)):
        pairs = list(enumerate(obj))
    elif hasattr(obj, "__dict__"):
        pairs = list(vars(obj).items())
    else:
        return None
    for key, value in pairs:
        found = _invalid_text(value, (*where, key), depth + 1, seen)
        if found is not None:
            return found
    return None


def _where_in_model(model, where):
    """The words, up to the value, for a path found by :func:`_invalid_text`: the class
    labels of the target, the categories of a column, the column names, else the
    attributes."""
    info = getattr(model, "treeboost_cli_", None)
    target = info.get("target") if isinstance(info, dict) else None
    names = [str(n) for n in getattr(model, "feature_names_in_", [])]
    if where[:1] == ("classes_",):
        of = f" of the target {_quoted(target)}" if isinstance(target, str) else ""
        return f"the class labels{of} include"
    if where[:2] == ("_encoder", "categories_") and len(where) > 2:
        k = where[2]
        column = _quoted(names[k]) if isinstance(k, int) and k < len(names) else k
        return f"the categories of column {column} include"
    if where[:1] == ("feature_names_in_",) or where[:2] == ("treeboost_cli_", "columns"):
        return "the column names include"
    if where[:2] == ("treeboost_cli_", "target"):
        return "the target's name is"
    return (
        "the attribute "
        + "".join(
            f".{k}" if isinstance(k, str) else f"[{_shorten(repr(k))}]" for k in where
        ).lstrip(".")
        + " holds"
    )


def _categorical_columns(model, columns):
    """Columns the model learned as categorical with text categories: read as text at
    predict, so that a code such as ``007`` stays ``'007'`` even where the file has no
    letter in that column."""
    enc = getattr(model, "_encoder", None)
    flags = getattr(enc, "is_categorical_", None)
    cats = getattr(enc, "categories_", None)
    if flags is None or cats is None or len(flags) != len(columns):
        return []
    return [
        c
        for c, flag, cat in zip(columns, flags, cats)
        if flag and cat is not None and len(cat) and all(isinstance(v, str) for v in cat)
    ]


def _refuse_text_in_numbers(frame, model, columns, path, fmt):
    """A column the model learned as numbers must hold numbers: name the first cell that
    does not (the estimator's error would not say which file or row)."""
    pd = _pandas()
    enc = getattr(model, "_encoder", None)
    flags = getattr(enc, "is_categorical_", None)
    if flags is None or len(flags) != len(columns):
        return
    for col, flag in zip(columns, flags):
        if (
            flag
            or _is_numeric(frame[col])
            or pd.api.types.is_datetime64_any_dtype(frame[col].dtype)
        ):
            continue
        values = frame[col]
        numbers = _as_numbers(values, fmt).where(values.notna())
        bad = (numbers.isna() & values.notna()).to_numpy()
        if bad.any():
            i = int(bad.argmax())
            raise UserError(
                f"column {_quoted(col)} of {path} holds text ({_quoted(values.iloc[i])} in data "
                f"row {_row_number(frame, i)}) but the model was fitted with "
                f"numbers in it"
            )
        frame[col] = numbers


def _cli_info(model):
    """What ``fit`` recorded in the model (target name, columns), the sound parts only:
    the record comes from a file."""
    info = getattr(model, "treeboost_cli_", None)
    if not isinstance(info, dict):
        return {}
    sound = {}
    if isinstance(info.get("target"), str):
        sound["target"] = info["target"]
    columns = info.get("columns")
    if (
        isinstance(columns, list)
        and all(isinstance(c, str) for c in columns)
        and len(columns) == getattr(model, "n_features_in_", None)
    ):
        sound["columns"] = columns
    formats = info.get("date_formats")
    if isinstance(formats, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in formats.items()
    ):
        sound["date_formats"] = formats
    return sound


class ModelInput(NamedTuple):
    """The rows of a CSV file as a model reads them."""

    X: Any  #: the model's columns, text ones categorical
    ids: Any  #: the ``--id`` column as written in the file (a Series), or None
    ignored: list  #: columns of the file the model does not use


def _date_columns(model, columns):
    """Columns the model learned as dates."""
    zones = getattr(getattr(model, "_encoder", None), "datetime_zones_", None)
    if not isinstance(zones, list) or len(zones) != len(columns):
        return []
    return [c for c, zone in zip(columns, zones) if zone is not None]


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


def _read_model_input(model, path, id_column=None, options=None):
    """Read the columns ``model`` was fitted with (its CLI record, else
    ``feature_names_in_``) from ``path``; other columns (the identifiers ``fit`` left out,
    the target) are ignored, a missing one is refused."""
    info = _cli_info(model)
    header = _read_csv(path, options, nrows=0)
    target = info.get("target")
    columns = info.get("columns") or list(
        getattr(model, "feature_names_in_", [c for c in header.columns if c != target])
    )
    columns = [str(c) for c in columns]
    twice = _duplicate_columns(header, path, options)
    # a name given to two columns is refused only where the command reads it
    _refuse_duplicate_columns(
        {name: at for name, at in twice.items() if name in columns or name == id_column},
        path,
        "the model reads a column of that name and could take either",
    )
    if id_column is not None and id_column not in header.columns:
        raise UserError(
            f"--id {_shorten(id_column)}: no such column in {path} (columns: "
            f"{_names(header.columns)})"
        )
    missing = [c for c in columns if c not in header.columns]
    if missing:
        raise UserError(
            f"the columns of {path} differ from training: missing "
            f"[{_names(missing, show=_quoted)}] (the model was fitted with "
            f"[{_names(columns, show=_quoted)}])"
        )
    text = [c for c in _categorical_columns(model, columns) if c in header.columns]
    # the id is carried through as written (leading zeros kept); a feature column read
    # as text is turned back into numbers below when the model learned numbers
    dtypes = {c: str for c in text + ([id_column] if id_column is not None else [])}
    frame = _read_csv(path, options, dtype=dtypes)
    if len(frame) == 0:
        raise UserError(f"{path} has a header but no data rows")
    ids = frame[id_column].copy() if id_column is not None else None
    ignored = [str(c) for c in frame.columns if c not in columns]
    frame = frame[columns].copy()
    _refuse_non_dates(frame, _date_columns(model, columns), path, info.get("date_formats"))
    _refuse_text_in_numbers(frame, model, columns, path, _reading(path, options)[2])
    _refuse_infinity(frame, columns, path)
    return ModelInput(_prepare_features(frame), ids, ignored)


def predict(args):
    inputs = [args.model, args.data]
    to_stdout = args.output in (None, "-")
    kind = "through" if to_stdout else _check_output(args.output, inputs=inputs)
    if to_stdout:
        _stdout()
    _set_threads(args)
    model = _load_model(args.model)
    _set_threads(args, model)
    data = _read_model_input(model, args.data, args.id, args)
    _flush_notes()
    X = data.X
    out = X[[]].copy()
    if data.ids is not None:
        out[args.id] = data.ids
    try:
        out["prediction"] = model.predict(X)
        if hasattr(model, "predict_proba"):
            proba = model.predict_proba(X)
            for k, c in enumerate(model.classes_):
                out[f"proba_{c}"] = proba[:, k]
    except ValueError as exc:
        raise UserError(f"cannot predict {args.data} with {args.model}: {exc}") from None
    _write_csv(out, args, "-" if to_stdout else args.output)
    if to_stdout:
        return 0
    # beside the data when the data goes to a device or a pipe (-o /dev/stdout)
    info = sys.stderr if kind == "through" else sys.stdout
    target = _cli_info(model).get("target")
    unused = [c for c in data.ignored if c not in (args.id, target)]
    if unused:
        print(f"columns of {args.data} the model does not use: {_names(unused)}", file=info)
    print(f"{len(out)} predictions written to {args.output}", file=info)
    return 0


def _write_file(path, write, encoding=None):
    """``write(fh)`` into ``path`` atomically (or through, for a device or FIFO), as
    ``encoding`` text; any failure of the write (a full disk, ``/dev/full``) is the user's
    error line."""
    from ._atomic import atomic_write

    try:
        with atomic_write(path, "w", newline="", encoding=encoding) as fh:
            write(fh)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None


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


def explain(args):
    if args.top < 1:
        raise UserError(f"--top must be at least 1, got {args.top}")
    if args.shap and args.data is None:
        raise UserError(
            "--shap needs a DATA.csv whose rows to explain: treeboost explain MODEL DATA.csv --shap"
        )
    if args.id is not None and args.data is None:
        raise UserError(
            "--id names the rows of a DATA.csv: treeboost explain MODEL DATA.csv --shap --id COL"
        )
    if args.output not in (None, "-"):
        _check_output(args.output, inputs=[args.model] + ([args.data] if args.data else []))
    _set_threads(args)
    model = _load_model(args.model)
    _set_threads(args, model)
    if args.data is not None:
        return _explain_rows(model, args)
    return _explain_model(model, args)


def _write_table(table, args, what):
    """``table`` (a DataFrame) as CSV to ``-o`` (``-`` for standard output), and a line
    saying so."""
    _write_csv(table, args, args.output)
    if args.output != "-":
        print(f"{what} written to {args.output}", file=sys.stderr)
    return 0


def _explain_rows(model, args):
    """Each row's largest SHAP values (see :mod:`treeboost._cli_shap`)."""
    from ._cli_shap import shap_lines

    try:
        from .inspection import shap_values
    except ImportError as exc:  # a build without the SHAP module
        raise UserError(f"SHAP values are not available in this treeboost ({exc})") from None
    data = _read_model_input(model, args.data, args.id, args)
    _flush_notes()
    try:
        values, expected = shap_values(model, data.X)
    except (ValueError, TypeError) as exc:
        raise UserError(
            f"cannot compute SHAP values of {args.model} on {args.data}: {exc}"
        ) from None
    names = None
    if data.ids is not None:
        names = [f"{args.id} {v}" for v in data.ids.fillna("(missing)").astype(str)]
    target = _cli_info(model).get("target") or "y"
    if args.output is not None:
        return _write_table(
            _shap_table(model, data, values, expected, target, args),
            args,
            f"SHAP values of {len(data.X)} rows",
        )
    for line in shap_lines(
        model,
        data.X,
        values,
        expected,
        top=args.top,
        row_names=names,
        target=target,
        source=args.data,
    ):
        print(line)
    return 0


def _shap_table(model, data, values, expected, target, args):
    """One row per row of the data: its id (``--id``), the output explained, one column
    of SHAP values per feature, the expected value and the output (their sum)."""
    from ._cli_shap import explained_output

    pd = _pandas()
    shap = explained_output(model, data.X, values, expected, target)
    table = pd.DataFrame(shap.values, columns=[str(c) for c in data.X.columns])
    if data.ids is not None:
        table.insert(0, args.id, data.ids.to_numpy())
    table.insert(1 if data.ids is not None else 0, "explained_output", shap.label)
    table["expected_value"] = shap.expected
    table["output"] = shap.output
    return table


def _raw_score_note(model, index, target):
    """What the leaf values of a boosting tree are: raw scores, not probabilities."""
    import textwrap
    import numpy as np

    init = getattr(model, "init_score_", getattr(model, "_init_raw", None))
    per_iteration = len(model.trees_[0]) if getattr(model, "trees_", None) else 1
    iteration, k = divmod(index, per_iteration)
    total = "the sum"
    if init is not None:
        init = np.ravel(np.asarray(init, dtype=np.float64))
        total = f"the initial score {init[min(k, init.size - 1)]:.6f} plus the sum"
    if not hasattr(model, "classes_"):
        text = (
            f"Tree {index} is iteration {iteration}.  Leaf values are raw scores in the "
            f"target's units, learning rate included: a prediction is {total} of the "
            f"leaf values of every tree."
        )
    elif per_iteration == 1:
        text = (
            f"Tree {index} is iteration {iteration}.  Leaf values are raw scores, "
            f"log-odds of {target} = {model.classes_[-1]}, learning rate included, not "
            f"probabilities: the log-odds of a row are {total} of its leaf values over "
            f"all trees, and its probability is 1 / (1 + exp(-log-odds))."
        )
    else:
        text = (
            f"Tree {index} is iteration {iteration}, class {model.classes_[k]}.  Leaf "
            f"values are raw scores of {target} = {model.classes_[k]}, learning rate "
            f"included, not probabilities: a class's score is {total} of its trees' "
            f"leaf values, and softmax over the classes' scores gives the "
            f"probabilities."
        )
    # a long file or column name is moved whole to the next line, never cut
    return textwrap.fill(
        text,
        width=88,
        initial_indent="  ",
        subsequent_indent="  ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def _explain_model(model, args):
    """One tree's rules, the feature importances and the boosting trace."""
    import numpy as np
    from .inspection.rules import export_rules

    names = list(getattr(model, "feature_names_in_", [])) or None
    if args.output is not None:
        imp = getattr(model, "feature_importances_", None)
        if imp is None:
            raise UserError(f"{args.model} has no feature importances to write")
        names = names or [f"x{i}" for i in range(len(imp))]
        table = _pandas().DataFrame({"feature": names, "importance": imp})
        table = table.sort_values("importance", ascending=False, kind="stable")
        return _write_table(table, args, f"importances of {len(imp)} features")
    trees = _trees_of(model)
    if trees:
        if not 0 <= args.tree < len(trees):
            raise UserError(
                f"--tree {args.tree} is out of range: the model has {_count(len(trees), 'tree')}"
            )
        target = _cli_info(model).get("target")
        print(f"Rules of tree {args.tree} of {len(trees)}:")
        if hasattr(model, "trees_"):
            print(_raw_score_note(model, args.tree, target or "y"))
            k = len(model.trees_[0])
            index = (args.tree // k, args.tree % k)  # (iteration, class)
        else:
            index = args.tree
        # the exporters name a member's features itself (bagging may give it a subset)
        for rule in export_rules(model, target_name=target, tree_index=index):
            print("  " + rule)
    imp = getattr(model, "feature_importances_", None)
    if imp is not None:
        names = names or [f"x{i}" for i in range(len(imp))]
        print("\nFeature importances:")
        for i in np.argsort(imp)[::-1]:
            print(f"  {names[i]:<20} {imp[i]:.4f}")
    if hasattr(model, "train_score_") and len(getattr(model, "train_score_", [])):
        for line in _trace_lines(model):
            print(line)
    return 0


#: Iterations of the boosting trace printed first; the last one follows.
TRACE_HEAD = 5
#: What the losses' metric names mean, for the trace's heading.
_METRICS = {
    "binary_logloss": "log loss",
    "multi_logloss": "log loss",
    "l2/2": "half squared error",
    "l1": "absolute error",
}


def _trace_scale(model):
    """``(factor, name)``: ``train_score_`` is ``factor`` times the loss called ``name``
    (scikit-learn's GradientBoosting scores twice the log loss), or ``(1.0, None)``."""
    import numpy as np

    loss = getattr(model, "_loss", None)
    try:
        loss = loss if loss is not None else model._make_loss()
        scale = float(model._score_scale(loss))
    except Exception:  # a model without these helpers: its scores as they are
        return 1.0, None
    name: Any = getattr(loss, "metric_name", None)
    if not (np.isfinite(scale) and scale > 0):
        return 1.0, None
    return scale, _METRICS.get(name, name)


def _trace_lines(model):
    """The boosting trace: the first :data:`TRACE_HEAD` iterations and the last one, as
    the loss itself (``train_score_`` divided by its factor, said in the heading)."""
    scores = list(model.train_score_)
    val = list(getattr(model, "validation_score_", []))
    # HistGradientBoosting's early-stopping scores start before the first iteration
    first = 0 if len(scores) == getattr(model, "n_estimators_", -1) + 1 else 1
    scale, name = (1.0, None) if first == 0 else _trace_scale(model)
    if first == 0:
        what = "early-stopping score per iteration, 0 = before the first"
    elif name is None:
        what = "train_score_ per iteration"
    elif scale != 1:
        what = f"{name} per iteration: the model's train_score_ divided by {scale:g}"
    else:
        what = f"{name} per iteration (train_score_)"
    yield f"\nBoosting trace ({what}):"
    shown: list[int | None] = list(range(min(TRACE_HEAD, len(scores))))
    if len(scores) > TRACE_HEAD:
        if len(scores) > TRACE_HEAD + 1:
            shown.append(None)
        shown.append(len(scores) - 1)
    for i in shown:
        if i is None:
            yield f"  ... ({len(scores) - TRACE_HEAD - 1} iterations not shown)"
            continue
        v = f"  validation {val[i] / scale:.6f}" if len(val) > i else ""
        yield f"  [{i + first}] training {scores[i] / scale:.6f}{v}"


def _count(n, noun):
    """``1 tree``, ``2 trees``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _trees_of(model):
    """The fitted trees of any treeboost model, in order."""
    if hasattr(model, "tree_"):
        return [model.tree_]
    if hasattr(model, "trees_"):
        return [t for trees in model.trees_ for t in trees]
    return [e.tree_ for e in getattr(model, "estimators_", []) if hasattr(e, "tree_")]


# -- entry point ------------------------------------------------------------------------------
class _HelpFormatter(argparse.HelpFormatter):
    """Each option's default after its help (when it has one: not for flags, required
    options or options that are off unless given)."""

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if not (
            default is None
            or default is False
            or default == argparse.SUPPRESS
            or action.required
            or "%(default)" in text
        ):
            text += " (default: %(default)s)"
        return text


class _MainHelpFormatter(_HelpFormatter, argparse.RawDescriptionHelpFormatter):
    """The examples after the command list keep their lines."""


def _add_reading_options(p):
    """``--sep``, ``--encoding`` and ``--threads``, common to fit, predict and explain."""
    p.add_argument(
        "--sep",
        metavar="CHAR",
        help="the field separator of the CSV files (default: guessed from the "
        "first lines among comma, semicolon, tab and |)",
    )
    p.add_argument(
        "--decimal",
        metavar="CHAR",
        help="the decimal mark of the numbers in the CSV files, e.g. , (default: "
        "detected from the first lines: a comma where cells such as 12,5 or 1.234,5 "
        "read as numbers only so)",
    )
    p.add_argument(
        "--thousands",
        metavar="CHAR",
        help='the character that groups thousands in the numbers, e.g. , in "3,750", '
        ". in 3.750,5 or a space; none for no grouping (default: detected from the "
        "first lines)",
    )
    p.add_argument(
        "--encoding",
        default="utf-8",
        metavar="NAME",
        help="the text encoding of the CSV files read and written, e.g. latin-1",
    )
    p.add_argument(
        "--threads",
        type=int,
        metavar="N",
        help="threads of the engine and jobs of an ensemble (default: all cores)",
    )


def _add_writing_option(p):
    """``--no-escape-formulas``, for the commands that write CSV files."""
    p.add_argument(
        "--no-escape-formulas",
        action="store_true",
        help="write text cells and column names that start with = + - @, a tab, CR or LF "
        "as they are; by default a ' is put before them (numbers such as -1.5 stay "
        "numbers), so that a spreadsheet opening the file runs no formula",
    )


def _parser():
    fmt: dict[str, Any] = {"formatter_class": _HelpFormatter}
    parser = argparse.ArgumentParser(
        prog="treeboost",
        description="Decision trees and tree ensembles: fit a model on a\n"
        "CSV file, predict, explain; or run the demo.",
        epilog="Run `treeboost COMMAND --help` for a command's options.  Example:\n"
        "  treeboost fit train.csv --target Survived -o model.tbm\n"
        "  treeboost predict model.tbm test.csv --id PassengerId -o pred.csv\n"
        "  treeboost explain model.tbm test.csv --shap --top 3",
        formatter_class=_MainHelpFormatter,
    )
    from . import __version__

    parser.add_argument("--version", action="version", version=f"treeboost {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p = sub.add_parser(
        "demo",
        help="a single tree against the ensembles on Titanic",
        description="Cross-validate a single CART tree and every ensemble "
        "on the bundled Titanic data: one table, and three pictures.",
        **fmt,
    )
    p.add_argument(
        "--out",
        default="treeboost-demo",
        metavar="DIR",
        help="folder for the pictures (created if needed)",
    )
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds (>= 2)")
    p.add_argument("--n-estimators", type=int, default=100, metavar="N", help="trees per ensemble")
    p.add_argument("--no-plots", action="store_true", help="print the table only")
    p.set_defaults(func=demo)

    p = sub.add_parser(
        "fit",
        help="fit a model on a CSV file and save it",
        description="Fit a model on a CSV file, print its metrics on a held-out part "
        "(accuracy, ROC AUC, log loss; or R2, MAE, RMSE) and save the model fitted on the "
        "rest (or, with --valid, on that file, fitting on all of DATA.csv).  Text columns "
        "become categorical, dates (2024-03-01, 06/15/2012, 15.06.2012) dates, empty "
        "cells stay missing; rows with an empty target are left out; decimal commas and "
        "thousands separators are detected.  Columns that identify rows (R's rownames "
        "or Unnamed: 0, text or integers counting rows, increasing down the file or named "
        f"as keys, in which no value repeats, at least {MIN_IDENTIFIER_VALUES} values: an "
        "id, a name) are not used as features.  A line on standard error names each of "
        "these decisions, and warns of a score no better than its baseline.  gbdt starts "
        "from "
        "LightGBM-style trees: 31 leaves grown best-first, second-order gain, "
        "min_samples_leaf=20 but at most a tenth of the training rows (so that a small "
        "file is learned from); the other models from their estimator's defaults.  "
        "--param overrides any of them.",
        **fmt,
    )
    p.add_argument("data", metavar="DATA.csv", help="the training data, one row per sample")
    p.add_argument("--target", required=True, metavar="COL", help="the column to predict")
    p.add_argument(
        "--model",
        choices=sorted(MODELS),
        default="gbdt",
        help="gbdt: gradient boosting, rf: random forest, extratrees, bagging, "
        "adaboost, tree: one CART tree",
    )
    p.add_argument(
        "--param",
        action="append",
        metavar="KEY=VALUE",
        help="a parameter of the estimator, e.g. learning_rate=0.05 "
        "(repeatable; values are Python literals)",
    )
    p.add_argument(
        "--drop",
        action="append",
        metavar="COL[,COL]",
        help="columns not to use as features (repeatable)",
    )
    p.add_argument(
        "--keep-ids", action="store_true", help="use the identifier columns as features too"
    )
    p.add_argument(
        "--test-size",
        type=float,
        default=0.2,
        metavar="FRACTION",
        help="fraction of the rows held out for the printed metrics",
    )
    p.add_argument(
        "--task",
        choices=["auto", "classification", "regression"],
        default="auto",
        help=f"auto: classification for text, booleans, two integers or at most "
        f"{MAX_INTEGER_CLASSES} consecutive integers (0..k, 1..k) in the target, else "
        "regression (counts with gaps, amounts, fractions); a note says which and why",
    )
    p.add_argument(
        "--random-state", type=int, default=0, metavar="SEED", help="seed of the hold-out split"
    )
    p.add_argument(
        "--valid",
        metavar="VALID.csv",
        help="score on this file (same columns) instead of holding out a part "
        "of DATA.csv; the model is then fitted on all of DATA.csv",
    )
    p.add_argument(
        "--weight",
        metavar="COL",
        help="a column of sample weights (numbers >= 0), not used as a feature",
    )
    _add_reading_options(p)
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="MODEL",
        help="the model file to write (e.g. model.tbm)",
    )
    p.set_defaults(func=fit)

    p = sub.add_parser(
        "predict",
        help="predict a CSV file with a saved model",
        description="Predict every row of a CSV file: one prediction column and, for "
        "classifiers, one probability column per class.  The file must hold the columns "
        "the model was fitted with; its other columns are ignored.",
        **fmt,
    )
    p.add_argument("model", metavar="MODEL", help="a model file written by fit")
    p.add_argument("data", metavar="DATA.csv", help="the rows to predict")
    p.add_argument(
        "--id",
        metavar="COL",
        help="a column copied into the output, first (to join the predictions back), "
        "e.g. PassengerId: as written in the file, but for the ' before a cell a "
        "spreadsheet would run as a formula (see --no-escape-formulas)",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT.csv",
        help="where to write the predictions; - or none: standard output.  A device "
        "or FIFO (/dev/null) is written in place, a symbolic link's target "
        "is rewritten and the link kept",
    )
    _add_writing_option(p)
    _add_reading_options(p)
    p.set_defaults(func=predict)

    p = sub.add_parser(
        "explain",
        help="rules, importances and trace of a saved model; SHAP values of rows",
        description="Without DATA.csv: the rules of one tree, the feature importances and "
        "the boosting trace.  With DATA.csv (and --shap): for each row, the features with "
        "the largest SHAP values (exact TreeSHAP: the row's output is the expected value "
        "plus the sum of its features' SHAP values).",
        **fmt,
    )
    p.add_argument("model", metavar="MODEL", help="a model file written by fit")
    p.add_argument("data", metavar="DATA.csv", nargs="?", help="rows to explain with SHAP values")
    p.add_argument(
        "--tree",
        type=int,
        default=0,
        metavar="N",
        help="which tree's rules to print (0 = the first)",
    )
    p.add_argument(
        "--shap", action="store_true", help="print each row's SHAP values (implied by DATA.csv)"
    )
    p.add_argument(
        "--top",
        type=int,
        default=5,
        metavar="K",
        help="SHAP values shown per row: the K largest in absolute value",
    )
    p.add_argument("--id", metavar="COL", help="a column of DATA.csv that names each row")
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT.csv",
        help="write a CSV file instead of printing (- for standard output): "
        "with DATA.csv, every feature's SHAP value of every row; without, "
        "the feature importances",
    )
    _add_writing_option(p)
    _add_reading_options(p)
    p.set_defaults(func=explain)

    p = sub.add_parser(
        "compile",
        help="compile the engine's kernels for this machine, once",
        description="Compile the numba kernels of the common fits into treeboost's own "
        "folder, so that a first fit loads them instead of compiling them.  Installing "
        "treeboost from its source does this; run it after installing a wheel built on "
        "another machine, or after an upgrade of numba.  The folder must be writable.",
        **fmt,
    )
    p.add_argument(
        "--jobs", type=int, default=2, metavar="N", help="processes that compile side by side"
    )
    p.set_defaults(func=compile_kernels)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` (default: the process's command line) and return its exit
    status."""
    own_process = argv is None
    parser = _parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        # no command: the help, not a run that writes pictures into the current folder
        parser.print_help()
        return 0
    args = parser.parse_args(argv)
    if own_process and hasattr(sys.stdout, "reconfigure"):
        # a report (rules, SHAP lines) shows what the terminal's encoding cannot as escapes;
        # a CSV file written to standard output is checked before it is written
        sys.stdout.reconfigure(errors="backslashreplace")
    _NOTES.clear()
    _READ_AS.clear()
    try:
        code = args.func(args)
        # a reader that stopped early (`| head -1`) or a full device is found here rather
        # than at exit, where Python would print a traceback
        if sys.stdout is not None:
            _write_stdout(lambda stream: None)
        return code
    except UserError as exc:
        # one line whatever the message quotes (numpy and scikit-learn errors may span
        # several), of a bounded length whatever a library's error quotes
        line = _shorten(" ".join(str(exc).split()), LINE_CHARS)
        print(f"treeboost: error: {line}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return _reader_stopped(die=own_process)


#: The status of a command killed by SIGPIPE, as a shell reports it (128 + 13).
SIGPIPE_STATUS = 141


def _reader_stopped(die: bool) -> int:
    """The reader of our output stopped early (`treeboost explain m.tbm | head -1`): end
    as ``cat`` or ``grep`` do, without a word.  As the process's own command (``die``),
    it is killed by SIGPIPE where the platform has that signal; called from Python, the
    status a shell would report, :data:`SIGPIPE_STATUS`, is returned."""
    # stdout goes to devnull so that Python's final flush cannot print the error again
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # a stdout without a file descriptor
        pass
    import signal

    if die and hasattr(signal, "SIGPIPE") and hasattr(os, "kill"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGPIPE)
    return SIGPIPE_STATUS


if __name__ == "__main__":
    sys.exit(main())
