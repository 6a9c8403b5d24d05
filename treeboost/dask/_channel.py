"""A direct connection between the trainer and one shard, for the steps of the tree loop.

A Dask actor call goes through the worker's event loop, its actor thread and Dask's
messages both ways; the tree loop makes a dozen such calls per tree to every worker.
Here the shard listens on a socket of its own (the worker's host, a port the system
picks) and the trainer connects to it.

Who may talk on it (the parallel guide's "The direct channel and its trust boundary"
states the threat model):

- each shard has a random key of its own, sent to it through Dask's comm; no two shards
  of a fit share one, so what one shard proves opens no other;
- the handshake: the trainer sends a fresh nonce; the shard answers with its own nonce
  and proves its key on both nonces and its own address (the one the trainer connects
  to); only then does the trainer prove the key, on the same transcript under another
  role's label.  Neither end proves on a challenge it did not help choose, and a relay
  to another listener gets a proof the trainer refuses;
- every frame after the handshake carries an HMAC-SHA256 tag under a key of its
  direction (derived from the shard's key and the transcript) over its sequence number
  and all its bytes: a frame injected, altered, replayed or reflected is refused, and
  its lengths are checked before anything is allocated and its bytes before anything is
  unpickled (the frames are pickles, protocol 5, their arrays' buffers sent as they
  lie);
- the listener keeps accepting until a peer proves the key or ``accept_timeout`` runs
  out, each peer's handshake in a thread of its own, so that a peer that fails, or
  never speaks, neither frees the port nor keeps the trainer out.

The frames are authenticated, not encrypted.  The channel is offered only where the
worker speaks plain TCP: with TLS (``distributed.Security``, or another comm) the shard
says no and the trainer keeps calling the actor over Dask's own comm.
"""

import functools
import hmac
import logging
import os
import pickle
import socket
import struct
import threading
import time

#: at most one step of any fit runs at a time in a worker process, through a channel or
#: through the actor (whose thread runs one call at a time): concurrent fits take no
#: more threads than the worker has, and no two steps launch compiled parallel loops at
#: once
_STEP_LOCK = threading.RLock()

_log = logging.getLogger("treeboost.dask")


def one_step_at_a_time(method):
    """``method`` (a shard's step) holding the worker's step lock."""

    @functools.wraps(method)
    def step(*args, **kwargs):
        with _STEP_LOCK:
            return method(*args, **kwargs)

    return step


_HEAD = struct.Struct("!QI")  # pickle bytes, number of buffers
_LEN = struct.Struct("!Q")
_SEQ = struct.Struct("!Q")
_NONCE = 32
_TAG = 32  # HMAC-SHA256
#: the protocol's name and version, the trainer's first bytes
_MAGIC = b"treeboost-channel/2\0"
#: the labels that keep each use of a shard's key apart (none a prefix of another)
_SHARD_PROOF = b"shard proves\0"
_TRAINER_PROOF = b"trainer proves\0"
_TO_SHARD = b"trainer to shard\0"
_TO_TRAINER = b"shard to trainer\0"
#: buffers one frame may carry (a step's request or answer has a handful): a larger
#: count is refused before its lengths are read
_MAX_BUFFERS = 1 << 12
#: seconds to connect to a shard and prove the key, before the trainer keeps its actor
CONNECT_TIMEOUT = 10.0
#: handshakes a listener runs at once; a peer beyond them is closed at once
_MAX_PENDING = 16
#: buffers a gathering write takes at most (POSIX's IOV_MAX is at least 16)
_IOV_MAX = 16


class ChannelClosed(ConnectionError):
    """The other end closed the connection (or its process is gone)."""


class ChannelRefused(ChannelClosed):
    """A peer or a frame failed its authentication; the connection is closed."""


def new_key():
    """A random key for one shard's channel (each shard gets its own)."""
    return os.urandom(32)


def _recv_into(sock, view):
    while view.nbytes:
        n = sock.recv_into(view)
        if n == 0:
            raise ChannelClosed("the connection was closed by the other end.")
        view = view[n:]


def _recv_bytes(sock, n):
    buf = bytearray(n)
    _recv_into(sock, memoryview(buf))
    return buf


def _send_all(sock, parts):
    """Send the buffers ``parts`` in order, in as few system calls as the socket takes
    (one gathering write where the platform has it)."""
    views = [memoryview(p).cast("B") for p in parts]
    views = [v for v in views if v.nbytes]
    if not hasattr(sock, "sendmsg"):
        for v in views:
            sock.sendall(v)
        return
    while views:
        sent = sock.sendmsg(views[:_IOV_MAX])
        while sent:
            if sent >= views[0].nbytes:
                sent -= views.pop(0).nbytes
            else:
                views[0] = views[0][sent:]
                sent = 0


