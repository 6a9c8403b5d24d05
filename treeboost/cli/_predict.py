"""``treeboost predict``: load a model file safely and read the columns it was fitted with
from a CSV file, then write the predictions."""

from __future__ import annotations

import os
import sys
import zipfile
from typing import Any, NamedTuple

from ._columns import _is_numeric, _prepare_features, _refuse_infinity, _row_number
from ._csv import _as_numbers, _duplicate_columns, _read_csv, _reading, _refuse_duplicate_columns
from ._dates import _refuse_non_dates
from ._files import _check_output
from ._messages import (
    UserError,
    _first_unencodable,
    _flush_notes,
    _names,
    _pandas,
    _quoted,
    _shorten,
)
from ._models import _set_threads
from ._writing import _stdout, _write_csv

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
    from sklearn.base import BaseEstimator

    import treeboost

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
