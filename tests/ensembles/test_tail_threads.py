"""The last trees of a forest share the threads a last round would leave idle
(ensembles/_parallel.tail_plan): the same trees, grown on several threads."""

import joblib
import numba
import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

import treeboost as tb
from treeboost.ensembles import _parallel
from treeboost.ensembles._parallel import TailPlan, run_chunks, tail_plan, tree_threads
from treeboost.trees.cart import BaseDecisionTree


@pytest.mark.parametrize(
    "n_items, n_jobs, budget, expected",
    [
        (100, 16, 16, TailPlan(4, 4)),  # 6 rounds of 16, then 4 trees on 4 threads each
        (32, 16, 16, None),  # whole rounds
        (10, 16, 16, None),  # 10 trees on 16 threads: 1 thread each
        (4, 16, 16, TailPlan(4, 4)),
        (5, 16, 16, TailPlan(5, 3)),
        (3, 2, 2, TailPlan(1, 2)),
        (3, 8, 2, TailPlan(1, 2)),  # n_jobs beyond the budget: the budget
        (3, 1, 2, None),  # n_jobs=1: one core, as scikit-learn
        (7, 4, 4, None),  # 3 trees left on 4 threads: 1 each
    ],
)
def test_tail_plan(monkeypatch, n_items, n_jobs, budget, expected):
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", budget)
    monkeypatch.setattr(numba, "threading_layer", lambda: "omp")
    assert tail_plan(n_items, n_jobs) == expected


def test_no_tail_plan_on_a_cluster(monkeypatch):
    monkeypatch.setattr(_parallel, "thread_budget", lambda: None)
    assert tail_plan(3, 2) is None


def test_no_tail_plan_on_a_layer_that_cannot_nest(monkeypatch):
    # the workqueue layer aborts when parallel kernels start from several threads
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 2)
    monkeypatch.setattr(numba, "threading_layer", lambda: "workqueue")
    assert tail_plan(3, 2) is None

    def not_yet():
        raise ValueError("no threading layer launched")

    monkeypatch.setattr(numba, "threading_layer", not_yet)
    assert tail_plan(3, 2) is None


def test_run_chunks_gives_the_last_trees_their_threads(monkeypatch):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads")
    monkeypatch.setattr(numba, "threading_layer", lambda: "omp")

    def task(chunk, threads):
        return [(int(i), threads) for i in chunk]

    got = run_chunks(task, 5, 2)
    assert [i for i, _ in got] == list(range(5))
    assert [t for _, t in got] == [1, 1, 1, 1, 2]
    got = run_chunks(task, 4, 2)
    assert [t for _, t in got] == [1, 1, 1, 1]


def test_tree_threads_sets_and_restores_the_count():
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads")
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(2)
        with tree_threads(1) as threads:
            assert threads == 1
            assert numba.get_num_threads() == 1
        assert numba.get_num_threads() == 2
        numba.set_num_threads(1)
        with tree_threads(2) as threads:
            assert threads == 2
            assert numba.get_num_threads() == 2
        assert numba.get_num_threads() == 1
        # never more than numba's threads
        with tree_threads(10_000) as threads:
            assert threads == numba.config.NUMBA_NUM_THREADS
    finally:
        numba.set_num_threads(before)


def _needs_nesting_threads():
    """Skip unless numba has 2 threads and a layer that starts parallel kernels from
    several threads at once (tail_plan gives no tail trees otherwise)."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads")
    # a forest's binning starts numba's threading layer, as a fit does before its trees
    tb.RandomForestClassifier(n_estimators=1, random_state=0).fit(
        *make_classification(20_000, 4, n_informative=2, n_redundant=0, random_state=0)
    )
    if numba.threading_layer() not in ("omp", "tbb"):
        pytest.skip("numba's threading layer cannot nest parallel kernels")


def _record_growth(monkeypatch):
    """(numba threads, parallel) of each tree grown, in the order they were."""
    seen = []
    grow = BaseDecisionTree.grow_binned

    def recording(self, binned, stats, weights, *, parallel=True, **kw):
        seen.append((numba.get_num_threads(), bool(parallel)))
        return grow(self, binned, stats, weights, parallel=parallel, **kw)

    monkeypatch.setattr(BaseDecisionTree, "grow_binned", recording)
    return seen


def _trees(model):
    members = model.estimators_
    return [
        (t.tree_.feature.copy(), t.tree_.threshold.copy(), t.tree_.value.copy()) for t in members
    ]


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: tb.RandomForestClassifier(n_estimators=3, random_state=0, **kw),
        lambda **kw: tb.ExtraTreesClassifier(n_estimators=3, random_state=0, **kw),
        lambda **kw: tb.BaggingClassifier(n_estimators=3, random_state=0, **kw),
    ],
    ids=["forest", "extra-trees", "bagging"],
)
def test_a_tail_tree_on_two_threads_is_the_one_thread_tree(monkeypatch, make):
    _needs_nesting_threads()
    # large enough for the parallel grower (rows x features >= PARALLEL_GROWER_MIN_WORK)
    # enough rows for the trees to grow in parts (engine.grow.subtrees) as well as on threads
    X, y = make_classification(16_000, 10, n_informative=6, random_state=0)
    X[::7, 3] = np.nan
    one = make(n_jobs=1).fit(X, y)
    seen = _record_growth(monkeypatch)
    with joblib.parallel_config(backend="threading"):
        two = make(n_jobs=2).fit(X, y)
    # the third tree alone in the last round, on both threads; the others on one
    assert sorted(threads for threads, _ in seen) == [1, 1, 2]
    for a, b in zip(_trees(one), _trees(two), strict=True):
        for u, v in zip(a, b, strict=True):
            np.testing.assert_array_equal(u, v)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))


def test_a_regression_forest_tail_tree_is_the_one_thread_tree():
    _needs_nesting_threads()
    X, y = make_regression(16_000, 10, n_informative=6, random_state=0)
    one = tb.RandomForestRegressor(n_estimators=3, random_state=0, n_jobs=1).fit(X, y)
    two = tb.RandomForestRegressor(n_estimators=3, random_state=0, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.predict(X), two.predict(X))


def test_a_member_fitted_by_its_own_fit_stays_on_its_workers_thread(monkeypatch):
    # a Bagging member on a subset of the features is fitted by its own fit, which may
    # use numba's threads: in a worker it sees one (n_jobs workers on n_jobs cores)
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads")
    seen = []
    fit = tb.DecisionTreeClassifier.fit

    def recording(self, X, y, sample_weight=None):
        seen.append(numba.get_num_threads())
        return fit(self, X, y, sample_weight=sample_weight)

    monkeypatch.setattr(tb.DecisionTreeClassifier, "fit", recording)
    X, y = make_classification(2000, 10, random_state=0)
    with joblib.parallel_config(backend="threading"):
        tb.BaggingClassifier(
            tb.DecisionTreeClassifier(), n_estimators=4, max_features=0.5, n_jobs=2, random_state=0
        ).fit(X, y)
    assert seen == [1, 1, 1, 1]
