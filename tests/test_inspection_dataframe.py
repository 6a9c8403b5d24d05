"""trees_to_dataframe: every node of every tree of every model family, checked against the
trees' arrays, for parent / child consistency, and by walking the frame alone to the leaf
of a row and reproducing the model's predictions from the leaf values."""

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

from treeboost import (
    AdaBoostClassifier,
    BaggingClassifier,
    BaggingRegressor,  # noqa: E402
    C45Classifier,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    ID3Classifier,
    RandomForestClassifier,
)
from treeboost.datasets import load_titanic, load_watermelon  # noqa: E402
from treeboost.inspection import trees_to_dataframe  # noqa: E402

from ._helpers import cities_and_days  # noqa: E402

FEATURES = ["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]


@pytest.fixture(scope="module")
def titanic():
    data = load_titanic()
    X = data.data[FEATURES].iloc[:300]
    return X, data.target.iloc[:300].to_numpy()


def _trees(model):
    """(tree, model column of each tree feature) of every tree, from public attributes."""
    if hasattr(model, "tree_"):
        return [(model.tree_, np.arange(model.n_features_in_))]
    if hasattr(model, "trees_"):
        return [(t, np.arange(model.n_features_in_)) for trees in model.trees_ for t in trees]
    feats = getattr(
        model, "estimators_features_", [np.arange(model.n_features_in_)] * len(model.estimators_)
    )
    return [(e.tree_, np.asarray(f)) for e, f in zip(model.estimators_, feats)]


def _check_against_arrays(model, df):
    trees = _trees(model)
    assert sorted(df["tree_index"].unique()) == list(range(len(trees)))
    names = np.asarray(model.feature_names_in_, dtype=object)
    for t, (tree, columns) in enumerate(trees):
        part = df[df["tree_index"] == t].reset_index(drop=True)
        n = tree.node_count
        assert len(part) == n
        np.testing.assert_array_equal(part["node"], np.arange(n))
        np.testing.assert_array_equal(part["depth"], tree.depth)
        np.testing.assert_array_equal(part["weight"], tree.weighted_n_node_samples)
        np.testing.assert_array_equal(part["count"], tree.n_node_samples)
        np.testing.assert_array_equal(part["impurity"], tree.impurity)
        value_cols = [c for c in part.columns if c == "value" or c.startswith("value_")]
        np.testing.assert_array_equal(part[value_cols].to_numpy(), tree.value)
        leaf = tree.children_left == -1
        internal = np.flatnonzero(~leaf)
        np.testing.assert_array_equal(part["gain"], tree.gain)
        # parent / child consistency, from the frame alone
        assert part["parent"].isna().tolist() == [True] + [False] * (n - 1)
        assert part["left_child"].isna().tolist() == leaf.tolist()
        assert part["right_child"].isna().tolist() == leaf.tolist()
        for node in internal:
            for side in ("left_child", "right_child"):
                child = int(part.at[node, side])
                assert int(part.at[child, "parent"]) == node
                assert part.at[child, "depth"] == part.at[node, "depth"] + 1
        np.testing.assert_array_equal(
            part["left_child"].to_numpy(int, na_value=-1), tree.children_left
        )
        np.testing.assert_array_equal(
            part["right_child"].to_numpy(int, na_value=-1), tree.children_right
        )
        # the named feature is the model's column each tree feature reads
        assert part["feature"][leaf].isna().all() and part["split_type"][leaf].isna().all()
        assert part["feature"][internal].tolist() == names[columns[tree.feature[internal]]].tolist()
        numeric = part["split_type"] == "numeric"
        np.testing.assert_array_equal(part["threshold"][numeric], tree.threshold[numeric])
        assert part["threshold"][~numeric].isna().all()
        assert part["missing_go_left"][leaf].isna().all()
        assert part["missing_go_left"][internal].tolist() == tree.missing_go_left[internal].tolist()


def _leaf_of(part, row):
    """The leaf a row of raw values (a pandas Series) reaches, reading only the frame:
    ``feature``, ``threshold``, ``categories`` and ``missing_go_left``."""
    node = 0
    while not pd.isna(part.at[node, "left_child"]):
        x = row[part.at[node, "feature"]]
        if pd.isna(x):
            left = bool(part.at[node, "missing_go_left"])
        elif part.at[node, "split_type"] == "categorical":
            left = x in part.at[node, "categories"]
        else:
            left = x <= part.at[node, "threshold"]
        node = int(part.at[node, "left_child" if left else "right_child"])
    return node


def _leaf_values(df, X, rows):
    """Per row and tree, the leaf values found by walking the frame:
    shape (len(rows), n_trees, n_values)."""
    value_cols = [c for c in df.columns if c == "value" or c.startswith("value_")]
    parts = [p.reset_index(drop=True) for _, p in df.groupby("tree_index", sort=True)]
    out = np.empty((len(rows), len(parts), len(value_cols)))
    for i, r in enumerate(rows):
        for t, part in enumerate(parts):
            out[i, t] = part.loc[_leaf_of(part, X.iloc[r]), value_cols].to_numpy(float)
    return out


ROWS = [0, 1, 5, 17, 42, 100]  # row 5 has no Age, 1 female: both sides of splits


def test_single_cart_trees(titanic):
    X, y = titanic
    clf = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    df = trees_to_dataframe(clf)
    _check_against_arrays(clf, df)
    assert {"value_0", "value_1"} <= set(df.columns)
    assert (df["split_type"] == "categorical").any()
    # the categories of a split are the labels of the codes in its left set
    node = int(np.flatnonzero(df["split_type"] == "categorical")[0])
    f = list(FEATURES).index(df.at[node, "feature"])
    assert set(df.at[node, "categories"]) < set(clf.categories_[f])
    np.testing.assert_array_equal(_leaf_values(df, X, ROWS)[:, 0], clf.predict_proba(X.iloc[ROWS]))
    np.testing.assert_array_equal(
        df.loc[clf.apply(X.iloc[ROWS]), ["value_0", "value_1"]], clf.predict_proba(X.iloc[ROWS])
    )
    reg = DecisionTreeRegressor(max_depth=3).fit(X, X["Fare"].fillna(0) + y)
    df = trees_to_dataframe(reg)
    _check_against_arrays(reg, df)
    np.testing.assert_array_equal(_leaf_values(df, X, ROWS)[:, 0, 0], reg.predict(X.iloc[ROWS]))


def test_forests_bagging_adaboost(titanic):
    X, y = titanic
    forest = RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0).fit(X, y)
    df = trees_to_dataframe(forest)
    _check_against_arrays(forest, df)
    np.testing.assert_allclose(
        _leaf_values(df, X, ROWS).mean(axis=1), forest.predict_proba(X.iloc[ROWS]), atol=1e-12
    )
    # leaf ids of forest.apply index the frame's nodes
    leaves = forest.apply(X.iloc[ROWS])
    for t in range(3):
        part = df[df["tree_index"] == t].set_index("node")
        assert part.loc[leaves[:, t], "left_child"].isna().all()

    extra = ExtraTreesRegressor(n_estimators=2, max_depth=3, random_state=0).fit(X, y)
    df = trees_to_dataframe(extra)
    _check_against_arrays(extra, df)
    np.testing.assert_allclose(
        _leaf_values(df, X, ROWS)[:, :, 0].mean(axis=1), extra.predict(X.iloc[ROWS]), atol=1e-12
    )

    # bagging that draws columns: each member's features are the model's columns it read
    bag = BaggingClassifier(n_estimators=4, max_features=0.5, random_state=1).fit(X, y)
    assert any(f.size < len(FEATURES) for f in bag.estimators_features_)
    df = trees_to_dataframe(bag)
    _check_against_arrays(bag, df)
    np.testing.assert_allclose(
        _leaf_values(df, X, ROWS).mean(axis=1), bag.predict_proba(X.iloc[ROWS]), atol=1e-12
    )

    bag_reg = BaggingRegressor(n_estimators=2, random_state=0).fit(X, y * 2.0)
    df = trees_to_dataframe(bag_reg)
    _check_against_arrays(bag_reg, df)
    np.testing.assert_allclose(
        _leaf_values(df, X, ROWS)[:, :, 0].mean(axis=1), bag_reg.predict(X.iloc[ROWS]), atol=1e-12
    )

    ada = AdaBoostClassifier(n_estimators=3, random_state=0).fit(X, y)
    df = trees_to_dataframe(ada)
    _check_against_arrays(ada, df)
    # each member votes for the class of largest value at the leaf the row reaches
    votes = _leaf_values(df, X, ROWS).argmax(axis=2)
    d = np.zeros((len(ROWS), 2))
    for m, alpha in enumerate(ada.estimator_weights_):
        d[np.arange(len(ROWS)), votes[:, m]] += alpha
    np.testing.assert_array_equal(ada.classes_[d.argmax(axis=1)], ada.predict(X.iloc[ROWS]))