def _mac(key, label, *parts):
    m = hmac.new(key, label, "sha256")
    for p in parts:
        m.update(p)
    return m.digest()


def _transcript(trainer_nonce, shard_nonce, address):
    """What both proofs and the session's keys are bound to: both nonces and the
    shard's address (its host and port, as the shard reported them)."""
    where = f"{address[0]}\0{int(address[1])}".encode()
    return _MAGIC + bytes(trainer_nonce) + bytes(shard_nonce) + where


class _Session:
    """One authenticated connection: frames out under one key, frames in under the
    other, each tagged with its direction's sequence number."""

    def __init__(self, sock, key, transcript, role):
        self.sock = sock
        to_shard = _mac(key, _TO_SHARD, transcript)
        to_trainer = _mac(key, _TO_TRAINER, transcript)
        self._out, self._in = (to_trainer, to_shard) if role == "shard" else (to_shard, to_trainer)
        self._sent = 0
        self._received = 0

    def send_frame(self, head, raws=()):
        """Send ``head`` and the buffers ``raws`` as one tagged frame."""
        fixed = _HEAD.pack(len(head), len(raws))
        sizes = b"".join(_LEN.pack(r.nbytes) for r in raws)
        m = hmac.new(self._out, _SEQ.pack(self._sent), "sha256")
        m.update(fixed)
        m.update(sizes)
        # the lengths carry a tag of their own, which the other end checks before it
        # allocates them; the last tag covers the whole frame
        head_tag = m.copy().digest()
        m.update(head)
        for r in raws:
            m.update(r)
        self._sent += 1
        _send_all(self.sock, [fixed, sizes, head_tag, head, *raws, m.digest()])

    def recv_frame(self):
        """The next frame's ``(head, buffers)``, its tags checked (:class:`ChannelRefused`
        for a frame the other end did not send in this place)."""
        fixed = _recv_bytes(self.sock, _HEAD.size)
        n_head, n_buf = _HEAD.unpack(fixed)
        if n_buf > _MAX_BUFFERS:
            raise ChannelRefused("a frame on the channel failed its authentication.")
        rest = _recv_bytes(self.sock, n_buf * _LEN.size + _TAG)
        m = hmac.new(self._in, _SEQ.pack(self._received), "sha256")
        m.update(fixed)
        m.update(memoryview(rest)[:-_TAG])
        if not hmac.compare_digest(m.copy().digest(), bytes(rest[-_TAG:])):
            raise ChannelRefused("a frame on the channel failed its authentication.")
        sizes = [_LEN.unpack_from(rest, i * _LEN.size)[0] for i in range(n_buf)]
        head = _recv_bytes(self.sock, n_head)
        buffers = [_recv_bytes(self.sock, s) for s in sizes]
        tag = _recv_bytes(self.sock, _TAG)
        m.update(head)
        for b in buffers:
            m.update(b)
        if not hmac.compare_digest(m.digest(), bytes(tag)):
            raise ChannelRefused("a frame on the channel failed its authentication.")
        self._received += 1
        return head, buffers

    def send_obj(self, obj):
        """Pickle ``obj`` into one frame: its array buffers go out as they lie."""
        buffers = []
        head = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
        self.send_frame(head, [b.raw() for b in buffers])

    def recv_obj(self):
        """The next object :meth:`send_obj` sent, unpickled once its frame's tags hold."""
        head, buffers = self.recv_frame()
        return pickle.loads(head, buffers=buffers)


def accept_trainer(conn, key, address):
    """The shard's end of the handshake on ``conn``: the session, once the peer has
    proven ``key`` on the transcript of ``address`` (:class:`ChannelRefused` if not)."""
    hello = _recv_bytes(conn, len(_MAGIC) + _NONCE)
    if bytes(hello[: len(_MAGIC)]) != _MAGIC:
        raise ChannelRefused("the peer does not speak the channel's protocol.")
    shard_nonce = os.urandom(_NONCE)
    transcript = _transcript(hello[len(_MAGIC) :], shard_nonce, address)
    conn.sendall(shard_nonce + _mac(key, _SHARD_PROOF, transcript))
    answer = _recv_bytes(conn, _TAG)
    if not hmac.compare_digest(bytes(answer), _mac(key, _TRAINER_PROOF, transcript)):
        raise ChannelRefused("the peer does not hold the shard's key.")
    session = _Session(conn, key, transcript, "shard")
    session.send_frame(b"")  # the first tagged frame: the trainer knows it got in
    return session


