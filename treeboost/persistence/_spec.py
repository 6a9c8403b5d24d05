"""Declarative load-time checks: a class states, for each attribute a model file sets,
its type, dtype, shape and bounds (an :class:`AttrSpec`), and :func:`check_state` checks
them all, in the order given, with the messages of :mod:`._checks` (each names the
part and the attribute).  What a spec cannot say (a tree's children after their
parent, edges in increasing order) stays in the class's ``_validate_state``.

A shape entry or a bound is a number, None (any) or the name of a size: one the caller
passes (the owner's ``n_features``) or one an attribute checked before it sets (an
integer attribute its value, an array its first length), so that ``("children_left",
"n_outputs")`` reads "one row per node, one column per output".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._checks import check_array, check_int, check_labels, check_real

__all__ = [
    "AttrSpec",
    "array",
    "integer",
    "real",
    "labels",
    "list_of",
    "check_state",
    "layout_spec",
]


@dataclass(frozen=True)
class AttrSpec:
    """The rule of one attribute.

    ``kind`` is ``"array"`` (a numpy array of exactly ``dtype``, with ``shape`` or
    ``ndim``, ``finite`` unless ``nan_ok`` / ``posinf_ok``, elements within ``[low,
    high]``), ``"int"`` or ``"real"`` (a number within the bounds, open with
    ``low_open`` / ``high_open``) or ``"labels"`` (a 1-dimensional array of at least
    ``low`` labels) or ``"list"`` (a list of ``shape[0]`` elements, each checked
    against ``items``, else the error ``message`` with ``{length}``).  ``optional``:
    checked only when present; ``none_ok``: None passes; ``words``: these strings pass
    too (``max_bins="auto"``)."""

    kind: str
    dtype: Any = None
    shape: tuple[Any, ...] | None = None
    ndim: int | None = None
    finite: bool = False
    low: Any = None
    high: Any = None
    nan_ok: bool = False
    posinf_ok: bool = False
    low_open: bool = False
    high_open: bool = False
    optional: bool = False
    none_ok: bool = False
    items: AttrSpec | None = None
    message: str | None = None
    words: tuple[str, ...] = ()


def array(dtype, shape=None, **rules):
    """The spec of an array attribute (see :class:`AttrSpec`)."""
    return AttrSpec("array", dtype, shape, **rules)


def integer(low=None, high=None, **rules):
    """The spec of an integer attribute within ``[low, high]``."""
    return AttrSpec("int", low=low, high=high, **rules)


def real(low=None, high=None, finite=True, **rules):
    """The spec of a real attribute (finite unless ``finite=False``)."""
    return AttrSpec("real", low=low, high=high, finite=finite, **rules)


def labels(at_least=0, **rules):
    """The spec of a 1-dimensional array of labels (strings, numbers, None)."""
    return AttrSpec("labels", low=at_least, **rules)


def list_of(items, length=None, message="must be a list of {length} entries.", **rules):
    """The spec of a list of ``length`` elements (a number or a size's name), each
    checked against the spec ``items``; ``message`` (with ``{length}``) when it is not
    such a list."""
    return AttrSpec("list", shape=(length,), items=items, message=message, **rules)


def _check_value(rule, value, where, sizes):
    low, high = (sizes.get(b) if isinstance(b, str) else b for b in (rule.low, rule.high))
    if rule.kind == "array":
        shape = (
            None
            if rule.shape is None
            else tuple(sizes.get(s) if isinstance(s, str) else s for s in rule.shape)
        )
        return check_array(
            value,
            where,
            rule.dtype,
            shape,
            rule.ndim,
            rule.finite,
            low,
            high,
            rule.nan_ok,
            rule.posinf_ok,
        )
    if rule.kind == "int":
        return check_int(value, where, low, high)
    if rule.kind == "real":
        return check_real(value, where, low, high, rule.finite, rule.low_open, rule.high_open)
    if rule.kind == "labels":
        return check_labels(value, where, low or 0)
    if rule.kind == "list":
        n = rule.shape[0]
        n = sizes.get(n) if isinstance(n, str) else n
        if not isinstance(value, list) or (n is not None and len(value) != n):
            raise ValueError(f"{where}: {rule.message.format(length=n)}")
        for i, v in enumerate(value):
            if not (v is None and rule.items.none_ok):
                _check_value(rule.items, v, f"{where}[{i}]", sizes)
        return value
    raise TypeError(f"unknown attribute kind {rule.kind!r}")


def check_state(obj, where, spec, sizes=None, missing=None):
    """Check the attributes of ``obj`` against ``spec``.

    Parameters
    ----------
    obj : object
    where : str
        Where ``obj`` sits in the model, for messages (``where.attribute``).
    spec : dict of str to AttrSpec
        Checked in its order.
    sizes : dict of str to int or None, optional
        Sizes the caller knows (None: any); each checked integer and array adds its own
        under its name.
    missing : str or None
        The message of a missing attribute, ``"{where}: {missing} (no {name})."``;
        by default "incomplete <class name>".

    Returns
    -------
    dict
        The checked values by name (None for an absent optional attribute).

    Raises
    ------
    ValueError
        Naming ``where`` and the attribute.
    """
    state = vars(obj)
    sizes = dict(sizes or {})
    out: dict[str, Any] = {}
    for name, rule in spec.items():
        if name not in state:
            if rule.optional:
                out[name] = None
                continue
            raise ValueError(
                f"{where}: {missing or f'incomplete {type(obj).__name__}'} (no {name})."
            )
        value = state[name]
        if (value is None and rule.none_ok) or (isinstance(value, str) and value in rule.words):
            out[name] = value
            continue
        value = _check_value(rule, value, f"{where}.{name}", sizes)
        if rule.kind == "int":
            sizes.setdefault(name, value)
        elif rule.kind == "array" and value.ndim:
            sizes.setdefault(name, value.shape[0])
        out[name] = value
    return out


def layout_spec(layout, sizes=None, rules=None):
    """The specs of the arrays of a ``_persist_arrays`` layout (name: ``(dtype,
    shape)``, the layout the file reader checks headers against): a named size is
    renamed by ``sizes`` (``{"n_nodes": "children_left"}``), a tuple entry (one of
    several lengths) matches any length; ``rules`` adds bounds by name."""
    sizes, rules = sizes or {}, rules or {}
    return {
        name: array(
            dtype,
            tuple(None if isinstance(s, tuple) else sizes.get(s, s) for s in shape),
            **rules.get(name, {}),
        )
        for name, (dtype, shape) in layout.items()
    }
