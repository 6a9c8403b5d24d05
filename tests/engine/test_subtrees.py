"""A large tree grown in parts (its top, then its small nodes as subtrees on threads,
``treeboost.engine.grow.subtrees``) is the whole-tree grower's tree up to its node ids and
random draws, and the same tree on any number of threads."""

import os
import signal
import time
import warnings

import numba
import numpy as np
import pytest

import treeboost.engine.grow.grower as grower_module
import treeboost.engine.grow.subtrees as subtrees
from treeboost import DecisionTreeClassifier
from treeboost.engine.split.constraints import Constraints
from treeboost.engine.split.criteria import ABSOLUTE_ERROR, ENTROPY, GINI, NEWTON, SQUARED_ERROR
from treeboost.engine.grow.grower import StoppingRules, TreeGrower
from treeboost.engine.statistics.samples import SampleStatistics
from treeboost.engine.predict.tree import TREE_LEAF, Tree

from .test_grower import _problem, _same_tree

from tests._helpers import search_params

#: rows of the test trees: at least twice SUBTREE_MIN_ROWS, so that they grow in parts
N = 5 * subtrees.SUBTREE_MIN_ROWS


def _canonical(tree):
    """The tree's nodes in preorder, each as what it is (not where it is stored)."""
    out = []
    stack = [0]
    cats = tree.categories_left
    while stack:
        i = stack.pop()
        out.append(
            (
                int(tree.depth[i]),
                int(tree.feature[i]),
                int(tree.bin_threshold[i]) if tree.feature[i] >= 0 else 0,
                repr(float(tree.threshold[i])) if tree.feature[i] >= 0 else "",
                bool(tree.missing_go_left[i]) if tree.feature[i] >= 0 else False,
                tuple(cats[i]),
                tuple(tree.value[i].ravel()),
                float(tree.impurity[i]),
                int(tree.n_node_samples[i]),
                float(tree.weighted_n_node_samples[i]),
                float(tree.gain[i]),
            )
        )
        if tree.children_left[i] != TREE_LEAF:
            stack.append(int(tree.children_right[i]))
            stack.append(int(tree.children_left[i]))
    return out


def _whole(monkeypatch):
    """Grow trees whole from here on (no tree is large enough to be split)."""
    monkeypatch.setattr(subtrees, "SUBTREE_MIN_ROWS", 1 << 40)


@pytest.mark.parametrize("criterion", [GINI, ENTROPY, SQUARED_ERROR, ABSOLUTE_ERROR])
@pytest.mark.parametrize(
    "rules",
    [
        StoppingRules(),
        StoppingRules(max_depth=9, min_samples_leaf=3),
        StoppingRules(min_samples_split=9, min_impurity_decrease=1e-4),
        StoppingRules(min_weight_leaf=30.0),
    ],
)
def test_parts_grow_the_whole_tree(criterion, rules, monkeypatch):
    """Without random draws (ties to the lowest feature, every feature at every node)
    the grafted tree is the whole tree, node for node in preorder, bit for bit (the
    weights and targets are integers: every sum is exact)."""
    # absolute_error's exact search (the median's values) on the regression problem
    bm, Xb, stats, n_stats = _problem(
        SQUARED_ERROR if criterion == ABSOLUTE_ERROR else criterion, N, seed=1
    )
    grower = TreeGrower(bm, criterion, n_stats, rules, random_ties=False)
    parts, _ = grower.grow(Xb, stats, return_leaves=False)
    _whole(monkeypatch)
    whole, _ = grower.grow(Xb, stats, return_leaves=False)
    assert whole.node_count > 100
    assert _canonical(parts) == _canonical(whole)
    # the node ids differ, the predictions do not
    assert parts.node_count == whole.node_count
    X = np.random.RandomState(0).randint(0, 40, (2000, 4)).astype(float)
    X[:, 3] %= 6
    np.testing.assert_array_equal(parts.predict(X), whole.predict(X))


@pytest.mark.parametrize("criterion", [GINI, SQUARED_ERROR])
def test_parts_grow_the_whole_tree_under_monotonic_constraints(criterion, monkeypatch):
    """Each subtree starts from its node's interval in the whole tree (the values of its
    nodes clipped to it, its splits' children's intervals derived from it)."""
    bm, Xb, stats, n_stats = _problem(criterion, N, seed=4)
    cst = Constraints(np.array([1, -1, 1, 0], np.int8), None)
    grower = TreeGrower(bm, criterion, n_stats, random_ties=False, constraints=cst)
    tasks = []
    real = subtrees.subtree_tasks
    monkeypatch.setattr(subtrees, "subtree_tasks", lambda *a: tasks.append(real(*a)) or tasks[-1])
    parts, _ = grower.grow(Xb, stats, return_leaves=False)
    # some subtree starts bounded
    assert any(np.isfinite(t.lower) or np.isfinite(t.upper) for t in tasks[0])
    _whole(monkeypatch)
    whole, _ = grower.grow(Xb, stats, return_leaves=False)
    assert whole.node_count > 100
    assert _canonical(parts) == _canonical(whole)


