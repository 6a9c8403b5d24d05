"""The safe model format: bit-for-bit round trips, and crafted files refused clearly."""

import io
import json
import os
import pickle
import zipfile

import joblib
import numpy as np
import pytest
from sklearn.datasets import load_iris, make_regression

import treeboost
from treeboost import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
)


def _titanic():
    pytest.importorskip("pandas")
    from treeboost.datasets import load_titanic

    d = load_titanic()
    return d.data[["Pclass", "Sex", "Age", "SibSp", "Fare", "Embarked"]], d.target


CLASSIFIERS = [
    DecisionTreeClassifier(max_depth=5, random_state=0),
    DecisionTreeClassifier(criterion="entropy", max_leaf_nodes=9, random_state=0),
    GradientBoostingClassifier(n_estimators=15, random_state=0),
    treeboost.RandomForestClassifier(n_estimators=5, oob_score=True, random_state=0),
    treeboost.ExtraTreesClassifier(n_estimators=5, random_state=0),
    treeboost.BaggingClassifier(n_estimators=4, max_features=0.5, random_state=0),
    treeboost.AdaBoostClassifier(n_estimators=5, random_state=0),
    treeboost.C45Classifier(),
    treeboost.ID3Classifier(n_bins=4, pruning="pessimistic"),
    treeboost.RuleListClassifier(),
]
REGRESSORS = [
    DecisionTreeRegressor(max_depth=4, random_state=0),
    GradientBoostingRegressor(loss="huber", n_estimators=10, random_state=0),
    GradientBoostingRegressor(loss="quantile", alpha=0.3, n_estimators=10),
    treeboost.RandomForestRegressor(n_estimators=5, random_state=0),
    treeboost.BaggingRegressor(n_estimators=4, random_state=0),
    treeboost.AdaBoostRegressor(n_estimators=5, random_state=0),
]


def _outputs(model, X):
    out = [model.predict(X)]
    for name in ("predict_proba", "decision_function"):
        if hasattr(model, name):
            out.append(getattr(model, name)(X))
    return out


@pytest.mark.parametrize("est", CLASSIFIERS, ids=lambda e: type(e).__name__)
def test_classifier_round_trip_bit_for_bit(est, tmp_path):
    X, y = _titanic()
    model = est.fit(X, y)
    path = model.save(tmp_path / "model.tbm")
    loaded = treeboost.load(path)
    assert type(loaded) is type(model)
    assert loaded.get_params() == model.get_params()
    for a, b in zip(_outputs(model, X), _outputs(loaded, X)):
        np.testing.assert_array_equal(a, b)
    assert list(loaded.feature_names_in_) == list(model.feature_names_in_)


@pytest.mark.parametrize("est", REGRESSORS, ids=lambda e: type(e).__name__)
def test_regressor_round_trip_bit_for_bit(est, tmp_path):
    X, y = make_regression(n_samples=300, n_features=6, random_state=0)
    X[::7, 2] = np.nan
    model = est.fit(X, y)
    loaded = treeboost.load(treeboost.save(model, tmp_path / "m.tbm"))
    np.testing.assert_array_equal(model.predict(X), loaded.predict(X))
    assert loaded.get_params() == model.get_params()


def test_pickle_and_joblib_still_work(tmp_path):
    X, y = load_iris(return_X_y=True)
    model = GradientBoostingClassifier(n_estimators=5).fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    joblib.dump(model, tmp_path / "m.joblib")
    np.testing.assert_array_equal(joblib.load(tmp_path / "m.joblib").predict(X), model.predict(X))


# -- crafted and broken files ---------------------------------------------------------------


def _saved(tmp_path):
    X, y = load_iris(return_X_y=True)
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    return model.save(tmp_path / "model.tbm"), X


def _rewrite(path, edit_doc=None, edit_arrays=None):
    with zipfile.ZipFile(path) as zf:
        doc = json.loads(zf.read("model.json"))
        with np.load(io.BytesIO(zf.read("arrays.npz"))) as npz:
            arrays = {k: npz[k] for k in npz.files}
    if edit_doc:
        edit_doc(doc)
    if edit_arrays:
        edit_arrays(doc, arrays)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("model.json", json.dumps(doc))
        zf.writestr("arrays.npz", buf.getvalue())


