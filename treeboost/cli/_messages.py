"""What the command says: one error line for a user's mistake (:class:`UserError`), notes on
the decisions it took on the data, warnings, and the text it quotes from the user's files
shortened and escaped."""

from __future__ import annotations

import sys


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
