"""Running tree fits on threads (or on a Dask cluster through joblib).

Trees are fitted in chunks, a few per worker, which the workers take as they become
free (a worker on a core another process is using falls behind without holding the
others up), on threads by default:
the numba kernels release the GIL, and threads share the binned data instead of copying
it.  Inside a worker each tree runs its kernels on one thread (numba's count for the
worker, :func:`tree_threads`), so ``n_jobs`` workers use ``n_jobs`` cores and never
oversubscribe them (``n_jobs=1`` is one core, as in scikit-learn); only the trees of a
last round that would leave threads idle share them, each on a few threads
(:func:`tail_plan`): the same trees, sooner.  Nor do they exceed numba's
thread count, which joblib's process workers set to their share of the cores: a forest
with ``n_jobs=2`` inside ``GridSearchCV(n_jobs=2)`` on two cores fits on one thread per
search worker.  Under ``joblib.parallel_config(backend="dask")`` the same tasks run on
the cluster's workers.  On threads of this process the chunks go to the engine's kept
pool of threads (:func:`treeboost.engine.lend_pool`), which joblib's threading backend
would start and join again at every fit.
"""

import contextlib
import ctypes
from collections import namedtuple

import numba
import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from joblib.parallel import get_active_backend

from ..engine import in_pool, lend_pool, region_threads


def _find_malloc_trim():
    try:
        return ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):  # not glibc: nothing to do
        return None


_malloc_trim = _find_malloc_trim()


def release_free_memory():
    """Return the C heap's free pages to the operating system (glibc; a no-op elsewhere).

    Each worker thread allocates from its own glibc arena; a tree's short-lived arrays
    (bootstrap counts, weights, statistics) end up between the arrays the fitted trees
    keep, and glibc holds the freed pages between them.  Trimming after each chunk of
    trees lowers a forest's memory peak; after each tree it lowered it no further and
    cost a few per cent of the fit in page faults (``benchmarks/_memory.py``).
    """
    if _malloc_trim is not None:
        _malloc_trim(0)


#: chunks of trees per worker: a worker that finishes its chunk early (its core was not
#: shared with another process) takes the next one, instead of idling while a worker on
#: a busy core finishes an equal static share
CHUNKS_PER_WORKER = 4


#: joblib's backends that run the tasks on this machine (the others, Dask's, on a cluster)
_LOCAL_BACKENDS = frozenset(
    {"SequentialBackend", "ThreadingBackend", "LokyBackend", "MultiprocessingBackend"}
)


def thread_budget():
    """How many threads a fit may keep busy on this machine: numba's thread count, which
    is every core unless ``NUMBA_NUM_THREADS`` says otherwise, as joblib's process workers
    do (each gets its share of the cores, e.g. one of two inside ``GridSearchCV(n_jobs=2)``);
    no limit when joblib runs the tasks on a Dask cluster."""
    backend, _ = get_active_backend()
    if type(backend).__name__ not in _LOCAL_BACKENDS:
        return None
    return max(1, int(numba.config.NUMBA_NUM_THREADS))


def n_workers(n_jobs, n_tasks):
    """The workers for ``n_tasks`` tasks: ``n_jobs`` as joblib reads it, at most one per
    task and at most :func:`thread_budget` (a forest with ``n_jobs=2`` inside a search
    worker that was given one core fits on one thread, not on two more per worker)."""
    workers = min(effective_n_jobs(n_jobs), n_tasks)
    budget = thread_budget()
    if budget is not None:
        workers = min(workers, budget)
    return max(1, workers)


def kernels_from_several_threads():
    """Whether numba's threading layer takes parallel kernels started from several
    threads at once: its OpenMP and TBB layers do; its workqueue aborts (and before any
    parallel kernel has run there is no layer to ask)."""
    try:
        return numba.threading_layer() in ("omp", "tbb")
    except ValueError:  # no parallel kernel has run yet
        return False


TailPlan = namedtuple("TailPlan", ["items", "threads"])
TailPlan.__doc__ = """The last ``items`` trees of a fit, each grown on ``threads`` threads
(:func:`tail_plan`)."""


