"""JSON with type tags for the structure of a model, arrays referenced by name.

The decoder builds only data (numbers, strings, lists, dicts, numpy arrays and scalars)
and instances of registered classes, filled with their saved attributes; it never calls
anything the file names.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ._container import ALLOWED_DTYPES
from ._registry import class_name, lookup, persisted_attributes, transient_attributes
from ._walk import json_objects

_SCALAR_KINDS = "biuf"
_FLOAT_NAMES = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}


class Encoder:
    """Turn a model into a JSON-able document; its arrays are collected in ``arrays``."""

    def __init__(self):
        self.arrays = {}
        self.objects = {}  # id -> reference number: shared parts stay shared
        self.open = set()  # ids of the objects whose state is being encoded

    def array(self, a):
        key = f"a{len(self.arrays)}"
        self.arrays[key] = a
        return {"__array__": key}

    def __call__(self, obj, where="model"):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, (int, float)) and not isinstance(obj, bool):
            if isinstance(obj, float) and not np.isfinite(obj):
                return {"__float__": repr(obj)}
            return obj
        if isinstance(obj, np.generic):
            return {"__scalar__": obj.dtype.str, "v": self(obj.item(), where)}
        if isinstance(obj, np.dtype) or (isinstance(obj, type) and issubclass(obj, np.generic)):
            return {"__dtype__": np.dtype(obj).str}
        if isinstance(obj, np.ndarray):
            if obj.dtype.newbyteorder("=") in ALLOWED_DTYPES:
                return self.array(np.ascontiguousarray(obj, obj.dtype.newbyteorder("=")))
            if obj.dtype.kind in "UO":
                return {
                    "__objarray__": [self(v, where) for v in obj.ravel().tolist()],
                    "shape": list(obj.shape),
                    "dtype": obj.dtype.str,
                }
            raise TypeError(f"{where}: arrays of dtype {obj.dtype} cannot be saved.")
        if isinstance(obj, tuple):
            return {"__tuple__": [self(v, where) for v in obj]}
        if isinstance(obj, (set, frozenset)):
            # (interaction_cst's sets of feature indices), in a stable order
            return {"__set__": [self(v, where) for v in sorted(obj, key=repr)]}
        if isinstance(obj, list):
            return [self(v, f"{where}[{i}]") for i, v in enumerate(obj)]
        if isinstance(obj, dict):
            if not all(isinstance(k, str) for k in obj):
                return {"__items__": [[self(k, where), self(v, where)] for k, v in obj.items()]}
            return {"__dict__": {k: self(v, f"{where}.{k}") for k, v in obj.items()}}
        if isinstance(obj, np.random.RandomState):
            return {"__randomstate__": self(obj.get_state(), where)}
        if id(obj) in self.objects:
            if id(obj) in self.open:
                # the loader refuses a cycle: refuse to write one
                raise TypeError(
                    f"{where}: a {type(obj).__qualname__} that holds itself or its owner "
                    f"(a cycle) cannot be saved in the safe format."
                )
            return {"__ref__": self.objects[id(obj)]}
        cls = type(obj)
        name = class_name(cls)
        if lookup(name) is not cls:
            raise TypeError(
                f"{where}: a {name} cannot be saved in the safe format (only treeboost's own "
                f"classes can); use pickle or joblib for this model."
            )
        ref = len(self.objects)
        self.objects[id(obj)] = ref
        allowed, skip = persisted_attributes(cls), transient_attributes(cls)
        state = {}
        self.open.add(id(obj))
        for k, v in vars(obj).items():
            if k in skip:
                continue
            if k not in allowed:
                # an attribute the class does not declare would not load: say so now
                raise TypeError(
                    f"{where}.{k}: {cls.__qualname__} does not save an "
                    f"attribute {k!r} (not in its _persist_attributes); the "
                    f"model cannot be saved in the safe format."
                )
            state[k] = self(v, f"{where}.{k}")
        self.open.discard(id(obj))
        return {"__object__": name, "ref": ref, "state": state}


def _check_state_key(cls, key, allowed):
    """Refuse a stored attribute the class does not save, or one that would shadow a
    method or property (``predict``, ``_route`` ...) of the class."""
    if not isinstance(key, str) or key not in allowed:
        raise ValueError(
            f"{cls.__qualname__} has no saved attribute {key!r}; treeboost does not load it."
        )
    attr = inspect.getattr_static(cls, key, None)
    if attr is not None and hasattr(type(attr), "__get__"):
        raise ValueError(
            f"the model file gives {cls.__qualname__} an attribute {key!r} "
            f"that would replace its method or property of that name."
        )


class Decoder:
    """Rebuild a model from the document and its arrays; records every instance built."""

    def __init__(self, arrays):
        self.arrays = arrays
        self.objects = {}
        self.instances = []
        # the references of the objects whose state is being decoded: the objects that
        # hold the entry being decoded (a reference to one of them is a cycle)
        self.open = set()

    def __call__(self, obj, where="model"):
        if isinstance(obj, list):
            return [self(v, where) for v in obj]
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, (int, float)):
            return obj
        if not isinstance(obj, dict) or len(obj) == 0:
            raise ValueError(f"{where}: unrecognised entry in the model file.")
        tag = next(iter(obj))
        if tag == "__array__":
            key = obj["__array__"]
            if not isinstance(key, str) or key not in self.arrays:
                raise ValueError(f"{where}: refers to a missing array {key!r}.")
            return self.arrays[key]
        if tag == "__float__":
            v = obj["__float__"]
            if v not in _FLOAT_NAMES:
                raise ValueError(f"{where}: malformed float {v!r:.40}.")
            return _FLOAT_NAMES[v]
        if tag == "__scalar__":
            dtype = _dtype(obj["__scalar__"], where, _SCALAR_KINDS)
            value = self(obj.get("v"), where)
            if not isinstance(value, (bool, int, float)):
                raise ValueError(f"{where}: a numpy scalar must hold a number.")
            return dtype.type(value)
        if tag == "__dtype__":
            return _dtype(obj["__dtype__"], where, "biuf")
        if tag == "__objarray__":
            return self._objarray(obj, where)
        if tag == "__tuple__":
            return tuple(self(v, where) for v in _list(obj["__tuple__"], where))
        if tag == "__set__":
            items = [self(v, where) for v in _list(obj["__set__"], where)]
            if not all(isinstance(v, (bool, int, float, str, np.generic)) for v in items):
                raise ValueError(f"{where}: a set must hold labels.")
            return set(items)
        if tag == "__items__":
            out = {}
            for kv in _list(obj["__items__"], where):
                if not isinstance(kv, list) or len(kv) != 2:
                    raise ValueError(f"{where}: malformed mapping.")
                k = self(kv[0], where)
                if isinstance(k, (list, dict, np.ndarray)):
                    raise ValueError(f"{where}: a mapping key must be a label.")
                out[k] = self(kv[1], f"{where}[{k!r:.20}]")
            return out
        if tag == "__dict__":
            d = obj["__dict__"]
            if not isinstance(d, dict):
                raise ValueError(f"{where}: malformed mapping.")
            return {k: self(v, f"{where}.{k}") for k, v in d.items()}
        if tag == "__randomstate__":
            rs = np.random.RandomState()
            try:
                rs.set_state(self(obj["__randomstate__"], where))
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{where}: malformed random state ({exc}).") from None
            return rs
        if tag == "__ref__":
            ref = obj["__ref__"]
            if not isinstance(ref, int) or isinstance(ref, bool) or ref not in self.objects:
                raise ValueError(f"{where}: refers to an unknown object {ref!r:.40}.")
            if ref in self.open:
                # a part shared by several owners is saved once and referred to after;
                # a part that holds itself, or its owner, is a cycle: its methods
                # would recurse without end (an init_ predicting with its booster)
                raise ValueError(
                    f"{where}: refers to object {ref}, which holds it (a part of a model "
                    f"cannot hold itself or its owner)."
                )
            return self.objects[ref]
        if tag == "__object__":
            return self._object(obj, where)
        raise ValueError(f"{where}: unrecognised entry in the model file ({tag!r:.40}).")

    def _objarray(self, obj, where):
        values = [self(v, where) for v in _list(obj["__objarray__"], where)]
        if not all(v is None or isinstance(v, (str, int, float, np.generic)) for v in values):
            raise ValueError(f"{where}: an array of labels holds something else.")
        shape = obj.get("shape")
        if (
            not isinstance(shape, list)
            or not all(isinstance(s, int) and s >= 0 for s in shape)
            or int(np.prod(shape, dtype=object)) != len(values)
        ):
            raise ValueError(f"{where}: malformed shape of an array of labels.")
        dtype = _dtype(obj.get("dtype"), where, "UO")
        if dtype.kind == "U":
            # a string dtype wider than its longest label would only waste memory (a
            # crafted '<U999999999' allocates gigabytes)
            longest = max((len(v) for v in values if isinstance(v, str)), default=0)
            if dtype.itemsize // 4 > max(longest, 1) or not all(isinstance(v, str) for v in values):
                raise ValueError(f"{where}: string dtype {dtype.str} does not fit its labels.")
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out.astype(dtype).reshape(shape)

    def _object(self, obj, where):
        name = obj["__object__"]
        # Any: a type checker reads ``cls.__new__`` below as the metaclass's
        cls: Any = lookup(name)
        if cls is None:
            raise ValueError(
                f"{where}: the model file names a class that treeboost does not load: {name!r:.80}."
            )
        state = obj.get("state")
        ref = obj.get("ref")
        if not isinstance(state, dict) or not isinstance(ref, int) or ref in self.objects:
            raise ValueError(
                f"{where}: an object of {name!r} without a state or with a reused reference."
            )
        allowed = persisted_attributes(cls)
        for k in state:
            try:
                _check_state_key(cls, k, allowed)
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from None
        inst = cls.__new__(cls)
        self.objects[ref] = inst  # registered first: later parts may share it
        self.instances.append((inst, where))
        self.open.add(ref)
        inst.__dict__.update({k: self(v, f"{where}.{k}") for k, v in state.items()})
        self.open.discard(ref)
        return inst


def _list(v, where):
    if not isinstance(v, list):
        raise ValueError(f"{where}: malformed entry (a list was expected).")
    return v


def _dtype(s, where, kinds):
    try:
        dtype = np.dtype(s) if isinstance(s, str) else None
    except (TypeError, ValueError):
        dtype = None
    if (
        dtype is None
        or dtype.kind not in kinds
        or dtype.fields is not None
        or dtype.subdtype is not None
        or (dtype.kind == "f" and dtype.itemsize < 4)
    ):
        raise ValueError(f"{where}: dtype {s!r:.40} is not allowed here.")
    return dtype


def array_references(doc):
    """Every array name the document refers to, and each registered object's state."""
    refs, objects = set(), []
    for obj in json_objects(doc):
        if "__array__" in obj and isinstance(obj["__array__"], str):
            refs.add(obj["__array__"])
        if "__object__" in obj and isinstance(obj.get("state"), dict):
            objects.append((obj["__object__"], obj["state"]))
    return refs, objects


