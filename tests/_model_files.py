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
