"""The engine's thread pools: one per thread count, kept for the process.

Coarse tasks of kernels that release the GIL run on them (the subtrees of
:mod:`.subtrees`, the binning's column groups, the packing of a forest's trees); a pool
per call would start its threads again each time.  A fine step that every boosting
iteration takes is a numba parallel region instead: numba's workers, still awake from
the tree's regions, would take the cores from a pool's threads woken beside them.  A
task on these pools must never wait for another task of them (a pool's threads could
all be waiting).
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

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
            pool = _pools[n_threads] = ThreadPoolExecutor(n_threads, thread_name_prefix="treeboost")
        return pool
