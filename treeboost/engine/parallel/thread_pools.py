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

How many threads a region takes is one rule, :func:`region_threads`: each thread at
least :data:`THREAD_MIN_WORK` of its work, and no more threads than the caller's
numba count and the cores other processes leave free.  A parallel region ends at a
barrier where every thread waits for the last one; when another process holds one of
the cores, the thread on it is descheduled for a time slice (milliseconds), and a small
fit's thousands of regions (a few per node and iteration) each wait that long: an
891-row boosting fit ran 15 times as long on two threads as on one.  The free cores
come from :class:`~.core_share.CoreShare`, which looks at the load once a fit.
"""

import contextlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numba

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


#: the least work (rows x features of a tree's node, rows x trees of a prediction) a
#: thread of a parallel region takes (:func:`region_threads`): about 50 microseconds of
#: histogram building, more than a region's start and end cost on idle cores
THREAD_MIN_WORK = 25_000


def region_threads(work, per_thread=THREAD_MIN_WORK, n_threads=None, free=None):
    """The threads a parallel region of ``work`` units takes: the one rule of the engine.

    ``min(n_threads, work // per_thread, free)``, at least 1: a thread for each
    ``per_thread`` units of work (a region of less than twice that is serial: an
    891-row fit's regions all are), never more than ``n_threads`` (numba's count for
    the calling thread when None: what ``NUMBA_NUM_THREADS``, :func:`numba.set_num_threads`
    or an enclosing fit, :class:`~.core_share.CoreShare`, allow), nor than ``free``,
    the cores other processes leave to this one (None: not looked at).

    Parameters
    ----------
    work : int
        The region's units of work (its caller says which: cells, rows, row-trees,
        nodes).
    per_thread : int, default=THREAD_MIN_WORK
        The least work a thread takes; 0 or less: the work sets no bound.
    n_threads : int or None, default=None
        The most threads; None: numba's thread count for the calling thread.
    free : int or None, default=None
        The cores free of other processes' work; None: no bound.

    Returns
    -------
    int
        At least 1.
    """
    if per_thread > 0 and int(work) < 2 * int(per_thread):
        return 1  # whatever the counts (numba's look-up costs a small prediction's walk)
    n = numba.get_num_threads() if n_threads is None else int(n_threads)
    if per_thread > 0:
        n = min(n, int(work) // int(per_thread))
    if free is not None:
        n = min(n, int(free))
    return max(1, n)
