"""Rules of every tree, the rule-list classifier, DOT text and matplotlib pictures."""

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from treeboost import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from treeboost.datasets import load_titanic, load_watermelon
from treeboost.trees.classic import C45Classifier, ID3Classifier
from treeboost.inspection import export_graphviz, plot_tree
from treeboost.inspection import export_rules, extract_rules, rule_coverage
from treeboost.trees.rules import RuleListClassifier

TITANIC = ["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]


@pytest.fixture(scope="module")
def titanic():
    t = load_titanic()
    return t.data[TITANIC], t.target


@pytest.mark.parametrize(
    "make",
    [
        lambda: DecisionTreeClassifier(max_depth=6),
        lambda: C45Classifier(),
        lambda: ID3Classifier(n_bins=4),
    ],
)
def test_exactly_one_rule_fires_and_agrees(make, titanic):
    X, y = titanic
    clf = make().fit(X, y)
    rules = extract_rules(clf)
    assert len(rules) == clf.get_n_leaves()
    fired = rule_coverage(clf, X, rules)
    # multiway trees spread a missing value over branches: check complete rows there
    rows = (
        np.ones(len(X), bool)
        if isinstance(clf, DecisionTreeClassifier)
        else ~X.isna().any(axis=1).to_numpy()
    )
    assert np.all(fired[rows].sum(axis=1) == 1)
    pred = np.array([r.prediction for r in rules])[fired[rows].argmax(axis=1)]
    np.testing.assert_array_equal(pred.astype(str), clf.predict(X[rows]).astype(str))


def test_watermelon_rules_text():
    m = load_watermelon()
    clf = ID3Classifier().fit(m.data, m.target)
    text = export_rules(clf)
    assert text[0].startswith("IF 根蒂 = 蜷缩 AND 纹理 = 清晰 THEN class = 是")
    assert np.all(rule_coverage(clf, m.data).sum(axis=1) == 1)


def test_rule_list_on_titanic(titanic):
    X, y = titanic
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    rl = RuleListClassifier(C45Classifier(pruning="pessimistic", min_samples_leaf=2))
    rl.fit(Xtr, ytr)
    tree_acc, rule_acc = rl.estimator_.score(Xte, yte), rl.score(Xte, yte)
    print(f"\nTitanic hold-out: C4.5 tree {tree_acc:.3f}, rule list {rule_acc:.3f}")
    assert rule_acc > 0.75 and abs(rule_acc - tree_acc) < 0.05
    acc = [r.extra["estimated_accuracy"] for r in rl.rules_]
    assert acc == sorted(acc, reverse=True)
    n_conditions = sum(len(r.conditions) for r in rl.rules_)
    assert n_conditions <= sum(len(r.conditions) for r in extract_rules(rl.estimator_))
    np.testing.assert_allclose(rl.predict_proba(Xte).sum(axis=1), 1.0)
    assert "OTHERWISE" in rl.export_text()
    with pytest.raises(ValueError, match="confidence_factor"):
        RuleListClassifier(confidence_factor=0.9).fit(Xtr, ytr)


def test_graphviz_every_tree(titanic):
    X, y = titanic
    m = load_watermelon()
    models = [
        ID3Classifier().fit(m.data, m.target),
        C45Classifier(max_depth=3).fit(X, y),
        DecisionTreeClassifier(max_depth=3).fit(X, y),
        DecisionTreeRegressor(max_depth=2).fit(X, X["Fare"].fillna(0)),
        RandomForestClassifier(n_estimators=3, max_depth=2, random_state=0).fit(X, y),
        GradientBoostingClassifier(n_estimators=3, max_leaf_nodes=4).fit(X, y),
    ]
    for model in models:
        dot = export_graphviz(model, tree_index=min(1, len(getattr(model, "trees_", [0])) - 1))
        assert dot.startswith("digraph Tree {") and dot.endswith("}")
        n_edges = dot.count(" -> ")
        n_nodes = sum(
            1
            for line in dot.splitlines()
            if line.split(" ")[0].isdigit() and "[label=" in line and "->" not in line
        )
        assert n_edges == n_nodes - 1
    assert '-> 1 [label="清晰"]' in export_graphviz(models[0])


def test_plot_tree(tmp_path, titanic):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    X, y = titanic
    for model in (
        C45Classifier(max_depth=2).fit(X, y),
        DecisionTreeClassifier(max_depth=3).fit(X, y),
    ):
        ax = plot_tree(model, max_depth=2)
        assert len(ax.texts) > 3
        ax.figure.savefig(tmp_path / "tree.png")
    assert (tmp_path / "tree.png").stat().st_size > 1000
    matplotlib.pyplot.close("all")
