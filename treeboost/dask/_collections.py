"""Dask collections as the trainer takes them: aligned partitions of X, y and the weights,
each left on the worker that holds it, and one :class:`~._shard.BoostingShard` per
worker."""

from collections import defaultdict

import numpy as np


def is_dask_collection(obj):
    """Whether ``obj`` is a dask array, DataFrame or Series."""
    try:
        from dask.base import is_dask_collection as _is
    except ImportError:  # without dask nothing is a dask collection
        return False
    return _is(obj)


def _rows_chunks(obj, name, chunks):
    """``obj`` with its columns in one chunk and, given ``chunks``, X's row chunks."""
    import dask.array as da

    if isinstance(obj, da.Array):
        if obj.ndim == 2 and len(obj.chunks[1]) > 1:
            obj = obj.rechunk({1: -1})
        if chunks is not None and obj.chunks[0] != chunks:
            if any(np.isnan(c) for c in obj.chunks[0] + chunks):
                raise ValueError(
                    f"{name} and X are chunked differently along the rows and "
                    f"a chunk's size is unknown: give {name} the chunks of X "
                    f"(X.compute_chunk_sizes() finds them)."
                )
            obj = obj.rechunk({0: chunks})
        return obj
    if hasattr(obj, "npartitions") and hasattr(obj, "to_delayed"):
        return obj
    raise TypeError(
        f"{name} must be a dask array or a dask DataFrame / Series; got "
        f"{type(obj).__name__}. Fit the one-machine estimator "
        f"(treeboost.HistGradientBoosting*) on in-memory data."
    )


def _partition_keys(obj):
    """One key a row partition: a dask array's keys nest by chunk index, and its
    columns are one chunk (:func:`_rows_chunks`)."""
    return [k[0] if isinstance(k, list) else k for k in obj.__dask_keys__()]


def _ordered_futures(obj):
    """The futures of the persisted ``obj``, one per row partition, in order."""
    from distributed import futures_of

    futs = futures_of(obj)
    by_key = {f.key: f for f in futs}
    keys = _partition_keys(obj)
    if all(k in by_key for k in keys):
        return [by_key[k] for k in keys]
    # a persisted dask DataFrame may name its futures other than its keys: its
    # partitions' keys are (name, index)
    names = {f.key[0] for f in futs if isinstance(f.key, tuple)}
    if len(names) == 1 and len(futs) == len(keys):
        return sorted(futs, key=lambda f: f.key[1])
    raise RuntimeError("the partitions of a persisted collection could not be told apart.")


def partition_futures(client, X, y, sample_weight, what="X", extra=()):
    """``(X, y, sample_weight)`` futures, one triple per partition of ``X``, persisted
    where the scheduler puts them (a collection already persisted stays where it is).
    ``extra``: ``(name, collection)`` pairs partitioned as X, whose futures follow in
    each tuple (a ranker's ``qid``)."""
    from distributed import wait

    X = _rows_chunks(X, what, None)
    chunks = X.chunks[0] if hasattr(X, "chunks") else None
    suffix = "" if what == "X" else "_val"
    y = _rows_chunks(y, f"y{suffix}", chunks)
    cols = [X, y]
    if sample_weight is not None:
        cols.append(_rows_chunks(sample_weight, f"sample_weight{suffix}", chunks))
    cols += [_rows_chunks(c, name, chunks) for name, c in extra]
    cols = client.persist(cols)
    wait(cols)
    parts = [_ordered_futures(c) for c in cols]
    if sample_weight is None:
        parts.insert(2, [None] * len(parts[0]))
    n = [len(p) for p in parts]
    if len(set(n)) != 1:
        names = [what, f"y{suffix}", f"sample_weight{suffix}"] + [name for name, _ in extra]
        counts = ", ".join(f"{a}: {b}" for a, b in zip(names, n))
        raise ValueError(f"{', '.join(names)} must have as many partitions; got {counts}.")
    return list(zip(*parts))


class WorkerLostError(RuntimeError):
    """A worker died, or did not answer a step of the fit in time: the fit is
    abandoned (Dask restarts nothing by itself, and the rows of that worker are gone
    from the fit)."""


def place_shards(client, train, validation, shard_class, timeout):
    """Start one ``shard_class`` actor on each worker that holds a partition of X (in
    ``train`` or ``validation``, triples of futures), with the partitions it holds.
    Returns the actors, in the order of the workers' addresses (the fixed order the
    histograms are summed in), for each the indices in ``train`` of its training
    partitions (increasing: the order it holds them in), and the same in
    ``validation``."""
    where = client.who_has([t[0] for t in train + validation])
    by_worker = defaultdict(lambda: ([], []))
    indices = defaultdict(list)
    val_indices = defaultdict(list)
    for i, triple in enumerate(train + validation):
        holders = sorted(where.get(triple[0].key, ()))
        if not holders:
            raise RuntimeError("a partition of the data has no worker holding it.")
        by_worker[holders[0]][0 if i < len(train) else 1].append(triple)
        if i < len(train):
            indices[holders[0]].append(i)
        else:
            val_indices[holders[0]].append(i - len(train))
    futures = {}
    for addr in sorted(by_worker):
        tr, va = by_worker[addr]
        futures[addr] = client.submit(
            shard_class, tr, va, actor=True, workers=[addr], allow_other_workers=False, pure=False
        )
    actors = [wait_on_worker(client, fut, addr, timeout) for addr, fut in futures.items()]
    return actors, [indices[addr] for addr in futures], [val_indices[addr] for addr in futures]


def wait_on_worker(client, future, address, timeout, poll=1.0):
    """``future``'s result, computed on the worker at ``address``: an error as soon as
    that worker has left the cluster (a task bound to it would wait for it forever), or
    after ``timeout`` seconds."""
    import time
    from distributed import TimeoutError as DaskTimeout

    start = time.monotonic()
    while True:
        try:
            return future.result(timeout=poll)
        except (ValueError, TypeError):
            raise  # the shard refused its rows: the user's error
        except (TimeoutError, DaskTimeout):
            if address not in client.scheduler_info().get("workers", {}):
                raise WorkerLostError(
                    f"the worker {address} left the cluster before the "
                    f"fit could start on it; the fit is abandoned."
                )
            if time.monotonic() - start > timeout:
                raise WorkerLostError(
                    f"the worker {address} did not start its share of the "
                    f"fit within {timeout} s; the fit is abandoned."
                )
        except Exception as exc:
            raise WorkerLostError(
                f"the worker {address} was lost while its share of the fit started "
                f"({type(exc).__name__}: {exc}); the fit is abandoned."
            ) from exc