def test_gradient_boosting_binary_multiclass_and_regression(titanic):
    X, y = titanic
    gb = GradientBoostingClassifier(n_estimators=3, max_leaf_nodes=5).fit(X, y)
    df = trees_to_dataframe(gb)
    _check_against_arrays(gb, df)
    assert df["iteration"].tolist() == df["tree_index"].tolist()
    assert (df["class"] == 0).all()
    raw = gb.init_score_[0] + _leaf_values(df, X, ROWS)[:, :, 0].sum(axis=1)
    np.testing.assert_allclose(raw, gb.decision_function(X.iloc[ROWS]), atol=1e-12)

    # three classes (the port of embarkation): tree_index = iteration * 3 + class
    Xm = X.drop(columns="Embarked")[X["Embarked"].notna()]
    ym = X["Embarked"][X["Embarked"].notna()].astype(str).to_numpy()
    gbm = GradientBoostingClassifier(n_estimators=2, max_leaf_nodes=4).fit(Xm, ym)
    df = trees_to_dataframe(gbm)
    _check_against_arrays(gbm, df)
    np.testing.assert_array_equal(df["tree_index"], df["iteration"] * 3 + df["class"])
    leaf = _leaf_values(df, Xm, ROWS)[:, :, 0].reshape(len(ROWS), 2, 3)
    np.testing.assert_allclose(
        gbm.init_score_ + leaf.sum(axis=1), gbm.decision_function(Xm.iloc[ROWS]), atol=1e-12
    )
    # apply's leaf ids index the frame's rows of each (iteration, class)
    ids = gbm.apply(Xm.iloc[ROWS])
    assert ids.shape == (len(ROWS), 2, 3)
    for it in range(2):
        for k in range(3):
            part = df[(df["iteration"] == it) & (df["class"] == k)].set_index("node")
            np.testing.assert_array_equal(part.loc[ids[:, it, k], "value"], leaf[:, it, k])

    reg = GradientBoostingRegressor(n_estimators=3, max_leaf_nodes=4).fit(X, X["Fare"])
    df = trees_to_dataframe(reg)
    _check_against_arrays(reg, df)
    np.testing.assert_allclose(
        reg.init_score_[0] + _leaf_values(df, X, ROWS)[:, :, 0].sum(axis=1),
        reg.predict(X.iloc[ROWS]),
        atol=1e-9,
    )


