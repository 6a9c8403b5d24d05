"""The safe model format for the ensembles: a hand-edited file whose ensemble attributes
(loss, initial score, trees per iteration, members, member weights and columns,
hyperparameters) are inconsistent is refused on load with a ValueError naming the
attribute, never loaded into a model that fails at predict."""

import io
import json
import os
import tempfile
import warnings
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import treeboost as tb

from ._model_files import used_only as _used_only
from .test_persistence_classic import json_paths

rng = np.random.RandomState(0)
X = rng.normal(size=(80, 3))
X[::7, 1] = np.nan
Y2 = (X[:, 0] > 0).astype(int)
Y3 = np.array(["a", "b", "c"])[(X[:, 0] > -0.5).astype(int) + (X[:, 2] > 0.5)]
YR = 2 * X[:, 0] + rng.normal(size=80)

MODELS = {
    "gb-binary": lambda: tb.GradientBoostingClassifier(
        n_estimators=3, max_leaf_nodes=4, min_samples_leaf=5
    ).fit(X, Y2),
    "gb-multi": lambda: tb.GradientBoostingClassifier(
        n_estimators=2, max_leaf_nodes=4, min_samples_leaf=5
    ).fit(X, Y3),
    "gb-huber": lambda: tb.GradientBoostingRegressor(
        loss="huber", n_estimators=3, max_leaf_nodes=4
    ).fit(X, YR),
    "rf": lambda: tb.RandomForestClassifier(
        n_estimators=3, max_depth=3, oob_score=True, random_state=0
    ).fit(X, Y3),
    "et-reg": lambda: tb.ExtraTreesRegressor(n_estimators=3, max_depth=3, random_state=0).fit(
        X, YR
    ),
    "bag": lambda: tb.BaggingClassifier(n_estimators=3, max_features=2, random_state=0).fit(X, Y3),
    "bag-reg": lambda: tb.BaggingRegressor(n_estimators=3, random_state=0).fit(X, YR),
    "ada": lambda: tb.AdaBoostClassifier(n_estimators=3, random_state=0).fit(X, Y3),
    "ada-reg": lambda: tb.AdaBoostRegressor(n_estimators=3, random_state=0).fit(X, YR),
}
_FITTED = {}


def _fitted(name):
    if name not in _FITTED:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _FITTED[name] = MODELS[name]()
    return _FITTED[name]


def _saved(name):
    """The JSON document and arrays of the saved model ``name`` (fresh copies)."""
    path = os.path.join(tempfile.mkdtemp(), "m.tbm")
    _fitted(name).save(path)
    with zipfile.ZipFile(path) as zf:
        doc = json.loads(zf.read("model.json"))
        with np.load(io.BytesIO(zf.read("arrays.npz"))) as npz:
            arrays = {k: npz[k] for k in npz.files}
    return doc, arrays


def _load(doc, arrays):
    buf = io.BytesIO()
    np.savez(buf, **_used_only(doc, arrays))
    path = os.path.join(tempfile.mkdtemp(), "m.tbm")
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("model.json", json.dumps(doc))
        zf.writestr("arrays.npz", buf.getvalue())
    return tb.load(path)


def _sound(model):
    """Predictions of the right shape, finite probabilities summing to one."""
    pred = model.predict(X)
    assert pred.shape == (len(X),)
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(X)
        assert proba.shape == (len(X), len(model.classes_))
        assert np.all(np.isfinite(proba))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        assert set(pred.tolist()) <= set(model.classes_.tolist())


def _obj(cls, state, ref=10_000):
    return {"__object__": f"{cls.__module__}.{cls.__qualname__}", "ref": ref, "state": state}


def _arr(arrays, value):
    key = f"x{len(arrays)}"
    arrays[key] = np.asarray(value)
    return {"__array__": key}


def _tree_value(st, arrays):
    """The value array of a tree's JSON state."""
    return arrays[st["value"]["__array__"]]


