"""The walks of a fitted tree agree: apply on raw values and on bin codes, the decision
path, add_predictions, and many trees packed into one kernel."""

import numpy as np
import pytest

from treeboost import DecisionTreeRegressor, GradientBoostingClassifier
from treeboost.engine.predict.routing import goes_left_raw
from treeboost.engine.predict.tree import PackedTrees


def _data(n=600, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 4))
    X[rng.rand(n) < 0.1, 0] = np.nan
    X[:, 3] = rng.randint(0, 5, n)
    y = np.nan_to_num(X[:, 0]) + (X[:, 3] == 2) + 0.1 * rng.normal(size=n)
    return X, y


@pytest.fixture(scope="module")
def fitted():
    X, y = _data()
    return X, DecisionTreeRegressor(max_depth=7, categorical_features=[3]).fit(X, y)


def test_apply_on_raw_values_equals_apply_on_codes(fitted):
    X, est = fitted
    Xe = est._encoder.transform(X)
    raw = est.tree_.apply(Xe)
    binned = est.tree_.apply_binned(
        est.bin_mapper_.transform(Xe), est.bin_mapper_.missing_values_code_
    )
    np.testing.assert_array_equal(raw, binned)
    assert (est.tree_.children_left[raw] == -1).all()


def test_decision_path_is_a_path_to_the_leaf(fitted):
    X, est = fitted
    tree = est.tree_
    Xe = est._encoder.transform(X)
    path = tree.decision_path(Xe)
    leaves = tree.apply(Xe)
    for i in range(0, X.shape[0], 37):
        nodes = path.indices[path.indptr[i] : path.indptr[i + 1]]
        assert nodes[0] == 0 and nodes[-1] == leaves[i]
        for a, b in zip(nodes[:-1], nodes[1:]):
            assert b in (tree.children_left[a], tree.children_right[a])


def test_add_predictions_adds_predict(fitted):
    X, est = fitted
    Xe = est._encoder.transform(X)
    out = np.ones((X.shape[0], 1))
    est.tree_.add_predictions(Xe, out)
    np.testing.assert_array_equal(out, 1.0 + est.tree_.predict(Xe))
    with pytest.raises(ValueError):
        est.tree_.add_predictions(Xe, np.ones((X.shape[0], 2)))


def test_packed_trees_sum_every_tree():
    X, y = _data(seed=1)
    gb = GradientBoostingClassifier(n_estimators=7, max_depth=3).fit(
        X, (y > np.nanmedian(y)).astype(int)
    )
    trees = [t for stage in gb.trees_ for t in stage]
    Xe = gb._encoder.transform(X)
    outputs = np.arange(len(trees)) % 2
    packed = PackedTrees(trees, outputs).predict(Xe, 2)
    expected = np.zeros((X.shape[0], 2))
    for t, k in zip(trees, outputs):
        expected[:, k] += t.predict(Xe)[:, 0]
    np.testing.assert_allclose(packed, expected, rtol=0, atol=1e-12)


def test_the_raw_predicate():
    cats = np.zeros((1, 4), np.uint64)
    cats[0, 0] = np.uint64(0b100)  # category 2 goes left
    assert goes_left_raw(np.nan, True, False, cats, 0, 0.5)
    assert goes_left_raw(0.5, False, False, cats, 0, 0.5)
    assert not goes_left_raw(0.6, True, False, cats, 0, 0.5)
    assert goes_left_raw(2.0, False, True, cats, 0, 0.0)
    assert not goes_left_raw(3.0, False, True, cats, 0, 0.0)
    assert goes_left_raw(300.0, True, True, cats, 0, 0.0)  # unseen: missing side
