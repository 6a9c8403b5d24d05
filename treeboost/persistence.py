"""A safe, portable model file: JSON for the structure, ``.npz`` for the arrays.

``save(model, path)`` writes a ZIP archive with ``model.json`` (the estimator's
parameters and fitted attributes, with type tags) and ``arrays.npz`` (every numeric array,
read back with ``allow_pickle=False``).  ``load(path)`` rebuilds only classes from an
allow-list of treeboost classes, never imports or calls anything named in the file, and
checks every tree (children in range, each node reached once, features in range) before
returning the model, so a crafted file cannot run code, crash or loop at predict time.
"""
import io
import json
import zipfile

import numpy as np

FORMAT = "treeboost-model"
FORMAT_VERSION = 1
#: attributes rebuilt after loading instead of stored (caches)
_TRANSIENT = {"_packed", "_edge_table"}


def _allowed_classes():
    """Classes a model file may name: treeboost's estimators and their parts."""
    import treeboost
    from . import losses
    from .trees.binning import BinMapper
    from .trees.encoding import FeatureEncoder
    from .trees.tree import Tree
    from .trees.classic import _Column
    classes = [BinMapper, FeatureEncoder, Tree, _Column]
    classes += [getattr(losses, n) for n in losses.__all__]
    classes += [getattr(treeboost, n) for n in treeboost.__all__
                if isinstance(getattr(treeboost, n), type)]
    for extra in ("ensembles", "trees"):
        mod = getattr(treeboost, extra, None)
        for n in getattr(mod, "__all__", []):
            obj = getattr(mod, n, None)
            if isinstance(obj, type):
                classes.append(obj)
    return {f"{c.__module__}.{c.__qualname__}": c for c in classes}


class _Encoder:
    def __init__(self):
        self.arrays = {}
        self.allowed = {v: k for k, v in _allowed_classes().items()}
        self.objects = {}       # id -> reference number: shared parts stay shared

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
            if obj.dtype.kind in "biufc":
                return self.array(obj)
            if obj.dtype.kind in "UO":
                return {"__objarray__": [self(v, where) for v in obj.ravel().tolist()],
                        "shape": list(obj.shape), "dtype": obj.dtype.str}
            raise TypeError(f"{where}: arrays of dtype {obj.dtype} cannot be saved.")
        if isinstance(obj, tuple):
            return {"__tuple__": [self(v, where) for v in obj]}
        if isinstance(obj, list):
            return [self(v, f"{where}[{i}]") for i, v in enumerate(obj)]
        if isinstance(obj, dict):
            if not all(isinstance(k, str) for k in obj):
                return {"__items__": [[self(k, where), self(v, where)] for k, v in obj.items()]}
            return {"__dict__": {k: self(v, f"{where}.{k}") for k, v in obj.items()}}
        if isinstance(obj, np.random.RandomState):
            return {"__randomstate__": self(obj.get_state(), where)}
        if id(obj) in self.objects:
            return {"__ref__": self.objects[id(obj)]}
        name = self.allowed.get(type(obj))
        if name is None:
            raise TypeError(
                f"{where}: a {type(obj).__module__}.{type(obj).__qualname__} cannot be saved in "
                f"the safe format (only treeboost's own classes can); use pickle or joblib "
                f"for this model.")
        ref = len(self.objects)
        self.objects[id(obj)] = ref
        state = {k: self(v, f"{where}.{k}") for k, v in vars(obj).items()
                 if k not in _TRANSIENT}
        return {"__object__": name, "ref": ref, "state": state}


def save(model, path):
    """Write ``model`` to ``path`` in the safe format (see the module docstring)."""
    from . import __version__
    enc = _Encoder()
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "treeboost_version": __version__,
           "model": enc(model)}
    buf = io.BytesIO()
    np.savez(buf, **enc.arrays)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("model.json", json.dumps(doc))
        zf.writestr("arrays.npz", buf.getvalue())
    return path


class _Decoder:
    def __init__(self, arrays):
        self.arrays = arrays
        self.allowed = _allowed_classes()
        self.objects = {}

    def __call__(self, obj):
        if isinstance(obj, list):
            return [self(v) for v in obj]
        if not isinstance(obj, dict):
            return obj
        if "__array__" in obj:
            key = obj["__array__"]
            if key not in self.arrays:
                raise ValueError(f"the model file refers to a missing array {key!r}.")
            return self.arrays[key]
        if "__float__" in obj:
            return float(obj["__float__"])
        if "__scalar__" in obj:
            return np.dtype(obj["__scalar__"]).type(self(obj["v"]))
        if "__dtype__" in obj:
            return np.dtype(obj["__dtype__"])
        if "__objarray__" in obj:
            values = [self(v) for v in obj["__objarray__"]]
            out = np.empty(len(values), dtype=object)
            out[:] = values
            return out.astype(np.dtype(obj["dtype"])).reshape(obj["shape"])
        if "__tuple__" in obj:
            return tuple(self(v) for v in obj["__tuple__"])
        if "__items__" in obj:
            return {self(k): self(v) for k, v in obj["__items__"]}
        if "__dict__" in obj:
            return {k: self(v) for k, v in obj["__dict__"].items()}
        if "__randomstate__" in obj:
            rs = np.random.RandomState()
            rs.set_state(self(obj["__randomstate__"]))
            return rs
        if "__ref__" in obj:
            ref = obj["__ref__"]
            if ref not in self.objects:
                raise ValueError(f"the model file refers to an unknown object {ref!r}.")
            return self.objects[ref]
        if "__object__" in obj:
            cls = self.allowed.get(obj["__object__"])
            if cls is None:
                raise ValueError(f"the model file names a class that treeboost does not load: "
                                 f"{obj['__object__']!r}.")
            inst = cls.__new__(cls)
            self.objects[obj.get("ref")] = inst     # registered first: references may follow
            inst.__dict__.update({k: self(v) for k, v in obj["state"].items()})
            return inst
        raise ValueError(f"unrecognised entry in the model file: {sorted(obj)[:3]}")


