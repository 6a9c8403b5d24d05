"""treeboost.inspection.dtreeviz_model: dtreeviz's adaptor for treeboost's trees draws
them, with the tree's own nodes, splits and rows."""

import re
import shutil

import numpy as np
import pytest

import treeboost as tb
from treeboost.inspection import dtreeviz_model

pytest.importorskip("dtreeviz")
pytest.importorskip("matplotlib")


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * X[:, 2] > 0).astype(int)
    return X, y


def _check_shadow(viz, tree, X_tree):
    """The adaptor's nodes are the tree's: the same leaves and split features, and each
    node's rows are those the tree sends there."""
    shadow = viz.shadow_tree
    leaves = np.flatnonzero(tree.children_left == -1)
    assert sorted(n.id for n in shadow.leaves) == leaves.tolist()
    assert len(shadow.internal) == tree.node_count - leaves.size
    for node in shadow.internal:
        assert node.feature() == tree.feature[node.id]
        assert node.split() == pytest.approx(tree.threshold[node.id])
    reached = tree.apply(np.ascontiguousarray(X_tree))
    for node in shadow.leaves:
        assert node.nsamples() == int((reached == node.id).sum())


def _render(viz):
    render = viz.view()
    dot = render.dot
    assert dot.lstrip().startswith("digraph")
    if shutil.which("dot") is None:
        pytest.skip("graphviz's dot program is not installed: the DOT text was checked")
    svg = render.svg()
    assert "<svg" in svg
    return svg


def test_classifier_tree_draws():
    X, y = _data()
    clf = tb.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    viz = dtreeviz_model(clf, X, y, target_name="y", class_names=["no", "yes"])
    _check_shadow(viz, clf.tree_, X)
    counts = viz.shadow_tree.get_node_nsamples_by_class(0)
    assert counts.tolist() == np.bincount(y).tolist()
    # the leaf's class is the tree's
    for node in viz.shadow_tree.leaves:
        assert node.prediction() == np.argmax(clf.tree_.value[node.id])
    _render(viz)


def test_regressor_tree_draws():
    X, y = _data()
    target = X[:, 0] * 2 + X[:, 1]
    reg = tb.DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, target)
    viz = dtreeviz_model(reg, X, target, feature_names=["a", "b", "c", "d"], target_name="t")
    _check_shadow(viz, reg.tree_, X)
    for node in viz.shadow_tree.leaves:
        assert node.prediction() == pytest.approx(reg.tree_.value[node.id, 0])
    svg = _render(viz)
    assert re.search(r"\ba\b", svg)


def test_one_tree_of_a_forest_and_of_a_booster():
    X, y = _data()
    forest = tb.RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0).fit(X, y)
    viz = dtreeviz_model(forest, X, y, tree_index=2)
    _check_shadow(viz, forest.estimators_[2].tree_, X)
    hgb = tb.HistGradientBoostingClassifier(max_iter=3, max_leaf_nodes=5).fit(X, y)
    viz = dtreeviz_model(hgb, X, y, tree_index=1)
    tree = hgb.trees_[1][0]
    _check_shadow(viz, tree, X)
    assert viz.shadow_tree.is_classifier()
    assert viz.view().dot.lstrip().startswith("digraph")


def test_bad_input():
    X, y = _data()
    clf = tb.DecisionTreeClassifier(max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="not classes of the model"):
        dtreeviz_model(clf, X, y + 5)
    with pytest.raises(ValueError, match="one value per row"):
        dtreeviz_model(clf, X, y[:-1])
    with pytest.raises(ValueError, match="tree_index|out of range|range"):
        dtreeviz_model(clf, X, y, tree_index=3)
