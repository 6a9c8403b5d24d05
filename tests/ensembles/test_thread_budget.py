"""Forests take no more tree workers than the threads they are given (ensembles/_parallel)."""

import os

import joblib
import numba
import pytest
from joblib import Parallel, delayed

from treeboost.ensembles import _parallel
from treeboost.ensembles._parallel import n_workers, thread_budget


def test_budget_is_numbas_thread_count(monkeypatch):
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 3)
    assert thread_budget() == 3
    assert n_workers(8, 100) == 3
    assert n_workers(-1, 100) == min(joblib.effective_n_jobs(-1), 3)
    assert n_workers(2, 1) == 1  # never more workers than tasks
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 1)
    assert n_workers(2, 100) == 1
    with joblib.parallel_config(backend="threading"):
        assert n_workers(2, 100) == 1


def test_no_budget_on_a_cluster(monkeypatch):
    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", 1)

    class DaskDistributedBackend:  # the name joblib's Dask backend has
        pass

    monkeypatch.setattr(_parallel, "get_active_backend", lambda: (DaskDistributedBackend(), None))
    assert thread_budget() is None
    assert n_workers(4, 100) == joblib.effective_n_jobs(4)


def _inside_a_worker(n_jobs):
    return n_workers(n_jobs, 100), int(os.environ["NUMBA_NUM_THREADS"])


@pytest.mark.parametrize("n_jobs", [2, -1])
def test_a_forest_inside_a_process_worker_uses_its_share(n_jobs):
    # joblib's process workers (GridSearchCV(n_jobs=2), ...) get their share of the cores
    for workers, share in Parallel(n_jobs=2)(delayed(_inside_a_worker)(n_jobs) for _ in range(2)):
        assert share == max(1, joblib.cpu_count() // 2)
        assert workers == min(joblib.effective_n_jobs(n_jobs), share)