def check_array_headers(doc, headers):
    """Refuse, before any array is read, an array the document does not use, and the
    arrays of a class that declares their layout (``_persist_arrays``: dtype and shape of
    each, with named dimensions shared between arrays) when their headers disagree."""
    refs, objects = array_references(doc)
    unused = sorted(set(headers) - refs)
    if unused:
        raise ValueError(
            f"arrays.npz/{unused[0]}.npy: an array the model does not use ({len(unused)} such)."
        )
    missing = sorted(refs - set(headers))
    if missing:
        raise ValueError(f"model.json: refers to a missing array {missing[0]!r}.")
    for name, state in objects:
        cls = lookup(name)
        layout = getattr(cls, "_persist_arrays", None)
        if cls is None or not layout:
            continue
        sizes = {k: v for k, v in state.items() if isinstance(v, int) and not isinstance(v, bool)}
        for attr, (dtype, shape) in layout.items():
            ref = state.get(attr)
            if not isinstance(ref, dict) or set(ref) != {"__array__"}:
                continue  # not an array: the class's own check refuses it
            got_shape, got_dtype = headers[ref["__array__"]]
            part = f"arrays.npz/{ref['__array__']}.npy ({cls.__qualname__}.{attr})"
            if got_dtype != np.dtype(dtype):
                raise ValueError(f"{part}: must have dtype {np.dtype(dtype)}, got {got_dtype}.")
            if len(got_shape) != len(shape):
                raise ValueError(
                    f"{part}: must have {len(shape)} dimension(s), got shape {got_shape}."
                )
            for dim, (want, got) in enumerate(zip(shape, got_shape)):
                options = want if isinstance(want, tuple) else (want,)
                ok = False
                for w in options:
                    if isinstance(w, int):
                        ok = ok or got == w
                    elif w not in sizes:
                        sizes[w] = got
                        ok = True
                    else:
                        ok = ok or got == sizes[w]
                if not ok:
                    expect = " or ".join(str(sizes.get(w, w)) for w in options)
                    what = "rows" if dim == 0 else "columns" if dim == 1 else "entries"
                    raise ValueError(
                        f"{part}: has {got} {what}, the {cls.__qualname__} needs {expect}."
                    )