@pytest.mark.parametrize("criterion", [GINI, ABSOLUTE_ERROR])
@pytest.mark.parametrize("max_features", [None, 2])
def test_the_same_tree_on_any_number_of_threads(criterion, max_features, monkeypatch):
    """With random ties and sampled features (a generator of each subtree's own): 1, 3
    and 16 threads grow the same tree, bit for bit, and it splits into parts."""
    bm, Xb, stats, n_stats = _problem(GINI if criterion == GINI else SQUARED_ERROR, N, seed=2)
    tasks = []
    real = subtrees.subtree_tasks
    monkeypatch.setattr(subtrees, "subtree_tasks", lambda *a: tasks.append(real(*a)) or tasks[-1])
    trees = []
    for n_threads in (1, 3, 16):
        monkeypatch.setattr(numba, "get_num_threads", lambda: n_threads)
        grower = TreeGrower(bm, criterion, n_stats, max_features=max_features, random_state=5)
        trees.append(grower.grow(Xb, stats, return_leaves=False)[0])
    assert len(tasks) == 3 and len(tasks[0]) > 3
    for tree in trees[1:]:
        _same_tree(trees[0], tree)
    # a node's children side by side, as the lane walk needs them
    inner = trees[0].children_left >= 0
    np.testing.assert_array_equal(trees[0].children_right[inner], trees[0].children_left[inner] + 1)


def test_the_estimator_splits_its_tree_and_keeps_its_accuracy(monkeypatch):
    rng = np.random.RandomState(0)
    X = rng.rand(N, 6)
    y = (X[:, 0] + 0.3 * rng.rand(N) > 0.6).astype(int)
    seen = []
    real = subtrees.grow_in_subtrees
    monkeypatch.setattr(grower_module, "grow_in_subtrees", lambda *a: seen.append(a[1]) or real(*a))
    parts = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert seen == [subtrees.subtree_rows(N)]
    _whole(monkeypatch)
    whole = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert parts.score(X, y) == whole.score(X, y) == 1.0
    assert abs(parts.tree_.node_count - whole.tree_.node_count) <= 0.02 * whole.tree_.node_count
    # a pruned tree is grafted first: the pruning path reads the whole grafted tree
    path = parts.cost_complexity_pruning_path(X, y)
    assert np.all(np.diff(path.ccp_alphas) >= 0)


def _params(**changes):
    fields = {"criterion": GINI, "dense_min_samples": 128, **changes}
    return search_params(n_features=4, **fields)


@pytest.mark.parametrize(
    "changes, sparse, return_leaves, n",
    [
        ({}, False, False, N),
        ({"max_leaf_nodes": 31}, False, False, N),
        ({"criterion": NEWTON}, False, False, N),
        ({"random_split": True}, False, False, N),
        ({"monotonic": True}, False, False, N),
        ({"max_depth": 20}, False, False, N),
        ({"interaction": np.ones((4, 1), np.uint64)}, False, False, N),
        ({}, True, False, N),
        ({}, False, True, N),
        ({}, False, False, 2 * subtrees.SUBTREE_MIN_ROWS - 1),
    ],
)
def test_which_trees_split(changes, sparse, return_leaves, n):
    bm, _, _, n_stats = _problem(GINI, 100)
    grower = TreeGrower(bm, GINI, n_stats)
    split = subtrees.splits_into_subtrees(grower, n, _params(**changes), sparse, return_leaves)
    splits = not changes or "monotonic" in changes or "max_depth" in changes
    assert split == (splits and not sparse and not return_leaves and n == N)
    # nor a forest's tree (parallel=False), nor a part
    part = TreeGrower(bm, GINI, n_stats)
    part._part = True
    for other in (TreeGrower(bm, GINI, n_stats, parallel=False), part):
        assert not subtrees.splits_into_subtrees(other, N, _params(), False, False)


def test_subtree_rows_and_seeds():
    assert subtrees.subtree_rows(10) == subtrees.SUBTREE_MIN_ROWS
    big = 10_000 * subtrees.SUBTREE_TASKS + 1
    assert subtrees.subtree_rows(big) == 10_001
    seeds = {subtrees.subtree_seed(7, node) for node in range(1000)}
    assert len(seeds) == 1000 and all(0 <= s < 2**63 for s in seeds)
    assert subtrees.subtree_seed(7, 3) != subtrees.subtree_seed(8, 3)


