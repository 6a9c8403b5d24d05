"""The trainer's direct connection to a shard (treeboost.dask._channel): answers as the
actor does, refuses a peer without the fit's key, and a silent or closed peer ends the
fit with WorkerLostError."""

import socket
import threading
import time

import numpy as np
import pytest
from sklearn.datasets import make_classification

from treeboost import HistGradientBoostingClassifier
from treeboost.dask import WorkerLostError
from treeboost.dask._boosting import DaskHistGradientBoostingClassifier, _InProcess, _Shards
from treeboost.dask._channel import (
    ChannelShard,
    _check,
    _prove,
    one_step_at_a_time,
    recv_obj,
    serve,
)
from treeboost.dask._shard import BoostingShard

from .test_dask_grower import assert_same_model

KEY = b"k" * 32


class Target:
    def __init__(self):
        self.calls = []

    def arrays(self, a, b):
        self.calls.append("arrays")
        return a * 2, {"b": b[::-1], "n": 3}

    def fails(self):
        raise ValueError("bad rows")

    def unpicklable(self):
        return lambda: None

    def slow(self, s):
        time.sleep(s)
        return s


def _channel_threads():
    return sum(t.name == "treeboost-shard-channel" for t in threading.enumerate())


def _wait_for(cond, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not cond() and time.monotonic() < deadline:
        time.sleep(0.01)
    return cond()


def test_answers_arrays_and_errors_as_the_actor_does():
    target = Target()
    shard = ChannelShard(serve(target, "127.0.0.1", KEY, 10), KEY, 10)
    try:
        a = np.arange(12.0).reshape(3, 4)
        b = np.arange(5, dtype=np.uint64)
        doubled, rest = shard.arrays(a, b).result(10)
        np.testing.assert_array_equal(doubled, a * 2)
        np.testing.assert_array_equal(rest["b"], b[::-1])
        assert rest["n"] == 3 and doubled.flags.writeable
        # two requests in flight: answered in order
        first, second = shard.slow(0.05), shard.arrays(a, b)
        assert first.result(10) == 0.05
        np.testing.assert_array_equal(second.result(10)[0], a * 2)
        with pytest.raises(ValueError, match="bad rows"):
            shard.fails().result(10)
        with pytest.raises(RuntimeError, match="answer failed"):
            shard.unpicklable().result(10)
        # the channel still serves after an error
        assert shard.slow(0.0).result(10) == 0.0
    finally:
        shard.close()
    assert _wait_for(lambda: _channel_threads() == 0)


def test_a_peer_without_the_key_is_refused():
    target = Target()
    address = serve(target, "127.0.0.1", KEY, 10)
    with pytest.raises(ConnectionError):
        ChannelShard(address, b"x" * 32, 10)
    assert target.calls == []
    assert _wait_for(lambda: _channel_threads() == 0)


def test_no_connection_ends_the_listening_thread():
    before = _channel_threads()
    serve(Target(), "127.0.0.1", KEY, 0.2)
    assert _wait_for(lambda: _channel_threads() == before)


def test_a_silent_shard_ends_the_fit_after_the_timeout():
    shard = ChannelShard(serve(Target(), "127.0.0.1", KEY, 10), KEY, 10)
    shards = _Shards([shard], 0.3)
    try:
        t0 = time.monotonic()
        with pytest.raises(WorkerLostError, match="did not answer the step 'slow'"):
            shards.call("slow", 3.0)
        assert time.monotonic() - t0 < 2.5
    finally:
        shards.close()


def test_a_shard_that_goes_away_mid_step_ends_the_fit_with_worker_lost():
    """The worker's end closes its socket (its process died) while a step runs."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(10)

    def worker():
        conn, _ = listener.accept()
        with conn:
            _check(conn, KEY)
            _prove(conn, KEY)
            recv_obj(conn)  # the request, never answered

    thread = threading.Thread(target=worker)
    thread.start()
    shards = _Shards([ChannelShard(listener.getsockname(), KEY, 10)], 10)
    try:
        t0 = time.monotonic()
        with pytest.raises(WorkerLostError, match="lost during the step 'root'"):
            shards.call("root", 0, False)
        assert time.monotonic() - t0 < 5
    finally:
        shards.close()
        thread.join(10)
        listener.close()


def test_a_shard_outside_a_worker_keeps_its_actor():
    X, y = make_classification(600, 4, random_state=0)
    shard = BoostingShard([(X, y, None)], [])
    shards = _Shards.direct([_InProcess(shard)], 10)
    assert isinstance(shards.actors[0], _InProcess)


def test_a_tcp_cluster_is_reached_through_channels():
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    X, y = make_classification(4000, 5, random_state=1)
    kw = dict(max_iter=4, early_stopping=False)
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            protocol="tcp",
            dashboard_address=None,
            silence_logs=50,
        ) as cluster,
        distributed.Client(cluster),
    ):
        seen = []
        direct = _Shards.direct.__func__

        def spy(cls, actors, timeout):
            shards = direct(cls, actors, timeout)
            seen.extend(type(a) for a in shards.actors)
            return shards

        mp = pytest.MonkeyPatch()
        mp.setattr(_Shards, "direct", classmethod(spy))
        try:
            Xd = da.from_array(X, chunks=1000)
            yd = da.from_array(y, chunks=1000)
            dist = DaskHistGradientBoostingClassifier(**kw).fit(Xd, yd)
        finally:
            mp.undo()
    assert seen and all(t is ChannelShard for t in seen)
    assert_same_model(HistGradientBoostingClassifier(**kw).fit(X, y), dist, X)


def test_a_worker_address_not_of_this_host_keeps_the_actor(monkeypatch):
    """A contact address that the worker cannot listen on (a proxy, a container's port
    mapping): the shard offers no channel instead of failing the fit."""
    distributed = pytest.importorskip("distributed")

    class Worker:
        address = "tcp://203.0.113.7:40000"  # TEST-NET-3: no interface of this host

    monkeypatch.setattr(distributed, "get_worker", lambda: Worker())
    X, y = make_classification(200, 4, random_state=0)
    assert BoostingShard([(X, y, None)], []).open_channel(KEY, 1.0) is None


def test_a_channel_that_cannot_be_reached_keeps_the_actor():
    closed = socket.create_server(("127.0.0.1", 0))
    address = closed.getsockname()
    closed.close()  # nothing listens there any more: the connection is refused

    class Offers:
        def open_channel(self, key, timeout):
            return address

    actor = _InProcess(Offers())
    shards = _Shards.direct([actor], 10)
    assert shards.actors == [actor]


class Busy:
    """A step that records how many steps run at once in this process."""

    active = 0
    most = 0

    @one_step_at_a_time
    def step(self, seconds):
        Busy.active += 1
        Busy.most = max(Busy.most, Busy.active)
        time.sleep(seconds)
        Busy.active -= 1
        return seconds


def test_steps_of_concurrent_fits_run_one_at_a_time():
    """Two fits' channels and an actor call (another thread) in one worker: their
    steps take turns, as the actor's single thread made them."""
    shards = [ChannelShard(serve(Busy(), "127.0.0.1", KEY, 10), KEY, 10) for _ in range(2)]
    try:
        replies = [s.step(0.1) for s in shards]
        direct = threading.Thread(target=Busy().step, args=(0.1,))
        direct.start()
        assert [r.result(10) for r in replies] == [0.1, 0.1]
        direct.join(10)
    finally:
        for s in shards:
            s.close()
    assert Busy.most == 1
