"""grower.WorkspacePool: a fit's workspaces kept from chunk to chunk."""

import pickle

import numpy as np
import pytest

from sklearn.datasets import make_classification

from treeboost import BaggingClassifier, ExtraTreesClassifier, RandomForestClassifier
from treeboost.engine.grow import workspace as grower
from treeboost.ensembles import _parallel


def test_a_workspace_given_back_is_taken_again():
    pool = grower.WorkspacePool(min_rows=10)
    a = pool.take()
    b = pool.take()
    assert a is not b and a.min_rows == b.min_rows == 10
    pool.give(a)
    assert pool.take() is a
    pool.give(a)
    with pool.lend() as c:
        assert c is a
    assert pool.take() is a
    pool.give(a)
    # a process worker gets an empty pool of the same size, not the parent's arrays
    copy = pickle.loads(pickle.dumps(pool))
    assert copy.min_rows == 10 and copy.take() is not a


def test_a_forest_makes_one_workspace_per_worker(monkeypatch):
    made = []
    real = grower.GrowerWorkspace

    class Counted(real):
        def __init__(self, *args, **kwargs):
            made.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(grower, "GrowerWorkspace", Counted)
    monkeypatch.setattr(_parallel, "CHUNKS_PER_WORKER", 6)
    X, y = make_classification(300, 5, random_state=0)
    for make in (RandomForestClassifier, ExtraTreesClassifier, BaggingClassifier):
        made.clear()
        make(n_estimators=24, n_jobs=2, random_state=0).fit(X, y)
        # 12 chunks on 2 threads: at most one workspace per thread
        assert 1 <= len(made) <= 2


def test_kept_follows_its_key():
    ws = grower.GrowerWorkspace()
    a = np.zeros(3)
    made = []
    make = lambda: made.append(1) or object()  # noqa: E731
    first = ws.kept("x", (a, 3, np.dtype(np.uint8)), make)
    assert ws.kept("x", (a, 3, np.dtype(np.uint8)), make) is first
    # an equal array that is another object, another number, another dtype: made again
    assert ws.kept("x", (a.copy(), 3, np.dtype(np.uint8)), make) is not first
    ws.kept("x", (a, 4, np.dtype(np.uint8)), make)
    ws.kept("x", (a, 4, np.dtype(np.uint16)), make)
    assert len(made) == 4


def test_the_workspaces_of_a_pool_share_one_transpose_of_the_codes():
    pool = grower.WorkspacePool()
    a, b = pool.take(), pool.take()
    X = np.arange(12, dtype=np.uint8).reshape(3, 4)
    rows = a.codes_rows(X)
    np.testing.assert_array_equal(rows, X.T)
    assert rows.flags.c_contiguous
    assert b.codes_rows(X) is rows
    # other codes (a Bagging member's own columns) are made for them
    other = X[:2].copy()
    assert b.codes_rows(other) is not rows
    np.testing.assert_array_equal(b.codes_rows(other), other.T)
    # a workspace keeps its own last codes
    assert a.codes_rows(X) is rows
    # workspaces of separate pools or none do not share
    assert grower.GrowerWorkspace().codes_rows(X) is not rows


@pytest.mark.parametrize("shape", [(1, 8), (1000, 3), (300_000, 8)])
@pytest.mark.parametrize("dtype", [np.uint64, np.float64, np.uint8])
def test_row_arrays_start_a_cache_line(shape, dtype):
    # a large array from the C heap starts 16 bytes into a page; the lean grower's rows
    # of 64 bytes must not straddle two cache lines
    ws = grower.GrowerWorkspace()
    a = ws.row_array("rows", shape[0], shape[1], dtype)
    assert a.ctypes.data % 64 == 0
    assert a.shape == shape and a.dtype == dtype and a.flags.c_contiguous and a.flags.writeable
    a[...] = 1
    assert ws.row_array("rows", shape[0], shape[1], dtype) is a