def _tree_array(doc, arrays, name):
    return arrays[doc["model"]["state"]["tree_"]["state"][name]["__array__"]]


def test_newer_format_version_is_refused(tmp_path):
    path, _ = _saved(tmp_path)
    _rewrite(path, edit_doc=lambda d: d.update(format_version=99))
    with pytest.raises(ValueError, match="version 99"):
        treeboost.load(path)


def test_truncated_file_is_refused(tmp_path):
    path, _ = _saved(tmp_path)
    data = open(path, "rb").read()
    open(path, "wb").write(data[: len(data) // 2])
    with pytest.raises(ValueError, match="not a treeboost model"):
        treeboost.load(path)


def test_pickle_payload_renamed_is_refused_and_not_executed(tmp_path):
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    path = tmp_path / "evil.tbm"
    path.write_bytes(pickle.dumps(Payload()))
    with pytest.raises(ValueError, match="not a treeboost model"):
        treeboost.load(path)
    assert not marker.exists()


def test_pickled_array_inside_the_archive_is_refused(tmp_path):
    path, _ = _saved(tmp_path)

    def edit(doc, arrays):
        key = doc["model"]["state"]["tree_"]["state"]["value"]["__array__"]
        arrays[key] = np.array([{"a": 1}], dtype=object)

    with zipfile.ZipFile(path) as zf:
        doc = json.loads(zf.read("model.json"))
        with np.load(io.BytesIO(zf.read("arrays.npz"))) as npz:
            arrays = {k: npz[k] for k in npz.files}
    edit(doc, arrays)
    buf = io.BytesIO()
    np.savez(buf, **arrays)  # an object array needs pickle inside the npz
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("model.json", json.dumps(doc))
        zf.writestr("arrays.npz", buf.getvalue())
    with pytest.raises(ValueError):
        treeboost.load(path)


def test_unknown_class_is_refused(tmp_path):
    path, _ = _saved(tmp_path)
    _rewrite(path, edit_doc=lambda d: d["model"].update({"__object__": "os.system"}))
    with pytest.raises(ValueError, match="does not load"):
        treeboost.load(path)


@pytest.mark.parametrize(
    "corruption, message",
    [
        ("child_out_of_range", "out of range"),
        ("cycle", "out of range|points backwards"),
        ("shared_child", "do not form a tree"),
        ("feature_out_of_range", "feature index"),
        ("short_array", "rows"),
    ],
)
def test_inconsistent_tree_arrays_are_refused(tmp_path, corruption, message):
    path, X = _saved(tmp_path)

    def edit(doc, arrays):
        left = _tree_array(doc, arrays, "children_left")
        right = _tree_array(doc, arrays, "children_right")
        feature = _tree_array(doc, arrays, "feature")
        if corruption == "child_out_of_range":
            left[0] = 10_000
        elif corruption == "cycle":
            i = int(np.flatnonzero(left > 0)[-1])
            left[i] = 0
        elif corruption == "shared_child":
            right[0] = left[0]
        elif corruption == "feature_out_of_range":
            feature[0] = 17
        elif corruption == "short_array":
            key = doc["model"]["state"]["tree_"]["state"]["threshold"]["__array__"]
            arrays[key] = arrays[key][:-1]

    _rewrite(path, edit_arrays=edit)
    with pytest.raises(ValueError, match=message):
        treeboost.load(path)


def test_saving_a_foreign_object_names_the_attribute(tmp_path):
    X, y = load_iris(return_X_y=True)
    model = DecisionTreeClassifier().fit(X, y)
    model.extra_ = object()
    with pytest.raises(TypeError, match="extra_"):
        model.save(tmp_path / "m.tbm")
    assert not os.path.exists(tmp_path / "m.tbm")  # nothing half-written
