"""CoreShare: the threads a fit keeps while other processes use some of its cores."""

import os
import sys

import numba
import numpy as np
import pytest
from sklearn.datasets import make_classification

import treeboost as tb
from treeboost.engine.parallel import free_cores as core_share
from treeboost.engine.parallel.free_cores import CoreShare

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _stat(path, busy, idle=1000):
    """A /proc/stat of two cores with ``busy`` user ticks each."""
    lines = [f"cpu  {2 * busy} 0 0 {2 * idle} 0 0 0 0 0 0"]
    lines += [f"cpu{k} {busy} 0 0 {idle} 0 0 0 0 0 0" for k in range(2)]
    path.write_text("\n".join(lines + ["intr 1 2 3", ""]))


@pytest.fixture
def two_cores(tmp_path, monkeypatch):
    """CoreShare on fake files: two cores, nothing else running, two threads."""
    stat = tmp_path / "stat"
    _stat(stat, 0)
    loadavg = tmp_path / "loadavg"
    loadavg.write_text("0.00 0.00 0.00 1/80 123\n")
    monkeypatch.setattr(core_share, "STAT", str(stat))
    monkeypatch.setattr(core_share, "LOADAVG", str(loadavg))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    before = numba.get_num_threads()
    numba.set_num_threads(2)
    yield stat, loadavg
    numba.set_num_threads(before)


class _Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def _times(user):
    return os.times_result((user, 0.0, 0.0, 0.0, 0.0))


@linux
@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads")
def test_a_core_another_process_keeps_busy_is_left_to_it(two_cores, monkeypatch):
    stat, _ = two_cores
    clock, own = _Clock(), [0.0]
    monkeypatch.setattr(core_share.time, "perf_counter", clock)
    monkeypatch.setattr(core_share.os, "times", lambda: _times(own[0]))
    tick = os.sysconf("SC_CLK_TCK")
    with CoreShare(interval=0.25) as share:
        assert share.n_threads == 2
        # 1 s: this process used 2 CPU seconds of the two cores' 2: nobody else
        clock.t += 1.0
        own[0] += 2.0
        _stat(stat, tick)
        assert share.update() == 2
        # too soon to look again
        clock.t += 0.1
        assert share.update() == 2
        # 1 s: the cores were busy all along, this process used 1.2 CPU seconds of them
        clock.t += 0.9
        own[0] += 1.2
        _stat(stat, 2 * tick)
        assert share.update() == 1
        assert numba.get_num_threads() == 1
        # the other process is gone: both cores again
        clock.t += 1.0
        own[0] += 2.0
        _stat(stat, 3 * tick)
        assert share.update() == 2
        clock.t += 1.0
        own[0] += 1.0
        _stat(stat, int(3.5 * tick))  # the other half of the time idle
        assert share.update() == 2
    assert numba.get_num_threads() == 2


@linux
@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads")
def test_a_task_running_elsewhere_at_the_start_takes_a_core(two_cores):
    _, loadavg = two_cores
    # the kernel counts this thread and another process's task
    loadavg.write_text("1.00 1.00 1.00 2/80 123\n")
    with CoreShare() as share:
        assert share.n_threads == 1
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == 2


@linux
def test_never_more_threads_than_the_fit_started_with(two_cores):
    numba.set_num_threads(1)
    with CoreShare() as share:
        assert share.n_threads == 1
    assert numba.get_num_threads() == 1


def test_no_proc_keeps_the_thread_count(monkeypatch):
    monkeypatch.setattr(core_share, "STAT", "/nonexistent/stat")
    before = numba.get_num_threads()
    with CoreShare() as share:
        assert share.update() == before
    assert numba.get_num_threads() == before


@linux
@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads")
@pytest.mark.parametrize(
    "make",
    [
        lambda: tb.HistGradientBoostingClassifier(max_iter=5, random_state=0),
        lambda: tb.GradientBoostingClassifier(n_estimators=5, max_leaf_nodes=15, random_state=0),
        lambda: tb.DecisionTreeClassifier(random_state=0),
    ],
)
def test_a_busy_machine_gives_the_same_model_and_keeps_numba_as_it_was(make, monkeypatch):
    X, y = make_classification(n_samples=6000, n_features=30, random_state=0)
    numba.set_num_threads(2)
    quiet = make().fit(X, y)
    seen = []
    real = numba.set_num_threads

    def spy(n):
        seen.append(n)
        real(n)

    monkeypatch.setattr(CoreShare, "running_elsewhere", staticmethod(lambda: 1))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(core_share.numba, "set_num_threads", spy)
    busy = make().fit(X, y)
    assert seen == [1, 2]  # one thread for the fit, two again after it
    assert numba.get_num_threads() == 2
    np.testing.assert_array_equal(quiet.predict_proba(X), busy.predict_proba(X))


@linux
def test_a_fit_that_fails_restores_the_thread_count(monkeypatch):
    X, y = make_classification(n_samples=500, n_features=5, random_state=0)
    monkeypatch.setattr(CoreShare, "running_elsewhere", staticmethod(lambda: 1))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    before = numba.get_num_threads()

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    model = tb.HistGradientBoostingClassifier(max_iter=5)
    monkeypatch.setattr(model, "_fit_stage", stop)
    with pytest.raises(KeyboardInterrupt):
        model.fit(X, y)
    assert numba.get_num_threads() == before


@linux
def test_reads_this_machine():
    # the real files: a count of tasks, never negative
    assert CoreShare.running_elsewhere() >= 0
    before = numba.get_num_threads()
    with CoreShare() as share:
        assert 1 <= share.n_threads <= before
        assert numba.get_num_threads() == share.n_threads
    assert numba.get_num_threads() == before


@linux
@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads")
def test_a_small_fit_does_not_look(monkeypatch):
    # a fit whose trees the serial grower grows keeps numba's count without a look
    looks = []
    monkeypatch.setattr(CoreShare, "running_elsewhere", staticmethod(lambda: looks.append(1) or 1))
    X, y = make_classification(n_samples=300, n_features=5, random_state=0)
    tb.HistGradientBoostingClassifier(max_iter=3).fit(X, y)
    tb.DecisionTreeClassifier().fit(X, y)
    assert looks == []
    X, y = make_classification(n_samples=3000, n_features=20, random_state=0)
    tb.HistGradientBoostingClassifier(max_iter=3).fit(X, y)
    assert len(looks) == 3


@linux
@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads")
def test_the_kernel_build_keeps_every_thread(two_cores, monkeypatch):
    """The install's build turns the watch off (its two processes keep each other's
    cores busy, and its large trees must take the parallel growers to compile them)."""
    stat, loadavg = two_cores
    loadavg.write_text("2.00 2.00 2.00 3/80 123\n")  # a task running elsewhere
    monkeypatch.setattr(CoreShare, "running_elsewhere", staticmethod(lambda: 1))
    with CoreShare(n_cells=10**9) as share:
        assert share.n_threads == 1
    monkeypatch.setattr(CoreShare, "_watch", False)
    with CoreShare(n_cells=10**9) as share:
        assert share.n_threads == 2 == numba.get_num_threads()


@linux
def test_one_thread_does_not_look(monkeypatch):
    # nothing to give up on one thread (a forest's worker): no look at the load at all
    looks = []
    monkeypatch.setattr(CoreShare, "running_elsewhere", staticmethod(lambda: looks.append(1) or 1))
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with CoreShare(n_cells=10**9) as share:
            assert share.update() == 1
        with CoreShare() as share:
            assert share.n_threads == 1
    finally:
        numba.set_num_threads(before)
    assert looks == []
