"""The trainer's direct connection to a shard (treeboost.dask._channel): answers as the
actor does, refuses a peer without the shard's key, and a silent or closed peer ends the
fit with WorkerLostError.  Another process (of any user) on the path or at the ports
gets no frame in: the attacks of issue 56 are replayed below."""

import pickle
import socket
import struct
import threading
import time

import numpy as np
import pytest
from sklearn.datasets import make_classification

from treeboost import HistGradientBoostingClassifier
from treeboost.dask import WorkerLostError
from treeboost.dask._boosting import DaskHistGradientBoostingClassifier, _InProcess, _Shards
from treeboost.dask._channel import ChannelShard, one_step_at_a_time, serve
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
    # the listener waits on for the peer with the key
    shard = ChannelShard(address, KEY, 10)
    shard.close()
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
        from treeboost.dask._channel import accept_trainer

        conn, _ = listener.accept()
        with conn:
            accept_trainer(conn, KEY, listener.getsockname()).recv_obj()  # never answered

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

        def spy(cls, *args, **kwargs):
            shards = direct(cls, *args, **kwargs)
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


def test_a_tls_worker_keeps_its_actor(monkeypatch):
    """Where the cluster's comm is TLS (``distributed.Security``) no channel is offered:
    the steps stay on Dask's own encrypted comm."""
    distributed = pytest.importorskip("distributed")

    class Worker:
        address = "tls://127.0.0.1:40000"

    monkeypatch.setattr(distributed, "get_worker", lambda: Worker())
    X, y = make_classification(200, 4, random_state=0)
    assert BoostingShard([(X, y, None)], []).open_channel(KEY, 1.0) is None


# -- issue 56: another process between the trainer and a shard, or at a shard's port ----

_connect = socket.create_connection


def _forged(obj):
    """A request or answer framed as the channel framed them before issue 56 (lengths
    and a pickle, nothing that needs a key): what any process can write."""
    buffers = []
    head = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    raws = [b.raw() for b in buffers]
    sizes = b"".join(struct.pack("!Q", r.nbytes) for r in raws)
    return struct.pack("!QI", len(head), len(raws)) + sizes + head + b"".join(raws)


def _write(sock, data):
    """Write ``data`` to ``sock``, as far as the other end lets it (a refused frame
    may close the connection before the write)."""
    try:
        sock.sendall(data)
    except OSError:
        pass


class Relay:
    """Another process between the trainer and a shard: it accepts the trainer's
    connection, forwards every byte both ways (recording them) to ``upstream`` (an
    address, a callable giving one, or a connected socket), may flip the byte at
    ``flip_at`` of the trainer's stream, and writes bytes of its own either way."""

    def __init__(self, upstream, listener=None):
        self.listener = listener or socket.create_server(("127.0.0.1", 0))
        self.address = self.listener.getsockname()
        self.upstream = upstream
        self.to_shard = bytearray()
        self.to_trainer = bytearray()
        self.flip_at = None
        self.ready = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        self.listener.settimeout(10)
        with self.listener:
            self.trainer, _ = self.listener.accept()
        up = self.upstream() if callable(self.upstream) else self.upstream
        self.shard = up if isinstance(up, socket.socket) else _connect(up, timeout=10)
        self.shard.settimeout(None)
        self.ready.set()
        for args in [
            (self.trainer, self.shard, self.to_shard, True),
            (self.shard, self.trainer, self.to_trainer, False),
        ]:
            threading.Thread(target=self._pump, args=args, daemon=True).start()

    def _pump(self, src, dst, log, flips):
        try:
            while data := bytearray(src.recv(1 << 16)):
                if flips and self.flip_at is not None and 0 <= self.flip_at - len(log) < len(data):
                    data[self.flip_at - len(log)] ^= 0xFF
                log += data
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


@pytest.fixture
def on_path(monkeypatch):
    """A shard served on loopback and a relay that the trainer's connection reaches
    whatever address it asks for (a process on the path, or one that holds the port):
    the handshake passes through it untouched."""
    target = Target()
    address = serve(target, "127.0.0.1", KEY, 10)
    relay = Relay(address)
    redirect = lambda address, timeout=None: _connect(relay.address, timeout)  # noqa: E731
    monkeypatch.setattr(socket, "create_connection", redirect)
    shard = ChannelShard(address, KEY, 10)
    assert relay.ready.wait(10)
    yield target, relay, shard
    shard.close()


