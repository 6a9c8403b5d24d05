"""The trees of one boosting iteration grown side by side: one tree per output (a
class of the multinomial loss), each on a thread of its own with the serial grower.

Within an iteration the K trees read the same gradients and write disjoint columns of
the raw scores, so they do not depend on each other: the model is the one the outputs
grown one after the other make.  A thread that grows whole trees synchronises with no
other until its trees are done, where the node-parallel grower starts a parallel
region per node; with at least as many outputs as threads every thread has trees to
grow.  Each thread has its lane: a copy of the grower, its own statistics buffer and
workspace.
"""

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


def lanes_usable(n_outputs, n_threads, n_cells=PARALLEL_GROWER_MIN_WORK):
    """Whether an iteration's ``n_outputs`` trees of ``n_cells`` (rows x features)
    each go on ``n_threads`` threads side by side: trees large enough to be grown on
    threads at all, at least as many of them as threads, and a threading layer that
    takes parallel kernels started from several threads at once (numba's OpenMP or TBB
    layers; its workqueue aborts)."""
    if n_threads < 2 or n_outputs < n_threads or n_cells < PARALLEL_GROWER_MIN_WORK:
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
