"""The trees of one boosting iteration grown side by side: one tree per output (a
class of the multinomial loss), several lanes at once, each on threads of its own.

Within an iteration the K trees read the same gradients and write disjoint columns of
the raw scores, so they do not depend on each other: the model is the one the outputs
grown one after the other make, whatever the lanes and their threads.  A lane that
grows whole trees synchronises with no other until its trees are done, where a tree
whose nodes are shared among all the threads starts a parallel region per node.  Each
lane has a copy of the grower, its own statistics buffer and workspace, and numba's
thread count of its own (thread-local).

How many lanes, and how many threads each (:func:`lane_plan`), comes from what sharing
a tree's nodes among ``p`` threads gains (:func:`shared_tree_speedup`): 10 outputs on 2
threads go in 2 lanes of one thread, 3 outputs one after the other on both threads, and
10 outputs on 16 threads in 5 lanes of 3 threads each (2 rounds of trees grown 2.5 times
as fast, where 10 lanes of one thread would take a round of trees grown on one)."""

import copy
import math
import queue
from collections import namedtuple
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np

from ..engine import PARALLEL_GROWER_MIN_WORK, GrowerWorkspace, region_threads
from ._parallel import kernels_from_several_threads


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


#: an iteration's trees side by side: ``lanes`` of them at once, each grown with numba's
#: thread count ``threads`` (1: the serial grower; more: its nodes shared among them)
LanePlan = namedtuple("LanePlan", ["lanes", "threads"])


def lane_plan(n_outputs, n_threads, n_cells=PARALLEL_GROWER_MIN_WORK):
    """How an iteration's ``n_outputs`` trees of ``n_cells`` (rows x features) share
    ``n_threads`` threads: a :class:`LanePlan`, or None for one tree after the other,
    each on every thread.

    ``L`` lanes of ``p = n_threads // L`` threads each grow the trees in
    ``ceil(n_outputs / L)`` rounds of a tree on ``p`` threads, which takes
    ``1 / shared_tree_speedup(p)`` of a tree's time on one thread; the plan is the
    ``L`` of the least ``ceil(n_outputs / L) / shared_tree_speedup(p)``, the fewest
    lanes among equals (``L = 1`` is one tree after the other).  On 2 threads: even
    counts of outputs side by side, odd ones (3 classes: 2 rounds against 1.65) one
    after the other; 10 outputs on 16 threads: 5 lanes of 3 threads (2 rounds of a
    tree 2.5 times as fast) rather than 10 lanes of 1.

    None also where the trees are too small to share their nodes at all (under
    :data:`~treeboost.engine.PARALLEL_GROWER_MIN_WORK` cells: they grow one after
    the other on the serial grower), and where numba's threading layer cannot start
    parallel kernels from several threads at once (its workqueue aborts; the OpenMP
    and TBB layers can)."""
    if n_outputs < 2 or region_threads(n_cells, PARALLEL_GROWER_MIN_WORK // 2, n_threads) < 2:
        return None
    best_lanes, best_threads = 1, n_threads
    best_cost = n_outputs / shared_tree_speedup(n_threads)
    for lanes in range(2, min(n_outputs, n_threads) + 1):
        threads = n_threads // lanes
        cost = math.ceil(n_outputs / lanes) / shared_tree_speedup(threads)
        # a relative margin: equal costs computed two ways keep the fewer lanes
        if cost < best_cost * (1.0 - 1e-9):
            best_lanes, best_threads, best_cost = lanes, threads, cost
    if best_lanes == 1 or not kernels_from_several_threads():
        return None
    return LanePlan(best_lanes, best_threads)


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

    def map(self, fit_tree, n_outputs, plan):
        """``[fit_tree(k, lane) for k in range(n_outputs)]``, the calls shared among
        ``plan.lanes`` threads (a :class:`LanePlan`), each with a lane of its own and
        numba's thread count ``plan.threads`` (1: each tree on the serial grower)."""
        pool = self._pool
        if pool is None or plan.lanes != self.n_threads:
            pool = self._pool = self._open(plan.lanes)

        def run(k):
            lane = self._free.get()
            try:
                # thread-local: the lane's kernels start regions of this many threads
                numba.set_num_threads(plan.threads)
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