def _multiway_leaf(df, row, categories):
    node = 0
    while df.at[node, "children"]:
        x = row[df.at[node, "feature"]]
        kids = df.at[node, "children"]
        if df.at[node, "split_type"] == "categorical":
            node = kids[list(df.at[node, "categories"]).index(x)]
        else:
            node = kids[0] if x <= df.at[node, "threshold"] else kids[1]
    return node


def test_multiway_trees(titanic):
    melons = load_watermelon()
    id3 = ID3Classifier().fit(melons.data, melons.target)
    df = trees_to_dataframe(id3)
    tree = id3.tree_
    assert len(df) == tree.node_count
    np.testing.assert_array_equal(df["parent"].to_numpy(int, na_value=-1), tree.parent)
    for node, kids in enumerate(df["children"]):
        assert list(kids) == tree.children[node].tolist()
        for v, child in enumerate(kids):
            assert df.at[child, "parent"] == node
            assert df.at[child, "branch"] == str(df.at[node, "categories"][v])
    assert df.at[0, "feature"] == "纹理" and df.at[0, "categories"] == ("清晰", "稍糊", "模糊")
    assert abs(df.at[0, "gain"] - 0.381) < 1e-3  # Gain(D, 纹理), 西瓜书 4.2
    proba = id3.predict_proba(melons.data)
    value_cols = [f"value_{c}" for c in id3.classes_]
    for r in range(len(melons.data)):
        leaf = _multiway_leaf(df, melons.data.iloc[r], id3.categories_)
        np.testing.assert_allclose(df.loc[leaf, value_cols].to_numpy(float), proba[r])

    X, y = titanic
    c45 = C45Classifier(max_depth=3).fit(X, y)
    df = trees_to_dataframe(c45)
    assert (df["split_type"] == "numeric").any()
    numeric = df["split_type"] == "numeric"
    np.testing.assert_array_equal(df["threshold"][numeric], c45.tree_.threshold[numeric])
    complete = [r for r in ROWS + list(range(20)) if X.iloc[r].notna().all()]
    proba = c45.predict_proba(X.iloc[complete])
    for i, r in enumerate(complete):
        leaf = _multiway_leaf(df, X.iloc[r], c45.categories_)
        np.testing.assert_allclose(df.loc[leaf, ["value_0", "value_1"]].to_numpy(float), proba[i])