def tail_plan(n_items, n_jobs):
    """How the last trees use the threads the others leave idle.

    With ``T`` threads (``n_jobs`` as joblib reads it, at most :func:`thread_budget`),
    ``n`` trees of one thread each take ``n // T`` full rounds and a last one of
    ``r = n % T`` trees, in which ``T - r`` threads would wait (100 trees on 16 threads:
    4 trees in the last round, 12 threads idle; 3 trees on 2: one tree alone).  Each of
    those ``r`` trees grows on ``T // r`` threads instead (the parallel grower: the same
    tree), when that is at least 2.  None otherwise, on a Dask cluster (no local
    thread budget), and where numba's threading layer cannot start parallel kernels
    from several threads at once (its workqueue aborts; the OpenMP and TBB layers can).
    """
    budget = thread_budget()
    if budget is None:
        return None
    threads = max(1, min(effective_n_jobs(n_jobs), budget))
    last = n_items % threads
    if last == 0 or threads // last < 2 or not kernels_from_several_threads():
        return None
    return TailPlan(last, threads // last)


@contextlib.contextmanager
def tree_threads(threads):
    """numba's thread count ``threads`` for the calling thread (a tree worker) inside the
    block, as before after it (numba's count is per thread: the other workers keep
    theirs).

    A worker's count is 1 (``n_jobs`` workers on ``n_jobs`` cores: a member fitted by
    its own ``fit`` inside it, which may use numba's threads, uses one), the last trees'
    that of their :func:`tail_plan`, which grow on the parallel grower, whole (not in
    parts, ``TreeGrower(in_parts=False)``): the trees a worker of one thread grows.
    """
    threads = max(1, min(int(threads), int(numba.config.NUMBA_NUM_THREADS)))
    before = numba.get_num_threads()
    if threads != before:
        numba.set_num_threads(threads)
    try:
        yield threads
    finally:
        if threads != before:
            numba.set_num_threads(before)


def _on_local_threads():
    """Whether joblib would run the chunks on threads of this process: its choice for
    ``prefer="threads"`` when no backend is set, or a threading (or sequential) backend
    the caller set; not a process or Dask backend the caller set."""
    backend, _ = get_active_backend(prefer="threads")
    return type(backend).__name__ in ("ThreadingBackend", "SequentialBackend")


def _run_on_pool(pool, func, chunks, shared):
    """``[func(chunk, threads, **shared) for chunk, threads in chunks]`` on ``pool``, the
    engine's kept pool of threads (:func:`~treeboost.engine.lend_pool`), the
    chunks taken in order as its threads become free: what joblib's threading backend
    does, without starting and joining a pool of threads at every fit.  On an error the
    chunks not yet started are dropped and the first error is raised."""
    futures = [pool.submit(func, chunk, threads, **shared) for chunk, threads in chunks]
    try:
        return [f.result() for f in futures]
    except BaseException:
        for f in futures:
            f.cancel()
        raise


def run_chunks(func, n_items, n_jobs, verbose=0, desc="trees", work=None, **shared):
    """``func(indices, threads, **shared)`` over chunks of ``range(n_items)``; returns the
    concatenated results in item order, whatever the number of workers.

    ``work``: the fit's units of work (its trees x rows x features), which bound the
    local threads' workers as they bound a region's threads
    (:func:`~treeboost.engine.region_threads`: a forest too small to share runs in the
    calling thread).  The workers' chunks are taken as they become free, so a worker
    on a core another process keeps busy still adds its share: the load does not
    lower them (it does lower the threads of a shared last tree, through its fit's
    :class:`~treeboost.engine.CoreShare`).

    ``threads`` is 1 for every chunk but those of a :func:`tail_plan`'s last trees, one
    tree a chunk, dispatched last; ``func`` grows their trees inside
    :func:`tree_threads`.  With ``verbose``, the work is cut in smaller chunks and a
    progress bar (tqdm, when installed) or one line per finished chunk reports it; the
    results do not change.
    """
    workers = n_workers(n_jobs, n_items)
    if work is not None and _on_local_threads():
        workers = region_threads(work, n_threads=workers)
    tail = tail_plan(n_items, n_jobs) if workers > 1 else None
    n_head = n_items - (tail.items if tail is not None else 0)
    if verbose:
        n_chunks = min(n_head, workers * 8)
    else:
        n_chunks = workers if workers == 1 else min(n_head, workers * CHUNKS_PER_WORKER)
    chunks = [(c, 1) for c in np.array_split(np.arange(n_head), max(n_chunks, 1)) if c.size]
    if tail is not None:
        chunks += [(np.array([i]), tail.threads) for i in range(n_head, n_items)]
    if not verbose and _on_local_threads():
        if workers <= 1 or len(chunks) <= 1 or in_pool():
            # as joblib runs one worker's chunks, and a call nested in its workers
            return [r for chunk, threads in chunks for r in func(chunk, threads, **shared)]
        with lend_pool(workers) as pool:
            if pool is not None:
                results = _run_on_pool(pool, func, chunks, shared)
                return [r for chunk_result in results for r in chunk_result]
    tasks = (delayed(func)(chunk, threads, **shared) for chunk, threads in chunks)
    if not verbose:
        results = Parallel(n_jobs=workers, prefer="threads")(tasks)
        return [r for chunk_result in results for r in chunk_result]
    results = Parallel(n_jobs=workers, prefer="threads", return_as="generator")(tasks)
    out = []
    try:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_items, desc=desc, unit="tree")
    except ImportError:
        bar = None
    for chunk_result in results:
        out.extend(chunk_result)
        if bar is not None:
            bar.update(len(chunk_result))
        else:
            print(f"{desc}: {len(out)}/{n_items} fitted", flush=True)
    if bar is not None:
        bar.close()
    return out
