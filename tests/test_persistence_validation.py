"""Model files that cannot hurt: the cases of issue 14, each refused before use.

Each test edits one part of a saved file as a hostile or careless hand would and checks
that :func:`treeboost.load` raises a ``ValueError`` naming the file and the part (the
mutation test, ``tests/test_mutation.py``, covers the rest systematically).
"""

import ast
import json
import os
import pathlib
import time
import zipfile

import numpy as np
import pytest
from sklearn.datasets import load_iris

import treeboost
from treeboost import persistence

from ._model_files import read_parts as _read, write_parts as _write


def _iris():
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[::9, 1] = np.nan
    return X, y


def _with_category(X, y):
    """X and a categorical column of codes that predict y (every fifth row code 3)."""
    return np.column_stack([X, np.where(np.arange(X.shape[0]) % 5 == 0, 3, y)])


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """One small model of each family the cases below edit, saved once."""
    d = tmp_path_factory.mktemp("models")
    X, y = _iris()
    Xc = _with_category(X, y)
    models = {
        "cart": treeboost.DecisionTreeClassifier(max_depth=3).fit(X, y),
        "cart_cat": treeboost.DecisionTreeClassifier(max_depth=3, categorical_features=[4]).fit(
            Xc, y
        ),
        "forest": treeboost.RandomForestClassifier(3, max_depth=3, random_state=0).fit(X, y),
        "gb": treeboost.GradientBoostingRegressor(n_estimators=3, max_depth=2).fit(X, X[:, 0]),
    }
    return {k: (m.save(d / f"{k}.tbm"), m) for k, m in models.items()}, X


def _copy_edit(src, dst, edit):
    doc, arrays = _read(src)
    edit(doc, arrays)
    _write(dst, doc, arrays)
    return dst


def _tree_key(doc, name, tree_path=("tree_",)):
    obj = doc["model"]
    for p in tree_path:
        obj = obj["state"][p] if isinstance(p, str) else obj[p]
    return obj["state"][name]["__array__"]


def _refused(path, *parts):
    with pytest.raises(ValueError) as info:
        treeboost.load(path)
    msg = str(info.value)
    assert str(path) in msg
    for p in parts:
        assert p in msg, msg
    return msg


@pytest.mark.parametrize("value", [0, -1])
def test_edited_depth_is_refused(saved, tmp_path, value):
    (models, _) = saved
    path = _copy_edit(
        models["cart"][0],
        tmp_path / "m.tbm",
        lambda d, a: a.__setitem__(
            _tree_key(d, "depth"), np.full_like(a[_tree_key(d, "depth")], value)
        ),
    )
    _refused(path, "tree_.depth")


def test_numeric_splits_flagged_categorical_are_refused(saved, tmp_path):
    (models, _) = saved

    def edit(d, a):
        key = _tree_key(d, "is_categorical")
        left = a[_tree_key(d, "children_left")]
        a[key] = left >= 0

    path = _copy_edit(models["cart"][0], tmp_path / "m.tbm", edit)
    _refused(path, "tree_")


@pytest.mark.parametrize("code", [3, -1])
def test_edited_missing_code_is_refused(saved, tmp_path, code):
    (models, _) = saved

    def edit(d, a):
        d["model"]["state"]["bin_mapper_"]["state"]["missing_values_code_"] = code

    path = _copy_edit(models["cart"][0], tmp_path / "m.tbm", edit)
    _refused(path, "missing_values_code_")


def test_shortened_bin_thresholds_are_refused(saved, tmp_path):
    (models, _) = saved

    def edit(d, a):
        key = d["model"]["state"]["bin_mapper_"]["state"]["bin_thresholds_"][0]["__array__"]
        a[key] = a[key][:-3]

    path = _copy_edit(models["cart"][0], tmp_path / "m.tbm", edit)
    _refused(path, "bin_mapper_")


def test_huge_n_features_and_draws_are_refused(saved, tmp_path):
    (models, _) = saved
    path = _copy_edit(
        models["cart"][0],
        tmp_path / "m.tbm",
        lambda d, a: d["model"]["state"]["tree_"]["state"].__setitem__("n_features", 10**12),
    )
    _refused(path, "n_features")

    def draws(d, a):
        key = d["model"]["state"]["_bootstrap_draws"]["__array__"]
        a[key] = a[key].copy()
        a[key][:, 1] = 10**18

    path = _copy_edit(models["forest"][0], tmp_path / "f.tbm", draws)
    _refused(path, "_bootstrap_draws")


