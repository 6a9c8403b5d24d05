"""Columns of more than 255 categories grouped by their target means
(treeboost._input.rare_categories.group_by_target): the rule against a brute-force
reading of it, which estimators use it, what it does to identifier-like columns, and the
encoder state in model files."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import treeboost
from treeboost.inspection import trees_to_dataframe
from treeboost.inspection import export_text
from treeboost.engine.split.categorical import CAT_SMOOTH
from treeboost.trees import FeatureEncoder
from treeboost._input.rare_categories import MIN_TARGET_ROWS, TARGET_GROUP_ROWS, group_by_target

from .._model_files import read_parts, used_only, write_parts

pd = pytest.importorskip("pandas")


def _brute_force_codes(m, row_category, target, weight):
    """The module's rule, one category at a time in plain Python."""
    rows = [0] * m
    w = [0.0] * m
    wy = [0.0] * m
    for c, t, v in zip(row_category.tolist(), target.tolist(), weight.tolist()):
        rows[c] += v > 0
        w[c] += v
        wy[c] += v * t
    prior = sum(wy) / sum(w)
    mean = [(wy[c] + CAT_SMOOTH * prior) / (w[c] + CAT_SMOOTH) for c in range(m)]
    ranked = sorted((c for c in range(m) if rows[c] >= MIN_TARGET_ROWS), key=lambda c: (mean[c], c))
    n = sum(rows[c] for c in ranked)
    groups = min(254, max(1, n // TARGET_GROUP_ROWS))
    code = [groups] * m
    seen = 0
    for c in ranked:
        middle = seen + rows[c] / 2.0
        code[c] = min(int(middle * groups / n), groups - 1)
        seen += rows[c]
    used = sorted(set(code))
    return [used.index(c) for c in code]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(256, 400), st.booleans())
def test_rule_matches_brute_force(seed, m, weighted):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(500, 4000))
    row_category = rng.integers(0, m, n)
    target = rng.normal(size=n) + (row_category % 7)
    weight = rng.uniform(0.0, 2.0, n) if weighted else np.ones(n)
    weight[rng.random(n) < 0.05] = 0.0
    cats = np.array([f"c{i:03d}" for i in range(m)], dtype=object)
    g = group_by_target(cats, row_category, target, weight)
    assert g.own.shape[0] == 0 and list(g.rare) == list(cats)
    assert g.rare_codes.tolist() == _brute_force_codes(m, row_category, target, weight)
    assert len(g.labels) == g.rare_codes.max() + 1 <= 255


def _column(n_categories=600, rows=30, seed=0):
    """A column whose categories each have their own effect: y = effect + noise."""
    rng = np.random.default_rng(seed)
    key = rng.permutation(np.repeat(np.arange(n_categories), rows))
    effect = rng.normal(size=n_categories)
    X = pd.DataFrame({"key": [f"k{k:04d}" for k in key], "x": rng.normal(size=key.size)})
    return X, effect[key] + 0.3 * rng.normal(size=key.size), effect


def test_groups_follow_the_target_means():
    X, y, effect = _column()
    model = treeboost.DecisionTreeRegressor(max_depth=3).fit(X, y)
    enc = model._encoder
    codes = enc.transform(X)[:, 0]
    # 18,000 rows of ranked categories in groups of about 500 rows
    assert len(enc.categories_[0]) == 18_000 // TARGET_GROUP_ROWS
    # the groups are ordered by their categories' effects: the group means increase
    means = pd.Series(y).groupby(codes).mean().to_numpy()
    assert np.all(np.diff(means) > 0)
    # and a depth-3 tree on the column alone explains most of the variance
    assert model.score(X, y) > 0.8


