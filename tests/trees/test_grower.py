"""The grower's workspace: reusing it, and regrowing a tree that outgrows it, changes
nothing in the trees."""
import numpy as np
import pytest

import treeboost.trees.grower as grower_module
from treeboost import DecisionTreeClassifier, DecisionTreeRegressor


def _same_tree(a, b):
    assert a.node_count == b.node_count
    for name in a._arrays:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.parametrize("Tree", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_a_tree_that_outgrows_the_first_capacity_is_regrown_whole(Tree, monkeypatch):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(600, 4))
    y = rng.randint(0, 2, 600)          # noise: the full tree has hundreds of nodes
    big = Tree(random_state=0).fit(X, y)
    assert big.tree_.node_count > 100
    monkeypatch.setattr(grower_module, "_FIRST_CAPACITY", 3)
    small = Tree(random_state=0).fit(X, y)
    _same_tree(big.tree_, small.tree_)


def test_a_reused_workspace_grows_the_same_trees_as_fresh_ones():
    """A workspace shared by trees of different sizes is reset between them."""
    rng = np.random.RandomState(1)
    X = rng.normal(size=(800, 5))
    y = (X[:, 0] + rng.normal(size=800) > 0).astype(int)
    ws = grower_module.GrowerWorkspace()
    shallow = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    deep = DecisionTreeClassifier(random_state=0).fit(X, y)
    for est in (deep, shallow, deep):
        g = est._grower(X.shape[0], float(X.shape[0]), 0, parallel=False)
        stats = est._stats(np.searchsorted(est.classes_, y), np.ones(X.shape[0]))
        Xb = est.bin_mapper_.transform(est._encoder.transform(X))
        tree, _ = g.grow(Xb, stats, None, None, ws)
        fresh, _ = g.grow(Xb, stats, None, None, None)
        _same_tree(tree, fresh)
