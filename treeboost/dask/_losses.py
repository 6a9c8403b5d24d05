"""A user's own loss in a distributed fit: how it reaches the workers, and its initial
score from sums over them.

A custom loss (a :class:`~treeboost.losses.Loss` subclass instance or a callable
``(y_true, raw[, sample_weight]) -> (gradient, hessian)``) is applied where the rows
are: each worker computes the gradients and hessians of its own rows with it, and the
one-machine check (:func:`~treeboost.losses.custom.check_gradient_hessian`) refuses a
wrong shape, a non-finite value or a negative hessian there.  The loss travels to the
workers as the fit's other steps do: pickled, inside the ``prepare`` request that the
client sends each shard over its authenticated channel (or its Dask actor).  A shard
takes a loss from no other message, so a peer that cannot prove a shard's key cannot
send one (:mod:`._channel`).

Pickle names a function or a class by its module and its name, so the loss must be
importable on every worker: defined at the top level of a module the workers can
import (installed, or sent with ``client.upload_file``).  A lambda, a function or class
defined inside another function, or an instance that does not pickle is refused on
the client before the fit starts (:func:`check_loss_travels`).
"""

import pickle

import numpy as np

from ..losses.custom import newton_constant


def custom_loss_name(loss):
    """How errors name a ``loss`` parameter that is not a string."""
    return getattr(loss, "__qualname__", None) or type(loss).__name__


def check_loss_travels(loss, estimator):
    """Refuse, naming ``loss``, a custom loss that plain pickle cannot send to the
    workers (the channel's frames are plain pickles, which name functions and classes
    by their module and name)."""
    try:
        pack_loss(loss)
    except Exception as exc:  # PicklingError, AttributeError of a local object, ...
        raise TypeError(
            f"{estimator}: loss={custom_loss_name(loss)} cannot be sent to the Dask "
            f"workers. A custom loss is applied on the workers, so it must pickle by "
            f"reference: a function or a Loss subclass defined at the top level of a "
            f"module the workers import, not a lambda nor one defined inside a function "
            f"(pickle: {type(exc).__name__}: {exc})."
        ) from None


def pack_loss(loss):
    """The fit's loss as the bytes the ``prepare`` step carries (a plain pickle)."""
    return pickle.dumps(loss, protocol=5)


def unpack_loss(payload):
    """The loss of :func:`pack_loss` on a worker; a TypeError that says why when the
    worker cannot import what it names."""
    try:
        return pickle.loads(payload)
    except Exception as exc:
        raise TypeError(
            f"a worker could not load the fit's loss ({type(exc).__name__}: {exc}): a "
            f"custom loss must be importable on every worker (its module installed there, "
            f"or sent with client.upload_file)."
        ) from None


def distributed_init_raw(shards, n_outputs):
    """The initial raw score of a custom loss: Newton's method on the constant
    (:func:`~treeboost.losses.custom.newton_constant`, the rule of a callable loss on
    one machine) with ``G`` and ``H`` summed over the shards' rows each step."""

    def sums(f):
        parts = shards.call("constant_sums", f)
        return shards.sum([p[0] for p in parts]), shards.sum([p[1] for p in parts])

    return newton_constant(sums, n_outputs)


def constant_sums(loss, y, w, f, n_rows):
    """``(sum_i w_i g_i, sum_i w_i h_i)`` per output of ``n_rows`` rows all at the raw
    score ``f``: one worker's share of :func:`distributed_init_raw`."""
    from ..losses.custom import check_gradient_hessian

    K = f.shape[0]
    if n_rows == 0:
        return np.zeros(K), np.zeros(K)
    raw = np.tile(f, (n_rows, 1)) if K > 1 else np.full(n_rows, f[0])
    loss.start_iteration(y, raw, w)
    g, h = loss.gradient_hessian(y, raw)
    if not loss.checks_own_gradients:
        g, h = check_gradient_hessian(loss, g, h, raw)
    ww = w[:, None] if K > 1 else w
    return np.atleast_1d(np.sum(ww * g, axis=0)), np.atleast_1d(np.sum(ww * h, axis=0))
