"""An iteration's trees grown side by side, one output per thread (ensembles/_output_lanes):
the model of the outputs grown one after the other, bit for bit."""

import numba
import numpy as np
import pytest
from sklearn.datasets import make_classification

from treeboost import GradientBoostingClassifier, HistGradientBoostingClassifier
from treeboost.engine import core_share
from treeboost.ensembles import _output_lanes


@pytest.fixture
def counted_lanes(monkeypatch):
    # the load watch off (as on a machine without /proc): another test process busy on
    # the other core would leave the fits one thread
    monkeypatch.setattr(core_share, "STAT", "/nonexistent/stat")
    calls = []
    original = _output_lanes.OutputLanes.map

    def counting(self, fit_tree, n_outputs, n_threads):
        calls.append(n_outputs)
        return original(self, fit_tree, n_outputs, n_threads)

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


def test_side_by_side_needs_a_thread_safe_layer_and_enough_outputs(monkeypatch):
    monkeypatch.setattr(_output_lanes.numba, "threading_layer", lambda: "omp")
    assert _output_lanes.lanes_usable(2, 2, 10**6)
    assert not _output_lanes.lanes_usable(3, 4, 10**6)  # fewer outputs than threads
    # on many threads, as many outputs as one shared tree's speed-up (Amdahl, s = 10 %)
    assert _output_lanes.lanes_usable(7, 16, 10**6)
    assert not _output_lanes.lanes_usable(6, 16, 10**6)
    assert _output_lanes.lanes_usable(5, 8, 10**6)
    assert not _output_lanes.lanes_usable(4, 8, 10**6)
    assert not _output_lanes.lanes_usable(1, 2, 10**6)
    assert not _output_lanes.lanes_usable(4, 2, 100)  # too small to share
    assert not _output_lanes.lanes_usable(10, 1, 10**6)
    monkeypatch.setattr(_output_lanes.numba, "threading_layer", lambda: "workqueue")
    assert not _output_lanes.lanes_usable(2, 2, 10**6)

    def none_yet():
        raise ValueError("no threading layer")

    monkeypatch.setattr(_output_lanes.numba, "threading_layer", none_yet)
    assert not _output_lanes.lanes_usable(2, 2, 10**6)


def test_large_nodes_by_blocks_grow_the_one_thread_model(counted_lanes):
    # a root of 40,000 rows is built in two blocks (engine.histogram.HIST_BLOCK_ROWS): on
    # two threads their tasks run side by side, on one in turn; the sums are the same
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("one thread only")
    X, y = make_classification(40_000, 12, n_informative=6, random_state=0)
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
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))
