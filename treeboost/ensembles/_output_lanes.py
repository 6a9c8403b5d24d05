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

from ..engine import GrowerWorkspace


@dataclass
class Lane:
    """What one thread's trees grow with."""

    grower: object
    stats: np.ndarray
    workspace: object


def lanes_usable(n_outputs, n_threads):
    """Whether an iteration's ``n_outputs`` trees go on ``n_threads`` threads side by
    side: at least as many trees as threads, and a threading layer that takes parallel
    kernels started from several threads at once (numba's OpenMP or TBB layers; its
    workqueue aborts)."""
    if n_threads < 2 or n_outputs < n_threads:
        return False
    try:
        return numba.threading_layer() in ("omp", "tbb")
    except ValueError:  # no parallel kernel has run yet
        return False


class OutputLanes:
    """``n_threads`` lanes and the threads that use them, for one fit.

    Parameters
    ----------
    grower : TreeGrower
        The fit's grower (copied per lane).
    stats : ndarray of shape (n_rows, 3)
        The fit's statistics buffer (copied per lane, its count column included).
    n_rows : int
        The rows of a tree, at most (each lane's workspace).
    n_threads : int
    """

    def __init__(self, grower, stats, n_rows, n_threads):
        self.n_threads = n_threads
        self._free: queue.SimpleQueue[Lane] = queue.SimpleQueue()
        for _ in range(n_threads):
            self._free.put(Lane(copy.copy(grower), stats.copy(), GrowerWorkspace(min_rows=n_rows)))
        self._pool = ThreadPoolExecutor(n_threads, thread_name_prefix="treeboost-output")

    def map(self, fit_tree, n_outputs):
        """``[fit_tree(k, lane) for k in range(n_outputs)]``, the calls shared among the
        threads, each with a lane of its own and numba's thread count 1 (each tree on
        the serial grower)."""

        def run(k):
            lane = self._free.get()
            try:
                numba.set_num_threads(1)
                return fit_tree(k, lane)
            finally:
                self._free.put(lane)

        return list(self._pool.map(run, range(n_outputs)))

    def close(self):
        self._pool.shutdown(wait=True)
