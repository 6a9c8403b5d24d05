"""engine/grow/tree_arrays.py: a grown tree's arrays, against NumPy's formulas on the same
nodes."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from treeboost import DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesClassifier


def _expected_values(tree, stats, kind, l2=0.0):
    if kind == "classes":
        w = stats[:, :-1].sum(axis=1)
        return w, stats[:, :-1] / np.where(w > 0, w, 1.0)[:, None]
    w = stats[:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        return w, np.where(w[:, None] > 0, stats[:, 1:-1] / np.where(w > 0, w, 1)[:, None], 0.0)


def _node_stats(tree, X, y, n_classes, sample_weight):
    # every node's (w_1, .., w_K, count) summed over the training rows it holds
    path = tree.decision_path(X).toarray().astype(bool)
    onehot = np.eye(n_classes)[y] * sample_weight[:, None]
    rows = np.c_[onehot, np.ones(len(y))]
    return np.array([rows[path[:, i]].sum(axis=0) for i in range(tree.node_count)])


@pytest.mark.parametrize("n_classes", [2, 3, 7, 8, 12])
def test_class_values_are_numpys(n_classes):
    # up to 7 classes the kernel adds the weights as NumPy adds a row; from 8 NumPy does
    X, y = make_classification(
        600, 8, n_informative=6, n_classes=n_classes, n_clusters_per_class=1, random_state=n_classes
    )
    w = np.random.RandomState(0).rand(len(y)) * 3
    clf = DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y, sample_weight=w)
    tree = clf.tree_
    stats = _node_stats(tree, X, y, n_classes, w)
    weight, value = _expected_values(tree, stats, "classes")
    # the sums over the paths are in another order than the grower's: equal to rounding
    np.testing.assert_allclose(tree.weighted_n_node_samples, weight, rtol=1e-12)
    np.testing.assert_allclose(
        tree.value[:, 0] if tree.value.ndim == 3 else tree.value, value, rtol=1e-12, atol=1e-15
    )
    # and from the tree's own weights exactly: value = w_k / sum_k w_k, in NumPy's order
    v = tree.value[:, 0] if tree.value.ndim == 3 else tree.value
    w_k = v * tree.weighted_n_node_samples[:, None]
    np.testing.assert_array_equal(tree.n_node_samples, stats[:, -1].astype(np.int64))
    np.testing.assert_allclose(w_k.sum(axis=1), tree.weighted_n_node_samples, rtol=1e-12)


def test_leaves_and_thresholds():
    X, y = make_classification(800, 6, random_state=1)
    tree = ExtraTreesClassifier(1, random_state=2).fit(X, y).estimators_[0].tree_
    leaf = tree.children_left == -1
    assert (tree.feature[leaf] == -1).all() and (tree.feature[~leaf] >= 0).all()
    assert (tree.gain[leaf] == 0).all()
    assert np.isnan(tree.threshold[leaf]).all()
    assert np.isfinite(tree.threshold[~leaf]).all()
    assert not tree.is_categorical.any()
    # each split's threshold separates its training rows as its bins do
    path = tree.decision_path(X).toarray().astype(bool)
    for i in np.flatnonzero(~leaf)[:50]:
        rows = path[:, i]
        went_left = path[:, tree.children_left[i]][rows]
        np.testing.assert_array_equal(went_left, X[rows, tree.feature[i]] <= tree.threshold[i])


def test_regression_values_are_means():
    X, y = make_regression(500, 5, noise=3, random_state=3)
    w = np.random.RandomState(4).rand(len(y))
    w[:50] = 0.0
    tree = DecisionTreeRegressor(max_depth=5, random_state=0).fit(X, y, sample_weight=w).tree_
    path = tree.decision_path(X).toarray().astype(bool)
    for i in range(tree.node_count):
        rows = path[:, i]
        sw = w[rows].sum()
        assert tree.weighted_n_node_samples[i] == pytest.approx(sw, rel=1e-12)
        if sw > 0:
            assert tree.value[i].ravel()[0] == pytest.approx(
                np.average(y[rows], weights=w[rows]), rel=1e-9, abs=1e-9
            )


def test_serial_predictions_add_the_parallel_ones():
    # a forest's worker adds its trees' values on its own thread (parallel=False)
    X, y = make_classification(3000, 6, random_state=5)
    X[::13, 2] = np.nan
    tree = ExtraTreesClassifier(1, random_state=6).fit(X, y).estimators_[0].tree_
    start = np.random.RandomState(7).rand(len(y), 2)
    a, b = start.copy(), start.copy()
    tree.add_predictions(X, a)
    tree.add_predictions(X, b, parallel=False)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(b, start + tree.value[tree.apply(X)].reshape(len(y), 2))
