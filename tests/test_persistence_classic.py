"""The safe model format for the classic learners: ID3 / C4.5 multiway trees (grown and
pruned) and the C4.5rules rule list round-trip bit for bit, and hand-edited files whose
trees, columns or rules are inconsistent are refused with a ValueError naming the fault."""

import io
import json
import warnings
import zipfile

import numpy as np
import pytest

import treeboost
from treeboost import C45Classifier, ID3Classifier, RuleListClassifier
from treeboost.trees import pruning

pd = pytest.importorskip("pandas")

from ._model_files import read_parts as _read, used_only as _used_only, write_parts


def _write(path, doc, arrays):
    write_parts(path, doc, _used_only(doc, arrays), compression=zipfile.ZIP_STORED)


def _data(n=120, seed=0):
    """Two categorical columns (3 and 2 categories), a continuous and an integer one."""
    rng = np.random.RandomState(seed)
    X = pd.DataFrame(
        {
            "c": pd.Categorical(rng.choice(["a", "b", "c"], n)),
            "two": pd.Categorical(rng.choice(["u", "v"], n)),
            "x": rng.normal(size=n),
            "k": rng.randint(0, 3, n).astype(float),
        }
    )
    X.loc[::11, "x"] = np.nan  # missing values: fractional branches
    y = np.where((X.c == "a") ^ (X.x > 0) ^ (X.two == "u"), "yes", "no")
    return X, y


@pytest.fixture(scope="module")
def data():
    return _data()


def _outputs(model, X):
    return model.predict(X), model.predict_proba(X)


def _assert_same(model, loaded, X):
    assert type(loaded) is type(model)
    for a, b in zip(_outputs(model, X), _outputs(loaded, X)):
        np.testing.assert_array_equal(a, b)


# -- round trips ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: C45Classifier(pruning="pessimistic", confidence_factor=0.1),
        lambda: C45Classifier(pruning="pre", random_state=0),
        lambda: ID3Classifier(n_bins=3, pruning="post", random_state=0),
        lambda: ID3Classifier(n_bins=4, max_depth=2, tie_break=["k"]),
    ],
    ids=["c45-pessimistic", "c45-pre", "id3-post", "id3-tie-break"],
)
def test_pruned_classic_trees_round_trip(make, data, tmp_path):
    X, y = data
    model = make().fit(X, y)
    loaded = treeboost.load(model.save(tmp_path / "m.tbm"))
    _assert_same(model, loaded, X)
    assert loaded.get_params() == model.get_params()
    assert loaded.tree_.node_count == model.tree_.node_count
    if model.pruning is not None:
        assert loaded.unpruned_tree_.node_count == model.unpruned_tree_.node_count
        assert loaded.pruning_report_ == model.pruning_report_
    # the split reports come back too (NaN where an attribute was not a candidate)
    pd.testing.assert_frame_equal(loaded.split_report(0), model.split_report(0))
    assert treeboost.inspection.export_rules(loaded) == treeboost.inspection.export_rules(model)


@pytest.mark.parametrize(
    "prune",
    [
        lambda m, X, y: pruning.pessimistic_pruning(m, confidence_factor=0.05),
        lambda m, X, y: pruning.reduced_error_pruning(m, X, y),
        lambda m, X, y: pruning.prune_ccp(m, 0.01),
    ],
    ids=["pessimistic", "reduced-error", "ccp"],
)
def test_pruning_function_output_round_trips(prune, data, tmp_path):
    X, y = data
    pruned = prune(C45Classifier().fit(X, y), X, y)
    loaded = treeboost.load(pruned.save(tmp_path / "m.tbm"))
    _assert_same(pruned, loaded, X)
    np.testing.assert_array_equal(loaded.tree_.node_map_, pruned.tree_.node_map_)


