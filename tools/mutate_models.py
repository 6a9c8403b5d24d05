"""Mutation test of the model file: every mutant must be refused or work with finite outputs.

Saves one model of each kind, then writes mutants of each file: for every array, the
array zeroed, set to -1, to a huge value, to NaN (one element or all), shortened,
lengthened, retyped (float16, complex, object, another int / float width) or flattened;
for every number of ``model.json``, the number replaced by 0, -1, a huge number, NaN or
a string; and per model an unused large array, a deeply nested JSON document, a JSON
document of whitespace larger than the limit, a huge string dtype, an extra ZIP entry, an
encrypted entry, an unknown compression method, an ``arrays.npz`` of deflated entries one
of which declares 256 MiB (a few kilobytes on disk), 20 million empty JSON objects, a
tree replaced by a chain 100,000 splits deep and, for bagging, a draw plan of 2^31 - 1
draws or rows.

Each mutant is loaded and used (``predict``, ``predict_proba``, ``decision_function``,
``decision_path``, ``apply``, ``feature_importances_``, ``estimators_samples_``) in a
child process with ``NUMBA_BOUNDSCHECK=1`` and a numba cache directory of its own (a
temporary directory): a child checks a batch of files and reports one line per file, so
that the kernels are compiled once per child.  A mutant is

* *refused* when ``treeboost.load`` raises ``ValueError``;
* *worked* when it loads and every use returns finite numbers (or raises the documented
  ``AttributeError`` of an unknown ``estimators_samples_``);
* *failed* otherwise: another exception (``IndexError`` from the bounds checks, ...), a
  ``ValueError`` only at use, a non-finite output, a signal, a hang, or more memory than
  :data:`MEMORY_CAP` (1.5 GiB) above what the child holds once its kernels are compiled
  (its address space is capped there).

Usage::

    python tools/mutate_models.py [--sample N] [--seed S] [--timeout SECONDS]

prints how many mutants were made, refused, worked and failed, and the failures; exits 1
when any failed.  ``tests/test_mutation.py`` runs a seeded sample.
"""

import argparse
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

import numpy as np

#: the checkout this script belongs to: its treeboost is the one tested (and the children's)
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if __name__ == "__main__" and _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

HUGE_FLOAT = 1e308
HUGE_INT = 10**18
#: size of the unused array of the "unused large array" mutant (bytes, all zeros)
UNUSED_BYTES = 80 * 2**20
#: what the array of the "nested deflated" mutant declares (zeros deflated twice: a few
#: kilobytes on disk), above the loader's budget for a small file
NESTED_BYTES = 256 * 2**20
#: empty objects of the "many JSON objects" mutant (3 bytes of JSON each, 60 MB in all)
JSON_OBJECTS = 20_000_000
#: splits of the "chain tree" mutant (the rows of X that take the long way visit them all)
CHAIN_DEPTH = 100_000


# -- the models ----------------------------------------------------------------------------


def _data(seed=0):
    """A small mixed data set: 3 numeric columns (one with NaN), one categorical."""
    rng = np.random.RandomState(seed)
    n = 160
    X = np.column_stack(
        [
            rng.normal(size=n),
            rng.uniform(0, 10, size=n),
            rng.randint(0, 4, size=n).astype(float),
            rng.normal(size=n),
        ]
    )
    X[rng.rand(n) < 0.1, 1] = np.nan
    y3 = (X[:, 0] > 0).astype(int) + (X[:, 2] >= 2)
    y2 = (X[:, 0] + (X[:, 2] == 1) > 0.3).astype(int)
    yr = X[:, 0] * 2 + np.nan_to_num(X[:, 1]) / 5 + (X[:, 2] == 3)
    return X, y2, y3, yr