# each edit: (model, what it does to the JSON state `s` of the model and the arrays `a`,
# the message expected)
EDITS = [
    # gradient boosting: loss, initial score, trees per iteration, bookkeeping, parameters
    (
        "gb-binary",
        lambda s, a: s.update(_init_raw=_arr(a, [0.1, 0.2])),
        r"_init_raw: must have shape \(1\)",
    ),
    ("gb-binary", lambda s, a: a[s["_init_raw"]["__array__"]].fill(np.nan), "_init_raw"),
    ("gb-binary", lambda s, a: s.update(_init_raw=0.5), "_init_raw"),
    (
        "gb-binary",
        lambda s, a: s.update(_loss=_obj(tb.losses.SquaredError, {})),
        r"_loss: 2 classes need BinaryLogLoss or ExponentialLoss, got SquaredError",
    ),
    (
        "gb-binary",
        lambda s, a: s["_loss"]["state"].update(n_outputs=3),
        r"model\._loss: BinaryLogLoss has no saved attribute",
    ),
    ("gb-binary", lambda s, a: s.update(_loss=None), r"model\._loss: not a loss"),
    ("gb-binary", lambda s, a: s.pop("_loss"), "a fitted model without _loss"),
    ("gb-binary", lambda s, a: s.update(learning_rate=-1), "'learning_rate' parameter"),
    ("gb-binary", lambda s, a: s.update(n_classes_=3), r"n_classes_: must be the number"),
    ("gb-binary", lambda s, a: s.update(classes_=_arr(a, [1, 0])), "sorted and distinct"),
    (
        "gb-binary",
        lambda s, a: s.update(n_estimators_=7),
        r"n_estimators_: must be the "
        r"number of iterations in trees_ \(3\)",
    ),
    ("gb-binary", lambda s, a: s["trees_"].append([]), r"trees_: must be a list holding"),
    ("gb-binary", lambda s, a: s["trees_"].__setitem__(0, s["trees_"][0][0]), "trees_"),
    ("gb-binary", lambda s, a: s.update(train_score_=_arr(a, [1.0])), "train_score_"),
    ("gb-binary", lambda s, a: s.update(validation_score_=[]), "validation_score_"),
    (
        "gb-binary",
        lambda s, a: a.__setitem__(
            s["trees_"][1][0]["state"]["value"]["__array__"], np.zeros((3, 2))
        ),
        r"Tree\.value\): has (3 rows|2 columns), the Tree needs",
    ),
    (
        "gb-binary",
        lambda s, a: s.update(bin_mapper_=None),
        r"bin_mapper_: a builtins.NoneType is not a part",
    ),
    (
        "gb-multi",
        lambda s, a: s["trees_"][1].pop(),
        r"trees_: must be a list holding, per "
        r"iteration, a list of 3 tree",
    ),
    (
        "gb-multi",
        lambda s, a: s["_loss"]["state"].update(n_classes=4),
        r"_loss\.n_outputs: must be n_classes",
    ),
    (
        "gb-multi",
        lambda s, a: s.update(_loss=_obj(tb.losses.BinaryLogLoss, {})),
        "3 classes need MultinomialLogLoss",
    ),
    (
        "gb-multi",
        lambda s, a: s.update(_init_raw=_arr(a, [0.0, 0.0])),
        r"_init_raw: must have shape \(3\)",
    ),
    (
        "gb-huber",
        lambda s, a: s["_loss"]["state"].update(alpha=1.5),
        r"_loss\.alpha: must be in \(0, 1\)",
    ),
    ("gb-huber", lambda s, a: s["_loss"]["state"].update(delta="x"), r"_loss\.delta"),
    (
        "gb-huber",
        lambda s, a: s.update(_loss=_obj(tb.losses.BinaryLogLoss, {})),
        "a regressor needs a regression loss, got BinaryLogLoss",
    ),
    ("gb-huber", lambda s, a: s.update(loss="hinge"), "'loss' parameter"),
    (
        "gb-huber",
        lambda s, a: a[s["trees_"][0][0]["state"]["feature"]["__array__"]].__setitem__(0, 3),
        r"trees_\[0\]\[0\]\.feature: a split feature index 3 is outside \[0, 3\)",
    ),
    # forests: members of the forest's kind, on its input and classes
    ("rf", lambda s, a: s.update(estimators_=[]), "estimators_: must be a non-empty list"),
    (
        "rf",
        lambda s, a: s["estimators_"].append(_obj(tb.losses.SquaredError, {})),
        r"estimators_\[3\]: not a fitted classifier",
    ),
    (
        "rf",
        lambda s, a: s["estimators_"][0]["state"].update(n_classes_=2),
        r"estimators_\[0\]"
        r"\.n_classes_: must be the number of classes_",
    ),
    (
        "rf",
        lambda s, a: s["estimators_"][0]["state"].update(
            classes_=_arr(a, ["a", "b"]), n_classes_=2
        ),
        r"arrays of dtype <U1 are not read",
    ),
    (
        "rf",
        lambda s, a: s["estimators_"][1]["state"].update(n_features_in_=2),
        r"estimators_\[1\]\._encoder\.is_categorical_: 3 columns, the model has 2",
    ),
    (
        "rf",
        lambda s, a: a.__setitem__(
            s["estimators_"][2]["state"]["tree_"]["state"]["value"]["__array__"],
            np.full((1, 3), np.nan),
        ),
        r"Tree\.value\): has 1 rows",
    ),
    ("rf", lambda s, a: s["_oob_bits"].pop(), "_oob_bits: must hold one uint8 array per tree"),
    (
        "rf",
        lambda s, a: a[s["_bootstrap_draws"]["__array__"]].__setitem__((0, 0), 81),
        r"_bootstrap_draws: must hold \(rows, draws\) per tree",
    ),
    ("rf", lambda s, a: s.update(n_estimators=0), "'n_estimators' parameter"),
    (
        "et-reg",
        lambda s, a: s["estimators_"].__setitem__(
            0, _obj(tb.DecisionTreeClassifier, {"n_features_in_": 3})
        ),
        r"estimators_\[0\]: (not a fitted regressor|the parameter)",
    ),
    # bagging: columns and bootstrap counts per member
    (
        "bag",
        lambda s, a: a[s["estimators_features_"][0]["__array__"]].__setitem__(0, 3),
        r"estimators_features_\[0\]: values must be <= 2, got",
    ),
    (
        "bag",
        lambda s, a: s["estimators_features_"].__setitem__(1, _arr(a, [0, 1, 2])),
        r"estimators_features_\[1\]: the member reads 3 column\(s\) but has 2 features",
    ),
    ("bag", lambda s, a: s["estimators_features_"].pop(), "estimators_features_: must hold"),
    (
        "bag",
        lambda s, a: s["_draw_counts"].__setitem__(0, _arr(a, [1, 2])),
        r"_draw_counts\[0\]: must be an array of dtype uint8",
    ),
    ("bag", lambda s, a: s.update(voting="majority"), "'voting' parameter"),
    (
        "bag",
        lambda s, a: s["estimators_"][0]["state"].update(
            classes_=_arr(a, ["a", "z"]), n_classes_=2
        ),
        r"arrays of dtype <U1 are not read",
    ),
    (
        "bag-reg",
        lambda s, a: s.update(n_features_in_=10**6),
        r"model\._encoder\.is_categorical_: 3 columns, the model has 1000000",
    ),
    (
        "rf",
        lambda s, a: a[
            s["estimators_"][0]["state"]["tree_"]["state"]["value"]["__array__"]
        ].__setitem__((1, 1), 10**6),
        r"estimators_\[0\]\.tree_\.value: class fractions must be >= 0 and sum to 1",
    ),
    (
        "bag-reg",
        lambda s, a: s["estimators_"][0]["state"]["tree_"]["state"].update(
            value=_arr(a, np.zeros((1, 1)))
        ),
        r"Tree\.value\): has 1 rows",
    ),
    # AdaBoost: one positive weight and one error per member
    (
        "ada",
        lambda s, a: a[s["estimator_weights_"]["__array__"]].__setitem__(0, np.nan),
        r"estimator_weights_: must be finite",
    ),
    ("ada", lambda s, a: a[s["estimator_weights_"]["__array__"]].fill(0.0), "estimator_weights_"),
    ("ada", lambda s, a: s["estimators_"].pop(), r"estimator_weights_: must have shape \(2\)"),
    ("ada", lambda s, a: s.update(estimator_errors_=_arr(a, [0.1])), "estimator_errors_"),
    (
        "ada",
        lambda s, a: s["estimators_"][1]["state"].update(n_features_in_=2),
        r"estimators_\[1\]\.",
    ),
    ("ada", lambda s, a: s.update(learning_rate=0), "'learning_rate' parameter"),
    (
        "ada-reg",
        lambda s, a: a[s["estimator_weights_"]["__array__"]].__setitem__(1, -1.0),
        "estimator_weights_",
    ),
    (
        "ada-reg",
        lambda s, a: s["estimators_"][0]["state"]["tree_"]["state"].update(
            value=_arr(
                a,
                np.zeros(
                    (
                        len(
                            a[
                                s["estimators_"][0]["state"]["tree_"]["state"]["feature"][
                                    "__array__"
                                ]
                            ]
                        ),
                        2,
                    )
                ),
            )
        ),
        r"Tree\.value\): has 2 columns, the Tree needs 1",
    ),
]