def test_a_relay_on_the_path_cannot_inject_a_frame(on_path):
    target, relay, shard = on_path
    _write(relay.trainer, _forged(("ok", "injected")))
    _write(relay.shard, _forged(("arrays", (np.ones(3), np.ones(3)))))
    with pytest.raises(ConnectionError):
        shard.slow(0.0).result(10)
    time.sleep(0.3)
    assert target.calls == []


def test_a_replayed_frame_is_refused(on_path):
    target, relay, shard = on_path
    mark = len(relay.to_shard)
    a = np.arange(4.0)
    np.testing.assert_array_equal(shard.arrays(a, a).result(10)[0], a * 2)
    _write(relay.shard, bytes(relay.to_shard[mark:]))  # the same request again
    time.sleep(0.3)
    assert target.calls == ["arrays"]
    with pytest.raises(ConnectionError):
        shard.slow(0.0).result(10)


def test_a_frame_with_a_bad_mac_is_refused(on_path):
    """One byte flipped inside a request's array: not run, and the fit sees a lost
    channel."""
    target, relay, shard = on_path
    relay.flip_at = len(relay.to_shard) + 4000
    a = np.arange(1000.0)
    with pytest.raises(ConnectionError):
        shard.arrays(a, a).result(10)
    assert target.calls == []


def test_a_hostile_first_connection_does_not_free_the_port():
    """A peer that connects first and fails, and one that connects and never speaks:
    the port stays the shard's and the trainer still gets in."""
    target = Target()
    address = serve(target, "127.0.0.1", KEY, 10)
    rude = _connect(address, timeout=10)
    silent = _connect(address, timeout=10)
    try:
        rude.sendall(b"x" * 200)
        time.sleep(0.3)
        with pytest.raises(OSError):
            socket.create_server(address).close()
        shard = ChannelShard(address, KEY, 10)
        try:
            assert shard.slow(0.0).result(10) == 0.0
        finally:
            shard.close()
    finally:
        rude.close()
        silent.close()


def test_the_port_of_a_shard_cannot_be_taken_for_a_relay():
    """Issue 56's attack as the review ran it: connect to two shards before the trainer,
    drop one so its port frees, listen there, relay the trainer's handshake to the
    other shard and then write a request of one's own to it."""
    target_a, target_b = Target(), Target()
    a = serve(target_a, "127.0.0.1", KEY, 10)  # the same key, as all shards had
    b = serve(target_b, "127.0.0.1", KEY, 10)
    first_a, first_b = _connect(a, timeout=10), _connect(b, timeout=10)
    first_a.close()
    taken, deadline = None, time.monotonic() + 1.0
    while taken is None and time.monotonic() < deadline:
        try:
            taken = socket.create_server(a)
        except OSError:
            time.sleep(0.02)
    if taken is not None:  # the port is free: the relay takes it and the attack goes on
        relay = Relay(first_b, listener=taken)
        try:
            ChannelShard(a, KEY, 10)
        except OSError:
            pass
        relay.ready.wait(10)
        _write(relay.shard, _forged(("arrays", (np.ones(3), np.ones(3)))))
        time.sleep(0.3)
    assert target_b.calls == [], "a relay got its own request into shard B"
    assert taken is None, "a shard's port was freed for another process"
    first_b.close()
    for address in (a, b):
        shard = ChannelShard(address, KEY, 10)
        try:
            assert shard.slow(0.0).result(10) == 0.0
        finally:
            shard.close()


def test_a_shard_proof_opens_no_other_shard():
    """The trainer connects to shard A's port, held by a relay to shard B: B's proof is
    not A's (each shard has its own key, bound to its address), so the trainer keeps
    A's actor, B runs nothing of the relay's and the trainer still reaches B."""
    keys = []

    class Offers(Target):
        def __init__(self, relay_to=None):
            super().__init__()
            self.relay_to = relay_to

        def open_channel(self, key, timeout):
            keys.append(key)
            if self.relay_to is not None:
                self.relay = Relay(lambda: self.relay_to.address)
                return self.relay.address
            self.address = serve(self, "127.0.0.1", key, timeout)
            return self.address

    b = Offers()
    a = Offers(relay_to=b)
    with pytest.warns(RuntimeWarning, match="refused"):
        shards = _Shards.direct([_InProcess(a), _InProcess(b)], 10)
    try:
        assert a.relay.ready.wait(10)
        _write(a.relay.shard, _forged(("arrays", (np.ones(3), np.ones(3)))))
        time.sleep(0.3)
        assert b.calls == []
        assert len(set(keys)) == 2
        assert isinstance(shards.actors[0], _InProcess)
        assert isinstance(shards.actors[1], ChannelShard)
        assert shards.call("slow", 0.0) == [0.0, 0.0]
    finally:
        shards.close()