def model_specs():
    """(name, factory, target) of every kind of model the file format holds."""
    import treeboost as tb

    cat = dict(categorical_features=[2])
    return [
        ("cart_classifier", lambda: tb.DecisionTreeClassifier(max_depth=4, **cat), "y3"),
        ("cart_regressor", lambda: tb.DecisionTreeRegressor(max_depth=4, **cat), "yr"),
        ("id3", lambda: tb.ID3Classifier(n_bins=3, pruning="pessimistic"), "y3"),
        ("c45", lambda: tb.C45Classifier(max_depth=3), "y3"),
        ("rule_list", lambda: tb.RuleListClassifier(tb.C45Classifier(max_depth=3)), "y3"),
        (
            "random_forest_classifier",
            lambda: tb.RandomForestClassifier(
                3, max_depth=3, oob_score=True, random_state=0, **cat
            ),
            "y3",
        ),
        (
            "random_forest_regressor",
            lambda: tb.RandomForestRegressor(3, max_depth=3, random_state=0, **cat),
            "yr",
        ),
        (
            "extra_trees_classifier",
            lambda: tb.ExtraTreesClassifier(3, max_depth=3, random_state=0),
            "y2",
        ),
        (
            "bagging_classifier",
            lambda: tb.BaggingClassifier(n_estimators=3, max_features=0.75, random_state=0, **cat),
            "y3",
        ),
        ("bagging_regressor", lambda: tb.BaggingRegressor(n_estimators=3, random_state=0), "yr"),
        (
            "adaboost_classifier",
            lambda: tb.AdaBoostClassifier(n_estimators=3, random_state=0, **cat),
            "y3",
        ),
        ("adaboost_regressor", lambda: tb.AdaBoostRegressor(n_estimators=3, random_state=0), "yr"),
        (
            "gradient_boosting_binary",
            lambda: tb.GradientBoostingClassifier(
                n_estimators=3, max_depth=3, random_state=0, **cat
            ),
            "y2",
        ),
        (
            "gradient_boosting_multiclass",
            lambda: tb.GradientBoostingClassifier(n_estimators=2, max_depth=2, random_state=0),
            "y3",
        ),
        (
            "gradient_boosting_regressor",
            lambda: tb.GradientBoostingRegressor(
                loss="huber", n_estimators=3, max_depth=3, random_state=0, **cat
            ),
            "yr",
        ),
    ]


def build_models(out_dir, names=None):
    """Fit and save the models; returns {name: path} and writes the test matrix X.npy."""
    X, y2, y3, yr = _data()
    targets = {"y2": y2, "y3": y3, "yr": yr}
    paths = {}
    for name, make, target in model_specs():
        if names is not None and name not in names:
            continue
        model = make().fit(X, targets[target])
        paths[name] = model.save(os.path.join(out_dir, f"{name}.tbm"))
    np.save(os.path.join(out_dir, "X.npy"), X)
    return paths


# -- the mutants ---------------------------------------------------------------------------


def _read(path):
    with zipfile.ZipFile(path) as zf:
        doc = json.loads(zf.read("model.json"))
        with np.load(io.BytesIO(zf.read("arrays.npz"))) as npz:
            arrays = {k: npz[k] for k in npz.files}
    return doc, arrays


def _write(path, doc, arrays, json_text=None):
    buf = io.BytesIO()
    np.savez(buf, **arrays)  # object arrays go in pickled, as a hostile file would
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("model.json", json.dumps(doc) if json_text is None else json_text)
        zf.writestr("arrays.npz", buf.getvalue())


def _array_variants(a, rng):
    """(label, mutated array) pairs for one array."""
    out = []
    kind = a.dtype.kind
    if a.size:
        out.append(("zeros", np.zeros_like(a)))
        if kind == "b":
            out.append(("flipped", ~a))
        else:
            out.append(
                (
                    "minus_one",
                    np.full_like(a, -1) if kind != "u" else np.full_like(a, np.iinfo(a.dtype).max),
                )
            )
            huge = HUGE_FLOAT if kind == "f" else np.iinfo(a.dtype).max
            out.append(("huge", np.full_like(a, huge)))
            for label, v in (
                ("one_minus_one", -1 if kind != "u" else np.iinfo(a.dtype).max),
                ("one_huge", huge),
            ):
                b = a.copy()
                b.flat[rng.randrange(a.size)] = v
                out.append((label, b))
        if kind == "f":
            out.append(("nan", np.full_like(a, np.nan)))
            b = a.copy()
            b.flat[rng.randrange(a.size)] = np.nan
            out.append(("one_nan", b))
            b = a.copy()
            b.flat[rng.randrange(a.size)] = -np.inf
            out.append(("one_neginf", b))
        out.append(("shortened", a[:-1]))
        out.append(("lengthened", np.concatenate([a, a[-1:]])))
    if a.ndim > 1:
        out.append(("flattened", a.ravel()))
    out.append(("float16", a.astype(np.float16)))
    out.append(("complex", a.astype(np.complex128)))
    out.append(("object", a.astype(object)))
    if kind in "iub":
        out.append(("as_float64", a.astype(np.float64)))
        if a.dtype != np.int64:
            out.append(("as_int64", a.astype(np.int64)))
    else:
        out.append(
            (
                "as_int64",
                a.astype(np.int64) if np.all(np.isfinite(a)) else np.nan_to_num(a).astype(np.int64),
            )
        )
        out.append(("as_float32", a.astype(np.float32)))
    return out


