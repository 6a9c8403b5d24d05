"""Categorical columns of more than 255 categories (treeboost._input.rare_categories): by
frequency (frequent categories keep their own code, rare ones share one; no target or
more than two classes), in every estimator, in model files and through the command line.
Grouping by target has its own tests in test_target_grouping.py."""

import numpy as np
import pytest

import treeboost
from treeboost.cli import main
from treeboost.trees import FeatureEncoder
from treeboost._input.rare_categories import MIN_OWN_ROWS, group_categories

from .._model_files import read_parts, used_only, write_parts

pd = pytest.importorskip("pandas")


def _expected_grouping(labels, counts):
    """The rule by brute force: the 254 most frequent categories with at least
    MIN_OWN_ROWS rows (ties: the column's order) keep codes, numbered in column order."""
    if len(labels) <= 255:
        return list(labels), []
    ranked = sorted(
        (i for i in range(len(labels)) if counts[i] >= MIN_OWN_ROWS), key=lambda i: (-counts[i], i)
    )
    own = sorted(ranked[:254])
    return [labels[i] for i in own], [labels[i] for i in range(len(labels)) if i not in own]


def test_grouping_rule_on_a_hand_made_column():
    labels = [f"c{i:03d}" for i in range(300)]
    # c000-c009: 2 rows (too few), c010-c289: 5 rows (tied), c290-c299: 10 rows
    counts = [2] * 10 + [5] * 280 + [10] * 10
    g = group_categories(np.array(labels, dtype=object), np.array(counts))
    own, rare = _expected_grouping(labels, counts)
    assert list(g.own) == own and list(g.rare) == rare
    # by hand: the ten most frequent, then the first 244 of the tied ones in label order
    assert own == labels[10:254] + labels[290:]
    assert rare == labels[:10] + labels[254:290]
    assert list(g.labels) == own + ["other (rare)"]

    # the encoder, from rows: the same codes, the shared code 254 for every rare category
    col = np.repeat(np.array(labels, dtype=object), counts)
    enc = FeatureEncoder([0])
    codes = enc.fit_transform(col[:, None])[:, 0]
    expect = {c: i for i, c in enumerate(own)} | {c: 254 for c in rare}
    np.testing.assert_array_equal(codes, [expect[c] for c in col])
    assert list(enc.categories_[0]) == own + ["other (rare)"]
    assert list(enc.rare_categories_[0]) == rare


def test_too_few_frequent_categories_and_a_category_named_like_the_shared_code():
    labels = [f"c{i:03d}" for i in range(299)] + ["other (rare)"]
    counts = [1] * 200 + [4] * 100
    g = group_categories(np.array(labels, dtype=object), np.array(counts))
    assert list(g.own) == labels[200:]  # only 100 categories have >= 3 rows
    assert g.other_label == "other (rare)*"  # distinct from the real category
    assert len(g.labels) == 101


def test_small_columns_are_not_grouped():
    labels = np.array([f"c{i:03d}" for i in range(255)], dtype=object)
    counts = np.ones(255, dtype=np.int64)
    g = group_categories(labels, counts)
    assert g.rare is None and list(g.labels) == list(labels)


def _frequent_and_rare(n_frequent=200, n_rare=500, rows=20, seed=0):
    """Frequent categories (``rows`` rows each, y = the index modulo 3) and rare ones (one
    row each, random y), shuffled.  Three classes: the columns are grouped by frequency."""
    rng = np.random.default_rng(seed)
    freq = np.repeat(np.arange(n_frequent), rows)
    rare = np.arange(n_frequent, n_frequent + n_rare)
    idx = np.concatenate([freq, rare])
    y = np.where(idx < n_frequent, idx % 3, rng.integers(0, 3, idx.size))
    order = rng.permutation(idx.size)
    idx, y = idx[order], y[order]
    labels = np.array([f"k{i:04d}" for i in idx], dtype=object)
    X = pd.DataFrame({"key": labels, "x": rng.normal(size=idx.size)})
    return X, y, idx < n_frequent


def _as_dtype(X, dtype):
    X = X.copy()
    if dtype == "category":
        X["key"] = X["key"].astype("category")
    elif dtype == "object":
        X["key"] = X["key"].astype(object)
    else:
        X["key"] = X["key"].astype(dtype)
    return X