def test_errors(titanic):
    X, y = titanic
    from sklearn.exceptions import NotFittedError
    from sklearn.linear_model import LogisticRegression

    with pytest.raises(NotFittedError, match="not a fitted treeboost"):
        trees_to_dataframe(DecisionTreeClassifier())
    with pytest.raises(ValueError, match="not a fitted treeboost"):
        trees_to_dataframe(LogisticRegression().fit(X[["Pclass"]], y))
    bag = BaggingClassifier(LogisticRegression(), n_estimators=2, random_state=0).fit(
        X[["Pclass", "SibSp"]], y
    )
    with pytest.raises(
        ValueError,
        match=r"estimators_\[0\] is a LogisticRegression, not a "
        r"treeboost tree",
    ):
        trees_to_dataframe(bag)


def test_rare_categories_and_dates():
    """A split on the shared code of rare categories lists them all, so the frame alone
    still sends a rare category to its side; dates are the encoder's seconds."""
    X, y = cities_and_days()
    clf = DecisionTreeClassifier(max_depth=2).fit(X, y)
    df = trees_to_dataframe(clf)
    _check_against_arrays(clf, df)
    sets = [set(c) for c in df["categories"].dropna()]
    assert any({f"r{i}" for i in range(300)} <= s and "other (rare)" not in s for s in sets)
    Xn = X.assign(day=(X["day"] - pd.Timestamp("1970-01-01")) / pd.Timedelta(seconds=1))
    rows = [0, 3, 500, 650, 799]  # frequent and rare cities
    np.testing.assert_array_equal(_leaf_values(df, Xn, rows)[:, 0], clf.predict_proba(X.iloc[rows]))


def test_booster_without_trees_has_the_columns_and_no_row():
    X = np.random.RandomState(0).rand(50, 2)
    with pytest.warns(RuntimeWarning, match="diverged"):
        empty = GradientBoostingRegressor(
            n_estimators=2, min_samples_leaf=1, learning_rate=1e200
        ).fit(X, X[:, 0])
    fitted = GradientBoostingRegressor(n_estimators=2, min_samples_leaf=1).fit(X, X[:, 0])
    df = trees_to_dataframe(empty)
    assert len(df) == 0
    assert list(df.columns) == list(trees_to_dataframe(fitted).columns)
