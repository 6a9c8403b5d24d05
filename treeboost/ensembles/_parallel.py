"""Running tree fits on threads with joblib (or on a Dask cluster through joblib).

Trees are fitted in one task per worker (a chunk of trees each), on threads by default:
the numba kernels release the GIL, and threads share the binned data instead of copying
it.  Inside a worker each tree runs its kernels on one thread (``parallel=False``), so
``n_jobs`` workers use ``n_jobs`` cores and never oversubscribe them (``n_jobs=1`` is one
core, as in scikit-learn).  Under
``joblib.parallel_config(backend="dask")`` the same tasks run on the cluster's workers.
"""
import numpy as np
from joblib import Parallel, delayed, effective_n_jobs


def n_workers(n_jobs, n_tasks):
    return max(1, min(effective_n_jobs(n_jobs), n_tasks))


def run_chunks(func, n_items, n_jobs, verbose=0, **shared):
    """``func(indices, parallel, **shared)`` over chunks of ``range(n_items)``; returns the
    concatenated results in item order, whatever the number of workers."""
    workers = n_workers(n_jobs, n_items)
    chunks = [c for c in np.array_split(np.arange(n_items), workers) if c.size]
    results = Parallel(n_jobs=workers, prefer="threads", verbose=verbose)(
        delayed(func)(chunk, False, **shared) for chunk in chunks)
    return [r for chunk_result in results for r in chunk_result]
