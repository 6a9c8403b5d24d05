"""An iteration's trees grown side by side, one output per thread (ensembles/_output_lanes):
the model of the outputs grown one after the other, bit for bit."""

import math

import numba
import numpy as np
import pytest
from sklearn.datasets import make_classification

from treeboost import GradientBoostingClassifier, HistGradientBoostingClassifier
from treeboost.engine.parallel import free_cores as core_share
from treeboost.ensembles import _output_lanes


@pytest.fixture
def counted_lanes(monkeypatch):
    # the load watch off (as on a machine without /proc): another test process busy on
    # the other core would leave the fits one thread
    monkeypatch.setattr(core_share, "STAT", "/nonexistent/stat")
    calls = []
    original = _output_lanes.OutputLanes.map

    def counting(self, fit_tree, n_outputs, plan):
        calls.append(n_outputs)
        return original(self, fit_tree, n_outputs, plan)

    monkeypatch.setattr(_output_lanes.OutputLanes, "map", counting)
    return calls


@pytest.mark.parametrize(
    "make",
    [
        lambda: HistGradientBoostingClassifier(max_iter=5, early_stopping=False),
        lambda: GradientBoostingClassifier(n_estimators=4, subsample=0.7, random_state=3),
    ],
    ids=["hist", "subsampled"],
)
def test_outputs_side_by_side_grow_the_one_thread_model(make, counted_lanes):
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    X, y = make_classification(4000, 20, n_informative=8, n_classes=4, random_state=0)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = make().fit(X, y)
        assert not counted_lanes  # one thread: the outputs one after the other
        numba.set_num_threads(2)
        two = make().fit(X, y)
    finally:
        numba.set_num_threads(before)
    assert counted_lanes and set(counted_lanes) == {4}
    assert numba.get_num_threads() == before
    for a, b in zip(one.trees_, two.trees_):
        for ta, tb in zip(a, b):
            np.testing.assert_array_equal(ta.feature, tb.feature)
            np.testing.assert_array_equal(ta.value, tb.value)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))


def test_side_by_side_needs_a_thread_safe_layer_and_a_gain(monkeypatch):
    monkeypatch.setattr(_output_lanes.numba, "threading_layer", lambda: "omp")
    plan = _output_lanes.lane_plan
    assert plan(2, 2, 10**6) == (2, 1)
    assert plan(10, 2, 10**6) == (2, 1)
    # 3 outputs on 2 threads: 2 rounds in lanes, 3 / 1.82 one after the other
    assert plan(3, 2, 10**6) is None
    assert plan(5, 2, 10**6) is None
    # 10 outputs on 16 threads: 2 rounds of trees on 3 threads each (2 / 2.5 of a tree
    # on one thread) beat 10 lanes of one thread (1)
    assert plan(10, 16, 10**6) == (5, 3)
    assert plan(3, 16, 10**6) == (3, 5)
    assert plan(16, 16, 10**6) == (16, 1)
    assert plan(10, 4, 10**6) == (2, 2)
    assert plan(3, 4, 10**6) is None
    assert plan(1, 16, 10**6) is None
    assert plan(4, 2, 100) is None  # too small to share
    assert plan(10, 1, 10**6) is None
    monkeypatch.setattr(_output_lanes.numba, "threading_layer", lambda: "workqueue")
    assert plan(2, 2, 10**6) is None

    def none_yet():
        raise ValueError("no threading layer")

    monkeypatch.setattr(_output_lanes.numba, "threading_layer", none_yet)
    assert plan(2, 2, 10**6) is None


def test_the_plan_takes_the_least_modelled_time(monkeypatch):
    """Against every split of the threads into lanes: the plan's rounds of trees, each
    as fast as Amdahl's model says for its threads, take the least time, and its lanes
    use at most the threads there are."""
    monkeypatch.setattr(_output_lanes.numba, "threading_layer", lambda: "omp")
    speed = _output_lanes.shared_tree_speedup
    for n_threads in range(2, 65):
        for k in range(2, 40):
            times = {
                lanes: math.ceil(k / lanes) / speed(n_threads // lanes)
                for lanes in range(1, min(k, n_threads) + 1)
            }
            got = _output_lanes.lane_plan(k, n_threads, 10**6)
            lanes = 1 if got is None else got.lanes
            assert times[lanes] <= min(times.values()) * (1 + 1e-9), (n_threads, k, got)
            if got is not None:
                assert got.threads == n_threads // got.lanes >= 1
                assert got.lanes * got.threads <= n_threads


@pytest.mark.parametrize("plan", [(1, 2), (2, 1)], ids=["one lane of 2 threads", "2 lanes"])
def test_lanes_of_any_threads_grow_the_one_thread_model(plan, counted_lanes, monkeypatch):
    """Lanes whose trees share their nodes among threads (the parallel grower inside a
    lane's thread) give the model of one thread, as lanes of one thread do."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    # the boosting loop (and the lane plan it reads) lives in _boosting
    from treeboost.ensembles import _boosting as gradient_boosting

    # numba's thread count in each lane as it grows a tree
    seen = []
    grow_one = gradient_boosting.BaseGradientBoosting._fit_output_tree

    def recording(self, *args):
        seen.append(numba.get_num_threads())
        return grow_one(self, *args)

    monkeypatch.setattr(gradient_boosting.BaseGradientBoosting, "_fit_output_tree", recording)

    monkeypatch.setattr(
        gradient_boosting,
        "lane_plan",
        lambda k, n_threads, n_cells: _output_lanes.LanePlan(*plan) if n_threads > 1 else None,
    )
    # trees of 60,000 x 12 cells: the parallel grower's (PARALLEL_GROWER_MIN_WORK)
    X, y = make_classification(5000, 12, n_informative=8, n_classes=3, random_state=1)
    one, two = _on_one_then_two_threads(X, y)
    # a map of 3 trees a stage of the second fit only (the first on one thread: no lanes)
    assert counted_lanes == [3] * len(two.trees_)
    # 3 trees a stage of the first fit on one thread, then the lanes' (plan)
    stages = len(one.trees_)
    assert set(seen[: 3 * stages]) == {1} and set(seen[3 * stages :]) == {plan[1]}
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))


def _on_one_then_two_threads(X, y):
    """The same boosting fit on numba's one thread, then on two (restored after)."""
    make = lambda: HistGradientBoostingClassifier(  # noqa: E731
        max_iter=4, early_stopping=False, random_state=0
    )
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = make().fit(X, y)
        numba.set_num_threads(2)
        two = make().fit(X, y)
    finally:
        numba.set_num_threads(before)
    assert numba.get_num_threads() == before
    return one, two


def test_large_nodes_by_blocks_grow_the_one_thread_model(counted_lanes):
    # a root of 40,000 rows is built in two blocks (engine.split.histogram.HIST_BLOCK_ROWS): on
    # two threads their tasks run side by side, on one in turn; the sums are the same
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    X, y = make_classification(40_000, 12, n_informative=6, random_state=0)
    one, two = _on_one_then_two_threads(X, y)
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))