def connect_shard(sock, key, address):
    """The trainer's end of the handshake on ``sock``, connected to ``address``: the
    session, once the shard has proven ``key`` first (:class:`ChannelRefused` if not)."""
    trainer_nonce = os.urandom(_NONCE)
    sock.sendall(_MAGIC + trainer_nonce)
    reply = _recv_bytes(sock, _NONCE + _TAG)
    transcript = _transcript(trainer_nonce, reply[:_NONCE], address)
    if not hmac.compare_digest(bytes(reply[_NONCE:]), _mac(key, _SHARD_PROOF, transcript)):
        raise ChannelRefused(f"the channel at {address} does not hold its shard's key.")
    sock.sendall(_mac(key, _TRAINER_PROOF, transcript))
    session = _Session(sock, key, transcript, "trainer")
    if session.recv_frame() != (b"", []):
        raise ChannelRefused(f"the channel at {address} did not let the trainer in.")
    return session


def serve(target, host, key, accept_timeout, before=None):
    """Listen on ``host`` (a port the system picks) for the peer that proves ``key``
    and answer its requests ``(method, args)`` with ``("ok", result)`` or ``("error",
    exception)`` from ``getattr(target, method)(*args)``, in a thread of its own, until
    the other end closes or a frame fails its tags.  ``before`` runs first in that
    thread.  Returns the address ``(host, port)``.  Peers that fail the handshake are
    closed and the listener goes on; with none proving the key within
    ``accept_timeout`` seconds its thread ends."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.bind((host, 0))
    listener.listen(_MAX_PENDING)
    address = listener.getsockname()[:2]
    deadline = time.monotonic() + accept_timeout
    won = threading.Event()
    state = threading.Lock()
    pending = threading.BoundedSemaphore(_MAX_PENDING)

    def handshake(conn):
        try:
            with conn:
                try:
                    conn.settimeout(max(0.0, min(CONNECT_TIMEOUT, deadline - time.monotonic())))
                    session = accept_trainer(conn, key, address)
                except OSError:
                    return
                finally:
                    pending.release()
                with state:
                    if won.is_set():
                        return
                    won.set()
                conn.settimeout(None)
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if before is not None:
                    before()
                _answer(session, target)
        except ChannelRefused:
            _log.warning("a frame on a shard's channel failed its authentication; closed.")

    def listen():
        with listener:
            # the accept waits in short turns, to stop soon after a peer got in
            while not won.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                listener.settimeout(min(left, 0.25))
                try:
                    conn, _ = listener.accept()
                except socket.timeout:
                    continue
                except OSError:
                    return
                if won.is_set() or not pending.acquire(blocking=False):
                    conn.close()
                    continue
                threading.Thread(
                    target=handshake, args=(conn,), name="treeboost-shard-channel", daemon=True
                ).start()

    threading.Thread(target=listen, name="treeboost-shard-channel", daemon=True).start()
    return address


def _answer(session, target):
    """Answer ``session``'s requests until the trainer closes (a refused frame raises)."""
    while True:
        try:
            method, args = session.recv_obj()
        except ChannelRefused:
            raise
        except (OSError, EOFError):
            return
        try:
            with _STEP_LOCK:
                answer = ("ok", getattr(target, method)(*args))
        except Exception as exc:  # the trainer raises it
            answer = ("error", exc)
        try:
            session.send_obj(answer)
        except OSError:
            return
        except Exception as exc:  # an answer that does not pickle
            try:
                session.send_obj(("error", RuntimeError(f"a shard's answer failed: {exc!r}")))
            except OSError:
                return


class _Reply:
    """The answer to one request, read when asked for (the requests' order)."""

    def __init__(self, channel):
        self.channel = channel

    def result(self, timeout=None):
        return self.channel.receive(timeout)


class ChannelShard:
    """A shard reached through its channel, called as its actor is: each method sends
    its request at once and returns something whose ``result(timeout)`` reads the
    answer (:class:`TimeoutError` after ``timeout`` seconds; :class:`ChannelClosed`
    when the worker is gone or a frame fails its tags)."""

    def __init__(self, address, key, timeout):
        host, port = address[0], address[1]
        # a worker that cannot be reached gives up soon: the trainer keeps its actor
        self.sock = socket.create_connection((host, port), timeout=min(timeout, CONNECT_TIMEOUT))
        try:
            self.session = connect_shard(self.sock, key, (host, port))
        except BaseException:
            self.sock.close()
            raise
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def __getattr__(self, method):
        if method.startswith("_"):
            raise AttributeError(method)

        def call(*args):
            self.sock.settimeout(None)
            self.session.send_obj((method, args))
            return _Reply(self)

        return call

    def receive(self, timeout):
        self.sock.settimeout(timeout)
        try:
            status, value = self.session.recv_obj()
        except socket.timeout as exc:
            raise TimeoutError(str(exc)) from None
        if status == "error":
            raise value
        return value

    def close(self):
        self.sock.close()
