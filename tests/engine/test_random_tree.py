"""The lean random-cut grower (engine/random_tree.py) grows the trees the general grower
grows: the same draws in the same order, the same sums, the same node numbering."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from treeboost import ExtraTreesClassifier, ExtraTreesRegressor
from treeboost.engine.grow import random_tree

_FIELDS = (
    "children_left",
    "children_right",
    "feature",
    "threshold",
    "missing_go_left",
    "value",
    "impurity",
    "n_node_samples",
    "weighted_n_node_samples",
)


def _fit_both(monkeypatch, make, X, y, sample_weight=None):
    """``make()`` fitted with the lean grower, then with the general one."""
    lean = make().fit(X, y, sample_weight=sample_weight)
    with monkeypatch.context() as m:
        m.setattr(random_tree, "lean_tree", lambda *a: False)
        general = make().fit(X, y, sample_weight=sample_weight)
    return lean, general


def _assert_same_trees(a, b):
    for ta, tb in zip(a.estimators_, b.estimators_):
        for name in _FIELDS:
            np.testing.assert_array_equal(
                getattr(ta.tree_, name), getattr(tb.tree_, name), err_msg=name
            )


def _with_missing(X, rate, seed):
    X = X.copy()
    X[np.random.RandomState(seed).rand(*X.shape) < rate] = np.nan
    return X


def test_the_lean_grower_is_used(monkeypatch):
    calls = []
    grow = random_tree.grow_random_tree
    monkeypatch.setattr(random_tree, "grow_random_tree", lambda *a: calls.append(1) or grow(*a))
    X, y = make_classification(200, 6, random_state=0)
    ExtraTreesClassifier(3, n_jobs=1, random_state=0).fit(X, y)
    assert len(calls) == 3


@pytest.mark.parametrize(
    "kw, missing, weighted",
    [
        ({}, 0.0, False),
        ({"criterion": "entropy", "max_depth": 7, "min_samples_leaf": 3}, 0.1, True),
        ({"max_features": None, "min_samples_split": 6}, 0.2, False),
        ({"max_features": 1, "bootstrap": True, "max_bins": 16}, 0.05, True),
        ({"min_impurity_decrease": 1e-3, "min_weight_fraction_leaf": 0.01}, 0.0, True),
    ],
)
def test_classifier_trees_match_the_general_grower(monkeypatch, kw, missing, weighted):
    X, y = make_classification(1500, 12, n_informative=6, n_classes=3, random_state=1)
    X = _with_missing(X, missing, 2)
    w = np.random.RandomState(3).rand(len(y)) * 2 if weighted else None
    lean, general = _fit_both(
        monkeypatch, lambda: ExtraTreesClassifier(4, n_jobs=1, random_state=5, **kw), X, y, w
    )
    _assert_same_trees(lean, general)


@pytest.mark.parametrize(
    "kw, missing",
    [
        ({}, 0.0),
        ({"criterion": "entropy", "min_samples_leaf": 2}, 0.1),
        ({"max_features": None, "max_bins": 8}, 0.3),
        ({"max_features": 1, "min_samples_split": 5, "max_depth": 12}, 0.0),
        ({"max_bins": 1000}, 0.05),
    ],
)
def test_two_class_counts_match_the_general_grower(monkeypatch, kw, missing):
    # two classes with unit weights: the lean grower counts the classes that travel with
    # the codes (random_cuts.cut_counts) instead of summing rows of statistics
    X, y = make_classification(1500, 12, n_informative=6, random_state=11)
    X = _with_missing(X, missing, 12)
    X[:, 3] = np.round(X[:, 3])  # a feature of few values: constant in many nodes
    lean, general = _fit_both(
        monkeypatch, lambda: ExtraTreesClassifier(4, n_jobs=1, random_state=13, **kw), X, y
    )
    _assert_same_trees(lean, general)


@pytest.mark.parametrize("rows_max", [1, 40, 700])
@pytest.mark.parametrize(
    "kw, missing",
    [
        ({}, 0.1),
        ({"max_features": None, "max_bins": 8, "min_samples_leaf": 2}, 0.3),
        ({"max_bins": 1000, "criterion": "entropy"}, 0.05),
    ],
)
def test_large_nodes_read_through_ids_match_the_general_grower(monkeypatch, rows_max, kw, missing):
    # with counts, a node above rows_max samples has no rows of codes: it is counted and
    # partitioned through its ids from the feature-major codes, and a subtree's rows are
    # filled from its first node of at most rows_max samples; the trees are the same
    monkeypatch.setattr(random_tree, "_ROWS_MAX", rows_max)
    monkeypatch.setattr(random_tree, "_IDS_MIN_WORKERS", 1)
    X, y = make_classification(1500, 12, n_informative=6, random_state=21)
    X = _with_missing(X, missing, 22)
    X[:, 3] = np.round(X[:, 3])
    lean, general = _fit_both(
        monkeypatch, lambda: ExtraTreesClassifier(3, n_jobs=1, random_state=23, **kw), X, y
    )
    _assert_same_trees(lean, general)


def test_counts_are_not_used_with_weights(monkeypatch):
    # a weight other than 1 makes the sums non-counts: the rows of statistics are summed
    X, y = make_classification(600, 6, random_state=14)
    w = np.ones(len(y))
    w[::7] = 2.5
    lean, general = _fit_both(
        monkeypatch, lambda: ExtraTreesClassifier(3, n_jobs=1, random_state=15), X, y, w
    )
    _assert_same_trees(lean, general)
    unit = ExtraTreesClassifier(3, n_jobs=1, random_state=15).fit(X, y)
    assert not np.array_equal(
        unit.estimators_[0].tree_.weighted_n_node_samples,
        lean.estimators_[0].tree_.weighted_n_node_samples,
    )


@pytest.mark.parametrize(
    "kw, missing, weighted",
    [
        ({}, 0.0, False),
        ({"max_depth": 9, "min_samples_leaf": 3}, 0.15, True),
        ({"criterion": "poisson", "max_features": 0.3}, 0.0, False),
        ({"max_features": 2, "bootstrap": True}, 0.1, True),
    ],
)
def test_regressor_trees_match_the_general_grower(monkeypatch, kw, missing, weighted):
    X, y = make_regression(1500, 10, n_informative=5, noise=5, random_state=3)
    if kw.get("criterion") == "poisson":
        y = np.exp(y / 200)
    X = _with_missing(X, missing, 4)
    w = np.random.RandomState(5).rand(len(y)) if weighted else None
    lean, general = _fit_both(
        monkeypatch, lambda: ExtraTreesRegressor(4, n_jobs=1, random_state=6, **kw), X, y, w
    )
    _assert_same_trees(lean, general)


def test_multi_output_regressor_matches_the_general_grower(monkeypatch):
    X, y = make_regression(1000, 8, n_informative=4, noise=5, random_state=7)
    Y = np.c_[y, y**2 / 100]
    lean, general = _fit_both(
        monkeypatch, lambda: ExtraTreesRegressor(3, n_jobs=1, random_state=8), X, Y
    )
    _assert_same_trees(lean, general)


def test_a_tree_outgrowing_its_nodes_is_grown_again(monkeypatch):
    # a first capacity of 3 nodes: the lean grower stops at the cap, and grow() grows
    # the tree again in more room, as with the general grower
    monkeypatch.setattr("treeboost.engine.grow.grower._MAX_FIRST_CAPACITY", 1)
    monkeypatch.setattr("treeboost.engine.grow.grower._FIRST_CAPACITY", 3)
    X, y = make_classification(400, 5, random_state=9)
    lean, general = _fit_both(
        monkeypatch, lambda: ExtraTreesClassifier(2, n_jobs=1, random_state=10), X, y
    )
    _assert_same_trees(lean, general)
    assert lean.estimators_[0].tree_.node_count > 3


def test_lean_tree_excludes_what_it_does_not_grow():
    none = np.zeros((5, 0), np.uint64)
    assert random_tree.lean_tree(True, False, False, False, False, none, False)
    assert not random_tree.lean_tree(False, False, False, False, False, none, False)
    for i in range(5):
        flags = [False] * 5
        flags[i] = True
        exact, newton, best_first, monotonic, categorical = flags
        assert not random_tree.lean_tree(
            True, exact, newton, best_first, monotonic, none, categorical
        )
    assert not random_tree.lean_tree(
        True, False, False, False, False, np.zeros((5, 1), np.uint64), False
    )


@pytest.mark.parametrize("n_jobs, ids", [(1, False), (3, False), (8, True)])
def test_large_nodes_are_read_through_ids_with_many_workers(monkeypatch, n_jobs, ids):
    # the forest tells its workspaces how many workers grow trees at once; from
    # _IDS_MIN_WORKERS on, the lean grower keeps rows only for nodes of _ROWS_MAX samples
    monkeypatch.setattr("treeboost.ensembles._parallel.thread_budget", lambda: 8)
    made = []
    real = random_tree.lean_buffers

    def recorded(*args):
        made.append(real(*args))
        return made[-1]

    monkeypatch.setattr(random_tree, "lean_buffers", recorded)
    X, y = make_classification(300, 5, random_state=24)
    ExtraTreesClassifier(8, n_jobs=n_jobs, random_state=25).fit(X, y)
    assert len(made) == 8
    expected = random_tree._ROWS_MAX if ids else len(y)
    assert {int(b.rows_max) for b in made} == {expected}