def _number_paths(obj, path=()):
    """Paths (tuples of keys / indices) to every number of the JSON document."""
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return
    if isinstance(obj, (int, float)):
        yield path
    elif isinstance(obj, list):
        idx = range(len(obj))
        if len(obj) > 8:  # long lists of numbers (a random state): the ends and a few
            idx = sorted({0, 1, len(obj) // 2, len(obj) - 1})
        for i in idx:
            yield from _number_paths(obj[i], path + (i,))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k == "ref":  # object references: a changed one is a dangling reference
                yield path + (k,)
                continue
            yield from _number_paths(v, path + (k,))


def _set(doc, path, value):
    obj = doc
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = value


def _number_values(v):
    huge = HUGE_INT if isinstance(v, int) else HUGE_FLOAT
    return [
        ("zero", 0),
        ("minus_one", -1),
        ("huge", huge),
        ("nan", {"__float__": "nan"}),
        ("string", "x"),
        ("null", None),
    ]


def mutants(base, rng):
    """Yield (label, writer) for every mutant of the model file ``base``; ``writer(path)``
    writes it."""
    doc, arrays = _read(base)
    for key in sorted(arrays, key=lambda k: int(k[1:])):
        with np.errstate(all="ignore"):  # the casts to float16 overflow, on purpose
            variants = _array_variants(arrays[key], rng)
        for label, b in variants:

            def write(path, key=key, b=b):
                _write(path, doc, {**arrays, key: b})

            yield f"array {key} {label}", write
    for path in list(_number_paths(doc)):
        for label, v in _number_values(_get(doc, path)):

            def write(p, path=path, v=v):
                d = json.loads(json.dumps(doc))
                _set(d, path, v)
                _write(p, d, arrays)

            yield f"json {'/'.join(map(str, path))} {label}", write
    yield from _file_mutants(doc, arrays)


def _get(doc, path):
    obj = doc
    for p in path:
        obj = obj[p]
    return obj


def _file_mutants(doc, arrays):
    def unused(path):
        _write(path, doc, {**arrays, "zzz": np.zeros(UNUSED_BYTES // 8)})

    yield "file unused_large_array", unused

    def unused_small(path):
        _write(path, doc, {**arrays, "zzz": np.zeros(3)})

    yield "file unused_small_array", unused_small

    def deep(path):
        _write(
            path,
            doc,
            arrays,
            json_text='{"format": "treeboost-model", "format_version": 2,'
            ' "model": ' + "[" * 100_000 + "]" * 100_000 + "}",
        )

    yield "file deep_json", deep

    def deep_param(path):
        d = json.loads(json.dumps(doc))
        d["model"]["state"]["__deep__"] = None
        text = json.dumps(d).replace('"__deep__": null', '"__deep__": ' + "[" * 5000 + "]" * 5000)
        _write(path, d, arrays, json_text=text)

    yield "file deep_json_in_state", deep_param

    def whitespace(path):
        text = json.dumps(doc)
        _write(path, doc, arrays, json_text=text[:-1] + " " * (70 * 2**20) + "}")

    yield "file json_whitespace_70MB", whitespace

    def big_string_dtype(path):
        d = json.loads(json.dumps(doc))
        found = _find(d, "__objarray__")
        if found is None:  # no label array: add one as a parameter-like attribute
            d["model"]["state"]["classes_"] = {
                "__objarray__": ["a"],
                "shape": [1],
                "dtype": "<U999999999",
            }
        else:
            found["dtype"] = "<U999999999"
        _write(path, d, arrays)

    yield "file huge_string_dtype", big_string_dtype

    def extra_entry(path):
        _write(path, doc, arrays)
        with zipfile.ZipFile(path, "a") as zf:
            zf.writestr("payload.pkl", b"\x80\x04N.")

    yield "file extra_zip_entry", extra_entry

    def flag(path, bits=0x1, method=None):
        _write(path, doc, arrays)
        data = bytearray(open(path, "rb").read())
        # set the flag / method of every local and central header (a crafted archive)
        for sig, flag_at, method_at in ((b"PK\x03\x04", 6, 8), (b"PK\x01\x02", 8, 10)):
            i = data.find(sig)
            while i >= 0:
                if bits:
                    data[i + flag_at] |= bits
                if method is not None:
                    data[i + method_at : i + method_at + 2] = method.to_bytes(2, "little")
                i = data.find(sig, i + 4)
        open(path, "wb").write(bytes(data))

    yield "file encrypted_entries", flag
    yield "file unknown_compression", lambda path: flag(path, bits=0, method=99)

    def truncated(path):
        _write(path, doc, arrays)
        data = open(path, "rb").read()
        open(path, "wb").write(data[: len(data) // 2])

    yield "file truncated", truncated

    def newer(path):
        d = dict(doc, format_version=99)
        _write(path, d, arrays)

    yield "file newer_version", newer

    first = min(arrays, key=lambda k: int(k[1:]))
    yield (
        "file nested_deflated_huge_array",
        lambda path: write_nested_deflated(path, doc, arrays, first, NESTED_BYTES),
    )
    yield (
        "file json_many_objects",
        lambda path: write_many_json_values(path, doc, arrays, JSON_OBJECTS),
    )
    if tree_states(doc):

        def chain(path):
            if write_chain_tree(path, doc, arrays, CHAIN_DEPTH) is None:
                _write(path, doc, arrays)  # a root leaf: the file as saved

        yield "file chain_tree", chain
    plans = doc["model"]["state"].get("_draw_plans")
    if isinstance(plans, dict) and "__array__" in plans:
        for label, column in (("draws", 1), ("rows", 0)):

            def plan(path, column=column):
                a = arrays[plans["__array__"]].copy()
                a[:, column] = 2**31 - 1
                _write(path, doc, {**arrays, plans["__array__"]: a})

            yield f"file draw_plan_huge_{label}", plan


# -- hostile files that cost far more than they store (also used by the tests) -------------


def write_nested_deflated(path, doc, arrays, key, declared_bytes):
    """A model file whose ``arrays.npz`` holds deflated entries, the array ``key``
    replaced by one of ``declared_bytes`` zeros (uint8), streamed: a few kilobytes on
    disk once the outer archive deflates the inner one again."""
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for k, a in arrays.items():
            with zf.open(f"{k}.npy", "w", force_zip64=True) as f:
                if k != key:
                    np.lib.format.write_array(f, a, allow_pickle=False)
                    continue
                np.lib.format.write_array_header_2_0(
                    f, {"descr": "|u1", "fortran_order": False, "shape": (declared_bytes,)}
                )
                chunk = bytes(2**20)
                left = declared_bytes
                while left > 0:
                    f.write(chunk[: min(left, len(chunk))])
                    left -= len(chunk)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("model.json", json.dumps(doc))
        zf.writestr("arrays.npz", inner.getvalue())


def write_many_json_values(path, doc, arrays, n_values):
    """A model file whose state holds a list of ``n_values`` empty objects (``{}``: three
    bytes of JSON each, a Python dict each once parsed)."""
    text = json.dumps(doc)
    assert text.endswith("}}}")
    junk = '"__junk__": [' + ",".join(["{}"] * n_values) + "]"
    # the model's state is the last member of the model, itself the document's last
    _write(path, doc, arrays, json_text=text[:-3] + ", " + junk + "}}}")


def tree_states(doc):
    """The state dicts of the document's binary trees, in document order."""
    found, stack = [], [doc]
    while stack:
        o = stack.pop()
        if isinstance(o, dict):
            if str(o.get("__object__", "")).endswith(".tree.Tree"):
                found.append(o["state"])
            stack.extend(reversed(list(o.values())))
        elif isinstance(o, list):
            stack.extend(reversed(o))
    return found


def chain_arrays(state, arrays, depth):
    """The arrays of a tree ``depth`` splits deep, each split the root's of the tree
    ``state`` describes and its left child a leaf (the chain goes on to the right):
    every array a tree checks on load is consistent."""
    get = lambda name: arrays[state[name]["__array__"]]  # noqa: E731
    n = 2 * depth + 1
    internal = np.arange(0, n - 1, 2)
    left = np.full(n, -1, np.int32)
    right = np.full(n, -1, np.int32)
    left[internal] = internal + 1
    right[internal] = internal + 2
    d = np.empty(n, np.int32)
    d[internal] = np.arange(depth)
    d[internal + 1] = np.arange(1, depth + 1)
    d[-1] = depth
    out = {"children_left": left, "children_right": right, "depth": d}
    for name in (
        "feature",
        "threshold",
        "is_categorical",
        "missing_go_left",
        "bin_threshold",
        "gain",
    ):
        a = get(name)
        col = np.zeros(n, a.dtype) if name != "feature" else np.full(n, -1, a.dtype)
        col[internal] = a[0]
        out[name] = col
    for name in ("value", "impurity", "n_node_samples", "weighted_n_node_samples"):
        a = get(name)
        out[name] = np.repeat(a[:1], n, axis=0)
    cats = get("_categories_left")
    out["_categories_left"] = np.repeat(cats[:1], n, axis=0) if cats.shape[0] else cats
    if cats.shape[0]:
        out["_categories_left"][~np.isin(np.arange(n), internal)] = 0
    return out


def write_chain_tree(path, doc, arrays, depth, which=0):
    """The model with its ``which``-th binary tree replaced by :func:`chain_arrays`; None
    when the model has no such tree or its root is a leaf."""
    states = tree_states(doc)
    if len(states) <= which:
        return None
    state = states[which]
    if arrays[state["children_left"]["__array__"]][0] == -1:
        return None
    new = dict(arrays)
    for name, a in chain_arrays(state, arrays, depth).items():
        new[state[name]["__array__"]] = a
    _write(path, doc, new)
    return path


def _find(obj, tag):
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, dict):
            if tag in o:
                return o
            stack.extend(o.values())
        elif isinstance(o, list):
            stack.extend(o)
    return None


# -- the checks, in a child process -------------------------------------------------------


def _uses(model):
    """The calls to make on a loaded model (name, function of X)."""
    uses = [("predict", lambda X: model.predict(X))]
    for name in ("predict_proba", "decision_function", "decision_path", "apply"):
        # asked of the instance: a method scikit-learn makes available only with some
        # members (bagging's decision_function) exists on the class either way
        if hasattr(type(model), name) and hasattr(model, name):
            uses.append((name, lambda X, name=name: getattr(model, name)(X)))
    for name in ("feature_importances_", "estimators_samples_"):
        if hasattr(type(model), name):
            uses.append((name, lambda X, name=name: getattr(model, name)))
    return uses


def _finite(out):
    """Whether every number in ``out`` is finite (labels and sparse matrices included)."""
    from scipy import sparse

    if sparse.issparse(out):
        return bool(np.all(np.isfinite(out.data)))
    if isinstance(out, tuple):
        return all(_finite(o) for o in out)
    if isinstance(out, list):
        return all(_finite(o) for o in out)
    a = np.asarray(out)
    if a.dtype.kind in "fc":
        return bool(np.all(np.isfinite(a)))
    if a.dtype.kind == "O":
        return all(not (isinstance(v, float) and not np.isfinite(v)) for v in a.ravel())
    return True


def check_file(path, X):
    """``(status, detail)`` of one mutant: refused / worked / failed."""
    import warnings

    import treeboost

    try:
        model = treeboost.load(path)
    except ValueError as exc:
        if "MemoryError" in str(exc):
            # the loader names a MemoryError of a malformed file: here it means the file
            # reached the child's memory cap before a check refused it
            return "failed", f"load ran out of memory: {str(exc)[:300]}"
        return "refused", str(exc)[:300]
    except Exception as exc:  # noqa: BLE001 - any other exception is the finding
        return "failed", f"load raised {type(exc).__name__}: {str(exc)[:300]}"
    for name, use in _uses(model):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = use(X)
        except AttributeError as exc:
            if name == "estimators_samples_" and "unknown" in str(exc):
                continue
            return "failed", f"{name} raised AttributeError: {str(exc)[:300]}"
        except Exception as exc:  # noqa: BLE001
            return "failed", f"{name} raised {type(exc).__name__}: {str(exc)[:300]}"
        if not _finite(out):
            return "failed", f"{name} returned non-finite numbers"
    return "worked", ""


#: memory a child may take above what it holds once the kernels are compiled: a mutant
#: that needs more fails (MemoryError) instead of swapping the machine
MEMORY_CAP = 1536 * 2**20


def _cap_memory():
    """Cap the address space at its present size plus :data:`MEMORY_CAP` (Linux)."""
    try:
        import resource

        with open("/proc/self/status") as f:
            size = next(int(ln.split()[1]) * 1024 for ln in f if ln.startswith("VmSize:"))
        resource.setrlimit(resource.RLIMIT_AS, (size + MEMORY_CAP, size + MEMORY_CAP))
    except (ImportError, OSError, ValueError, StopIteration):
        pass


def _child(list_file, x_file, out_file):
    """Check each file of ``list_file``, appending one JSON line per file to
    ``out_file`` (a "start" line first, so that the parent knows which file a crash or a
    hang happened on)."""
    X = np.load(x_file)
    files = [line.rstrip("\n") for line in open(list_file) if line.strip()]
    with open(out_file, "a") as out:
        for i, f in enumerate(files):
            if i == 1:
                _cap_memory()  # after the first file, which compiled the kernels
            out.write(json.dumps({"start": f}) + "\n")
            out.flush()
            status, detail = check_file(f, X)
            out.write(json.dumps({"file": f, "status": status, "detail": detail}) + "\n")
            out.flush()


def run_checks(
    files, x_file, per_file_timeout=60.0, compile_timeout=600.0, cache_dir=None, log=None
):
    """Check ``files`` in child processes (bounds-checked numba, own cache); returns
    {file: (status, detail)}.

    A child that dies or stops reporting for ``per_file_timeout`` seconds (longer for
    its first file, which compiles the kernels) has its current file marked failed and
    a new child goes on with the rest.
    """
    own_cache = cache_dir is None
    cache_dir = cache_dir or tempfile.mkdtemp(prefix="treeboost-mutants-numba-")
    env = dict(
        os.environ,
        NUMBA_BOUNDSCHECK="1",
        NUMBA_CACHE_DIR=cache_dir,
        PYTHONPATH=os.pathsep.join([_ROOT] + [p for p in [os.environ.get("PYTHONPATH")] if p]),
    )
    results = {}
    todo = list(files)
    work = tempfile.mkdtemp(prefix="treeboost-mutants-run-")
    try:
        while todo:
            list_file = os.path.join(work, "list.txt")
            out_file = os.path.join(work, f"out{len(results)}.jsonl")
            with open(list_file, "w") as f:
                f.write("\n".join(todo) + "\n")
            err_file = os.path.join(work, "stderr.txt")
            with open(err_file, "w") as err:
                # stderr to a file: a pipe nobody reads would block a chatty child
                proc = subprocess.Popen(
                    [
                        sys.executable,
                        os.path.abspath(__file__),
                        "--child",
                        list_file,
                        x_file,
                        out_file,
                    ],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                )
            current, last, first, pos = None, time.monotonic(), True, 0
            while True:
                done = proc.poll() is not None
                if os.path.exists(out_file):
                    with open(out_file) as f:
                        f.seek(pos)
                        chunk = f.read()
                    complete = chunk[: chunk.rfind("\n") + 1]
                    pos += len(complete)
                    for line in complete.splitlines():
                        rec = json.loads(line)
                        last = time.monotonic()
                        if "start" in rec:
                            current = rec["start"]
                            continue
                        results[rec["file"]] = (rec["status"], rec["detail"])
                        current, first = None, False
                        if log:
                            log(rec["file"], rec["status"], rec["detail"])
                if done:
                    break
                limit = compile_timeout if first else per_file_timeout
                if time.monotonic() - last > limit:
                    proc.kill()
                    proc.wait()
                    if current is not None:
                        results[current] = ("failed", f"hang: no answer in {limit:.0f} s")
                        if log:
                            log(current, "failed", "hang")
                    break
                time.sleep(0.05)
            with open(err_file, errors="replace") as err:
                stderr = err.read()
            if proc.returncode != 0 and current is not None and current not in results:
                # a signal (segmentation fault, abort) or an exit in the middle of a file
                results[current] = (
                    "failed",
                    f"child died (status {proc.returncode}): {stderr[-300:]}",
                )
                if log:
                    log(current, "failed", "crash")
            remaining = [f for f in todo if f not in results]
            if len(remaining) == len(todo):
                # the child checked nothing at all: report it rather than loop
                for f in remaining:
                    results[f] = ("failed", f"child failed before checking: {stderr[-300:]}")
                break
            todo = remaining
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if own_cache:
            shutil.rmtree(cache_dir, ignore_errors=True)
    return results


# -- the script ----------------------------------------------------------------------------


def make_all(out_dir, seed=0, sample=None, names=None):
    """Build the models and write their mutants (all, or a seeded sample of ``sample``);
    returns [(model, label, path)] and the path of X."""
    rng = random.Random(seed)
    paths = build_models(out_dir, names)
    everything = []
    for name, base in paths.items():
        for label, write in mutants(base, rng):
            everything.append((name, label, write))
    if sample is not None and sample < len(everything):
        # every "file" mutant of the container once, the draw plans' of each bagging
        # model, the rest sampled
        fixed = [
            m
            for m in everything
            if m[1].startswith("file ")
            and (m[0] == "cart_classifier" or m[1].startswith("file draw_plan"))
        ]
        rest = [m for m in everything if m not in fixed]
        everything = fixed + rng.sample(rest, sample - len(fixed))
    made = []
    for i, (name, label, write) in enumerate(everything):
        path = os.path.join(out_dir, f"m{i:06d}.tbm")
        write(path)
        made.append((name, label, path))
    return made, os.path.join(out_dir, "X.npy")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sample",
        type=int,
        default=None,
        help="check a seeded sample of this many mutants (default: all)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="seconds a mutant may take (the first of a child compiles)",
    )
    parser.add_argument("--models", nargs="*", default=None, help="only these models")
    parser.add_argument("--keep", default=None, help="write the mutants here and keep them")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0
    out_dir = args.keep or tempfile.mkdtemp(prefix="treeboost-mutants-")
    os.makedirs(out_dir, exist_ok=True)
    t0 = time.time()
    try:
        made, x_file = make_all(out_dir, args.seed, args.sample, args.models)
        print(
            f"{len(made)} mutants of {len({m for m, _, _ in made})} models written in "
            f"{time.time() - t0:.0f} s",
            flush=True,
        )
        label_of = {p: (m, lab) for m, lab, p in made}
        results = run_checks([p for _, _, p in made], x_file, args.timeout)
    finally:
        if args.keep is None:
            shutil.rmtree(out_dir, ignore_errors=True)
    counts = {"refused": 0, "worked": 0, "failed": 0}
    for status, _ in results.values():
        counts[status] += 1
    print(
        f"made {len(made)}, refused {counts['refused']}, worked {counts['worked']}, "
        f"failed {counts['failed']} ({time.time() - t0:.0f} s)"
    )
    for path, (status, detail) in sorted(results.items()):
        if status == "failed":
            model, label = label_of.get(path, ("?", "?"))
            print(f"FAILED {model}: {label}: {detail}")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