@pytest.mark.parametrize(
    "name, value, part",
    [
        ("value", np.nan, "value"),
        ("threshold", np.nan, "threshold"),
        ("threshold", -np.inf, "threshold"),
        ("gain", np.inf, "gain"),
    ],
)
def test_non_finite_tree_numbers_are_refused(saved, tmp_path, name, value, part):
    (models, _) = saved

    def edit(d, a):
        key = _tree_key(d, name)
        a[key] = a[key].copy()
        a[key].flat[0] = value

    path = _copy_edit(models["cart"][0], tmp_path / "m.tbm", edit)
    _refused(path, part)


def test_huge_boosting_leaf_values_are_refused(saved, tmp_path):
    (models, _) = saved

    def edit(d, a):
        tree = d["model"]["state"]["trees_"][0][0]
        key = tree["state"]["value"]["__array__"]
        a[key] = np.full_like(a[key], 1e308)

    path = _copy_edit(models["gb"][0], tmp_path / "m.tbm", edit)
    _refused(path, "1e300")


@pytest.mark.parametrize("dtype", [np.float16, np.complex128, np.int64, np.float32])
def test_retyped_tree_arrays_are_refused_before_reading(saved, tmp_path, dtype):
    (models, _) = saved

    def edit(d, a):
        key = _tree_key(d, "threshold")
        a[key] = np.nan_to_num(a[key]).astype(dtype)

    path = _copy_edit(models["cart"][0], tmp_path / "m.tbm", edit)
    _refused(path, "arrays.npz/")


def test_object_array_is_refused(saved, tmp_path):
    (models, _) = saved
    path = _copy_edit(
        models["cart"][0],
        tmp_path / "m.tbm",
        lambda d, a: a.__setitem__(_tree_key(d, "value"), np.array([{"a": 1}], dtype=object)),
    )
    _refused(path, "arrays.npz/")


def test_unused_large_array_is_refused_without_reading_it(saved, tmp_path):
    (models, _) = saved
    doc, arrays = _read(models["cart"][0])
    path = tmp_path / "m.tbm"
    _write(path, doc, {**arrays, "zzz": np.zeros(2**24)})  # 128 MB of zeros
    assert os.path.getsize(path) < 2**20
    t = time.perf_counter()
    _refused(path, "arrays.npz")
    assert time.perf_counter() - t < 5


def test_unused_small_array_is_refused(saved, tmp_path):
    (models, _) = saved
    doc, arrays = _read(models["cart"][0])
    path = tmp_path / "m.tbm"
    _write(path, doc, {**arrays, "zzz": np.zeros(3)})
    _refused(path, "zzz", "does not use")


def test_huge_string_dtype_is_refused(saved, tmp_path):
    (models, _) = saved
    doc, arrays = _read(models["forest"][0])
    doc["model"]["state"]["feature_names_in_"] = {
        "__objarray__": ["a", "b", "c", "d"],
        "shape": [4],
        "dtype": "<U999999999",
    }
    path = tmp_path / "m.tbm"
    _write(path, doc, arrays)
    _refused(path, "dtype")


def test_json_bombs_are_refused(saved, tmp_path):
    (models, _) = saved
    doc, arrays = _read(models["cart"][0])
    path = tmp_path / "ws.tbm"
    text = json.dumps(doc)
    _write(path, doc, arrays, json_text=text[:-1] + " " * (persistence.MAX_JSON_BYTES + 10) + "}")
    _refused(path, "model.json")
    path = tmp_path / "deep.tbm"
    _write(
        path,
        doc,
        arrays,
        json_text='{"format": "treeboost-model", "model": ' + "[" * 100_000 + "]" * 100_000 + "}",
    )
    _refused(path, "model.json")
    path = tmp_path / "deep2.tbm"
    _write(
        path,
        doc,
        arrays,
        json_text='{"format": "treeboost-model", "model": ' + "[" * 300 + "]" * 300 + "}",
    )
    _refused(path, "model.json", "nested")


@pytest.mark.parametrize("how", ["encrypted", "compression", "extra"])
def test_zip_oddities_are_value_errors(saved, tmp_path, how):
    (models, _) = saved
    path = tmp_path / "m.tbm"
    data = bytearray(open(models["cart"][0], "rb").read())
    if how == "extra":
        open(path, "wb").write(bytes(data))
        with zipfile.ZipFile(path, "a") as zf:
            zf.writestr("evil.pkl", b"x")
        _refused(path, "evil.pkl")
        return
    for sig, flag_at, method_at in ((b"PK\x03\x04", 6, 8), (b"PK\x01\x02", 8, 10)):
        i = data.find(sig)
        while i >= 0:
            if how == "encrypted":
                data[i + flag_at] |= 1
            else:
                data[i + method_at : i + method_at + 2] = (99).to_bytes(2, "little")
            i = data.find(sig, i + 4)
    open(path, "wb").write(bytes(data))
    _refused(path)


