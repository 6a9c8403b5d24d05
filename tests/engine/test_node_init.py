"""The workspace's node arrays are made empty and the growers give each node its initial
values as a tree reaches it (grow.nodes.ready_nodes): whatever the arrays held before,
the trees are the same."""

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn.datasets import make_classification, make_regression

import treeboost as tb
from treeboost.engine.grow import workspace as workspace_module
from treeboost.engine.grow.nodes import READY_CHUNK


def _garbage_workspaces(monkeypatch):
    """Every workspace made from here on starts with junk in its node arrays (a fresh
    allocation is mostly zeros, which would hide a field left without its initial
    value)."""
    real = workspace_module.make_workspace

    def junk(*args, **kwargs):
        ws = real(*args, **kwargs)
        for a in ws.nodes:
            a.view(np.uint8)[...] = 0xA5
        return ws

    monkeypatch.setattr(workspace_module, "make_workspace", junk)


def _cases():
    X, y = make_classification(3000, 8, n_informative=5, random_state=0)
    Xr, yr = make_regression(2000, 6, random_state=1)
    Xc = X.copy()
    Xc[:, 0] = np.floor(np.abs(Xc[:, 0]) * 4) % 6
    Xs = sp.random(1500, 20, density=0.1, format="csr", random_state=2)
    ys = (np.asarray(Xs.sum(axis=1)).ravel() > 0.5).astype(int)
    w = np.random.RandomState(3).uniform(0.2, 3.0, 3000)
    return [
        ("cart", lambda: tb.DecisionTreeClassifier(random_state=0), X, y, None),
        ("cart best-first", lambda: tb.DecisionTreeRegressor(max_leaf_nodes=40), Xr, yr, None),
        ("cart sparse", lambda: tb.DecisionTreeClassifier(random_state=0), Xs, ys, None),
        (
            "forest weighted",
            lambda: tb.RandomForestClassifier(n_estimators=3, n_jobs=2, random_state=0),
            X,
            y,
            w,
        ),
        (
            "extra-trees",
            lambda: tb.ExtraTreesClassifier(n_estimators=3, random_state=0),
            X,
            y,
            None,
        ),
        (
            "extra-trees regression",
            lambda: tb.ExtraTreesRegressor(n_estimators=2, random_state=0),
            Xr,
            yr,
            None,
        ),
        (
            "boosting, categories and constraints",
            lambda: tb.HistGradientBoostingRegressor(
                max_iter=5,
                categorical_features=[0],
                monotonic_cst=[0, 1, 0, 0, 0, -1],
                interaction_cst=[[0, 1], [2, 3, 4, 5]],
            ),
            np.column_stack([np.floor(np.abs(Xr[:, 0]) * 3) % 5, Xr[:, 1:]]),
            yr,
            None,
        ),
        (
            "boosting, absolute error",
            lambda: tb.HistGradientBoostingRegressor(max_iter=5, loss="absolute_error"),
            Xr,
            yr,
            None,
        ),
        (
            "boosting categories",
            lambda: tb.HistGradientBoostingClassifier(max_iter=5, categorical_features=[0]),
            Xc,
            y,
            None,
        ),
    ]


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c[0])
def test_junk_in_fresh_node_arrays_changes_no_tree(case, monkeypatch):
    _, make, X, y, w = case
    expected = make().fit(X, y, sample_weight=w).predict(X)
    _garbage_workspaces(monkeypatch)
    got = make().fit(X, y, sample_weight=w).predict(X)
    np.testing.assert_array_equal(got, expected)


def test_a_small_tree_initialises_a_chunk_of_a_large_workspace():
    from treeboost.engine.grow.grower import TreeGrower, StoppingRules
    from treeboost.engine.binning.mapper import BinMapper
    from treeboost.engine.split.criteria import GINI
    from treeboost.engine.statistics.samples import SampleStatistics

    X, y = make_classification(20_000, 5, random_state=0)
    bm = BinMapper(255, np.zeros(5, bool)).fit(X)
    Xb = bm.transform(X)
    stats = SampleStatistics.classes(y, np.ones(len(y)), 2)
    ws = workspace_module.GrowerWorkspace()
    # a few nodes, in room for a full tree (2n + 1 nodes): a chunk initialised
    small = TreeGrower(bm, GINI, 2, StoppingRules(min_impurity_decrease=0.02), parallel=False)
    few, _ = small.grow(Xb, stats, workspace=ws)
    assert ws.capacity > 10 * READY_CHUNK
    used = ws._arrays.used
    assert 3 < used[0] == few.node_count < READY_CHUNK and used[1] == READY_CHUNK
    deep = TreeGrower(bm, GINI, 2, parallel=False)
    tree, _ = deep.grow(Xb, stats, workspace=ws)
    assert used[0] == tree.node_count and tree.node_count <= used[1] < ws.capacity
