import numpy as np
import pytest

from treeboost import DecisionTreeClassifier, DecisionTreeRegressor
from treeboost.inspection import export_rules, export_text, extract_rules

from .._helpers import cities_and_days


def _fires(rule, Xe, categories):
    """Does each encoded row satisfy the rule (evaluated independently of the tree)?"""
    ok = np.ones(Xe.shape[0], bool)
    for c in rule.conditions:
        x = Xe[:, c.feature]
        miss = np.isnan(x)
        if c.categories is not None:
            codes = [list(categories[c.feature]).index(v) for v in c.categories]
            inside = np.isin(np.nan_to_num(x, nan=-1), codes)
        else:
            inside = (x > c.low) & (x <= c.high)
        ok &= np.where(miss, c.missing, inside)
    return ok


def test_exactly_one_rule_fires_per_row_and_agrees_with_the_tree():
    pytest.importorskip("pandas")
    from treeboost.datasets import load_titanic

    data = load_titanic()
    X = data.data[["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]]
    y = data.target
    clf = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    rules = extract_rules(clf)
    assert len(rules) == clf.get_n_leaves()
    Xe = clf._encoder.transform(X)
    fired = np.array([_fires(r, Xe, clf.categories_) for r in rules])
    np.testing.assert_array_equal(fired.sum(axis=0), 1)
    predicted = np.array([rules[i].prediction for i in fired.argmax(axis=0)]).astype(int)
    np.testing.assert_array_equal(predicted, clf.predict(X))
    # rule text names real thresholds and categories
    text = "\n".join(export_rules(clf))
    assert "Sex = male" in text or "Sex = female" in text
    assert "Age" in text and "(or missing)" in text


def test_export_text_regressor_and_feature_names():
    X = np.arange(20.0)[:, None]
    y = (X[:, 0] > 9.5) * 3.0
    reg = DecisionTreeRegressor(max_depth=1).fit(X, y)
    text = export_text(reg, feature_names=["size"])
    assert "size <= 9.5" in text and "value: 3" in text
    with pytest.raises(ValueError, match="feature_names"):
        export_text(reg, feature_names=["a", "b"])


# -- one tree of any model: tree_index / class_index, the same in the four exports ----------
FEATURES = ["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]


@pytest.fixture(scope="module")
def titanic():
    pytest.importorskip("pandas")
    from treeboost.datasets import load_titanic

    data = load_titanic()
    return data.data[FEATURES].iloc[:300], data.target.iloc[:300].to_numpy()


def _leaf_rows_agree(rules, Xe, categories, leaves):
    """Each rule fires on exactly the rows whose leaf (from the model's apply) is its leaf."""
    for r in rules:
        np.testing.assert_array_equal(_fires(r, Xe, categories), leaves == r.leaf)


def _four(model, **index):
    from treeboost.inspection import export_graphviz
    from treeboost.inspection import export_rules as any_rules

    return (
        export_text(model, **index),
        export_rules(model, **index),
        any_rules(model, **index),
        export_graphviz(model, **index),
    )


def test_tree_index_of_forests_bagging_adaboost_is_the_member(titanic):
    from treeboost import AdaBoostRegressor, BaggingClassifier, RandomForestClassifier

    X, y = titanic
    for model in (
        RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0),
        AdaBoostRegressor(n_estimators=3, random_state=0),
    ):
        model.fit(X, y)
        for i in range(3):
            member = model.estimators_[i]
            assert _four(model, tree_index=i) == _four(member)
        assert export_text(model, tree_index=1) != export_text(model, tree_index=0)
    # bagging on half the columns: the rules name, and test, the model's columns
    bag = BaggingClassifier(n_estimators=3, max_features=0.5, random_state=1).fit(X, y)
    Xe = bag._encoder.transform(X)
    for i, (member, feats) in enumerate(zip(bag.estimators_, bag.estimators_features_)):
        rules = extract_rules(bag, tree_index=i)
        used = {c.name for r in rules for c in r.conditions}
        assert used <= {FEATURES[f] for f in feats}
        _leaf_rows_agree(rules, Xe, bag._encoder.categories_, member.apply(Xe[:, feats]))
    # a member that cuts Sex's codes as a number prints the label it sends left
    texts = "\n".join(export_text(bag, tree_index=i) for i in range(3))
    assert any(1 in f for f in bag.estimators_features_)
    assert "Sex in {" in texts and "Sex <=" not in texts


def test_tree_index_of_gradient_boosting_is_iteration_and_class(titanic):
    from treeboost import GradientBoostingClassifier
    from treeboost.inspection._tree_view import _fmt
    from treeboost.inspection import plot_tree

    X, y = titanic
    Xm = X.drop(columns="Embarked")[X["Embarked"].notna()]
    ym = X["Embarked"][X["Embarked"].notna()].astype(str).to_numpy()
    gb = GradientBoostingClassifier(n_estimators=3, max_leaf_nodes=4).fit(Xm, ym)
    Xe = gb._encoder.transform(Xm)
    leaves = gb.apply(Xm)
    for it, k in ((0, 0), (1, 2), (2, 1)):
        pair = _four(gb, tree_index=(it, k))
        assert pair == _four(gb, tree_index=it, class_index=k)
        tree = gb.trees_[it][k]
        text = pair[0]
        # leaves print as raw scores, the values of trees_[it][k]
        shown = sorted(
            line.split(": ")[1] for line in text.splitlines() if "value (raw score)" in line
        )
        assert shown == sorted(_fmt(v, 3) for v in tree.value[tree.children_left == -1, 0])
        rules = extract_rules(gb, tree_index=(it, k))
        assert len(rules) == tree.n_leaves
        assert all(r.target_name == "value (raw score)" and r.confidence is None for r in rules)
        _leaf_rows_agree(rules, Xe, gb._encoder.categories_, leaves[:, it, k])
    assert "Sex in {" in "\n".join(
        export_text(gb, tree_index=i, class_index=k) for i in range(3) for k in range(3)
    )
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    a = [t.get_text() for t in plot_tree(gb, tree_index=(1, 2)).texts]
    b = [t.get_text() for t in plot_tree(gb, tree_index=1, class_index=2).texts]
    assert a == b and any("value (raw score)" in t for t in a)
    matplotlib.pyplot.close("all")


def test_tree_index_errors(titanic):
    from sklearn.linear_model import LogisticRegression
    from treeboost import (
        BaggingClassifier,
        GradientBoostingClassifier,
        ID3Classifier,
        RandomForestClassifier,
    )
    from treeboost.datasets import load_watermelon
    from treeboost.inspection import export_graphviz, plot_tree
    from treeboost.inspection import export_rules as any_rules

    X, y = titanic
    tree = DecisionTreeClassifier(max_depth=2).fit(X, y)
    forest = RandomForestClassifier(n_estimators=2, max_depth=2, random_state=0).fit(X, y)
    gb = GradientBoostingClassifier(n_estimators=2, max_leaf_nodes=3).fit(X, y)
    bag = BaggingClassifier(LogisticRegression(), n_estimators=2, random_state=0).fit(
        X[["Pclass", "SibSp"]], y
    )
    cases = [
        (
            tree,
            dict(tree_index=1),
            ValueError,
            r"tree_index=1 is out of range: the model has "
            r"1 tree",
        ),
        (forest, dict(tree_index=2), ValueError, r"tree_index=2 is out of range.*2 member"),
        (forest, dict(tree_index=-1), ValueError, "out of range"),
        (forest, dict(tree_index=0, class_index=1), ValueError, "class_index=1"),
        (forest, dict(tree_index=(0, 0)), ValueError, "gradient boosting only"),
        (gb, dict(tree_index=2), ValueError, r"tree_index=2 is out of range.*2 iteration"),
        (
            gb,
            dict(tree_index=0, class_index=1),
            ValueError,
            r"class_index=1 is out of range.*1 tree\(s\) per iteration",
        ),
        (gb, dict(tree_index=(0, 0), class_index=1), ValueError, "disagrees"),
        (gb, dict(tree_index=(0, 0, 0)), ValueError, "pair"),
        (gb, dict(tree_index="0"), TypeError, "tree_index must be an int"),
        (forest, dict(tree_index=1.0), TypeError, "tree_index must be an int"),
        (bag, dict(tree_index=0), ValueError, r"LogisticRegression, not a treeboost tree"),
    ]
    export_functions = (export_text, export_rules, extract_rules, any_rules, export_graphviz)
    for model, kwargs, error, match in cases:
        for function in export_functions:
            with pytest.raises(error, match=match):
                function(model, **kwargs)
    with pytest.raises(ValueError, match="not a fitted treeboost"):
        export_rules(DecisionTreeClassifier())
    with pytest.raises(ValueError, match="feature_names has 2 names, the model has 7"):
        export_rules(forest, feature_names=["a", "b"], tree_index=1)
    melons = load_watermelon()
    id3 = ID3Classifier().fit(melons.data, melons.target)
    with pytest.raises(ValueError, match="multiway"):
        export_text(id3)
    assert export_rules(id3, tree_index=0) == any_rules(id3)
    with pytest.raises(ValueError, match="out of range"):
        export_graphviz(id3, tree_index=1)
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    with pytest.raises(ValueError, match="out of range"):
        plot_tree(gb, tree_index=(0, 1))


def test_dates_print_as_dates_and_rare_categories_as_the_encoders_names():
    from treeboost import GradientBoostingClassifier
    from treeboost.inspection import export_graphviz
    from treeboost.inspection import rule_coverage

    pytest.importorskip("pandas")
    X, y = cities_and_days()
    for model, index in (
        (DecisionTreeClassifier(max_depth=2), {}),
        (
            GradientBoostingClassifier(n_estimators=2, max_depth=2, max_leaf_nodes=None),
            {"tree_index": 1},
        ),
    ):
        model.fit(X, y)
        enc = model._encoder
        tree = model.tree_ if hasattr(model, "tree_") else model.trees_[1][0]
        shared = len(model._encoder.categories_[0]) - 1
        assert enc.categories_[0][shared] == "other (rare)"  # the grouped column
        internal = np.flatnonzero(tree.children_left != -1)
        days = [
            enc.format_threshold(1, t)
            for t in tree.threshold[internal][tree.feature[internal] == 1]
        ]
        assert days and all(d.startswith("2024-") for d in days)
        other = enc.category_names(0, [shared])[0]
        assert other.startswith("other (300 rare: ")
        text = export_text(model, **index)
        rules = "\n".join(export_rules(model, **index))
        dot = export_graphviz(model, **index)
        for d in days:
            assert f"day <= {d}" in text and d in rules and f"day <= {d}" in dot
        assert other in text and other in rules and other in dot
        assert "1.70" not in text + rules + dot  # no seconds since 1970
    # rules keep the labels of X: each row of X is covered by exactly its leaf's rule
    clf = DecisionTreeClassifier(max_depth=2).fit(X, y)
    rules = extract_rules(clf)
    fired = rule_coverage(clf, X)
    np.testing.assert_array_equal(fired.sum(axis=1), 1)
    np.testing.assert_array_equal(
        np.array([r.leaf for r in rules])[fired.argmax(axis=1)], clf.apply(X)
    )
