"""The threads of a parallel region: one rule (engine.parallel.thread_pools.region_threads) from its
work and the free cores, used by every fit and prediction, and numba's thread count of
the caller as it was after them."""

import os
import sys
import threading

import numba
import numpy as np
import pytest
from sklearn.datasets import make_classification

import treeboost as tb
from treeboost.datasets import load_titanic
from treeboost.engine import PARALLEL_GROWER_MIN_WORK, THREAD_MIN_WORK, CoreShare, region_threads

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
two_threads = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads")


@pytest.fixture
def numba_threads():
    """numba's count for this thread as it was, after the test."""
    before = numba.get_num_threads()
    yield
    numba.set_num_threads(before)


def _titanic_cells():
    X = load_titanic().data
    return X.shape[0] * X.shape[1]


def test_an_891_row_fit_is_a_one_thread_fit():
    # the Titanic's 891 rows x its columns: below two threads' least work, whatever
    # the cores
    assert _titanic_cells() < 2 * THREAD_MIN_WORK
    for n_threads in (2, 4, 16, 64):
        assert region_threads(_titanic_cells(), n_threads=n_threads) == 1


def test_a_big_fit_takes_the_threads_its_work_feeds():
    assert region_threads(1_000_000 * 20, n_threads=2) == 2
    assert region_threads(1_000_000 * 20, n_threads=16) == 16
    # a thread for each THREAD_MIN_WORK: 3 of 16 for 3.5 shares
    assert region_threads(int(3.5 * THREAD_MIN_WORK), n_threads=16) == 3
    # the grower's rule: two threads from PARALLEL_GROWER_MIN_WORK cells
    assert region_threads(PARALLEL_GROWER_MIN_WORK - 1, n_threads=2) == 1
    assert region_threads(PARALLEL_GROWER_MIN_WORK, n_threads=2) == 2
    # no bound by the work
    assert region_threads(1, per_thread=0, n_threads=8) == 8


def test_the_busy_cores_bound_the_threads():
    # the free cores another process leaves: injected, not the machine's load
    work = 10**9
    assert region_threads(work, n_threads=2, free=2) == 2
    assert region_threads(work, n_threads=2, free=1) == 1
    assert region_threads(work, n_threads=16, free=5) == 5
    # every core taken: still one thread, the caller's
    assert region_threads(work, n_threads=2, free=0) == 1
    assert region_threads(work, n_threads=2, free=-3) == 1


def test_numba_count_of_the_caller_is_the_default_bound(numba_threads):
    numba.set_num_threads(1)
    assert region_threads(10**9) == 1
    if numba.config.NUMBA_NUM_THREADS >= 2:
        numba.set_num_threads(2)
        assert region_threads(10**9) == 2


@pytest.fixture
def busy(monkeypatch):
    """Two cores, and a task of another process running on one at every look."""
    monkeypatch.setattr(CoreShare, "running_elsewhere", staticmethod(lambda: 1))
    monkeypatch.setattr(CoreShare, "_last_look", None)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})


@linux
@two_threads
def test_core_share_honours_the_busy_core_signal(busy, numba_threads, monkeypatch):
    numba.set_num_threads(2)
    with CoreShare(n_cells=10**9) as share:
        assert share.n_threads == 1 == numba.get_num_threads()
    assert numba.get_num_threads() == 2
    # nobody else running: both threads
    monkeypatch.setattr(CoreShare, "running_elsewhere", staticmethod(lambda: 0))
    with CoreShare(n_cells=10**9) as share:
        assert share.n_threads == 2 == numba.get_num_threads()
    # a prediction reuses that look within LOOK_REUSE_S, whatever the load now
    monkeypatch.setattr(CoreShare, "running_elsewhere", staticmethod(lambda: 1))
    with CoreShare(n_cells=10**9, reuse=True) as share:
        assert share.n_threads == 2
    with CoreShare(n_cells=10**9) as share:  # a fit looks again
        assert share.n_threads == 1


