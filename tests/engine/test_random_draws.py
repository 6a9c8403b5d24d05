"""Extra-Trees' draws as scikit-learn's random splitter makes them: every drawn feature
counts toward ``max_features`` with one non-constant one guaranteed (a constant
categorical no longer stunts the tree), missing values on a random side, a random subset
for a drawn categorical feature."""

import numpy as np
import pandas as pd
import pytest

import treeboost as tb


def _frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.normal(size=n),
            "c": pd.Categorical(rng.choice(["u", "v"], size=n)),
        }
    )
    y = (X["a"] + X["b"] + (X["c"] == "u") + rng.normal(scale=0.7, size=n) > 0.8).astype(int)
    return X, y.to_numpy()


def test_a_constant_categorical_does_not_stop_the_tree():
    # every row distinct in (a, b): a tree grown until its leaves are pure fits the
    # training set; a node that stopped at a drawn constant categorical does not
    X, y = _frame()
    for seed in range(3):
        tree = tb.DecisionTreeClassifier(splitter="random", max_features=1, random_state=seed)
        tree.fit(X, y)
        assert tree.score(X, y) == 1.0
    forest = tb.ExtraTreesClassifier(n_estimators=5, max_features=1, random_state=0).fit(X, y)
    assert forest.score(X, y) == 1.0


def test_constant_features_count_toward_max_features():
    # 1 informative column and 30 constant ones: scikit-learn's rule draws
    # max_features=2 features, counts the constant ones, and goes on only when none of
    # them was informative; a node then often splits on the first one drawn, not on the
    # best of two non-constant ones.  Both searches reach purity, so compare depths:
    # with two informative columns and constants counted, the tree draws fewer of them
    rng = np.random.default_rng(1)
    n = 300
    X = np.hstack([rng.normal(size=(n, 2)), np.zeros((n, 30))])
    y = (X[:, 0] > 0).astype(int)
    tree = tb.DecisionTreeClassifier(splitter="random", max_features=2, random_state=0)
    tree.fit(X, y)
    assert tree.score(X, y) == 1.0
    # feature 1 (noise) is chosen at some node: where both informative ones are drawn
    # among 32, rarely; where only one is drawn (most nodes), it is split on
    assert (tree.tree_.feature == 1).any()


def test_missing_values_go_to_a_random_side():
    # present values all of class 0, missing ones of class 1: the better side for the
    # missing values is always the smaller child (where the old search sent them); a
    # drawn side is the larger one in about half the trees
    rng = np.random.default_rng(2)
    n = 600
    X = rng.normal(size=(n, 1))
    missing = rng.random(n) < 0.3
    X[missing, 0] = np.nan
    y = missing.astype(int)
    present = X[~missing]
    to_larger = 0
    for seed in range(40):
        tree = tb.DecisionTreeClassifier(splitter="random", max_depth=1, random_state=seed)
        t = tree.fit(X, y).tree_
        n_left = int((t.apply(present) == t.children_left[0]).sum())
        left_larger = n_left > len(present) - n_left
        to_larger += bool(t.missing_go_left[0]) == left_larger
    assert 8 <= to_larger <= 32


def test_a_categorical_split_is_a_random_subset():
    rng = np.random.default_rng(3)
    n = 800
    X = pd.DataFrame({"c": pd.Categorical(rng.choice(list("abcdefgh"), size=n))})
    y = (X["c"].isin(["a", "b"])).astype(int).to_numpy()
    roots = set()
    for seed in range(20):
        tree = tb.DecisionTreeClassifier(splitter="random", max_depth=1, random_state=seed).fit(
            X, y
        )
        assert tree.tree_.node_count == 3
        roots.add(tuple(tree.tree_.categories_left[0]))
    # the best subset would be the same {a, b} (or its complement) every time
    assert len(roots) > 2


@pytest.mark.parametrize("n_features", [1, 3])
def test_every_feature_constant_gives_a_leaf(n_features):
    X = np.ones((50, n_features))
    y = np.arange(50) % 2
    tree = tb.DecisionTreeClassifier(splitter="random", random_state=0).fit(X, y)
    assert tree.tree_.node_count == 1
