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

from ._walk import json_objects
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
        with open(path, "rb") as f:
            file_size = os.fstat(f.fileno()).st_size
            _check_directory(f, path, "ZIP", _MOST_FILE_ENTRIES)
            with zipfile.ZipFile(f) as zf:
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


#: most bytes of an archive's directory per entry: the fixed 46 bytes of an entry, its
#: name ("a123456.npy", "model.json") and a ZIP64 extra field, with room to spare
_DIRECTORY_BYTES_PER_ENTRY = 256
#: most entries of a model file's own directory: its two, and a few that the check of the
#: names reports by name
_MOST_FILE_ENTRIES = 16

_EOCD, _LOCATOR, _ZIP64_END = b"PK\x05\x06", b"PK\x06\x07", b"PK\x06\x06"
#: sizes of the end of central directory record, the ZIP64 locator and the ZIP64 end
#: record (without extensible data), and of a directory entry without its name
_EOCD_SIZE, _LOCATOR_SIZE, _ZIP64_END_SIZE, _ENTRY_SIZE = 22, 20, 56, 46
_MAX_COMMENT = 0xFFFF


def _u(data, at, n):
    return int.from_bytes(data[at : at + n], "little")


def _end_records(f):
    """``(entries, size, offset, location)`` of the directory of the archive in the
    seekable binary file ``f`` as Python's zipfile reads them (``zipfile._EndRecData``),
    or None when it has no end record; raises ``ValueError`` (a plain one) where the end
    records disagree with each other or with where the directory lies.

    zipfile takes the end record at the very end of the file when its comment is empty,
    else the last signature within a comment's reach, and the ZIP64 end record from just
    before the ZIP64 locator, wherever the locator's offset points; it builds one entry
    per directory entry until it has read the size the records give (the entry counts
    are never used).  A file written by :func:`write_container` (or numpy's ``savez``)
    has no comment, no prefix, and ZIP64 records only past 65,535 entries or 4 GiB,
    their fields saturated in the 16/32-bit record.
    """
    f.seek(0, 2)
    file_size = f.tell()
    reach = _EOCD_SIZE + _MAX_COMMENT + 1 + _LOCATOR_SIZE + _ZIP64_END_SIZE
    base = max(0, file_size - reach)
    f.seek(base)
    tail = f.read()
    end = len(tail) - _EOCD_SIZE
    if not (end >= 0 and tail[end : end + 4] == _EOCD and tail[-2:] == b"\x00\x00"):
        # zipfile's search: the last signature after max(size - 65,536 - 22, 0)
        lo = max(file_size - (_MAX_COMMENT + 1) - _EOCD_SIZE, 0) - base
        end = tail.rfind(_EOCD, lo)
        if end < 0 or end + _EOCD_SIZE > len(tail):
            return None
    disk, disk_dir = _u(tail, end + 4, 2), _u(tail, end + 6, 2)
    here, entries = _u(tail, end + 8, 2), _u(tail, end + 10, 2)
    size, offset = _u(tail, end + 12, 4), _u(tail, end + 16, 4)
    location = base + end
    zip64 = False
    loc = end - _LOCATOR_SIZE
    if location >= _LOCATOR_SIZE and tail[loc : loc + 4] == _LOCATOR:
        if _u(tail, loc + 4, 4) != 0 or _u(tail, loc + 16, 4) > 1:
            raise ValueError("the archive spans several disks.")
        rec = loc - _ZIP64_END_SIZE
        if location < _LOCATOR_SIZE + _ZIP64_END_SIZE or tail[rec : rec + 4] != _ZIP64_END:
            raise ValueError(
                "a ZIP64 locator without the ZIP64 end record just before it "
                "(Python's zipfile would read the 16/32-bit record instead)."
            )
        pointed, at = _u(tail, loc + 8, 8), base + rec
        if pointed != at:
            raise ValueError(
                f"the ZIP64 locator points to offset {pointed}, the ZIP64 end record "
                f"that Python's zipfile reads is at {at}."
            )
        if _u(tail, rec + 4, 8) != _ZIP64_END_SIZE - 12:
            raise ValueError("a ZIP64 end record with extensible data.")
        z_disk, z_disk_dir = _u(tail, rec + 16, 4), _u(tail, rec + 20, 4)
        z_here, z_entries = _u(tail, rec + 24, 8), _u(tail, rec + 32, 8)
        z_size, z_offset = _u(tail, rec + 40, 8), _u(tail, rec + 48, 8)
        for what, short, full, saturated in (
            ("disk number", disk, z_disk, 0xFFFF),
            ("disk of the directory", disk_dir, z_disk_dir, 0xFFFF),
            ("entries on this disk", here, z_here, 0xFFFF),
            ("entries", entries, z_entries, 0xFFFF),
            ("directory size", size, z_size, 0xFFFFFFFF),
            ("directory offset", offset, z_offset, 0xFFFFFFFF),
        ):
            if short not in (full, saturated):
                raise ValueError(
                    f"the 16/32-bit end record gives {short} as the {what}, the ZIP64 one {full}."
                )
        disk, disk_dir, here, entries = z_disk, z_disk_dir, z_here, z_entries
        size, offset, zip64 = z_size, z_offset, True
    if disk != 0 or disk_dir != 0:
        raise ValueError("the archive spans several disks.")
    if here != entries:
        raise ValueError(f"the end record lists {here} entries on its disk and {entries} in all.")
    # zipfile places the directory just before the end records, and every entry as far
    # from where the records say as the directory is ("concat": data in front)
    ends = location - (_ZIP64_END_SIZE + _LOCATOR_SIZE if zip64 else 0)
    if offset + size != ends:
        raise ValueError(
            f"the directory is said to take bytes {offset} to {offset + size}, the end "
            f"records begin at {ends}."
        )
    if entries * _ENTRY_SIZE > size or (size and not entries):
        raise ValueError(f"a directory of {entries} entries cannot take {size} bytes.")
    return entries, size, offset, location


