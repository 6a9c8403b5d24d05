"""The container of a model file: a ZIP of ``model.json`` and ``arrays.npz``.

Everything here is checked before it is read: the ZIP entries (names, encryption,
compression, sizes), the JSON document (size, nesting depth) and each array's ``.npy``
header (dtype, shape, size).  Every failure is a ``ValueError`` naming the file and the
part; the numbers are the module-level limits below.
"""
import io
import json
import os
import zipfile
import zlib

import numpy as np

from .._atomic import atomic_write  # the file is replaced, a device or FIFO written through

__all__ = ["MAX_JSON_BYTES", "MAX_JSON_DEPTH", "MAX_EXPANSION", "MIN_ARRAY_BUDGET",
           "atomic_write", "write_container", "read_container"]

#: largest ``model.json`` read (bytes, uncompressed)
MAX_JSON_BYTES = 64 * 2 ** 20
#: deepest nesting of lists / objects in ``model.json`` (a saved model needs about 30)
MAX_JSON_DEPTH = 200
#: the arrays may take at most this many times the size of the file once uncompressed ...
MAX_EXPANSION = 50
#: ... or this many bytes, whichever is larger (a small file may hold a few MB of arrays)
MIN_ARRAY_BUDGET = 64 * 2 ** 20
#: dtypes an array may have: what the kernels and estimators read (no object, string,
#: complex, float16 or structured arrays)
ALLOWED_DTYPES = frozenset(np.dtype(d) for d in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64"))
_ENTRIES = ("model.json", "arrays.npz")


def write_container(path, doc, arrays):
    """Write ``doc`` (JSON-able) and ``arrays`` (name -> ndarray) to ``path`` atomically."""
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    with atomic_write(path) as f:
        with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("model.json", json.dumps(doc))
            zf.writestr("arrays.npz", buf.getvalue())


class _Bad(ValueError):
    pass


def _fail(path, part, why):
    return _Bad(f"{path}: {part}: {why}")


def _check_entry(info, path, part, limit):
    if info.flag_bits & 0x1:
        raise _fail(path, part, "the ZIP entry is encrypted; treeboost does not read "
                                "encrypted model files.")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise _fail(path, part, f"the ZIP entry uses compression method "
                                f"{info.compress_type}; treeboost writes and reads only "
                                f"stored and deflated entries.")
    if info.file_size > limit:
        raise _fail(path, part, f"the entry holds {info.file_size} bytes, more than the "
                                f"{limit} allowed.")


def _read_entry(zf, info, limit):
    # the size in the header may lie: never read more than the limit allows
    with zf.open(info) as f:
        data = f.read(limit + 1)
    if len(data) > limit or len(data) != info.file_size:
        raise ValueError(f"the entry holds {len(data)} bytes, not the {info.file_size} its "
                         f"header says (limit {limit}).")
    return data


def _json_depth(doc):
    """Nesting depth of a parsed JSON document, without recursion."""
    deepest, stack = 0, [(doc, 1)]
    while stack:
        obj, d = stack.pop()
        if isinstance(obj, (list, dict)):
            if d > deepest:
                deepest = d
                if d > MAX_JSON_DEPTH:
                    return d
            stack.extend((v, d + 1) for v in (obj.values() if isinstance(obj, dict) else obj))
    return deepest


def _parse_json(raw, path):
    try:
        text = raw.decode("utf-8")
        # json's C parser raises RecursionError past the interpreter's limit; anything
        # shallower is measured below
        doc = json.loads(text, parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise _fail(path, "model.json", f"not valid JSON ({type(exc).__name__}: "
                                        f"{str(exc)[:200]}).") from None
    depth = _json_depth(doc)
    if depth > MAX_JSON_DEPTH:
        raise _fail(path, "model.json", f"nested deeper than {MAX_JSON_DEPTH} levels.")
    return doc


def _no_constant(name):
    # NaN / Infinity are not JSON; save writes non-finite floats as tagged strings
    raise ValueError(f"{name} is not a JSON value")


def _npy_header(f, name, path):
    """(shape, dtype, fortran_order, header bytes) of a ``.npy`` stream; reads the header
    only."""
    fmt = np.lib.format
    try:
        version = fmt.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = fmt.read_array_header_2_0(f)
        else:
            raise ValueError(f"npy format version {version} is not supported")
    except (ValueError, OSError, EOFError, SyntaxError, TypeError) as exc:
        raise _fail(path, f"arrays.npz/{name}", f"unreadable array header ({exc}).") from None
    return shape, dtype, fortran


def read_container(path, check_arrays=None):
    """Read a model file: the JSON document and the arrays, all checked before reading.

    Parameters
    ----------
    path : str or path-like
    check_arrays : callable or None
        ``check_arrays(doc, headers)`` with ``headers`` mapping each array name to
        ``(shape, dtype)``; called after the JSON is parsed and the array headers are
        read, before any array data is: it raises ``ValueError`` for arrays the document
        does not use or does not expect (dtype, shape).

    Returns
    -------
    doc : dict
    arrays : dict of str -> ndarray
    """
    if os.path.isdir(path):
        raise ValueError(f"{path}: is a directory, not a treeboost model file.")
    try:
        file_size = os.path.getsize(path)
        with zipfile.ZipFile(path) as zf:
            return _read(zf, path, file_size, check_arrays)
    except _Bad as exc:
        raise ValueError(str(exc)) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error,
            NotImplementedError, RuntimeError, KeyError, ValueError, OverflowError,
            MemoryError, UnicodeDecodeError) as exc:
        # whatever the ZIP module or numpy raise on a malformed container
        raise ValueError(f"{path}: not a treeboost model file (the ZIP container: "
                         f"{type(exc).__name__}: {str(exc)[:200]}).") from None


def _read(zf, path, file_size, check_arrays):
    infos = zf.infolist()
    names = [i.filename for i in infos]
    if sorted(names) != sorted(_ENTRIES):
        extra = sorted(set(names) - set(_ENTRIES))
        unexpected = f" (unexpected: {', '.join(extra[:3])})" if extra else ""
        raise _fail(path, "ZIP", f"a model file holds exactly model.json and arrays.npz, "
                                 f"this one {', '.join(names[:5]) or 'nothing'}{unexpected}.")
    info = {i.filename: i for i in infos}
    _check_entry(info["model.json"], path, "model.json", MAX_JSON_BYTES)
    budget = max(MIN_ARRAY_BUDGET, MAX_EXPANSION * file_size)
    _check_entry(info["arrays.npz"], path, "arrays.npz", budget)
    try:
        raw = _read_entry(zf, info["model.json"], MAX_JSON_BYTES)
    except ValueError as exc:
        raise _fail(path, "model.json", str(exc)) from None
    doc = _parse_json(raw, path)
    del raw
    try:
        raw = _read_entry(zf, info["arrays.npz"], budget)
    except ValueError as exc:
        raise _fail(path, "arrays.npz", str(exc)) from None
    return doc, _read_arrays(io.BytesIO(raw), path, doc, check_arrays)


def _read_arrays(buf, path, doc, check_arrays):
    try:
        inner = zipfile.ZipFile(buf)
    except (zipfile.BadZipFile, EOFError, ValueError) as exc:
        raise _fail(path, "arrays.npz", f"not an npz archive ({exc}).") from None
    with inner:
        headers, infos = {}, {}
        for info in inner.infolist():
            name = info.filename
            part = f"arrays.npz/{name}"
            if not name.endswith(".npy") or name[:-4] in headers:
                raise _fail(path, part, "not an array entry (or a duplicate).")
            _check_entry(info, path, part, info.file_size)
            with inner.open(info) as f:
                shape, dtype, fortran = _npy_header(f, name, path)
                offset = f.tell()
            if dtype not in ALLOWED_DTYPES or not dtype.isnative:
                raise _fail(path, part, f"arrays of dtype {dtype.str} are not read (allowed: "
                                        f"native bool, integers, float32 and float64).")
            if not isinstance(shape, tuple) or any(not isinstance(s, int) or s < 0
                                                   for s in shape):
                raise _fail(path, part, f"malformed shape {shape!r}.")
            n_bytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
            if offset + n_bytes != info.file_size:
                raise _fail(path, part, f"the header announces {n_bytes} bytes of data "
                                        f"(shape {shape}, {dtype}), the entry holds "
                                        f"{info.file_size - offset}.")
            headers[name[:-4]] = (shape, dtype)
            infos[name[:-4]] = (info, fortran)
        if check_arrays is not None:
            try:
                check_arrays(doc, headers)
            except ValueError as exc:
                raise _Bad(str(exc)) from None
        arrays = {}
        for key, (info, fortran) in infos.items():
            with inner.open(info) as f:
                try:
                    a = np.lib.format.read_array(f, allow_pickle=False)
                except (ValueError, OSError, EOFError) as exc:
                    raise _fail(path, f"arrays.npz/{info.filename}",
                                f"unreadable array ({exc}).") from None
            if a.shape != headers[key][0] or a.dtype != headers[key][1]:
                raise _fail(path, f"arrays.npz/{info.filename}", "truncated array.")
            # the kernels are compiled for C-contiguous, writeable arrays
            arrays[key] = np.require(a, requirements=["C", "W", "O"])
    return arrays