@pytest.mark.parametrize(
    "name, edit, message", EDITS, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(EDITS)]
)
def test_inconsistent_ensemble_is_refused(name, edit, message):
    doc, arrays = _saved(name)
    edit(doc["model"]["state"], arrays)
    with pytest.raises(ValueError, match=message):
        _load(doc, arrays)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_unedited_files_load(name):
    """The control of the tests above: the same files, unedited, load and predict the
    same."""
    model = _fitted(name)
    loaded = _load(*_saved(name))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    _sound(loaded)
    if hasattr(model, "estimators_samples_"):
        for a, b in zip(loaded.estimators_samples_, model.estimators_samples_):
            np.testing.assert_array_equal(a, b)


def test_format_version_1_files_are_migrated():
    """Version 1 kept bagging's draw counts as ``estimators_samples_`` (now a property)
    and no sample sizes for forests: such files load and predict; the forest says its
    samples are unknown, and a warm start still adds trees."""
    for name in ("bag", "rf"):
        doc, arrays = _saved(name)
        assert doc["format_version"] == 2
        doc["format_version"] = 1
        state = doc["model"]["state"]
        if name == "bag":
            state["estimators_samples_"] = state.pop("_draw_counts")
        else:
            del state["_bootstrap_draws"]
        loaded = _load(doc, arrays)
        model = _fitted(name)
        np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
        if name == "bag":
            for a, b in zip(loaded.estimators_samples_, model.estimators_samples_):
                np.testing.assert_array_equal(a, b)
        else:
            with pytest.raises(AttributeError, match="format version 1"):
                loaded.estimators_samples_
            loaded.set_params(warm_start=True, n_estimators=5).fit(X, Y3)
            assert len(loaded.estimators_) == 5
    doc, arrays = _saved("bag")
    doc["model"]["state"]["estimators_samples_"] = doc["model"]["state"].pop("_draw_counts")
    with pytest.raises(ValueError, match="estimators_samples_"):
        _load(doc, arrays)  # a version-2 file with the old name is not migrated