@pytest.mark.parametrize(
    "make",
    [
        lambda: RuleListClassifier(),
        lambda: RuleListClassifier(
            C45Classifier(pruning="pessimistic", min_samples_leaf=2), confidence_factor=0.1
        ),
        lambda: RuleListClassifier(ID3Classifier(n_bins=3), generalize=False),
        lambda: RuleListClassifier(treeboost.DecisionTreeClassifier(max_depth=4, random_state=0)),
    ],
    ids=["default", "c45-pruned", "id3-not-generalised", "cart"],
)
def test_rule_list_round_trips_bit_for_bit(make, data, tmp_path):
    X, y = data
    model = make().fit(X, y)
    loaded = treeboost.load(model.save(tmp_path / "rules.tbm"))
    _assert_same(model, loaded, X)
    Xn = X.copy()
    Xn.loc[::3, "c"] = np.nan  # rules that do not fire
    _assert_same(model, loaded, Xn)
    a, b = model.get_params(), loaded.get_params()
    if model.estimator is not None:  # an estimator object: by value
        assert type(a.pop("estimator")) is type(b.pop("estimator"))
    assert a == b
    assert loaded.export_text() == model.export_text()
    assert [str(r) for r in loaded.rules_] == [str(r) for r in model.rules_]
    for r, s in zip(model.rules_, loaded.rules_):
        assert r.extra["dropped"] == s.extra["dropped"]
        np.testing.assert_array_equal(r.extra["distribution"], s.extra["distribution"])
    assert loaded.default_class_ == model.default_class_


def test_rule_list_file_holds_data_only(data, tmp_path):
    """No pickle in the archive; the rules are Rule / Condition dataclass records."""
    X, y = data
    path = RuleListClassifier().fit(X, y).save(tmp_path / "rules.tbm")
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == ["arrays.npz", "model.json"]
        text = zf.read("model.json").decode()
        np.load(io.BytesIO(zf.read("arrays.npz")), allow_pickle=False)
    names = set(_object_names(json.loads(text)))
    assert "treeboost.inspection.rules.Rule" in names
    assert "treeboost.inspection.rules.Condition" in names
    assert all(n.startswith("treeboost.") for n in names)