#: where zipfile's end record list keeps the entries, size, offset and location
_ECD_FIELDS = tuple(
    getattr(zipfile, name, default)
    for name, default in (
        ("_ECD_ENTRIES_TOTAL", 4),
        ("_ECD_SIZE", 5),
        ("_ECD_OFFSET", 6),
        ("_ECD_LOCATION", 9),
    )
)


def _check_directory(f, path, part, most_entries):
    """Refuse the archive in ``f`` unless its directory, as Python's zipfile will read it,
    holds at most ``most_entries`` entries of at most :data:`_DIRECTORY_BYTES_PER_ENTRY`
    bytes each, with end records that agree; before zipfile builds an object per entry.
    Returns False when there is no end record (zipfile then refuses the archive)."""
    try:
        found = _end_records(f)
        # the records as this Python's zipfile reads them, where it has the reader: they
        # must be the ones bounded here
        reader = getattr(zipfile, "_EndRecData", None)
        if found is not None and callable(reader):
            f.seek(0)
            theirs = reader(f)
            if theirs is None or tuple(theirs[i] for i in _ECD_FIELDS) != found:
                raise ValueError(
                    "Python's zipfile reads its end records otherwise "
                    f"({None if theirs is None else [theirs[i] for i in _ECD_FIELDS]}, "
                    f"not {list(found)})."
                )
    except (ValueError, OSError, zipfile.BadZipFile, IndexError, TypeError) as exc:
        raise _fail(path, part, f"malformed end of the ZIP directory: {exc}") from None
    if found is None:
        return False
    entries, size = found[0], found[1]
    if entries > most_entries or size > _DIRECTORY_BYTES_PER_ENTRY * most_entries:
        raise _fail(
            path,
            part,
            f"a directory of {entries} entries ({size} bytes), more than the "
            f"{most_entries} entries (of at most {_DIRECTORY_BYTES_PER_ENTRY} bytes) "
            f"allowed here.",
        )
    return True


def _array_references(doc):
    """How many arrays the document refers to (``{"__array__": name}`` objects)."""
    return sum("__array__" in obj for obj in json_objects(doc))


def _read_arrays(raw, path, doc, check_arrays, budget):
    # the inner archive's directory is parsed into one object per entry: bounded by the
    # arrays the document uses before it is parsed (with room for a few unused entries,
    # which the check of the headers names)
    n_refs = _array_references(doc)
    stream = io.BytesIO(raw)
    if not _check_directory(
        stream, path, f"arrays.npz (for the {n_refs} arrays the model uses)", 2 * n_refs + 16
    ):
        raise _fail(path, "arrays.npz", "not an npz archive (no end of its directory).")
    try:
        inner = zipfile.ZipFile(stream)
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