def _tree(left, right, feature, value, depth):
    n = len(left)
    return Tree(
        2,
        1,
        children_left=np.array(left, np.int32),
        children_right=np.array(right, np.int32),
        feature=np.array(feature, np.int32),
        threshold=np.where(np.array(feature) >= 0, 0.5, -2.0),
        is_categorical=np.zeros(n, bool),
        categories_left=np.zeros((0, 4), np.uint64),
        missing_go_left=np.zeros(n, bool),
        bin_threshold=np.zeros(n, np.int32),
        value=np.array(value, float).reshape(n, 1),
        impurity=np.zeros(n),
        n_node_samples=np.ones(n, np.int64),
        weighted_n_node_samples=np.ones(n),
        gain=np.zeros(n),
        depth=np.array(depth, np.int64),
    )


def test_graft_by_hand():
    # top: 0 -> (1, 2); leaves 1 and 2 get subtrees of 3 and 5 nodes
    top = _tree([1, -1, -1], [2, -1, -1], [0, -1, -1], [0, 1, 2], [0, 1, 1])
    a = _tree([1, -1, -1], [2, -1, -1], [1, -1, -1], [10, 11, 12], [0, 1, 1])
    b = _tree([1, -1, 3, -1, -1], [2, -1, 4, -1, -1], [1, -1, 0, -1, -1], [20, 21, 22, 23, 24],
              [0, 1, 1, 2, 2])  # fmt: skip
    g = subtrees.graft(top, [(1, a), (2, b)])
    np.testing.assert_array_equal(g.children_left, [1, 3, 5, -1, -1, -1, 7, -1, -1])
    np.testing.assert_array_equal(g.children_right, [2, 4, 6, -1, -1, -1, 8, -1, -1])
    np.testing.assert_array_equal(g.feature, [0, 1, 1, -1, -1, -1, 0, -1, -1])
    np.testing.assert_array_equal(g.value.ravel(), [0, 10, 20, 11, 12, 21, 22, 23, 24])
    np.testing.assert_array_equal(g.depth, [0, 1, 1, 2, 2, 2, 2, 3, 3])
    assert subtrees.graft(top, []) is top
    # a lone-leaf subtree changes nothing but the leaf's own row
    one = _tree([-1], [-1], [-1], [7], [0])
    g1 = subtrees.graft(top, [(2, one)])
    np.testing.assert_array_equal(g1.children_left, top.children_left)
    np.testing.assert_array_equal(g1.value.ravel(), [0, 1, 7])


def test_statistics_subset_is_the_rows_statistics():
    rng = np.random.RandomState(0)
    n = 50
    w = rng.rand(n)
    rows = np.array([3, 1, 40, 7, 7, 0])
    sources = [
        SampleStatistics.classes(rng.randint(0, 3, n), w, 3),
        SampleStatistics.regression(rng.rand(n), w),
        SampleStatistics.regression_outputs(rng.rand(n, 2), w),
        SampleStatistics.given(rng.rand(n, 3)),
    ]
    for stats in sources:
        full_rows, full_sq = stats.materialize()
        sub = stats.subset(rows)
        assert sub.source == stats.source and sub.n_cols == stats.n_cols
        assert sub.n_samples == rows.shape[0]
        sub_rows, sub_sq = sub.materialize()
        np.testing.assert_array_equal(sub_rows, full_rows[rows])
        if full_sq is None:
            assert sub_sq is None
        else:
            np.testing.assert_array_equal(sub_sq, full_sq[rows])


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_take_columns(dtype):
    rng = np.random.RandomState(0)
    codes = rng.randint(0, 200, (5, 300)).astype(dtype)
    rows = np.sort(rng.choice(300, 40, replace=False)).astype(np.int32)
    out = np.empty((5, 40), dtype)
    subtrees.take_columns(codes, rows, out)
    np.testing.assert_array_equal(out, codes[:, rows])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_makes_its_own_thread_pools():
    """The parent's pool threads do not exist in a forked child: a task queued on the
    pool it inherited would wait for ever (the child exits 0 once its task ran)."""
    from treeboost.engine.parallel.thread_pools import thread_pool

    assert list(thread_pool(2).map(abs, [-3, -4])) == [3, 4]
    time.sleep(0.2)  # the pool's workers idle (they would take the child's tasks)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork of a threaded process
        pid = os.fork()
    if pid == 0:  # the child
        code = 1
        try:
            code = 0 if thread_pool(2).submit(abs, -5).result(timeout=10) == 5 else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the child's task never ran")
    assert os.waitstatus_to_exitcode(status) == 0
