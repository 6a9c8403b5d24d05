"""CART with attribute costs (Mitchell 3.7.5): the features' best splits compared by
Tan and Schlimmer's or Nunez's measure inside the compiled grower."""

import numpy as np
import pandas as pd
import pytest

from treeboost import DecisionTreeClassifier, DecisionTreeRegressor
from treeboost.trees.attribute_costs import cost_sensitive_score


def _gini(y):
    p = np.bincount(y, minlength=2) / len(y)
    return 1.0 - (p**2).sum()


def _best_gain(x, y):
    """Gini(D) - sum |D_v|/|D| Gini(D_v) of the best cut of x, by brute force."""
    best = 0.0
    for t in np.unique(x)[:-1]:
        left = x <= t
        g = _gini(y) - left.mean() * _gini(y[left]) - (~left).mean() * _gini(y[~left])
        best = max(best, g)
    return best


@pytest.fixture
def table():
    """Feature 0 separates the classes perfectly, feature 1 nearly (3 rows of 40 on the
    wrong side)."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 20)
    x0 = np.where(y == 1, 5.0, 1.0) + rng.uniform(0, 1, 40)
    x1 = np.where(y == 1, 3.0, 1.0) + rng.uniform(0, 0.5, 40)
    x1[:3] += 2.0  # three class-0 rows look like class 1
    return np.c_[x0, x1], y


def test_costs_change_the_chosen_feature(table):
    X, y = table
    gains = np.array([_best_gain(X[:, f], y) for f in range(2)])
    assert gains[0] == pytest.approx(0.5) and 0.3 < gains[1] < gains[0]
    plain = DecisionTreeClassifier(max_depth=1, max_bins=None).fit(X, y)
    assert plain.tree_.feature[0] == 0
    costs = [4.0, 1.0]
    # Tan and Schlimmer: 0.5^2 / 4 = 0.0625 against gain_1^2 / 1
    by_hand = gains**2 / np.array(costs)
    np.testing.assert_allclose(cost_sensitive_score(gains, costs), by_hand)
    assert by_hand[1] > by_hand[0]
    cheap = DecisionTreeClassifier(max_depth=1, max_bins=None, feature_costs=costs).fit(X, y)
    assert cheap.tree_.feature[0] == 1
    # Nunez: (2^0.5 - 1) / 5^w against (2^g1 - 1) / 2^w; w = 0 ignores the costs
    for w, chosen in ((1.0, 1), (0.0, 0)):
        m = np.expm1(gains * np.log(2)) / (np.array(costs) + 1.0) ** w
        np.testing.assert_allclose(cost_sensitive_score(gains, costs, "nunez", w), m)
        assert int(np.argmax(m)) == chosen
        tree = DecisionTreeClassifier(
            max_depth=1, max_bins=None, feature_costs=costs, cost_measure="nunez", cost_weight=w
        ).fit(X, y)
        assert tree.tree_.feature[0] == chosen


def test_equal_costs_grow_the_same_tree():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    a = DecisionTreeClassifier(random_state=0).fit(X, y)
    b = DecisionTreeClassifier(random_state=0, feature_costs=[2.0] * 4).fit(X, y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_root_choice_equals_brute_force_measure():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 5, size=(200, 5)).astype(float)
    y = ((X[:, 0] + X[:, 1] + rng.integers(0, 3, 200)) > 5).astype(int)
    costs = rng.uniform(0.5, 5.0, 5)
    gains = np.array([_best_gain(X[:, f], y) for f in range(5)])
    for measure in ("tan_schlimmer", "nunez"):
        expected = int(np.argmax(cost_sensitive_score(gains, costs, measure, 0.7)))
        tree = DecisionTreeClassifier(
            max_depth=1, feature_costs=costs, cost_measure=measure, cost_weight=0.7
        ).fit(X, y)
        assert tree.tree_.feature[0] == expected


def test_costs_by_column_name_and_regression():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"exam": rng.normal(size=200), "survey": rng.normal(size=200)})
    y = 2.0 * df["exam"] + 1.5 * df["survey"] + rng.normal(0, 0.1, 200)
    plain = DecisionTreeRegressor(max_depth=1).fit(df, y)
    assert plain.tree_.feature[0] == 0
    cheap = DecisionTreeRegressor(max_depth=1, feature_costs={"exam": 10.0}).fit(df, y)
    assert cheap.tree_.feature[0] == 1


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"feature_costs": [1.0, -1.0]}, "feature_costs"),
        ({"feature_costs": [1.0]}, "feature_costs"),
        ({"feature_costs": {"nope": 2.0}}, "unknown column"),
        ({"feature_costs": [1.0, 2.0], "splitter": "random"}, "splitter"),
        ({"cost_measure": "gini"}, "cost_measure"),
        ({"cost_weight": 2.0}, "cost_weight"),
    ],
)
def test_bad_costs_are_refused_by_name(table, kwargs, match):
    X, y = table
    with pytest.raises(ValueError, match=match):
        DecisionTreeClassifier(**kwargs).fit(X, y)


def test_split_report_gives_the_gain_cost_and_measure_by_hand(table):
    X, y = table
    gains = np.array([_best_gain(X[:, f], y) for f in range(2)])
    costs = np.array([4.0, 1.0])
    tree = DecisionTreeClassifier(max_depth=2, max_bins=None, feature_costs=costs).fit(X, y)
    rep = tree.split_report(X, y)
    np.testing.assert_allclose(rep["gain"], gains, rtol=1e-12)
    assert rep["gain"][0] == pytest.approx(0.5)  # Gini 0.5 of 20 : 20 to two pure sides
    np.testing.assert_allclose(rep["cost"], costs)
    np.testing.assert_allclose(rep["score"], gains**2 / costs, rtol=1e-12)
    assert rep["chosen"].tolist() == [False, True] and rep.attrs["impurity"] == 0.5
    nunez = DecisionTreeClassifier(
        max_depth=1, max_bins=None, feature_costs=costs, cost_measure="nunez", cost_weight=0.5
    ).fit(X, y)
    by_hand = (2.0**gains - 1.0) / (costs + 1.0) ** 0.5
    np.testing.assert_allclose(nunez.split_report(X, y)["score"], by_hand, rtol=1e-12)
    # the node below: its own rows, by brute force; a leaf has no report
    below_root = int(np.flatnonzero(tree.tree_.children_left >= 0)[1])
    here = tree.decision_path(X)[:, below_root].toarray().ravel() > 0
    below = tree.split_report(X, y, node=below_root)
    sub = np.array([_best_gain(X[here, f], y[here]) for f in range(2)])
    np.testing.assert_allclose(below["gain"], sub, rtol=1e-12, atol=1e-15)
    leaf = int(np.flatnonzero(tree.tree_.children_left < 0)[0])
    with pytest.raises(ValueError, match="leaf"):
        tree.split_report(X, y, node=leaf)
    with pytest.raises(ValueError, match="node"):
        tree.split_report(X, y, node=-1)


def test_split_report_without_costs_and_regression_chooses_the_largest_gain():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 6, size=(300, 4)).astype(float)
    X[rng.random((300, 4)) < 0.1] = np.nan
    y = X[:, 1] * 2.0 + np.nan_to_num(X[:, 2]) + rng.normal(0, 0.5, 300)
    y = np.nan_to_num(y)
    tree = DecisionTreeRegressor(max_depth=2).fit(X, y)
    for node in (0, tree.tree_.children_left[0]):
        rep = tree.split_report(X, y, node=node)
        assert rep["chosen"].tolist() == (rep["score"] == rep["score"].max()).tolist()
        np.testing.assert_array_equal(rep["score"], rep["gain"])
        assert (rep["cost"] == 1.0).all()
    # the root's variance decrease of its chosen cut, by hand
    f, t = tree.tree_.feature[0], tree.tree_.threshold[0]
    go_left = X[:, f] <= t
    miss = np.isnan(X[:, f])
    best = 0.0
    for miss_left in (False, True):
        lft = (go_left & ~miss) | (miss & miss_left)
        g = y.var() - lft.mean() * y[lft].var() - (~lft).mean() * y[~lft].var()
        best = max(best, g)
    assert tree.split_report(X, y)["gain"][f] == pytest.approx(best, rel=1e-9)
