"""A direct connection between the trainer and one shard, for the steps of the tree loop.

A Dask actor call goes through the worker's event loop, its actor thread and Dask's
messages both ways; the tree loop makes a dozen such calls per tree to every worker.
Here the shard listens on a socket of its own (the worker's host, a port the system
picks), the trainer connects to it, and both prove that they hold the fit's random key
(an HMAC challenge each way, the key sent through Dask's own comm) before anything is
unpickled.  Requests and answers are pickles (protocol 5, the arrays' buffers sent as
they lie, read straight into their new arrays).

The channel is offered only where the worker speaks plain TCP: with TLS (or another
comm) the shard says no and the trainer keeps calling the actor.
"""

import functools
import hmac
import os
import pickle
import socket
import struct
import threading

#: at most one step of any fit runs at a time in a worker process, through a channel or
#: through the actor (whose thread runs one call at a time): concurrent fits take no
#: more threads than the worker has, and no two steps launch compiled parallel loops at
#: once
_STEP_LOCK = threading.RLock()


def one_step_at_a_time(method):
    """``method`` (a shard's step) holding the worker's step lock."""

    @functools.wraps(method)
    def step(*args, **kwargs):
        with _STEP_LOCK:
            return method(*args, **kwargs)

    return step


_HEAD = struct.Struct("!QI")  # pickle bytes, number of buffers
_LEN = struct.Struct("!Q")
_CHALLENGE = 32
#: seconds to connect to a shard and prove the key, before the trainer keeps its actor
CONNECT_TIMEOUT = 10.0
#: buffers a gathering write takes at most (POSIX's IOV_MAX is at least 16)
_IOV_MAX = 16


class ChannelClosed(ConnectionError):
    """The other end closed the connection (or its process is gone)."""


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


def send_obj(sock, obj):
    """Pickle ``obj`` to ``sock``: its array buffers go out as they lie."""
    buffers = []
    head = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    raws = [b.raw() for b in buffers]
    prefix = _HEAD.pack(len(head), len(raws)) + b"".join(_LEN.pack(r.nbytes) for r in raws)
    _send_all(sock, [prefix, head, *raws])


def recv_obj(sock):
    """The next object :func:`send_obj` sent on ``sock``."""
    n_head, n_buf = _HEAD.unpack(_recv_bytes(sock, _HEAD.size))
    rest = _recv_bytes(sock, n_buf * _LEN.size + n_head)
    sizes = [_LEN.unpack_from(rest, i * _LEN.size)[0] for i in range(n_buf)]
    head = memoryview(rest)[n_buf * _LEN.size :]
    buffers = [_recv_bytes(sock, s) for s in sizes]
    return pickle.loads(head, buffers=buffers)


def _prove(sock, key):
    """Answer the other end's challenge with the key's HMAC."""
    challenge = _recv_bytes(sock, _CHALLENGE)
    sock.sendall(hmac.new(key, bytes(challenge), "sha256").digest())


def _check(sock, key):
    """Challenge the other end; a wrong answer closes the connection."""
    challenge = os.urandom(_CHALLENGE)
    sock.sendall(challenge)
    answer = _recv_bytes(sock, 32)
    if not hmac.compare_digest(bytes(answer), hmac.new(key, challenge, "sha256").digest()):
        raise ConnectionRefusedError("the other end does not hold the fit's key.")


def serve(target, host, key, accept_timeout, before=None):
    """Listen on ``host`` (a port the system picks) for one connection holding ``key``
    and answer its requests ``(method, args)`` with ``("ok", result)`` or ``("error",
    exception)`` from ``getattr(target, method)(*args)``, in a thread of its own, until
    the other end closes.  ``before`` runs first in that thread.  Returns the address
    ``(host, port)``; with no connection within ``accept_timeout`` seconds the thread
    ends."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.bind((host, 0))
    listener.listen(1)
    listener.settimeout(accept_timeout)
    address = listener.getsockname()[:2]

    def run():
        try:
            with listener:
                conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            try:
                conn.settimeout(accept_timeout)
                _check(conn, key)
                _prove(conn, key)
                conn.settimeout(None)
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:
                return
            if before is not None:
                before()
            while True:
                try:
                    method, args = recv_obj(conn)
                except (OSError, EOFError):
                    return
                try:
                    with _STEP_LOCK:
                        answer = ("ok", getattr(target, method)(*args))
                except Exception as exc:  # the trainer raises it
                    answer = ("error", exc)
                try:
                    send_obj(conn, answer)
                except OSError:
                    return
                except Exception as exc:  # an answer that does not pickle
                    try:
                        send_obj(conn, ("error", RuntimeError(f"a shard's answer failed: {exc!r}")))
                    except OSError:
                        return

    threading.Thread(target=run, name="treeboost-shard-channel", daemon=True).start()
    return address


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
    when the worker is gone)."""

    def __init__(self, address, key, timeout):
        host, port = address[0], address[1]
        # a worker that cannot be reached gives up soon: the trainer keeps its actor
        self.sock = socket.create_connection((host, port), timeout=min(timeout, CONNECT_TIMEOUT))
        try:
            _prove(self.sock, key)
            _check(self.sock, key)
        except BaseException:
            self.sock.close()
            raise
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def __getattr__(self, method):
        if method.startswith("_"):
            raise AttributeError(method)

        def call(*args):
            self.sock.settimeout(None)
            send_obj(self.sock, (method, args))
            return _Reply(self)

        return call

    def receive(self, timeout):
        self.sock.settimeout(timeout)
        try:
            status, value = recv_obj(self.sock)
        except socket.timeout as exc:
            raise TimeoutError(str(exc)) from None
        if status == "error":
            raise value
        return value

    def close(self):
        self.sock.close()