def load(path):
    """Read a model written by :func:`save`; refuses anything else with a ValueError."""
    try:
        with zipfile.ZipFile(path) as zf:
            doc = json.loads(zf.read("model.json").decode("utf-8"))
            raw = zf.read("arrays.npz")
    except (zipfile.BadZipFile, KeyError, UnicodeDecodeError, json.JSONDecodeError,
            EOFError) as exc:
        raise ValueError(f"{path} is not a treeboost model file ({exc}).") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"{path} is not a treeboost model file.")
    version = doc.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ValueError(f"{path} has model format version {version!r}; this treeboost reads "
                         f"versions up to {FORMAT_VERSION}: upgrade treeboost.")
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
        raise ValueError(f"{path}: the arrays of the model file are unreadable ({exc}).") \
            from None
    model = _Decoder(arrays)(doc["model"])
    _validate(model)
    if hasattr(model, "_packer") and hasattr(model, "trees_"):
        model._packed = None
        model._packer()
    return model


def _validate(model):
    """Check every tree reachable from the model; raise ValueError on inconsistency."""
    from .trees.tree import Tree
    n_features = getattr(model, "n_features_in_", None)
    seen = set()

    def walk(obj, where):
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, Tree):
            validate_tree(obj, n_features, where)
        elif isinstance(obj, (list, tuple)):
            for i, v in enumerate(obj):
                walk(v, f"{where}[{i}]")
        elif isinstance(obj, dict):
            for k, v in obj.items():
                walk(v, f"{where}.{k}")
        elif hasattr(obj, "__dict__") and type(obj).__module__.startswith("treeboost"):
            for k, v in vars(obj).items():
                walk(v, f"{where}.{k}")
    walk(model, "model")


def validate_tree(tree, n_features, where="tree"):
    """Raise ValueError unless ``tree`` is a well-formed binary tree over ``n_features``."""
    try:
        left = np.asarray(tree.children_left)
        right = np.asarray(tree.children_right)
        n = left.shape[0]
        arrays = {name: np.asarray(getattr(tree, name)) for name in tree._arrays}
    except AttributeError as exc:
        raise ValueError(f"{where}: incomplete tree ({exc}).") from None
    for name, a in arrays.items():
        if a.shape[0] != n:
            raise ValueError(f"{where}: {name} has {a.shape[0]} rows, the tree has {n} nodes.")
    if n == 0:
        raise ValueError(f"{where}: empty tree.")
    if left.dtype.kind not in "iu" or right.dtype.kind not in "iu":
        raise ValueError(f"{where}: children must be integers.")
    leaf = left == -1
    if np.any(leaf != (right == -1)):
        raise ValueError(f"{where}: a node has exactly one child.")
    ids = np.arange(n)
    internal = ~leaf
    # children come after their parent: no cycle is possible, and every id is in range
    for child in (left, right):
        c = child[internal]
        if np.any(c <= ids[internal]) or np.any(c >= n):
            raise ValueError(f"{where}: a child index is out of range or points backwards.")
    parents = np.concatenate([left[internal], right[internal]])
    if np.unique(parents).size != parents.size or parents.size != n - 1:
        raise ValueError(f"{where}: the nodes do not form a tree (a node with two parents or "
                         f"an unreachable node).")
    feature = arrays["feature"]
    nf = tree.n_features if n_features is None else n_features
    if np.any(feature[internal] < 0) or np.any(feature[internal] >= nf):
        raise ValueError(f"{where}: a split feature index is outside [0, {nf}).")
    if arrays["value"].ndim != 2:
        raise ValueError(f"{where}: value must be 2-dimensional.")
    if arrays["categories_left"].ndim != 2 or arrays["categories_left"].shape[1] != 4:
        raise ValueError(f"{where}: categories_left must have shape (n_nodes, 4).")


class PersistenceMixin:
    """``save(path)`` on every treeboost estimator (see :func:`treeboost.load`)."""

    def save(self, path):
        """Write the fitted model to ``path`` in treeboost's safe format (no pickle)."""
        return save(self, path)
