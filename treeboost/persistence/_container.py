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

__all__ = [
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_EXPANSION",
    "MIN_ARRAY_BUDGET",
    "MIN_JSON_VALUES",
    "MAX_JSON_VALUES_PER_BYTE",
    "atomic_write",
    "write_container",
    "read_container",
]

#: largest ``model.json`` read (bytes, uncompressed)
MAX_JSON_BYTES = 64 * 2**20
#: deepest nesting of lists / objects in ``model.json`` (a saved model needs about 30)
MAX_JSON_DEPTH = 200
#: the arrays may take at most this many times the size of the file once uncompressed ...
MAX_EXPANSION = 50
#: ... or this many bytes, whichever is larger (a small file may hold a few MB of arrays)
MIN_ARRAY_BUDGET = 64 * 2**20
#: most values (objects, arrays, keys and items: a bound counted on the raw text before it
#: is parsed) in ``model.json``: the larger of this and :data:`MAX_JSON_VALUES_PER_BYTE`
#: times the file's size.  A parsed value costs a hundred bytes or so, its text as little
#: as two: without this bound 64 MiB of ``{}`` (65 KB deflated) parse to gigabytes
MIN_JSON_VALUES = 2**20
#: ... values per byte of the file (a saved model has one per 10 bytes of its file or fewer)
MAX_JSON_VALUES_PER_BYTE = 4
#: dtypes an array may have: what the kernels and estimators read (no object, string,
#: complex, float16 or structured arrays)
ALLOWED_DTYPES = frozenset(
    np.dtype(d)
    for d in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float32",
        "float64",
    )
)
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
        raise _fail(
            path, part, "the ZIP entry is encrypted; treeboost does not read encrypted model files."
        )
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise _fail(
            path,
            part,
            f"the ZIP entry uses compression method "
            f"{info.compress_type}; treeboost writes and reads only "
            f"stored and deflated entries.",
        )
    if info.file_size > limit:
        raise _fail(
            path, part, f"the entry holds {info.file_size} bytes, more than the {limit} allowed."
        )


def _read_entry(zf, info, limit):
    # the size in the header may lie: never read more than the limit allows
    with zf.open(info) as f:
        data = f.read(limit + 1)
    if len(data) > limit or len(data) != info.file_size:
        raise ValueError(
            f"the entry holds {len(data)} bytes, not the {info.file_size} its "
            f"header says (limit {limit})."
        )
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


def _json_values(raw):
    """A bound on the number of values of a JSON text, counted without parsing it: every
    value but the first of an object or array follows a comma, every object member has a
    colon, and every object or array opens with a brace or bracket (the same characters
    inside strings only make the bound larger)."""
    return raw.count(b"{") + raw.count(b"[") + raw.count(b",") + raw.count(b":") + 1


def _parse_json(raw, path, max_values):
    n_values = _json_values(raw)
    if n_values > max_values:
        raise _fail(
            path,
            "model.json",
            f"holds about {n_values} values (objects, arrays, "
            f"keys and items), more than the {max_values} "
            f"allowed.",
        )
    try:
        text = raw.decode("utf-8")
        # json's C parser raises RecursionError past the interpreter's limit; anything
        # shallower is measured below
        doc = json.loads(text, parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise _fail(
            path, "model.json", f"not valid JSON ({type(exc).__name__}: {str(exc)[:200]})."
        ) from None
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
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        EOFError,
        zlib.error,
        NotImplementedError,
        RuntimeError,
        KeyError,
        ValueError,
        OverflowError,
        MemoryError,
        UnicodeDecodeError,
    ) as exc:
        # whatever the ZIP module or numpy raise on a malformed container
        raise ValueError(
            f"{path}: not a treeboost model file (the ZIP container: "
            f"{type(exc).__name__}: {str(exc)[:200]})."
        ) from None


def _read(zf, path, file_size, check_arrays):
    infos = zf.infolist()
    names = [i.filename for i in infos]
    if sorted(names) != sorted(_ENTRIES):
        extra = sorted(set(names) - set(_ENTRIES))
        unexpected = f" (unexpected: {', '.join(extra[:3])})" if extra else ""
        raise _fail(
            path,
            "ZIP",
            f"a model file holds exactly model.json and arrays.npz, "
            f"this one {', '.join(names[:5]) or 'nothing'}{unexpected}.",
        )
    info = {i.filename: i for i in infos}
    _check_entry(info["model.json"], path, "model.json", MAX_JSON_BYTES)
    budget = max(MIN_ARRAY_BUDGET, MAX_EXPANSION * file_size)
    _check_entry(info["arrays.npz"], path, "arrays.npz", budget)
    try:
        raw = _read_entry(zf, info["model.json"], MAX_JSON_BYTES)
    except ValueError as exc:
        raise _fail(path, "model.json", str(exc)) from None
    doc = _parse_json(raw, path, max(MIN_JSON_VALUES, MAX_JSON_VALUES_PER_BYTE * file_size))
    del raw
    try:
        raw = _read_entry(zf, info["arrays.npz"], budget)
    except ValueError as exc:
        raise _fail(path, "arrays.npz", str(exc)) from None
    return doc, _read_arrays(raw, path, doc, check_arrays, budget)


