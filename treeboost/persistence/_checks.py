"""Small checks the persistable classes build their ``_validate_state`` from.

Every function raises ``ValueError`` naming ``where`` (the part of the model, e.g.
``model.estimators_[3].tree_``), the attribute and the offending value, and returns the
checked value so that checks read as assignments.
"""

from __future__ import annotations

import numbers
from collections.abc import Collection, Iterable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import DTypeLike

_T = TypeVar("_T")

__all__ = [
    "check_array",
    "check_int",
    "check_real",
    "check_instance",
    "check_labels",
    "check_attributes",
    "is_int",
    "is_real",
    "labels_ok",
    "is_hashable",
    "fitted_attributes",
    "check_classes",
    "check_fitted",
]


def is_int(v: object) -> bool:
    """Whether ``v`` is an integer (Python or numpy), booleans excluded."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def is_real(v: object) -> bool:
    """Whether ``v`` is a real number (Python or numpy), booleans excluded."""
    return isinstance(v, (numbers.Real, np.integer, np.floating)) and not isinstance(
        v, (bool, np.bool_)
    )


def is_hashable(v: object) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def labels_ok(values: Iterable[Any]) -> bool:
    """Whether every element is a label (str, number, numpy scalar or None)."""
    items = values.ravel().tolist() if isinstance(values, np.ndarray) else list(values)
    return all(v is None or isinstance(v, (str, int, float, np.generic)) for v in items)


def _describe(a: object) -> str:
    if isinstance(a, np.ndarray):
        return f"an array of dtype {a.dtype} and shape {a.shape}"
    return f"{type(a).__name__} {a!r:.60}"


def check_array(
    a: Any,
    where: str,
    dtype: DTypeLike | tuple[DTypeLike, ...],
    shape: tuple[int | None, ...] | None = None,
    ndim: int | None = None,
    finite: bool = False,
    low: float | None = None,
    high: float | None = None,
    nan_ok: bool = False,
    posinf_ok: bool = False,
) -> np.ndarray[Any, Any]:
    """``a`` must be a numpy array of exactly ``dtype`` (one dtype or a tuple of them).

    Parameters
    ----------
    a : object
    where : str
        ``part.attribute`` for the message.
    dtype : dtype-like or tuple of dtype-like
        The dtypes the kernels are compiled for: an int64 where an int32 is read would
        compile a new specialisation at predict, a float16 or an object would not compile.
    shape : tuple or None
        Expected shape; ``None`` entries match any length.
    ndim : int or None
    finite : bool
        Refuse NaN and infinities (``nan_ok`` / ``posinf_ok`` let those through).
    low, high : number or None
        Inclusive bounds of every (non-NaN) element.
    """
    dtypes = tuple(np.dtype(d) for d in (dtype if isinstance(dtype, tuple) else (dtype,)))
    if not isinstance(a, np.ndarray) or a.dtype not in dtypes:
        raise ValueError(
            f"{where}: must be an array of dtype "
            f"{' or '.join(str(d) for d in dtypes)}, got {_describe(a)}."
        )
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{where}: must have {ndim} dimension(s), got shape {a.shape}.")
    if shape is not None and (
        a.ndim != len(shape) or any(s is not None and s != n for s, n in zip(shape, a.shape))
    ):
        want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
        raise ValueError(f"{where}: must have shape {want}, got {a.shape}.")
    if finite and a.dtype.kind == "f" and a.size:
        bad = ~np.isfinite(a)
        if nan_ok:
            bad &= ~np.isnan(a)
        if posinf_ok:
            bad &= ~np.isposinf(a)
        if bad.any():
            i = np.unravel_index(int(np.argmax(bad)), a.shape)
            raise ValueError(
                f"{where}: must be finite, got {a[i]!r} at index "
                f"{tuple(int(j) for j in i) if a.ndim > 1 else int(i[0])}."
            )
    if (low is not None or high is not None) and a.size:
        vals = a[~np.isnan(a)] if a.dtype.kind == "f" else a
        if vals.size and low is not None and vals.min() < low:
            raise ValueError(f"{where}: values must be >= {low}, got {vals.min()!r}.")
        if vals.size and high is not None and vals.max() > high:
            raise ValueError(f"{where}: values must be <= {high}, got {vals.max()!r}.")
    return a


def check_int(v: Any, where: str, low: int | None = None, high: int | None = None) -> int:
    """``v`` must be an integer in ``[low, high]``; returns it as a Python int."""
    if not is_int(v):
        raise ValueError(f"{where}: must be an integer, got {_describe(v)}.")
    v = int(v)
    if (low is not None and v < low) or (high is not None and v > high):
        raise ValueError(
            f"{where}: must be in [{'-inf' if low is None else low}, "
            f"{'inf' if high is None else high}], got {v}."
        )
    return v


def check_real(
    v: Any,
    where: str,
    low: float | None = None,
    high: float | None = None,
    finite: bool = True,
    low_open: bool = False,
    high_open: bool = False,
) -> Any:
    """``v`` must be a real number (finite unless ``finite=False``) within the bounds."""
    if not is_real(v) or (finite and not np.isfinite(v)) or np.isnan(v):
        raise ValueError(
            f"{where}: must be a {'finite ' if finite else ''}number, got {_describe(v)}."
        )
    if (
        low is not None
        and (v < low or (low_open and v == low))
        or high is not None
        and (v > high or (high_open and v == high))
    ):
        lo = ("(" if low_open else "[") + ("-inf" if low is None else str(low))
        hi = ("inf" if high is None else str(high)) + (")" if high_open else "]")
        raise ValueError(f"{where}: must be in {lo}, {hi}, got {v!r}.")
    return v


def check_instance(v: _T, cls: type | tuple[type, ...], where: str) -> _T:
    """``v`` must be exactly of ``cls`` (or of one of a tuple of classes): subclasses of a
    part are not parts of a model."""
    classes = cls if isinstance(cls, tuple) else (cls,)
    if type(v) not in classes:
        raise ValueError(
            f"{where}: must be a {' or '.join(c.__name__ for c in classes)}, "
            f"got {type(v).__name__}."
        )
    return v


def check_labels(values: Any, where: str, at_least: int = 0) -> np.ndarray[Any, Any]:
    """A 1-dimensional array of labels (strings, numbers, None)."""
    if (
        not isinstance(values, np.ndarray)
        or values.ndim != 1
        or values.dtype.kind not in "biufUO"
        or values.size < at_least
        or not labels_ok(values)
    ):
        raise ValueError(
            f"{where}: must be a 1-dimensional array of at least {at_least} "
            f"label(s) (strings or numbers), got {_describe(values)}."
        )
    return values


def check_attributes(
    obj: object,
    where: str,
    required: Collection[str] = (),
    allowed: Collection[str] | None = None,
) -> None:
    """``obj`` has every attribute of ``required`` and, when ``allowed`` is given, no
    other."""
    state = vars(obj)
    missing = [k for k in required if k not in state]
    if missing:
        raise ValueError(f"{where}: incomplete {type(obj).__name__} (no {', '.join(missing)}).")
    if allowed is not None:
        extra = sorted(set(state) - set(allowed) - set(required))
        if extra:
            raise ValueError(f"{where}: a {type(obj).__name__} has no attribute {extra[0]!r}.")


def fitted_attributes(obj: object) -> set[str]:
    """The names of ``obj``'s fitted attributes that are present (trailing underscore)."""
    return {k for k in vars(obj) if k.endswith("_") and not k.startswith("__")}


def check_classes(est: object, where: str, at_least: int = 1) -> int:
    """``classes_`` (sorted distinct labels: predictions index it, members' labels are
    mapped into it with searchsorted) and ``n_classes_``; returns the number of classes."""
    state = vars(est)
    classes = check_labels(state.get("classes_"), f"{where}.classes_", at_least)
    try:
        ordered = bool(np.all(classes[1:] > classes[:-1]))
    except TypeError:
        ordered = False
    if not ordered:
        raise ValueError(f"{where}.classes_: the labels must be sorted and distinct.")
    n = state.get("n_classes_")
    if not is_int(n) or n != classes.size:
        raise ValueError(
            f"{where}.n_classes_: must be the number of classes_ ({classes.size}), got {n!r:.40}."
        )
    return classes.size


def check_fitted(est: object, where: str, required: Collection[str]) -> bool:
    """A fitted estimator has all of ``required``; an unfitted one none of its fitted
    attributes (a half-fitted model would fail in the middle of predict)."""
    state = vars(est)
    present = [k for k in required if k in state]
    if present and len(present) != len(required):
        missing = [k for k in required if k not in state]
        raise ValueError(f"{where}: a fitted model without {', '.join(missing)}.")
    return bool(present)
