"""The engine's thread pools: one per thread count, kept for the process.

Coarse tasks of kernels that release the GIL run on them (the subtrees of
:mod:`.subtrees`, the binning's column groups, the packing of a forest's trees); a pool
per call would start its threads again each time.  A fine step that every boosting
iteration takes is a numba parallel region instead: numba's workers, still awake from
the tree's regions, would take the cores from a pool's threads woken beside them.  A
task on these pools must never wait for another task of them (a pool's threads could
all be waiting): :func:`run_tasks`, their one entry, runs the tasks in the calling
thread when that is one of theirs.
"""

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
    _pools_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_pools)


def thread_pool(n_threads):
    """The process's pool of ``n_threads`` workers (made on first use)."""
    with _pools_lock:
        pool = _pools.get(n_threads)
        if pool is None:
            pool = _pools[n_threads] = ThreadPoolExecutor(n_threads, thread_name_prefix=_PREFIX)
        return pool


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