#: most bytes of the inner archive's directory per array: the fixed 46 bytes of an entry,
#: its name ("a123456.npy") and numpy's ZIP64 extra field, with room to spare
_DIRECTORY_BYTES_PER_ARRAY = 256


def _inner_directory(raw):
    """``(entries, size)`` of the central directory of the ZIP archive ``raw``, read from
    its end record (and the ZIP64 one) without parsing the directory itself; ``None``
    when there is no end record."""
    # found as the ZIP module finds it: at the very end, else the last signature before
    # a comment
    end = len(raw) - 22
    if end < 0 or raw[end : end + 4] != b"PK\x05\x06" or raw[-2:] != b"\x00\x00":
        end = raw.rfind(b"PK\x05\x06", max(0, len(raw) - 22 - 65535))
    if end < 0 or end + 22 > len(raw):
        return None
    entries = int.from_bytes(raw[end + 10 : end + 12], "little")
    size = int.from_bytes(raw[end + 12 : end + 16], "little")
    locator = end - 20
    if locator >= 0 and raw[locator : locator + 4] == b"PK\x06\x07":
        at = int.from_bytes(raw[locator + 8 : locator + 16], "little")
        if at + 56 <= len(raw) and raw[at : at + 4] == b"PK\x06\x06":
            entries = max(entries, int.from_bytes(raw[at + 32 : at + 40], "little"))
            size = max(size, int.from_bytes(raw[at + 40 : at + 48], "little"))
    return entries, size


def _array_references(doc):
    """How many arrays the document refers to (``{"__array__": name}`` objects)."""
    count, stack = 0, [doc]
    while stack:
        obj = stack.pop()
        if isinstance(obj, dict):
            count += "__array__" in obj
            stack.extend(obj.values())
        elif isinstance(obj, list):
            stack.extend(obj)
    return count


def _read_arrays(raw, path, doc, check_arrays, budget):
    # the inner archive's directory is parsed into one object per entry: bounded by the
    # arrays the document uses before it is parsed (with room for a few unused entries,
    # which the check of the headers names)
    n_refs = _array_references(doc)
    most = 2 * n_refs + 16
    directory = _inner_directory(raw)
    if directory is None:
        raise _fail(path, "arrays.npz", "not an npz archive (no end of its directory).")
    if directory[0] > most or directory[1] > _DIRECTORY_BYTES_PER_ARRAY * most:
        raise _fail(
            path,
            "arrays.npz",
            f"a directory of {directory[0]} entries "
            f"({directory[1]} bytes) for the {n_refs} arrays "
            f"the model uses.",
        )
    try:
        inner = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, EOFError, ValueError) as exc:
        raise _fail(path, "arrays.npz", f"not an npz archive ({exc}).") from None
    with inner:
        headers, infos = {}, {}
        # the arrays' entries may be deflated too: their sizes once inflated count against
        # the file's budget before any of them is read
        total = 0
        for info in inner.infolist():
            name = info.filename
            part = f"arrays.npz/{name}"
            if not name.endswith(".npy") or name[:-4] in headers:
                raise _fail(path, part, "not an array entry (or a duplicate).")
            total += info.file_size
            if total > budget:
                raise _fail(
                    path,
                    part,
                    f"the arrays hold more than the {budget} bytes "
                    f"allowed (the entries declare {total} bytes so "
                    f"far).",
                )
            _check_entry(info, path, part, budget)
            with inner.open(info) as f:
                shape, dtype, fortran = _npy_header(f, name, path)
                offset = f.tell()
            if dtype not in ALLOWED_DTYPES or not dtype.isnative:
                raise _fail(
                    path,
                    part,
                    f"arrays of dtype {dtype.str} are not read (allowed: "
                    f"native bool, integers, float32 and float64).",
                )
            if not isinstance(shape, tuple) or any(not isinstance(s, int) or s < 0 for s in shape):
                raise _fail(path, part, f"malformed shape {shape!r}.")
            n_bytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
            if offset + n_bytes != info.file_size:
                raise _fail(
                    path,
                    part,
                    f"the header announces {n_bytes} bytes of data "
                    f"(shape {shape}, {dtype}), the entry holds "
                    f"{info.file_size - offset}.",
                )
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
                    raise _fail(
                        path, f"arrays.npz/{info.filename}", f"unreadable array ({exc})."
                    ) from None
            if a.shape != headers[key][0] or a.dtype != headers[key][1]:
                raise _fail(path, f"arrays.npz/{info.filename}", "truncated array.")
            # the kernels are compiled for C-contiguous, writeable arrays
            arrays[key] = np.require(a, requirements=["C", "W", "O"])
    return arrays