def test_bagging_member_trees_are_checked_against_the_member_columns():
    """A member fitted on 2 of the 3 columns must not test column 2: it predicts on its
    own 2 columns (the check used the ensemble's 3 before)."""
    doc, arrays = _saved("bag")
    tree = doc["model"]["state"]["estimators_"][0]["state"]["tree_"]["state"]
    feature = arrays[tree["feature"]["__array__"]]
    feature[np.flatnonzero(feature >= 0)[0]] = 2
    with pytest.raises(
        ValueError,
        match=r"estimators_\[0\]\.tree_\.feature: a split feature "
        r"index 2 is outside \[0, 2\)",
    ):
        _load(doc, arrays)


def test_decision_tree_value_must_match_its_classes():
    path = os.path.join(tempfile.mkdtemp(), "m.tbm")
    tb.DecisionTreeClassifier(max_depth=2).fit(X, Y3).save(path)
    with zipfile.ZipFile(path) as zf:
        doc = json.loads(zf.read("model.json"))
        with np.load(io.BytesIO(zf.read("arrays.npz"))) as npz:
            arrays = {k: npz[k] for k in npz.files}
    key = doc["model"]["state"]["tree_"]["state"]["value"]["__array__"]
    arrays[key] = arrays[key][:, :2].copy()
    with pytest.raises(
        ValueError,
        match=r"Tree\.value\): has 2 columns, the Tree "
        r"needs 3",
    ):
        _load(doc, arrays)
    arrays[key] = -np.ones((arrays[key].shape[0], 3))
    with pytest.raises(ValueError, match="class fractions must be >= 0"):
        _load(doc, arrays)