@linux
@two_threads
def test_a_small_fit_runs_every_region_on_one_thread_without_a_look(numba_threads, monkeypatch):
    looks = []
    monkeypatch.setattr(CoreShare, "running_elsewhere", staticmethod(lambda: looks.append(1) or 0))
    with CoreShare(n_cells=_titanic_cells()) as share:
        assert share.n_threads == 1 == numba.get_num_threads()
    assert looks == []


class _Spy:
    """Records numba.set_num_threads calls (made by this thread), and the count numba
    had when a parallel region of the fit ran."""

    def __init__(self, monkeypatch):
        self.calls = []
        real = numba.set_num_threads

        def spy(n):
            if threading.current_thread() is threading.main_thread():
                self.calls.append(n)
            real(n)

        monkeypatch.setattr(numba, "set_num_threads", spy)


def _titanic():
    data = load_titanic()
    X = data.data[["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]]
    return X, data.target


@linux
@two_threads
@pytest.mark.parametrize(
    "make",
    [
        lambda: tb.HistGradientBoostingClassifier(max_iter=5, random_state=0),
        lambda: tb.GradientBoostingClassifier(n_estimators=5, random_state=0),
        lambda: tb.RandomForestClassifier(n_estimators=5, random_state=0),
        lambda: tb.RandomForestClassifier(n_estimators=5, n_jobs=2, random_state=0),
    ],
    ids=["hgb", "gb", "rf", "rf-2-jobs"],
)
def test_titanic_fit_and_predict_run_on_one_thread_and_restore_the_count(
    make, numba_threads, monkeypatch
):
    X, y = _titanic()
    numba.set_num_threads(2)
    spy = _Spy(monkeypatch)
    model = make().fit(X, y)
    # the fit's regions on one thread, the caller's two after it
    assert spy.calls[:1] == [1] and spy.calls[-1] == 2
    assert numba.get_num_threads() == 2
    spy.calls.clear()
    # a small prediction's walk runs on the calling thread: no count set and reset
    model.predict_proba(X.iloc[:179])
    assert spy.calls == []
    assert numba.get_num_threads() == 2


@two_threads
@pytest.mark.parametrize(
    "make",
    [
        lambda: tb.HistGradientBoostingClassifier(max_iter=3, random_state=0),
        lambda: tb.GradientBoostingClassifier(n_estimators=3, random_state=0),
        lambda: tb.RandomForestClassifier(n_estimators=4, n_jobs=2, random_state=0),
        lambda: tb.DecisionTreeClassifier(random_state=0),
    ],
    ids=["hgb", "gb", "rf", "cart"],
)
@pytest.mark.parametrize("n_samples", [300, 6000])
def test_fitting_leaves_the_callers_thread_count(make, n_samples, numba_threads):
    # small and large (the load looked at) fits, from a count the caller chose; and
    # numba's count is per thread: another thread's own count is not touched
    X, y = make_classification(n_samples=n_samples, n_features=20, random_state=0)
    numba.set_num_threads(2)
    seen = {}

    def other():
        numba.set_num_threads(1)
        gate.wait()
        seen["other"] = numba.get_num_threads()

    gate = threading.Event()
    t = threading.Thread(target=other)
    t.start()
    try:
        model = make().fit(X, y)
        model.predict(X)
    finally:
        gate.set()
        t.join()
    assert numba.get_num_threads() == 2
    assert seen["other"] == 1
    numba.set_num_threads(1)
    make().fit(X, y).predict(X)
    assert numba.get_num_threads() == 1


@two_threads
def test_the_model_does_not_depend_on_the_threads_chosen(numba_threads):
    # the same trees whether the fit's rule gives one thread or numba's two
    X, y = make_classification(n_samples=4000, n_features=20, random_state=1)
    numba.set_num_threads(2)
    a = tb.HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(X, y)
    numba.set_num_threads(1)
    b = tb.HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
