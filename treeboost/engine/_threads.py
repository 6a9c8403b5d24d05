"""The engine's thread pools: one per thread count and kind, kept for the process.

Coarse tasks of kernels that release the GIL run on them (the subtrees of
:mod:`.subtrees`, the binning's column groups, the packing of a forest's trees; and, on
pools of their own, a forest's or Bagging's chunks of trees, :func:`lend_pool`); a pool
per call would start its threads again each time.  A fine step that every boosting
iteration takes is a numba parallel region instead: numba's workers, still awake from
the tree's regions, would take the cores from a pool's threads woken beside them.  A
task on these pools must never wait for another task of them (a pool's threads could
all be waiting): :func:`run_tasks` and the fits' chunks of trees run their tasks in the
calling thread when that is one of theirs.
"""

import contextlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor

#: the name of the pools' threads begins so (:func:`in_pool`)
_PREFIX = "treeboost-pool"

_pools = {}
_pools_lock = threading.Lock()


def _forget_pools():
    """In a forked child: the parent's pools' threads do not exist there, and a task
    queued on them would wait for ever; the child makes its own on first use."""
    global _pools_lock
    _pools.clear()
    _lent.clear()
    _pools_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_pools)


def thread_pool(n_threads, kind="tasks"):
    """The process's pool of ``n_threads`` workers for tasks of ``kind`` (made on first
    use): ``"tasks"``, the short tasks of :func:`run_tasks`; ``"trees"``, a fit's trees
    (:func:`lend_pool`), in pools of their own so that no short task of another fit
    queues behind them."""
    with _pools_lock:
        pool = _pools.get((n_threads, kind))
        if pool is None:
            pool = _pools[(n_threads, kind)] = ThreadPoolExecutor(
                n_threads, thread_name_prefix=f"{_PREFIX}-{kind}"
            )
        return pool


#: the pools a caller holds for long tasks (:func:`lend_pool`), by thread count
_lent = set()


@contextlib.contextmanager
def lend_pool(n_threads):
    """The pool of ``n_threads`` threads for a caller's long tasks (a fit's trees), or
    None while another caller holds it: the second of two fits at once from two threads
    then takes threads of its own (joblib's) instead of queueing behind the first's
    trees.  Short tasks (:func:`run_tasks`) do not hold it."""
    with _pools_lock:
        free = n_threads not in _lent
        if free:
            _lent.add(n_threads)
    if not free:
        yield None
        return
    try:
        yield thread_pool(n_threads, "trees")
    finally:
        with _pools_lock:
            _lent.discard(n_threads)


def in_pool():
    """Whether the calling thread is one of these pools' threads."""
    return threading.current_thread().name.startswith(_PREFIX)


def run_tasks(task, items, n_threads):
    """``[task(x) for x in items]``, on the pool of ``n_threads`` threads where that can
    share them: at least two threads and two items, and not from a thread of the pools
    (which would wait on its own pool); else one after the other in the calling thread."""
    items = list(items)
    if n_threads < 2 or len(items) < 2 or in_pool():
        return [task(x) for x in items]
    return list(thread_pool(n_threads).map(task, items))
