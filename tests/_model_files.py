"""Reading and writing a model file's raw parts (its JSON document and its arrays), for
the tests that craft hand-edited and hostile files."""

import io
import json
import zipfile

import numpy as np


def read_parts(path):
    """``(doc, arrays)`` of a saved model: the decoded JSON and a dict of the npz arrays."""
    with zipfile.ZipFile(path) as zf:
        doc = json.loads(zf.read("model.json"))
        with np.load(io.BytesIO(zf.read("arrays.npz"))) as npz:
            arrays = {k: npz[k] for k in npz.files}
    return doc, arrays


def write_parts(path, doc, arrays, json_text=None, compression=zipfile.ZIP_DEFLATED):
    """A model file of ``doc`` (or the raw ``json_text``) and ``arrays``."""
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        zf.writestr("model.json", json.dumps(doc) if json_text is None else json_text)
        zf.writestr("arrays.npz", buf.getvalue())


def used_only(doc, arrays):
    """The arrays ``doc`` refers to: an edit that replaces an array's reference leaves the
    old array behind, which the loader refuses first (an unused entry)."""
    used, stack = set(), [doc]
    while stack:
        obj = stack.pop()
        if isinstance(obj, dict):
            if isinstance(obj.get("__array__"), str):
                used.add(obj["__array__"])
            stack.extend(obj.values())
        elif isinstance(obj, list):
            stack.extend(obj)
    return {k: v for k, v in arrays.items() if k in used}


# -- archives whose end records lie (what Python's zipfile reads, not what they say) ------

_EOCD, _LOCATOR, _ZIP64_END = b"PK\x05\x06", b"PK\x06\x07", b"PK\x06\x06"

#: the ways :func:`lying_archive` makes an archive's end records disagree with its
#: directory, or hide a directory far larger than its entries need
LIES = (
    # the ZIP64 record zipfile reads (just before the locator) lists every entry; the
    # locator's offset points to the first entry's header, the 16/32-bit record lists
    # the real entries only
    "locator_offset",
    # the same, the locator pointing to a decoy ZIP64 record of the real entries at the
    # start of the archive
    "locator_decoy",
    # the ZIP64 record at its place and pointed to, the 16/32-bit record (not saturated)
    # listing fewer entries and bytes
    "counts_disagree",
    # the ZIP64 record's two entry counts disagree
    "disk_counts_disagree",
    # a locator but no ZIP64 record before it (zipfile reads the 16/32-bit record)
    "locator_without_record",
    # a consistent ZIP64 directory of every entry, honest about its size
    "zip64_honest",
    # a consistent 16/32-bit directory of every entry
    "plain_honest",
    # the directory's offset points before where it lies (zipfile shifts every entry)
    "offset_disagrees",
)


def _central_entry(name):
    """One central directory entry of a stored, empty file ``name`` (46 bytes and the
    name)."""
    raw = name.encode()
    return (
        b"PK\x01\x02"
        + (20).to_bytes(2, "little") * 2  # made by, needed to extract
        + bytes(4)  # flags, method
        + bytes(4)  # time, date
        + bytes(12)  # crc, sizes
        + len(raw).to_bytes(2, "little")
        + bytes(12)  # extra, comment lengths, disk, attributes
        + bytes(4)  # local header offset
        + raw
    )


def lying_archive(archive, lie, n_extra, name="a0.npy", distinct=False):
    """The bytes of the ZIP ``archive`` (as Python's zipfile writes it: no comment, no
    ZIP64 end records) with ``n_extra`` more central directory entries (stored, empty,
    all named ``name``, or ``distinct`` names ``z0000000.npy`` ...: each a key of
    zipfile's table too) behind its own, and end records that tell the lie ``lie`` (one
    of :data:`LIES`) about them."""
    assert lie in LIES, lie
    end = len(archive) - 22
    assert archive[end : end + 4] == _EOCD
    n = int.from_bytes(archive[end + 10 : end + 12], "little")
    size = int.from_bytes(archive[end + 12 : end + 16], "little")
    offset = int.from_bytes(archive[end + 16 : end + 20], "little")
    local, directory = archive[:offset], archive[offset : offset + size]
    if distinct:
        directory += b"".join(_central_entry(f"z{i:07d}.npy") for i in range(n_extra))
    else:
        directory += _central_entry(name) * n_extra
    total, dir_size = n + n_extra, len(directory)

    def eocd(count, size_, offset_):
        return (
            _EOCD
            + bytes(4)
            + min(count, 0xFFFF).to_bytes(2, "little") * 2
            + min(size_, 0xFFFFFFFF).to_bytes(4, "little")
            + min(offset_, 0xFFFFFFFF).to_bytes(4, "little")
            + bytes(2)
        )

    def zip64(this_disk, count, size_, offset_):
        return (
            _ZIP64_END
            + (44).to_bytes(8, "little")
            + (45).to_bytes(2, "little") * 2
            + bytes(8)
            + this_disk.to_bytes(8, "little")
            + count.to_bytes(8, "little")
            + size_.to_bytes(8, "little")
            + offset_.to_bytes(8, "little")
        )

    def locator(at):
        return _LOCATOR + bytes(4) + at.to_bytes(8, "little") + (1).to_bytes(4, "little")

    body = local + directory
    record_at = len(body)
    if lie == "plain_honest":
        return body + eocd(total, dir_size, offset)
    if lie == "offset_disagrees":
        return body + eocd(total, dir_size, max(offset - 64, 0))
    if lie == "locator_without_record":
        return body + locator(0) + eocd(n, size, offset)
    if lie == "locator_decoy":
        decoy = zip64(n, n, size, offset)
        # zipfile shifts every header by the 56 bytes in front (the archive's "concat")
        return (
            decoy
            + body
            + zip64(total, total, dir_size, offset)
            + locator(0)
            + eocd(n, size, offset)
        )
    if lie == "locator_offset":
        return body + zip64(total, total, dir_size, offset) + locator(0) + eocd(n, size, offset)
    if lie == "counts_disagree":
        return (
            body
            + zip64(total, total, dir_size, offset)
            + locator(record_at)
            + eocd(n, size, offset)
        )
    if lie == "disk_counts_disagree":
        return (
            body
            + zip64(n, total, dir_size, offset)
            + locator(record_at)
            + eocd(0xFFFF, 0xFFFFFFFF, offset)
        )
    # zip64_honest: the 16/32-bit fields saturated, as a ZIP64 writer leaves them
    return (
        body
        + zip64(total, total, dir_size, offset)
        + locator(record_at)
        + eocd(0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF)
    )


def write_lying_file(
    path, doc, arrays, lie, n_extra, where="inner", compression=None, distinct=False
):
    """A model file of ``doc`` and ``arrays`` whose inner archive (``where="inner"``:
    ``arrays.npz``) or outer one (``"outer"``: the file) has ``n_extra`` more directory
    entries and end records that tell ``lie``; the outer archive stored (the file's size
    is then what the directory takes) unless ``compression`` says otherwise."""
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    inner = buf.getvalue()
    if where == "inner":
        inner = lying_archive(inner, lie, n_extra, distinct=distinct)
    out = io.BytesIO()
    method = zipfile.ZIP_STORED if compression is None else compression
    with zipfile.ZipFile(out, "w", compression=method) as zf:
        zf.writestr("model.json", json.dumps(doc))
        zf.writestr("arrays.npz", inner)
    data = out.getvalue()
    if where == "outer":
        data = lying_archive(data, lie, n_extra, name="model.json", distinct=distinct)
    with open(path, "wb") as f:
        f.write(data)
    return path
