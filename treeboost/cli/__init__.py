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

import os
import sys
from typing import TYPE_CHECKING

from ._columns import identifier_columns
from ._csv import _READ_AS
from ._demo import FEATURES, _titanic_features
from ._explain import _trace_lines
from ._messages import _NOTES, LINE_CHARS, UserError, _shorten
from ._parser import _parser
from ._writing import _write_stdout

if TYPE_CHECKING:
    from collections.abc import Sequence

# what the tests, the examples and the docs take from the command's package
__all__ = ["FEATURES", "_parser", "_titanic_features", "_trace_lines", "identifier_columns", "main"]


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
