"""Dask collections as the trainer takes them: aligned partitions of X, y and the weights,
each left on the worker that holds it, and one :class:`~._shard.BoostingShard` per
worker."""
from collections import defaultdict

import numpy as np


def is_dask_collection(obj):
    """Whether ``obj`` is a dask array, DataFrame or Series."""
    try:
        from dask.base import is_dask_collection as _is
    except ImportError:         # without dask nothing is a dask collection
        return False
    return _is(obj)


def _triple(X, y, w):
    return X, y, w


def _partitions(obj, name, n_rows_chunks=None):
    """``obj``'s partitions along the rows as delayed objects, and the rows' chunks
    (None where unknown)."""
    import dask.array as da
    if isinstance(obj, da.Array):
        if obj.ndim == 2 and len(obj.chunks[1]) > 1:
            obj = obj.rechunk({1: -1})
        if n_rows_chunks is not None and obj.chunks[0] != n_rows_chunks:
            if any(np.isnan(c) for c in obj.chunks[0] + n_rows_chunks):
                raise ValueError(f"{name} and X are chunked differently along the rows and "
                                 f"a chunk's size is unknown: give {name} the chunks of X "
                                 f"(X.compute_chunk_sizes() finds them).")
            obj = obj.rechunk({0: n_rows_chunks})
        return list(obj.to_delayed().ravel()), obj.chunks[0]
    if hasattr(obj, "to_delayed") and hasattr(obj, "npartitions"):
        return list(obj.to_delayed()), None
    raise TypeError(f"{name} must be a dask array or a dask DataFrame / Series; got "
                    f"{type(obj).__name__}. Fit the one-machine estimator "
                    f"(treeboost.HistGradientBoosting*) on in-memory data.")


def aligned_partitions(X, y, sample_weight, what="X"):
    """Delayed ``(X, y, sample_weight)`` triples, one per partition of ``X``."""
    from dask import delayed
    xs, chunks = _partitions(X, what)
    ys, _ = _partitions(y, f"y{'_val' if what != 'X' else ''}", chunks)
    if sample_weight is None:
        ws = [None] * len(xs)
    else:
        ws, _ = _partitions(sample_weight, "sample_weight" if what == "X"
                            else "sample_weight_val", chunks)
    if not len(xs) == len(ys) == len(ws):
        raise ValueError(f"{what}, y and sample_weight must have as many partitions; got "
                         f"{len(xs)}, {len(ys)} and {len(ws)}.")
    return [delayed(_triple, pure=True)(x, yy, w) for x, yy, w in zip(xs, ys, ws)]


def place_shards(client, train, validation, shard_class):
    """Compute the partitions where the scheduler puts them (beside their data), then
    start one ``shard_class`` actor on each worker that holds any, with the partitions
    it holds.  Returns the actors, in the order of the workers' addresses (the fixed
    order the histograms are summed in)."""
    futures = client.compute(train + validation)
    from distributed import wait
    wait(futures)
    where = client.who_has(futures)
    by_worker = defaultdict(lambda: ([], []))
    for i, fut in enumerate(futures):
        holders = sorted(where.get(fut.key, ()))
        if not holders:
            raise RuntimeError("a partition of the data has no worker holding it.")
        by_worker[holders[0]][0 if i < len(train) else 1].append(fut)
    actors = []
    for addr in sorted(by_worker):
        tr, va = by_worker[addr]
        actors.append(client.submit(shard_class, tr, va, actor=True, workers=[addr],
                                    allow_other_workers=False, pure=False))
    return [a.result() for a in actors], futures