@pytest.mark.parametrize("dtype", ["category", "object", "string", "str"])
def test_every_pandas_text_dtype(dtype):
    X, y, frequent = _frequent_and_rare()
    Xd = _as_dtype(X, dtype)
    clf = treeboost.DecisionTreeClassifier(max_depth=2).fit(Xd, y)
    assert clf._encoder.is_categorical_[0]
    assert len(clf._encoder.categories_[0]) == 201  # 200 frequent + the shared code
    # two categorical splits separate the classes of the frequent categories
    assert np.mean(clf.predict(Xd)[frequent] == y[frequent]) == 1.0


def test_grouped_column_equals_grouping_by_hand():
    """A tree on the raw column and one on the column with its rare categories replaced
    by one label that sorts last (the same codes) are the same tree."""
    X, y, frequent = _frequent_and_rare()
    by_hand = X.copy()
    by_hand.loc[~frequent, "key"] = "zzz"
    a = treeboost.DecisionTreeClassifier(random_state=0).fit(X, y)
    b = treeboost.DecisionTreeClassifier(random_state=0).fit(by_hand, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(by_hand))
    np.testing.assert_array_equal(a.tree_.categories_left, b.tree_.categories_left)


_FAMILIES = {
    "cart": lambda: treeboost.DecisionTreeClassifier(max_depth=3),
    "forest": lambda: treeboost.RandomForestClassifier(
        5, max_depth=3, max_features=None, random_state=0
    ),
    # (random subsets, as scikit-learn's random splitter draws: grown out, not 3 deep)
    "extra_trees": lambda: treeboost.ExtraTreesClassifier(5, max_features=None, random_state=0),
    "bagging": lambda: treeboost.BaggingClassifier(n_estimators=5, random_state=0),
    "adaboost": lambda: treeboost.AdaBoostClassifier(n_estimators=5, random_state=0),
    "gbdt": lambda: treeboost.GradientBoostingClassifier(n_estimators=10, max_leaf_nodes=4),
    "c45": lambda: treeboost.C45Classifier(max_depth=2),
    "id3": lambda: treeboost.ID3Classifier(max_depth=1),
}


@pytest.mark.parametrize("family", sorted(_FAMILIES))
def test_every_estimator_family(family):
    X, y, frequent = _frequent_and_rare()
    if family == "id3":
        X = X.drop(columns="x")  # ID3 takes categorical columns only
    model = _FAMILIES[family]().fit(X, y)
    pred = model.predict(X)
    assert pred.shape == y.shape
    assert np.mean(pred[frequent] == y[frequent]) >= 0.95
    # unseen categories are missing values: predict still works
    new = X.iloc[:5].copy()
    new["key"] = ["never", "seen", "k0000", None, "k0650"]
    assert model.predict(new).shape == (5,)


def test_unseen_and_rare_categories_at_predict():
    X, y, frequent = _frequent_and_rare()
    enc = FeatureEncoder().fit(X)
    k = len(enc.categories_[0]) - 1
    assert k == 200
    codes = enc.transform(pd.DataFrame({"key": ["k0003", "k0650", "k9999", None], "x": [0.0] * 4}))[
        :, 0
    ]
    # own code, shared code (seen at fit, rare), missing (unseen), missing
    np.testing.assert_array_equal(codes, [3, k, np.nan, np.nan])
    names = enc.category_names(0, [3, k])
    assert names[0] == "k0003"
    assert names[1].startswith("other (500 rare: k0200, k0201, k0202")
    assert len(enc.category_names(0)) == k + 1
    for bad in ([k + 1], [-1], [[0]], [0.5]):
        with pytest.raises(ValueError, match="codes"):
            enc.category_names(0, bad)
    with pytest.raises(ValueError, match="numeric column"):
        enc.category_names(1, [0])


def test_model_file_round_trip(tmp_path):
    X, y, _ = _frequent_and_rare()
    model = treeboost.GradientBoostingClassifier(n_estimators=5).fit(X, y)
    path = model.save(tmp_path / "m.tbm")
    loaded = treeboost.load(path)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert list(loaded._encoder.rare_categories_[0]) == list(model._encoder.rare_categories_[0])
    assert loaded._encoder.category_names(0) == model._encoder.category_names(0)


@pytest.fixture(scope="module")
def grouped_file(tmp_path_factory):
    X, y, _ = _frequent_and_rare()
    model = treeboost.DecisionTreeClassifier(max_depth=3).fit(X, y)
    return model.save(tmp_path_factory.mktemp("m") / "grouped.tbm"), model, X


def _edit_encoder(src, dst, edit):
    doc, arrays = read_parts(src)
    edit(doc["model"]["state"]["_encoder"]["state"])
    write_parts(dst, doc, used_only(doc, arrays))
    return dst


def _labels(values):
    return {"__objarray__": values, "shape": [len(values)], "dtype": "|O"}