# -- random edits ---------------------------------------------------------------------------

JUNK = [
    -1,
    0,
    3,
    10**6,
    2**70,
    "x",
    None,
    [],
    {},
    1.5,
    -0.5,
    True,
    {"__float__": "nan"},
    {"__float__": "inf"},
    [1, 2],
    {"__array__": "a0"},
]
JUNK_ARRAYS = [
    np.array([]),
    np.zeros(1),
    np.array([np.nan]),
    np.array([-1]),
    np.array([10**6]),
    np.zeros((2, 2)),
    np.array([True]),
    np.arange(3.0),
]


#: parts whose own checks have their own tests (test_persistence*.py): the random JSON
#: edits go to the ensembles' attributes and parameters instead
_COVERED = (
    "engine.predict.tree.Tree",
    "engine.binning.mapper.BinMapper",
    "_input.encoding.FeatureEncoder",
)


_DOCS = {}


def _doc(name):
    if name not in _DOCS:
        doc, arrays = _saved(name)
        _DOCS[name] = (json.dumps(doc), arrays, list(json_paths(doc["model"], skip=_COVERED)))
    return _DOCS[name]


@settings(
    max_examples=120, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
@given(
    name=st.sampled_from(sorted(MODELS)),
    where=st.floats(0, 1, exclude_max=True),
    junk=st.integers(0, len(JUNK) - 1),
    in_array=st.booleans(),
    value=st.integers(0, len(JUNK_ARRAYS) - 1),
    pos=st.floats(0, 1, exclude_max=True),
)
def test_random_edits_are_refused_or_harmless(name, where, junk, in_array, value, pos):
    """Property: replacing one value of the JSON by junk (a wrong type, NaN, a huge
    number, a stray array reference), or one array by a junk array or one of its entries
    by junk, is refused with a ValueError or loads a model whose predictions are sound --
    never another exception at load or at predict."""
    text, arrays0, paths = _doc(name)
    doc = json.loads(text)
    arrays = {k: v.copy() for k, v in arrays0.items()}
    if in_array:
        key = sorted(arrays)[int(where * len(arrays))]
        a = arrays[key]
        if a.size and pos < 0.5:  # one entry (cast to the array's dtype)
            flat = a.reshape(-1)
            new = JUNK_ARRAYS[value].reshape(-1)[:1]
            if new.size:
                with np.errstate(invalid="ignore", over="ignore"):
                    try:
                        flat[int(pos * 2 * flat.size)] = new[0]
                    except (OverflowError, ValueError):
                        return
        else:
            arrays[key] = JUNK_ARRAYS[value]
        edited = key
    else:
        path = paths[int(where * len(paths))]
        node = doc["model"]
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = JUNK[junk]
        edited = path
    try:
        model = _load(doc, arrays)
    except ValueError:
        return
    try:
        _sound(model)
    except ValueError as exc:  # only: the file renamed a feature
        assert "feature names" in str(exc), edited
