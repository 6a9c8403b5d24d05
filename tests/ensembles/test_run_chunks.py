"""The chunks of a fit's trees run on the engine's kept pool of threads, not on a pool
joblib starts and joins at each fit, unless the caller chose a joblib backend of
processes or a cluster (ensembles/_parallel.run_chunks)."""

import threading
import time

import joblib
import numpy as np
import pytest
from sklearn.datasets import make_classification

import treeboost as tb
from treeboost.ensembles import _parallel
from treeboost.ensembles._parallel import run_chunks


def _where(chunk, threads, *, log):
    log.append(threading.current_thread().name)
    return [(int(i), threads) for i in chunk]


def _no_joblib(*args, **kwargs):
    raise AssertionError("joblib.Parallel was started")


def test_chunks_run_on_the_kept_pool_in_item_order(monkeypatch):
    monkeypatch.setattr(_parallel, "Parallel", _no_joblib)
    log = []
    out = run_chunks(_where, 23, 2, log=log)
    assert [i for i, _ in out] == list(range(23))
    assert all(name.startswith("treeboost-pool") for name in log)
    with joblib.parallel_config(backend="threading"):  # the same as joblib's own threads
        assert [i for i, _ in run_chunks(_where, 5, 2, log=[])] == list(range(5))


def test_one_worker_runs_in_the_calling_thread(monkeypatch):
    monkeypatch.setattr(_parallel, "Parallel", _no_joblib)
    log = []
    assert [i for i, _ in run_chunks(_where, 6, 1, log=log)] == list(range(6))
    assert set(log) == {threading.current_thread().name}


def test_a_chosen_backend_of_processes_goes_through_joblib(monkeypatch):
    called = []

    class Recording(joblib.Parallel):
        def __init__(self, *args, **kwargs):
            called.append(kwargs)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(_parallel, "Parallel", Recording)
    with joblib.parallel_config(backend="loky"):
        out = run_chunks(_where, 4, 2, log=[])
    assert [i for i, _ in out] == list(range(4)) and called


def _failing(chunk, threads, *, started):
    started.append(int(chunk[0]))
    if chunk[0] == 0:
        raise ValueError("tree 0 failed")
    time.sleep(0.2)
    return [int(chunk[0])]


def test_an_error_is_raised_and_the_chunks_not_started_are_dropped():
    started = []
    with pytest.raises(ValueError, match="tree 0 failed"):
        # 2 workers, 8 chunks of one item: the first fails at once, the second holds
        # the other thread, the queued ones are cancelled
        run_chunks(_failing, 8, 2, started=started)
    time.sleep(1.0)  # what was queued would have started by now
    assert len(started) < 8


def test_a_forest_inside_a_bagging_worker_does_not_wait_on_its_own_pool():
    # a member's fit on a pool thread runs its chunks in that thread (joblib runs a call
    # nested in its threads' workers one chunk after another too)
    X, y = make_classification(600, 8, random_state=0)

    def bag(n_jobs):
        forest = tb.RandomForestClassifier(n_estimators=4, n_jobs=n_jobs, random_state=0)
        return tb.BaggingClassifier(forest, n_estimators=4, n_jobs=n_jobs, random_state=0)

    nested, alone = bag(2).fit(X, y), bag(1).fit(X, y)
    np.testing.assert_array_equal(nested.predict_proba(X), alone.predict_proba(X))


def _hold(chunk, threads, *, gate, entered):
    entered.set()
    gate.wait(10)
    return [int(i) for i in chunk]


def test_a_second_fit_at_once_does_not_queue_behind_the_first(monkeypatch):
    # the first call holds the kept pool of trees; a second one, from another thread,
    # runs on joblib's threads meanwhile instead of waiting for the first's chunks
    gate, entered = threading.Event(), threading.Event()
    first = threading.Thread(
        target=run_chunks, args=(_hold, 4, 2), kwargs={"gate": gate, "entered": entered}
    )
    first.start()
    assert entered.wait(10)
    log = []
    out = run_chunks(_where, 4, 2, log=log)  # returns while the first still holds its pool
    assert [i for i, _ in out] == list(range(4))
    assert not any(name.startswith("treeboost-pool") for name in log)
    gate.set()
    first.join(10)
    log = []
    run_chunks(_where, 4, 2, log=log)  # the pool is free again
    assert all(name.startswith("treeboost-pool-trees") for name in log)