_CRAFTED = {
    # a rare category that also has a code of its own: two codes for one category
    "rare_also_own": (
        lambda st: st["rare_categories_"][0]["__objarray__"].append("k0003"),
        "rare_categories_[0]: the rare categories must be distinct",
    ),
    "rare_twice": (
        lambda st: st["rare_categories_"][0]["__objarray__"].append("k0650"),
        "rare_categories_[0]: the rare categories must be distinct",
    ),
    "empty_rare": (
        lambda st: st["rare_categories_"].__setitem__(0, _labels([])),
        "rare_categories_[0]",
    ),
    "rare_on_numeric": (
        lambda st: st["rare_categories_"].__setitem__(1, _labels(["a"])),
        "categories_[1]: a numeric column has no categories",
    ),
    "rare_not_a_list": (
        lambda st: st.__setitem__("rare_categories_", {"__tuple__": []}),
        "rare_categories_: must be a list of 2 entries",
    ),
    "rare_wrong_length": (
        lambda st: st["rare_categories_"].append(None),
        "rare_categories_: must be a list of 2 entries",
    ),
    "rare_not_labels": (
        lambda st: st["rare_categories_"].__setitem__(0, [1, 2]),
        "rare_categories_[0]: must be a 1-dimensional array",
    ),
    "shared_label_not_text": (
        lambda st: st["categories_"][0]["__objarray__"].__setitem__(-1, 7),
        "categories_[0]: a grouped column ends with the label of its shared code",
    ),
    "too_many_codes": (
        lambda st: st["categories_"][0].__setitem__(
            "__objarray__", [f"z{i}" for i in range(60)] + st["categories_"][0]["__objarray__"]
        ),
        "categories_[0]: 261 categories, at most 255",
    ),
}


@pytest.mark.parametrize("case", sorted(_CRAFTED))
def test_crafted_encoder_state_is_refused(grouped_file, tmp_path, case):
    path, _, _ = grouped_file
    edit, message = _CRAFTED[case]

    def fix_shape(st):
        edit(st)
        for entry in st["categories_"] + (
            st["rare_categories_"] if isinstance(st["rare_categories_"], list) else []
        ):
            if isinstance(entry, dict) and "__objarray__" in entry:
                entry["shape"] = [len(entry["__objarray__"])]

    dst = _edit_encoder(path, tmp_path / f"{case}.tbm", fix_shape)
    with pytest.raises(ValueError) as info:
        treeboost.load(dst)
    assert str(dst) in str(info.value) and message in str(info.value), str(info.value)


def test_a_file_without_the_new_state_loads_as_before(tmp_path):
    """A model file written before grouped and datetime columns (no rare_categories_,
    datetime_zones_) loads and predicts as the model did."""
    X = pd.DataFrame({"c": list("abcab") * 20, "x": np.arange(100.0)})
    y = np.arange(100) % 2
    model = treeboost.DecisionTreeClassifier(max_depth=3).fit(X, y)
    path = model.save(tmp_path / "new.tbm")

    def drop(st):
        for name in ("rare_categories_", "datetime_zones_"):
            del st[name]

    old = _edit_encoder(path, tmp_path / "old.tbm", drop)
    doc, _ = read_parts(old)
    assert "rare_categories_" not in doc["model"]["state"]["_encoder"]["state"]
    loaded = treeboost.load(old)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert loaded._encoder.category_names(0) == ["a", "b", "c"]
    assert loaded._encoder.format_threshold(1, 3.5) is None


def test_cli_fits_a_700_value_text_column(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 3000
    key = rng.permutation(np.arange(n) % 700)
    frame = pd.DataFrame(
        {
            "city": [f"town_{k:03d}" for k in key],
            "x": rng.normal(size=n).round(3),
            "y": np.array(["low", "mid", "high"])[key % 3],
        }
    )
    csv = tmp_path / "data.csv"
    frame.to_csv(csv, index=False)
    assert frame["city"].nunique() == 700
    model_path = tmp_path / "m.tbm"
    assert main(["fit", str(csv), "--target", "y", "--model", "tree", "-o", str(model_path)]) == 0
    assert "accuracy" in capsys.readouterr().out
    model = treeboost.load(model_path)
    assert len(model._encoder.categories_[0]) == 255
    assert len(model._encoder.rare_categories_[0]) == 700 - 254
    assert main(["predict", str(model_path), str(csv), "-o", str(tmp_path / "p.csv")]) == 0
    pred = pd.read_csv(tmp_path / "p.csv")["prediction"]
    assert len(pred) == n
