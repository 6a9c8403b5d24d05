"""The task a target asks for (:func:`_detect_task`): classification or regression."""

from __future__ import annotations

from ._columns import _is_numeric
from ._csv import NumberFormat, _number_formats, _number_pattern
from ._messages import UserError, _pandas, _quoted, _shorten

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
