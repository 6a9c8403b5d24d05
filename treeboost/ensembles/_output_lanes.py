"""The trees of one boosting iteration grown side by side: one tree per output (a
class of the multinomial loss), each on a thread of its own with the serial grower.

Within an iteration the K trees read the same gradients and write disjoint columns of
the raw scores, so they do not depend on each other: the model is the one the outputs
grown one after the other make.  A thread that grows whole trees synchronises with no
other until its trees are done, where the node-parallel grower starts a parallel
region per node.  Each thread has its lane: a copy of the grower, its own statistics
buffer and workspace.

With fewer outputs than threads some threads idle while the K lanes grow, and each tree
grows on one thread; sharing each tree's nodes among all the threads instead gains less
than the K lanes do once K reaches that sharing's speed-up (:func:`shared_tree_speedup`).
"""

import math

import copy
import queue
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np

from ..engine import PARALLEL_GROWER_MIN_WORK, GrowerWorkspace


@dataclass
class Lane:
    """What one thread's trees grow with."""

    grower: object
    stats: np.ndarray
    workspace: object


#: the share of a boosting tree's growth that does not gain from sharing its nodes
#: among threads, wall time (Amdahl's ``s``): on 16 cores a million-row tree took 17 %
#: (``benchmarks/bench_cores.py``, before the blocked histograms), smaller trees more
SHARED_TREE_SERIAL = 0.10


def shared_tree_speedup(n_threads):
    """The speed-up of one tree whose nodes are shared among ``n_threads`` threads, at
    best: Amdahl's ``1 / (s + (1 - s) / p)`` with ``s`` :data:`SHARED_TREE_SERIAL`."""
    s = SHARED_TREE_SERIAL
    return 1.0 / (s + (1.0 - s) / n_threads)


def lanes_usable(n_outputs, n_threads, n_cells=PARALLEL_GROWER_MIN_WORK):
    """Whether an iteration's ``n_outputs`` trees of ``n_cells`` (rows x features)
    each go on threads of their own (``min(n_outputs, n_threads)`` of them) side by
    side: trees large enough to be grown on threads at all, enough of them to beat
    sharing each tree's nodes among the ``n_threads`` threads
    (``n_outputs >= ceil(shared_tree_speedup(n_threads))``, every thread on 2 or 4
    threads, 5 on 8, 7 on 16), and a threading layer that takes parallel kernels started
    from several threads at once (numba's OpenMP or TBB layers; its workqueue
    aborts)."""
    if n_threads < 2 or n_cells < PARALLEL_GROWER_MIN_WORK:
        return False
    if n_outputs < min(n_threads, math.ceil(shared_tree_speedup(n_threads))):
        return False
    try:
        return numba.threading_layer() in ("omp", "tbb")
    except ValueError:  # no parallel kernel has run yet
        return False


class OutputLanes:
    """The lanes of one fit and the threads that use them, made at the first
    :meth:`map` (and again when the thread count changes).

    Parameters
    ----------
    grower : TreeGrower
        The fit's grower (copied per lane).
    stats : ndarray of shape (n_rows, 3)
        The fit's statistics buffer (copied per lane, its count column included).
    n_rows : int
        The rows of a tree, at most (each lane's workspace).
    """

    def __init__(self, grower, stats, n_rows):
        self.grower = grower
        self.stats = stats
        self.n_rows = n_rows
        self.n_threads = 0
        self._free: queue.SimpleQueue[Lane] = queue.SimpleQueue()
        self._pool: ThreadPoolExecutor | None = None

    def _open(self, n_threads):
        """``n_threads`` lanes, and the pool of as many threads that takes them
        (those of another count closed first)."""
        self.close()
        self._free = queue.SimpleQueue()
        for _ in range(n_threads):
            self._free.put(
                Lane(
                    copy.copy(self.grower),
                    self.stats.copy(),
                    GrowerWorkspace(min_rows=self.n_rows),
                )
            )
        self.n_threads = n_threads
        return ThreadPoolExecutor(n_threads, thread_name_prefix="treeboost-output")

    def map(self, fit_tree, n_outputs, n_threads):
        """``[fit_tree(k, lane) for k in range(n_outputs)]``, the calls shared among
        ``n_threads`` threads, each with a lane of its own and numba's thread count 1
        (each tree on the serial grower)."""
        pool = self._pool
        if pool is None or n_threads != self.n_threads:
            pool = self._pool = self._open(n_threads)

        def run(k):
            lane = self._free.get()
            try:
                numba.set_num_threads(1)
                return fit_tree(k, lane)
            finally:
                self._free.put(lane)

        return list(pool.map(run, range(n_outputs)))

    def close(self):
        """End the threads (none made: nothing to do)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
            self.n_threads = 0