def test_directory_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match="directory"):
        treeboost.load(tmp_path)
    with pytest.raises(FileNotFoundError):
        treeboost.load(tmp_path / "nope.tbm")


def test_categorical_model_round_trips_and_bitsets_are_required(saved, tmp_path):
    (models, X) = saved
    path, model = models["cart_cat"]
    Xc = _with_category(X, load_iris(return_X_y=True)[1])
    loaded = treeboost.load(path)
    np.testing.assert_array_equal(loaded.predict_proba(Xc), model.predict_proba(Xc))
    assert model.tree_.is_categorical.any()

    def edit(d, a):
        key = _tree_key(d, "_categories_left")
        a[key] = np.zeros((0, 4), np.uint64)

    _refused(_copy_edit(path, tmp_path / "m.tbm", edit), "category sets")


# -- atomic save ---------------------------------------------------------------------------


def test_failing_save_keeps_the_old_file(saved, tmp_path, monkeypatch):
    (models, X) = saved
    path = tmp_path / "model.tbm"
    model = models["cart"][1]
    model.save(path)
    before = path.read_bytes()

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(persistence._container.np, "savez", boom)
    with pytest.raises(OSError):
        models["gb"][1].save(path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["model.tbm"]  # no temporary file left
    np.testing.assert_array_equal(treeboost.load(path).predict(X), model.predict(X))


def test_atomic_write_helper(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with persistence.atomic_write(target, "w") as f:
            f.write("half")
            raise RuntimeError("fails midway")
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["out.csv"]
    with persistence.atomic_write(target, "w", newline="") as f:
        f.write("new\n")
    assert target.read_text() == "new\n"
    assert os.listdir(tmp_path) == ["out.csv"]


# -- the design ----------------------------------------------------------------------------


def test_every_registered_class_validates_itself():
    classes = persistence.registered_classes()
    names = {c.__name__ for c in classes.values()}
    for expected in (
        "Tree",
        "BinMapper",
        "FeatureEncoder",
        "MultiwayTree",
        "Rule",
        "Condition",
        "DecisionTreeClassifier",
        "GradientBoostingClassifier",
        "RandomForestRegressor",
        "BaggingClassifier",
        "AdaBoostRegressor",
        "HuberLoss",
        "MultinomialLogLoss",
        "RuleListClassifier",
        "C45Classifier",
    ):
        assert expected in names
    for cls in classes.values():
        assert "_validate_state" in {k for c in cls.__mro__ for k in vars(c)}


def test_old_module_names_still_load(saved, tmp_path):
    (models, X) = saved
    doc, arrays = _read(models["cart"][0])
    text = (
        json.dumps(doc)
        .replace("treeboost.engine.predict.tree.Tree", "treeboost.trees.tree.Tree")
        .replace("treeboost.engine.binning.mapper.", "treeboost.trees.binning.")
    )
    assert "treeboost.trees.tree.Tree" in text
    path = tmp_path / "old.tbm"
    _write(path, doc, arrays, json_text=text)
    np.testing.assert_array_equal(treeboost.load(path).predict(X), models["cart"][1].predict(X))


def test_the_persistence_package_imports_no_estimator():
    pkg = pathlib.Path(persistence.__file__).parent
    for src in pkg.glob("*.py"):
        for node in ast.walk(ast.parse(src.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level >= 2:
                # only the version string of the package, and the atomic file writer
                # (treeboost._atomic, which imports numpy and the standard library only)
                assert (
                    node.module is None and [a.name for a in node.names] == ["__version__"]
                ) or node.module == "_atomic", (src.name, node.module)
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                assert not (node.module or "").startswith("treeboost"), src.name


def test_command_line_record_is_saved_and_checked(saved, tmp_path):
    """The ``treeboost`` command stores its record of the training data in the model."""
    (models, X) = saved
    model = models["cart"][1]
    model.treeboost_cli_ = {
        "target": "label",
        "task": "classification",
        "columns": ["a", "b", "c", "d"],
    }
    try:
        path = model.save(tmp_path / "m.tbm")
    finally:
        del model.treeboost_cli_
    assert treeboost.load(path).treeboost_cli_["columns"] == ["a", "b", "c", "d"]

    def edit(d, a):
        d["model"]["state"]["treeboost_cli_"]["__dict__"]["columns"] = ["a"]

    _refused(_copy_edit(path, tmp_path / "bad.tbm", edit), "treeboost_cli_")