def _object_names(obj):
    if isinstance(obj, dict):
        if "__object__" in obj:
            yield obj["__object__"]
        for v in obj.values():
            yield from _object_names(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _object_names(v)


# -- crafted files: multiway trees ----------------------------------------------------------


class _Edit:
    """Access to one saved model's JSON and arrays, by attribute path."""

    def __init__(self, doc, arrays):
        self.doc, self.arrays = doc, arrays

    def state(self, *path):
        node = self.doc["model"]
        for key in path:
            node = node["state"][key] if isinstance(key, str) else node[key]
        return node["state"] if isinstance(node, dict) and "state" in node else node

    def array(self, entry):
        return self.arrays[entry["__array__"]]

    def set_array(self, entry, value):
        self.arrays[entry["__array__"]] = value


def _first(tree, kind):
    """First internal node of a kind: "cat2" / "cat3" (a 2- / 3-way categorical test),
    "num" (a threshold test), "inner" (an internal node that is not the root)."""
    for i in range(tree.node_count):
        k = len(tree.children[i])
        if tree.feature[i] < 0:
            continue
        if (
            (kind == "num" and not tree.is_categorical[i])
            or (kind == f"cat{k}" and tree.is_categorical[i])
            or (kind == "inner" and i > 0)
        ):
            return i
    raise AssertionError(f"no {kind} node")


@pytest.fixture(scope="module")
def c45(data):
    X, y = data
    return C45Classifier().fit(X, y)


def _corrupt_tree(edit, tree, corruption):
    """Apply one corruption to the saved ``tree_`` (``tree``: the fitted one, same ids)."""
    st = edit.state("tree_")
    kids = st["children"]
    arr = edit.array
    if corruption == "child_out_of_range":
        arr(kids[0])[0] = 10_000
    elif corruption == "negative_child":
        arr(kids[0])[-1] = -3
    elif corruption == "cycle":
        arr(kids[_first(tree, "inner")])[0] = 0
    elif corruption == "self_loop":
        i = _first(tree, "inner")
        arr(kids[i])[0] = i
    elif corruption == "node_reachable_twice":
        k = arr(kids[0])
        k[1] = k[0]
    elif corruption == "node_shared_between_parents":
        # the first child of the root's last child also hung under the root's first child
        i, j = int(tree.children[0][0]), int(tree.children[0][-1])
        assert tree.feature[i] >= 0 and tree.feature[j] >= 0
        arr(kids[i])[-1] = tree.children[j][0]
    elif corruption == "feature_out_of_range":
        arr(st["feature"])[0] = 17
    elif corruption == "negative_feature":
        arr(st["feature"])[_first(tree, "inner")] = -2
    elif corruption == "short_threshold":
        edit.set_array(st["threshold"], arr(st["threshold"])[:-1])
    elif corruption == "short_children_list":
        kids.pop()
    elif corruption == "long_value":
        v = arr(st["value"])
        edit.set_array(st["value"], np.vstack([v, v[:1]]))
    elif corruption == "value_classes":
        edit.set_array(st["value"], arr(st["value"])[:, :1])
    elif corruption == "nan_value":
        arr(st["value"])[3, 0] = np.nan
    elif corruption == "threshold_on_categorical":
        arr(st["threshold"])[_first(tree, "cat3")] = 0.5
    elif corruption == "threshold_test_on_categorical_column":
        i = _first(tree, "cat2")
        arr(st["is_categorical"])[i] = False
        arr(st["threshold"])[i] = 0.5
    elif corruption == "categorical_test_on_continuous_column":
        i = _first(tree, "num")
        arr(st["is_categorical"])[i] = True
        arr(st["threshold"])[i] = np.nan
    elif corruption == "threshold_missing":
        arr(st["threshold"])[_first(tree, "num")] = np.nan
    elif corruption == "three_way_threshold":
        i, j = _first(tree, "cat3"), _first(tree, "num")
        # a continuous node with three branches
        kids[j], kids[i] = kids[i], kids[j]
        fr = st["branch_fraction"]
        fr[j], fr[i] = fr[i], fr[j]
    elif corruption == "branch_count":
        # the layout of category branches: one branch dropped (and its share moved)
        i = _first(tree, "cat3")
        edit.set_array(kids[i], arr(kids[i])[:2])
        f = arr(st["branch_fraction"][i])
        edit.set_array(st["branch_fraction"][i], np.array([f[0] + f[2], f[1]]))
    elif corruption == "branch_fraction_nan":
        arr(st["branch_fraction"][0])[0] = np.nan
    elif corruption == "branch_fraction_length":
        edit.set_array(st["branch_fraction"][0], np.array([1.0]))
    elif corruption == "children_not_an_array":
        kids[0] = [int(v) for v in tree.children[0]]
    elif corruption == "float_children":
        edit.set_array(kids[0], arr(kids[0]).astype(float))
    elif corruption == "leaf_with_children":
        leaf = int(np.flatnonzero(tree.feature < 0)[0])
        kids[leaf] = kids[0]
    elif corruption == "report_missing_key":
        del st["report"][0]["__dict__"]["gain"]
    elif corruption == "report_short_array":
        r = st["report"][0]["__dict__"]["gain"]
        edit.set_array(r, arr(r)[:2])
    elif corruption == "report_at_leaf":
        leaf = int(np.flatnonzero(tree.feature < 0)[0])
        st["report"][leaf] = st["report"][0]
    elif corruption == "wrong_depth":
        arr(st["depth"])[int(tree.children[0][0])] = 5
    elif corruption == "n_features":
        st["n_features"] = 9
    elif corruption == "method_shadowed":
        st["node_weights"] = 1
    elif corruption == "missing_attribute":
        del st["branch_fraction"]
    else:
        raise AssertionError(corruption)


TREE_CORRUPTIONS = [
    ("child_out_of_range", "child index is out of range"),
    ("negative_child", "child index is out of range"),
    ("cycle", "points backwards"),
    ("self_loop", "points backwards"),
    ("node_reachable_twice", "do not form a tree"),
    ("node_shared_between_parents", "do not form a tree|parent"),
    ("feature_out_of_range", "feature index 17"),
    ("negative_feature", "leaf .* feature -1"),
    ("short_threshold", "threshold: must have shape \\({n}\\), got \\({m},\\)"),
    ("short_children_list", "children: must be a list of {n} entries"),
    ("long_value", "value: must have shape \\({n}, 2\\), got \\({p}, 2\\)"),
    ("value_classes", "value: must have shape \\({n}, 2\\), got \\({n}, 1\\)"),
    ("nan_value", "value: must be finite"),
    ("threshold_on_categorical", "categorical node .* has a threshold"),
    ("threshold_test_on_categorical_column", "threshold test on the categorical column"),
    ("categorical_test_on_continuous_column", "categorical test on the continuous column"),
    ("threshold_missing", "continuous node .* finite threshold"),
    ("three_way_threshold", "continuous node .* two children"),
    ("branch_count", "2 branches, column 0 has 3 categories"),
    ("branch_fraction_nan", r"branch_fraction\[0\]: must be finite"),
    ("branch_fraction_length", r"branch_fraction\[0\]: must hold one share"),
    ("children_not_an_array", r"children\[0\]: must be an array of dtype int64"),
    ("float_children", r"children\[0\]: must be an array of dtype int64"),
    ("leaf_with_children", "leaf .* no children"),
    ("report_missing_key", r"report\[0\]: the split report is malformed"),
    ("report_short_array", r"report\[0\]: the split report is malformed"),
    ("report_at_leaf", "no split report"),
    ("wrong_depth", "parent / depth"),
    ("n_features", "n_features: the tree has 9"),
    ("method_shadowed", "no saved attribute 'node_weights'"),
    ("missing_attribute", "incomplete multiway tree"),
]


@pytest.mark.parametrize(
    "corruption, message", TREE_CORRUPTIONS, ids=[c for c, _ in TREE_CORRUPTIONS]
)
def test_inconsistent_multiway_tree_is_refused(c45, corruption, message, tmp_path):
    n = c45.tree_.node_count
    message = message.format(n=n, m=n - 1, p=n + 1)
    path = c45.save(tmp_path / "m.tbm")
    doc, arrays = _read(path)
    _corrupt_tree(_Edit(doc, arrays), c45.tree_, corruption)
    _write(path, doc, arrays)
    with pytest.raises(ValueError, match=message):
        treeboost.load(path)


COLUMN_CORRUPTIONS = [
    ("unknown_kind", "column does not match the input encoder|unknown column kind"),
    ("extra_category", "does not match the input encoder"),
    ("num_with_categories", "continuous column has no categories"),
    ("too_few_columns", "must be a list of 4 columns"),
    ("not_a_column", r"_columns\[1\]: (the column does not match|not a column description)"),
    ("renamed_category", "does not match the input encoder"),
    ("category_not_a_label", "array of labels"),
    ("bogus_dtype", "dtype .no such dtype. is not allowed"),
]


@pytest.mark.parametrize(
    "corruption, message", COLUMN_CORRUPTIONS, ids=[c for c, _ in COLUMN_CORRUPTIONS]
)
def test_inconsistent_columns_are_refused(c45, corruption, message, tmp_path):
    path = c45.save(tmp_path / "m.tbm")
    doc, arrays = _read(path)
    cols = doc["model"]["state"]["_columns"]
    if corruption == "unknown_kind":
        cols[0]["state"]["kind"] = "tree"
    elif corruption == "extra_category":
        cols[0]["state"]["categories"]["__objarray__"].append("d")
        cols[0]["state"]["categories"]["shape"] = [4]
    elif corruption == "num_with_categories":
        cols[2]["state"]["categories"] = {"__tuple__": []}
    elif corruption == "too_few_columns":
        cols.pop()
    elif corruption == "renamed_category":
        cols[0]["state"]["categories"]["__objarray__"][0] = "zzz"
    elif corruption == "category_not_a_label":
        cols[0]["state"]["categories"]["__objarray__"][0] = [1, 2]
    elif corruption == "bogus_dtype":
        cols[0]["state"]["categories"]["dtype"] = "no such dtype"
    elif corruption == "not_a_column":
        cols[1] = {
            "__object__": "treeboost.trees.multiway_tree.MultiwayTree",
            "ref": 999,
            "state": {},
        }
    _write(path, doc, arrays)
    with pytest.raises(ValueError, match=message):
        treeboost.load(path)


def test_id3_integer_and_binned_columns_are_checked(data, tmp_path):
    """An extra value of an integer column or a shuffled bin edge: refused (ID3's columns
    are not the encoder's, so they are checked on their own)."""
    X, y = data
    model = ID3Classifier(n_bins=3).fit(X, y)
    kinds = [c.kind for c in model._columns]
    assert kinds == ["cat", "cat", "bin", "int"]
    path = model.save(tmp_path / "m.tbm")
    doc, arrays = _read(path)
    cols = doc["model"]["state"]["_columns"]
    ints = arrays[cols[3]["state"]["categories"]["__array__"]]
    arrays[cols[3]["state"]["categories"]["__array__"]] = ints[::-1]
    _write(path, doc, arrays)
    with pytest.raises(ValueError, match="sorted and distinct"):
        treeboost.load(path)
    doc, arrays = _read(model.save(tmp_path / "m.tbm"))
    cols = doc["model"]["state"]["_columns"]
    edges = arrays[cols[2]["state"]["edges"]["__array__"]]
    arrays[cols[2]["state"]["edges"]["__array__"]] = edges[:1]  # labels no longer match
    _write(path, doc, arrays)
    with pytest.raises(ValueError, match="one label per interval"):
        treeboost.load(path)
    doc, arrays = _read(model.save(tmp_path / "m.tbm"))
    doc["model"]["state"]["_columns"][2]["state"].update(kind="num", categories=None, edges=None)
    _write(path, doc, arrays)
    with pytest.raises(ValueError, match="ID3 has no continuous columns"):
        treeboost.load(path)


def test_unpruned_tree_and_tree_inside_a_rule_list_are_checked(data, tmp_path):
    X, y = data
    model = C45Classifier(pruning="pessimistic").fit(X, y)
    path = model.save(tmp_path / "m.tbm")
    doc, arrays = _read(path)
    arrays[doc["model"]["state"]["unpruned_tree_"]["state"]["feature"]["__array__"]][0] = 40
    _write(path, doc, arrays)
    with pytest.raises(
        ValueError,
        match=r"model\.unpruned_tree_\.feature: node 0 tests feature "
        r"index 40",
    ):
        treeboost.load(path)
    path = RuleListClassifier().fit(X, y).save(tmp_path / "r.tbm")
    doc, arrays = _read(path)
    edit = _Edit(doc, arrays)
    edit.array(edit.state("estimator_", "tree_")["children"][0])[0] = 10_000
    _write(path, doc, arrays)
    with pytest.raises(ValueError, match=r"model\.estimator_\.tree_\..*out of range"):
        treeboost.load(path)


def test_random_edits_never_give_a_broken_model(c45, data, tmp_path):
    """Property: any single edit of an integer array of the tree either is refused with a
    ValueError or loads a model whose predictions are finite probabilities."""
    X, _ = data
    path = c45.save(tmp_path / "m.tbm")
    doc0, arrays0 = _read(path)
    st = doc0["model"]["state"]["tree_"]["state"]
    keys = [e["__array__"] for e in st["children"] if arrays0[e["__array__"]].size] + [
        st[k]["__array__"] for k in ("feature", "parent", "depth")
    ]
    rng = np.random.RandomState(0)
    refused = 0
    for _ in range(40):
        arrays = {k: v.copy() for k, v in arrays0.items()}
        a = arrays[keys[rng.randint(len(keys))]]
        a[rng.randint(a.size)] = rng.randint(-3, c45.tree_.node_count + 3)
        _write(path, doc0, arrays)
        try:
            model = treeboost.load(path)
        except ValueError:
            refused += 1
            continue
        proba = model.predict_proba(X)
        assert np.all(np.isfinite(proba))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert refused > 20


# -- crafted files: rule lists --------------------------------------------------------------


@pytest.fixture(scope="module")
def rule_list(data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RuleListClassifier(generalize=False).fit(X, y)


RULE_CORRUPTIONS = [
    ("feature_out_of_range", "feature: must be in \\[0, 3\\], got 9"),
    ("category_test_on_numeric_column", "category test on feature 2"),
    ("unhashable_category", "categories: must be a list of labels"),
    ("prediction_not_a_class", "predicts 'maybe'"),
    ("distribution_shape", "distribution'\\]: must (have shape|be finite)"),
    ("distribution_nan", "distribution'\\]: must (have shape|be finite)"),
    ("default_class", "default_class_: 'maybe'"),
    ("extra_rule_attribute", "Rule has no saved attribute 'code'"),
    ("condition_replaced", r"not a part of a treeboost model|not a Condition"),
    ("nan_bound", "interval bounds must be numbers"),
    ("rules_not_a_list", "rules_: must be a list"),
    ("classes_changed", "classes_: must be the classes of estimator_"),
    ("method_shadowed", "no saved attribute 'predict'"),
    ("dunder_attribute", "no saved attribute '__class__'"),
]


@pytest.mark.parametrize(
    "corruption, message", RULE_CORRUPTIONS, ids=[c for c, _ in RULE_CORRUPTIONS]
)
def test_inconsistent_rule_list_is_refused(rule_list, corruption, message, tmp_path):
    path = rule_list.save(tmp_path / "r.tbm")
    doc, arrays = _read(path)
    st = doc["model"]["state"]
    rules = st["rules_"]
    # the first rule with a categorical and one with a numeric condition
    j_cat = next(
        j
        for j, r in enumerate(rule_list.rules_)
        if any(c.categories is not None for c in r.conditions)
    )
    cat_pos = next(
        i for i, c in enumerate(rule_list.rules_[j_cat].conditions) if c.categories is not None
    )
    cond = rules[j_cat]["state"]["conditions"][cat_pos]["state"]
    if corruption == "feature_out_of_range":
        cond["feature"] = 9
    elif corruption == "category_test_on_numeric_column":
        cond["feature"] = 2
    elif corruption == "unhashable_category":
        cond["categories"] = [[1, 2]]
    elif corruption == "prediction_not_a_class":
        rules[0]["state"]["prediction"] = "maybe"
    elif corruption == "distribution_shape":
        d = rules[0]["state"]["extra"]["__dict__"]["distribution"]
        arrays[d["__array__"]] = np.ones(3) / 3
    elif corruption == "distribution_nan":
        d = rules[0]["state"]["extra"]["__dict__"]["distribution"]
        arrays[d["__array__"]][0] = np.nan
    elif corruption == "default_class":
        st["default_class_"] = "maybe"
    elif corruption == "extra_rule_attribute":
        rules[0]["state"]["code"] = "print('hi')"
    elif corruption == "condition_replaced":
        rules[j_cat]["state"]["conditions"].append({"__tuple__": [1, 2]})
    elif corruption == "nan_bound":
        cond["low"] = {"__float__": "nan"}
    elif corruption == "rules_not_a_list":
        st["rules_"] = {"__dict__": {}}
    elif corruption == "classes_changed":
        st["classes_"] = {"__objarray__": ["no", "maybe"], "shape": [2], "dtype": "|O"}
    elif corruption == "method_shadowed":
        st["predict"] = 3
    elif corruption == "dunder_attribute":
        st["__class__"] = "x"
    _write(path, doc, arrays)
    with pytest.raises(ValueError, match=message):
        treeboost.load(path)


def test_rule_list_without_its_tree_is_refused(rule_list, tmp_path):
    path = rule_list.save(tmp_path / "r.tbm")
    doc, arrays = _read(path)
    del doc["model"]["state"]["estimator_"]
    _write(path, doc, arrays)
    with pytest.raises(ValueError, match="a fitted model without estimator_|needs its fitted tree"):
        treeboost.load(path)


JUNK = [
    -1,
    0,
    10**6,
    2**70,
    "x",
    None,
    [],
    {},
    1.5,
    True,
    {"__float__": "nan"},
    {"__array__": "a0"},
    [1, 2],
]


def json_paths(obj, path=(), skip=()):
    """Every path into a JSON document, leaves and containers, except inside the objects
    whose ``__object__`` names end with one of ``skip``."""
    if isinstance(obj, dict):
        if skip and str(obj.get("__object__", "")).endswith(tuple(skip)):
            return
        for k, v in obj.items():
            yield from json_paths(v, path + (k,), skip)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from json_paths(v, path + (i,), skip)
    if path:
        yield path


@pytest.mark.parametrize(
    "make",
    [
        lambda: C45Classifier(pruning="pessimistic", max_depth=3),
        lambda: RuleListClassifier(C45Classifier(max_depth=3)),
    ],
    ids=["c45", "rule-list"],
)
def test_random_json_edits_are_refused_or_harmless(make, data, tmp_path):
    """Property: replacing any one value of the JSON by junk (a wrong type, NaN, a huge
    number, a stray array reference) is refused with a ValueError, or loads a model whose
    predictions are sound -- never another exception at load or at predict."""
    X, y = data
    path = make().fit(X, y).save(tmp_path / "m.tbm")
    doc0, arrays = _read(path)
    text = json.dumps(doc0)
    paths = list(json_paths(doc0["model"]))
    rng = np.random.RandomState(0)
    for _ in range(60):
        doc = json.loads(text)
        where = paths[rng.randint(len(paths))]
        node = doc["model"]
        for k in where[:-1]:
            node = node[k]
        node[where[-1]] = JUNK[rng.randint(len(JUNK))]
        _write(path, doc, arrays)
        try:
            model = treeboost.load(path)
        except ValueError:
            continue
        try:
            proba = model.predict_proba(X)
        except ValueError as exc:  # only: the file renamed a feature
            assert "feature names" in str(exc), where
            continue
        assert np.all(np.isfinite(proba)), where
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        assert model.predict(X).shape == (len(X),)


def test_files_naming_the_old_modules_load(data, tmp_path):
    """Files written when the encoder lived in ``treeboost.trees.encoding`` and the rules in
    ``treeboost.trees.export`` name those modules: they load as the classes' new homes."""
    X, y = data
    model = RuleListClassifier().fit(X, y)
    path = model.save(tmp_path / "rules.tbm")
    doc, arrays = _read(path)
    text = json.dumps(doc)
    old = text.replace("treeboost._input.encoding.", "treeboost.trees.encoding.").replace(
        "treeboost.inspection.rules.", "treeboost.trees.export."
    )
    assert old.count("treeboost.trees.export.Rule") == len(model.rules_)
    assert "treeboost.trees.encoding.FeatureEncoder" in old
    _write(tmp_path / "old.tbm", json.loads(old), arrays)
    loaded = treeboost.load(tmp_path / "old.tbm")
    assert [str(r) for r in loaded.rules_] == [str(r) for r in model.rules_]
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


@pytest.mark.parametrize(
    "module, name",
    [
        ("treeboost.trees.export", "export_text"),
        ("treeboost.trees.export", "Rule"),
        ("treeboost.trees.plotting", "plot_tree"),
        ("treeboost.trees.rules", "export_rules"),
    ],
)
def test_moved_names_still_import_with_a_future_warning(module, name):
    import importlib

    import treeboost.inspection

    with pytest.warns(FutureWarning, match=f"treeboost.inspection.{name}"):
        value = getattr(importlib.import_module(module), name)
    assert value is getattr(treeboost.inspection, name)


def test_a_file_naming_the_classes_old_module_loads(c45, data, tmp_path):
    """MultiwayTree and _Column moved out of ``trees.classic``: a file written before,
    which names them there, loads into the same model."""
    path = c45.save(tmp_path / "m.tbm")
    text = path.read_bytes()
    doc, arrays = _read(path)
    raw = json.dumps(doc)
    old = raw.replace(
        "treeboost.trees.multiway_tree.MultiwayTree", "treeboost.trees.classic.MultiwayTree"
    )
    old = old.replace("treeboost.trees._classic_grower._Column", "treeboost.trees.classic._Column")
    assert old != raw
    _write(path, json.loads(old), arrays)
    assert path.read_bytes() != text
    _assert_same(c45, treeboost.load(path), data[0])
