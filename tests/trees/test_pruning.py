"""Pruning: the book's pre-/post-pruning figures, subtree and leaf-count invariants,
cost-complexity path against scikit-learn, pessimistic pruning, bad input."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.tree import DecisionTreeClassifier as SkTree

from treeboost import DecisionTreeClassifier, DecisionTreeRegressor
from treeboost.datasets import load_titanic, load_watermelon
from treeboost.trees.classic import C45Classifier, ID3Classifier
from treeboost.trees.pruning import (
    cost_complexity_pruning_path,
    pessimistic_errors,
    pessimistic_pruning,
    pre_pruning,
    prune_ccp,
    reduced_error_pruning,
)


@pytest.fixture(scope="module")
def book():
    m = load_watermelon()
    tr = np.isin(m.ids, m.book_train_ids)
    va = np.isin(m.ids, m.book_validation_ids)
    Xt, yt, Xv, yv = m.data[tr], m.target[tr], m.data[va], m.target[va]
    return ID3Classifier(tie_break=["脐部"]).fit(Xt, yt), Xt, yt, Xv, yv


@pytest.fixture(scope="module")
def titanic():
    t = load_titanic()
    X = t.data[["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]]
    return X.iloc[:600], t.target.iloc[:600], X.iloc[600:], t.target.iloc[600:]


def assert_subtree(pruned, original):
    """Every node of the pruned tree is the original node it maps to, same test."""
    p, o = pruned.tree_, original.tree_
    m = p.node_map_
    if hasattr(p, "children_left"):
        for i in np.flatnonzero(p.children_left >= 0):
            assert m[p.children_left[i]] == o.children_left[m[i]]
            assert m[p.children_right[i]] == o.children_right[m[i]]
            assert p.feature[i] == o.feature[m[i]]
        np.testing.assert_array_equal(p.value, o.value[m])
    else:
        for i in np.flatnonzero(p.feature >= 0):
            np.testing.assert_array_equal(m[p.children[i]], o.children[m[i]])
            assert p.feature[i] == o.feature[m[i]]
    assert p.n_leaves <= o.n_leaves


def test_book_pre_pruning(book):
    clf, Xt, yt, Xv, yv = book
    pruned, report = pre_pruning(clf, Xv, yv, return_report=True)
    assert pruned.score(Xv, yv) == pytest.approx(5 / 7)
    assert pruned.tree_.n_leaves == 3 and pruned.get_depth() == 1
    assert pruned.feature_names_in_[pruned.tree_.feature[0]] == "脐部"
    assert report[0]["decision"] == "split"
    assert report[0]["accuracy_after"] == pytest.approx(5 / 7)
    assert [r["decision"] for r in report[1:]] == ["leaf (split does not raise accuracy)"] * 2
    assert_subtree(pruned, clf)
    assert clf.score(Xv, yv) == pytest.approx(3 / 7)  # the input is left alone


def test_book_post_pruning(book):
    clf, Xt, yt, Xv, yv = book
    pruned, report = reduced_error_pruning(clf, Xv, yv, return_report=True)
    assert pruned.score(Xv, yv) == pytest.approx(5 / 7)
    assert report[0]["feature"] == "纹理" and report[0]["decision"] == "prune"
    assert report[0]["accuracy_before"] == pytest.approx(3 / 7)
    assert report[0]["accuracy_after"] == pytest.approx(4 / 7)
    assert_subtree(pruned, clf)
    # tie="keep" gives the book's figure 4.7: 7 leaves, still 71.4 %
    kept = reduced_error_pruning(clf, Xv, yv, tie="keep")
    assert kept.score(Xv, yv) == pytest.approx(5 / 7) and kept.tree_.n_leaves == 7
    assert pruned.tree_.n_leaves <= kept.tree_.n_leaves
    # the same through the estimator's parameter
    est = ID3Classifier(tie_break=["脐部"], pruning="post").fit(Xt, yt, X_val=Xv, y_val=yv)
    assert est.score(Xv, yv) == pytest.approx(5 / 7) and est.pruning_report_


def test_unseen_classes_and_categories_in_validation(book):
    clf, Xt, yt, Xv, yv = book
    Xv2 = Xv.astype(object).copy()
    Xv2.iloc[0, 0] = "紫色"
    yv2 = yv.copy().astype(object)
    yv2.iloc[1] = "也许"
    for fn in (pre_pruning, reduced_error_pruning):
        pruned = fn(clf, Xv2, yv2)
        assert pruned.tree_.n_leaves <= clf.tree_.n_leaves


@pytest.mark.parametrize(
    "make",
    [
        lambda: DecisionTreeClassifier(random_state=0),
        lambda: C45Classifier(),
        lambda: ID3Classifier(n_bins=4),
    ],
)
def test_invariants_every_method(make, titanic):
    Xt, yt, Xv, yv = titanic
    clf = make().fit(Xt, yt)
    results = [
        pre_pruning(clf, Xv, yv),
        reduced_error_pruning(clf, Xv, yv),
        pessimistic_pruning(clf),
        prune_ccp(clf, 0.005),
    ]
    for pruned in results:
        assert_subtree(pruned, clf)
        assert pruned.predict_proba(Xv).shape == (len(Xv), 2)
    # reduced-error pruning never lowers validation accuracy
    assert results[1].score(Xv, yv) >= clf.score(Xv, yv) - 1e-12
    path = cost_complexity_pruning_path(clf)
    assert np.all(np.diff(path.ccp_alphas) >= 0) and path.ccp_alphas[0] == 0
    assert np.all(np.diff(path.n_leaves) < 0) and path.n_leaves[-1] == 1
    assert np.all(np.diff(path.impurities) >= -1e-12)


def test_validation_fraction(titanic):
    Xt, yt, _, _ = titanic
    clf = C45Classifier(pruning="post", validation_fraction=0.3, random_state=0).fit(Xt, yt)
    full = C45Classifier().fit(Xt, yt)
    assert clf.tree_.n_leaves < full.tree_.n_leaves
    assert clf.pruning_report_


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_ccp_path_matches_sklearn(criterion):
    X, y = load_breast_cancer(return_X_y=True)
    ours = DecisionTreeClassifier(max_bins=None, criterion=criterion).fit(X, y)
    sk = SkTree(random_state=0, criterion=criterion).fit(X, y)
    assert ours.tree_.node_count == sk.tree_.node_count
    a = cost_complexity_pruning_path(ours)
    b = sk.cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(a.ccp_alphas, b.ccp_alphas, rtol=0, atol=1e-9)
    np.testing.assert_allclose(a.impurities, b.impurities, rtol=0, atol=1e-9)
    for alpha in b.ccp_alphas:
        pruned = prune_ccp(ours, alpha)
        ref = SkTree(random_state=0, criterion=criterion, ccp_alpha=alpha).fit(X, y)
        assert pruned.get_n_leaves() == ref.get_n_leaves()
        assert pruned.score(X, y) == pytest.approx(ref.score(X, y), abs=0.01)
    # refitting through X, y as scikit-learn's method does
    c = cost_complexity_pruning_path(
        DecisionTreeClassifier(max_bins=None, criterion=criterion), X, y
    )
    np.testing.assert_allclose(c.ccp_alphas, a.ccp_alphas)


def test_ccp_regressor_and_zero_alpha():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = X[:, 0] + rng.normal(size=300)
    reg = DecisionTreeRegressor(max_depth=6).fit(X, y)
    assert prune_ccp(reg, 0.0).tree_.node_count == reg.tree_.node_count
    path = cost_complexity_pruning_path(reg)
    assert prune_ccp(reg, path.ccp_alphas[-1]).tree_.node_count == 1
    with pytest.raises(ValueError, match="ccp_alpha"):
        prune_ccp(reg, -1.0)
    with pytest.raises(ValueError, match="classifier"):
        pessimistic_pruning(reg)


def test_pessimistic_errors_and_cf():
    # E = 0: U = 1 - CF^(1/N)
    assert pessimistic_errors(6, 0, 0.25) == pytest.approx(6 * (1 - 0.25 ** (1 / 6)))
    # Quinlan's book example (C4.5, ch. 4): U_0.25(1, 16) ~ 0.157
    assert pessimistic_errors(16, 1, 0.25) / 16 == pytest.approx(0.157, abs=3e-3)
    assert pessimistic_errors(16, 1, 0.1) > pessimistic_errors(16, 1, 0.25)
    for bad in (0.0, 0.6, -0.1, 1):
        with pytest.raises(ValueError, match="confidence_factor"):
            pessimistic_errors(10, 1, bad)


def test_pessimistic_smaller_cf_prunes_more(titanic):
    Xt, yt, _, _ = titanic
    clf = C45Classifier().fit(Xt, yt)
    leaves = [pessimistic_pruning(clf, cf).tree_.n_leaves for cf in (0.5, 0.25, 0.05)]
    assert leaves[0] >= leaves[1] >= leaves[2]
    with pytest.raises(ValueError, match="confidence_factor"):
        pessimistic_pruning(clf, 0.75)
