"""Oblique trees and forests: one oblique line learnt by one split, routing as numpy's
``w . x <= t``, the estimator contract, save/load, and use inside Bagging/AdaBoost."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

import treeboost
from treeboost import DecisionTreeClassifier
from treeboost.oblique import (
    ObliqueDecisionTreeClassifier,
    ObliqueDecisionTreeRegressor,
    ObliqueRandomForestClassifier,
    ObliqueRandomForestRegressor,
)


def _oblique_line(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    y = (0.7 * X[:, 0] - 1.3 * X[:, 1] > 0.1).astype(int)
    return X, y


def test_linear_discriminant_finds_the_line():
    # Fisher's direction is the line's only for Gaussian classes: close here, not exact
    X, y = _oblique_line()
    stump = ObliqueDecisionTreeClassifier(splitter="linear", max_depth=1).fit(X, y)
    axis = ObliqueDecisionTreeClassifier(splitter="axis", max_depth=1).fit(X, y)
    assert (stump.predict(X) == y).mean() > 0.95
    assert (stump.predict(X) == y).mean() > (axis.predict(X) == y).mean() + 0.05


def test_one_oblique_line_is_one_split():
    X, y = _oblique_line()
    tree = ObliqueDecisionTreeClassifier(random_state=0).fit(X, y)
    cart = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert tree.get_n_leaves() == 2
    assert cart.get_n_leaves() > 10
    # the line's accuracy (1.0) on the training data, and close to it on new data
    assert (tree.predict(X) == y).all()
    Xt, yt = _oblique_line(2000, seed=1)
    assert (tree.predict(Xt) == yt).mean() > 0.98
    feats, w, _, t = tree.tree_.test(0)
    # the learnt direction is the line's, up to a positive factor and rounding
    direction = np.zeros(2)
    direction[feats] = w
    cos = abs(direction @ np.array([0.7, -1.3])) / np.linalg.norm(direction) / np.hypot(0.7, 1.3)
    assert cos > 0.99


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(20, 120),
    d=st.integers(2, 5),
    missing=st.booleans(),
)
def test_nodes_route_as_numpy(seed, n, d, missing):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10, d)
    y = (X @ rng.normal(size=d) > 0).astype(int) ^ (rng.random(n) < 0.1)
    if missing:
        X[rng.random((n, d)) < 0.1] = np.nan
    tree = ObliqueDecisionTreeClassifier(random_state=seed, n_restarts=2, max_depth=4).fit(X, y)
    Xt = rng.normal(size=(200, d)) * 5
    paths = tree.tree_.paths(Xt)
    left, right = tree.tree_.children_left, tree.tree_.children_right
    for node in np.flatnonzero(left >= 0):
        feats, w, fill, t = tree.tree_.test(node)
        rows = np.flatnonzero((paths == node).any(axis=1))
        Xn = Xt[rows][:, feats]
        v = np.where(np.isnan(Xn), fill, Xn) @ w
        clear = np.abs(v - t) > 1e-9 * (1 + np.abs(t))
        went_left = (paths[rows] == left[node]).any(axis=1)
        went_right = (paths[rows] == right[node]).any(axis=1)
        assert (went_left ^ went_right).all()
        np.testing.assert_array_equal(went_left[clear], (v <= t)[clear])


def test_missing_values_take_the_node_mean():
    X, y = _oblique_line()
    X = X.copy()
    X[::7, 0] = np.nan
    tree = ObliqueDecisionTreeClassifier(random_state=0, max_depth=3).fit(X, y)
    assert (tree.predict(X) == y).mean() > 0.9
    feats, w, fill, t = tree.tree_.test(0)
    rows = ~np.isnan(X[:, 0])
    assert fill[list(feats).index(0)] == pytest.approx(X[rows, 0].mean())


def test_sample_weight_is_repetition():
    X, y = _oblique_line(200)
    w = np.random.default_rng(0).integers(0, 3, 200)
    a = ObliqueDecisionTreeClassifier(splitter="linear", random_state=0).fit(X, y, sample_weight=w)
    b = ObliqueDecisionTreeClassifier(splitter="linear", random_state=0).fit(
        np.repeat(X, w, axis=0), np.repeat(y, w)
    )
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))


def test_stopping_and_pruning():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    full = ObliqueDecisionTreeClassifier(random_state=0, n_restarts=2).fit(X, y)
    assert ObliqueDecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y).get_depth() <= 2
    assert (
        ObliqueDecisionTreeClassifier(max_leaf_nodes=5, random_state=0).fit(X, y).get_n_leaves()
        <= 5
    )
    small = ObliqueDecisionTreeClassifier(min_samples_leaf=30, random_state=0).fit(X, y)
    assert small.tree_.n_node_samples[small.tree_.children_left < 0].min() >= 30
    pruned = ObliqueDecisionTreeClassifier(random_state=0, n_restarts=2, ccp_alpha=0.01).fit(X, y)
    assert 1 <= pruned.get_n_leaves() < full.get_n_leaves()
    assert ObliqueDecisionTreeClassifier(min_impurity_decrease=0.6).fit(X, y).get_n_leaves() == 1


def test_estimator_basics_and_errors():
    X, y = _oblique_line(100)
    for est in (
        ObliqueDecisionTreeClassifier(random_state=0),
        ObliqueDecisionTreeRegressor(random_state=0, max_depth=3),
        ObliqueRandomForestClassifier(n_estimators=5, random_state=0),
        ObliqueRandomForestRegressor(n_estimators=5, random_state=0),
    ):
        c = clone(est)
        assert c.get_params() == est.get_params()
        c.fit(X, y)
        assert c.predict(X).shape == (100,)
        assert c.n_features_in_ == 2
        if hasattr(c, "predict_proba"):
            p = c.predict_proba(X)
            assert p.shape == (100, 2)
            np.testing.assert_allclose(p.sum(axis=1), 1.0)
        with pytest.raises(ValueError, match="3 features"):
            c.predict(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="max_depth"):
        ObliqueDecisionTreeClassifier(max_depth=0).fit(X, y)
    with pytest.raises(ValueError, match="splitter"):
        ObliqueDecisionTreeClassifier(splitter="cart").fit(X, y)
    with pytest.raises(ValueError, match="feature_combinations"):
        ObliqueRandomForestClassifier(feature_combinations=0.5).fit(X, y)
    with pytest.raises(ValueError, match="sample_weight"):
        ObliqueDecisionTreeClassifier().fit(X, y, sample_weight=-np.ones(100))
    with pytest.raises(ValueError, match="infinity"):
        ObliqueDecisionTreeClassifier().fit(np.full((100, 2), np.inf), y)


def test_text_rules_and_explanations():
    X, y = _oblique_line()
    tree = ObliqueDecisionTreeClassifier(random_state=0).fit(X, y)
    text = tree.export_text(feature_names=["a", "b"])
    assert "* a" in text and "* b" in text and "<=" in text
    assert len(tree.rules()) == 2
    steps = tree.explain(X[:3])
    assert len(steps) == 3 and len(steps[0]) == 1
    s = steps[0][0]
    assert s.went_left == (s.value <= s.threshold)
    assert s.value == pytest.approx(
        X[0] @ np.array(s.weights)[np.argsort([int(f[1:]) for f in s.features])]
    )
    W = tree.decision_path_weights(X[:5])
    np.testing.assert_allclose(np.abs(W).sum(axis=1), 1.0)
    np.testing.assert_allclose(tree.feature_importances_.sum(), 1.0)


def test_save_load_and_tampering(tmp_path):
    X, y = _oblique_line(200)
    X[::9, 1] = np.nan
    for est in (
        ObliqueDecisionTreeClassifier(random_state=0),
        ObliqueRandomForestRegressor(n_estimators=3, random_state=0),
    ):
        est.fit(X, y)
        path = treeboost.save(est, tmp_path / "m.tbm")
        back = treeboost.load(path)
        np.testing.assert_array_equal(back.predict(X), est.predict(X))
    tree = ObliqueDecisionTreeClassifier(random_state=0).fit(X, y)
    tree.tree_.children_left = tree.tree_.children_left.copy()
    tree.tree_.children_left[0] = 0
    treeboost.save(tree, tmp_path / "bad.tbm")
    with pytest.raises(ValueError, match="tree_"):
        treeboost.load(tmp_path / "bad.tbm")


def test_forest_learns_and_is_seeded():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    a = ObliqueRandomForestClassifier(n_estimators=20, random_state=0, n_jobs=2).fit(X[::2], y[::2])
    b = ObliqueRandomForestClassifier(n_estimators=20, random_state=0, n_jobs=1).fit(X[::2], y[::2])
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert (a.predict(X[1::2]) == y[1::2]).mean() > 0.93
    r = ObliqueRandomForestRegressor(n_estimators=20, random_state=0).fit(X[::2], y[::2])
    assert r.score(X[1::2], y[1::2]) > 0.6


def test_base_learner_of_bagging_and_adaboost():
    X, y = _oblique_line(300)
    bag = treeboost.BaggingClassifier(
        ObliqueDecisionTreeClassifier(max_depth=2, n_restarts=1), n_estimators=4, random_state=0
    ).fit(X, y)
    assert (bag.predict(X) == y).mean() > 0.95
    ada = treeboost.AdaBoostClassifier(
        ObliqueDecisionTreeClassifier(max_depth=1, n_restarts=1), n_estimators=3, random_state=0
    ).fit(X, y)
    assert (ada.predict(X) == y).mean() > 0.95


def _brute_ccp_leaves(tree, alpha):
    """The weakest-link loop written out on the node arrays: leaves left for ``alpha``."""
    left, right = tree.children_left, tree.children_right
    R = tree.impurity * tree.weighted_n_node_samples / tree.weighted_n_node_samples[0]
    cut = np.zeros(tree.node_count, bool)

    def walk(i):  # (R(T_t), leaves) of the current subtree at i
        if left[i] < 0 or cut[i]:
            return R[i], 1
        a, b = walk(left[i]), walk(right[i])
        return a[0] + b[0], a[1] + b[1]

    def internal(i):
        return [] if left[i] < 0 or cut[i] else [i, *internal(left[i]), *internal(right[i])]

    while internal(0):
        eff = {i: (R[i] - walk(i)[0]) / (walk(i)[1] - 1) for i in internal(0)}
        i = min(sorted(eff), key=eff.get)
        if eff[i] > alpha * (1 + 1e-10) + 1e-15:
            break
        cut[i] = True
    return walk(0)[1]


def test_oblique_ccp_is_the_axis_trees_rule(monkeypatch):
    """``ccp_alpha`` prunes by :func:`treeboost.trees.pruning.weakest_links` (the
    rule of the axis-parallel trees), and leaves what the loop written out leaves."""
    from treeboost.oblique import _base
    from treeboost.trees import pruning

    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=200) > 0).astype(int)
    full = ObliqueDecisionTreeClassifier(random_state=0, n_restarts=1).fit(X, y).tree_
    calls = []
    monkeypatch.setattr(
        _base, "weakest_links", lambda t, a: calls.append(a) or pruning.weakest_links(t, a)
    )
    for alpha in (0.0005, 0.002, 0.01, 0.05):
        est = ObliqueDecisionTreeClassifier(random_state=0, n_restarts=1, ccp_alpha=alpha)
        assert est.fit(X, y).get_n_leaves() == _brute_ccp_leaves(full, alpha)
    assert calls == [0.0005, 0.002, 0.01, 0.05]


@pytest.mark.parametrize("bad", [1, 0, -3, 2.5, "256", True])
def test_forest_refuses_bad_max_bins_by_name(bad):
    X, y = _oblique_line(60)
    with pytest.raises((ValueError, TypeError), match=r"max_bins") as err:
        ObliqueRandomForestClassifier(n_estimators=2, max_bins=bad).fit(X, y)
    assert repr(bad) in str(err.value) or str(bad) in str(err.value)