def test_which_estimators_group_by_target():
    X, y, _ = _column()
    binary = (y > 0).astype(int)
    three = np.digitize(y, [-0.5, 0.5])
    for model, target in [
        (treeboost.DecisionTreeRegressor(max_depth=2), y),
        (treeboost.DecisionTreeClassifier(max_depth=2), binary),
        (treeboost.GradientBoostingClassifier(n_estimators=2), binary),
        (treeboost.RandomForestRegressor(3, max_depth=2), y),
    ]:
        model.fit(X, target)
        assert model._encoder.rare_codes_[0] is not None, type(model).__name__
    # three classes, and an encoder without a target: by frequency
    clf = treeboost.DecisionTreeClassifier(max_depth=2).fit(X, three)
    assert clf._encoder.rare_codes_[0] is None and len(clf._encoder.categories_[0]) == 255
    assert FeatureEncoder().fit(X).rare_codes_[0] is None


def test_an_identifier_column_is_one_shared_code():
    """Categories of fewer than MIN_TARGET_ROWS rows are not ranked: an identifier (one
    row each) cannot separate the training rows by their own labels."""
    rng = np.random.default_rng(1)
    n = 2000
    X = pd.DataFrame({"id": [f"row{i}" for i in range(n)], "x": rng.normal(size=n)})
    y = rng.integers(0, 2, n)
    model = treeboost.DecisionTreeClassifier().fit(X, y)
    assert list(model._encoder.categories_[0]) == ["other (rare)"]
    assert model.feature_importances_[0] == 0.0


def test_unseen_and_rare_categories_at_predict():
    X, y, _ = _column()
    X.loc[:3, "key"] = ["few"] * 4  # 4 rows: fewer than MIN_TARGET_ROWS
    enc = FeatureEncoder().fit(X, target=y)
    other = len(enc.categories_[0]) - 1
    assert enc.categories_[0][other] == "other (rare)"
    codes = enc.transform(
        pd.DataFrame({"key": ["few", "never seen", None, "k0005"], "x": [0.0] * 4})
    )[:, 0]
    assert codes[0] == other and np.isnan(codes[1]) and np.isnan(codes[2])
    assert 0 <= codes[3] < other
    name = enc.category_names(0, [int(codes[3])])[0]
    assert name.startswith(f"target group {int(codes[3])} (") and "k0005" in enc.code_members(
        0, int(codes[3])
    )
    with pytest.raises(ValueError, match="target must be"):
        FeatureEncoder().fit(X, target=y[:10])


def test_exports_name_the_group_members():
    X, y, _ = _column()
    model = treeboost.DecisionTreeRegressor(max_depth=1).fit(X, y)
    text = export_text(model)
    assert "target group" in text
    frame = trees_to_dataframe(model)
    assert frame.shape[0] == 3


def test_model_file_round_trip_and_crafted_codes(tmp_path):
    X, y, _ = _column()
    model = treeboost.GradientBoostingRegressor(n_estimators=3).fit(X, y)
    path = model.save(tmp_path / "m.tbm")
    loaded = treeboost.load(path)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(loaded._encoder.rare_codes_[0], model._encoder.rare_codes_[0])

    def edited(name, edit):
        doc, arrays = read_parts(path)
        edit(doc["model"]["state"]["_encoder"]["state"], arrays)
        write_parts(tmp_path / name, doc, used_only(doc, arrays))
        return tmp_path / name

    def ref(state):
        return state["rare_codes_"][0]["__array__"]

    # a code past the labels would index the trees' category sets out of range
    def too_big(state, arrays):
        arrays[ref(state)] = arrays[ref(state)].copy()
        arrays[ref(state)][0] = 255

    def wrong_length(state, arrays):
        arrays[ref(state)] = arrays[ref(state)][:-1].copy()

    def on_numeric(state, arrays):
        state["rare_codes_"][1] = state["rare_codes_"][0]

    for name, edit, message in [
        ("big.tbm", too_big, "rare_codes_[0]: values must be <="),
        ("short.tbm", wrong_length, "rare_codes_[0]: must have shape"),
        ("numeric.tbm", on_numeric, "a numeric column has no"),
    ]:
        bad = edited(name, edit)
        with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
            treeboost.load(bad)
