"""The threads a boosting fit keeps while other processes use some of its cores.

GNU OpenMP's workers spin a while at the end of a parallel region before they sleep
(its default wait policy).  When another busy process shares one of the fit's cores, the
worker on that core spins against it for its time slices, and each of the many short
regions of a tree waits for that worker.  ``OMP_WAIT_POLICY=PASSIVE`` would spare that,
but it is read once per process and applies to every OpenMP library in it; what treeboost
controls for its own regions only is how many threads they use: numba's thread count,
which :func:`numba.set_num_threads` sets for the calling thread alone.

:class:`CoreShare` looks at the start how many tasks of other processes are running
(the kernel's count in ``/proc/loadavg`` less this process's running threads, the least
of three looks), then, between iterations, how much of the fit's cores other processes
used (``/proc/stat``'s busy time of those cores less this process's CPU time), and grows
the next trees on the cores left free, the user's thread count at most.  The
trees do not depend on the thread count: the model is the same whatever the load.
Elsewhere than Linux it keeps the thread count as it is.

It also decides by the work (:func:`~._threads.region_threads`, the engine's one rule):
a fit or prediction too small to share (an 891-row boosting fit, a forest's prediction
of a few hundred rows) runs every region of it on one thread, without a look at the
load, and a larger one on no more threads than its work feeds.  A prediction reuses a
look of the last :data:`LOOK_REUSE_S` seconds (a look reads a file per thread of the
process: tenths of a millisecond, a small prediction's whole time).
"""

import contextlib
import os
import time
from collections import namedtuple

import numba

from .thread_pools import THREAD_MIN_WORK, region_threads

__all__ = ["CoreShare"]


#: the kernel's CPU time per core
STAT = "/proc/stat"
#: the kernel's count of the tasks running now (``running/all`` is its fourth field)
LOADAVG = "/proc/loadavg"
#: this process's threads
TASKS = "/proc/self/task"

#: one look at the load: the wall clock, the busy seconds of the process's cores and the
#: process's own CPU seconds (each since some origin: differences are what count)
LoadSample = namedtuple("LoadSample", ["wall", "busy", "own"])

#: seconds for which a prediction (``CoreShare(reuse=True)``) takes the free cores of an
#: earlier look instead of looking again
LOOK_REUSE_S = 1.0


class CoreShare:
    """Numba's thread count for a boosting fit's regions, lowered while other processes
    keep some of the fit's cores busy, restored when the fit ends.

    Every ``interval`` seconds at most (between iterations), with ``b`` the busy
    seconds of the cores this process may run on, ``c`` this process's CPU seconds and
    ``t`` the wall seconds since the last look, the others' share is
    ``o = (b - c) / t`` cores, and the next iterations use
    ``max(1, min(n, n_cores - floor(o + 0.6)))`` threads, ``n`` being the thread count
    the fit started with (fewer where its work feeds fewer): a core counts as taken when
    another process had at least 40 % of it (a process sharing a core with a spinning
    worker gets about half of it).

    Use it as a context manager around the iterations and call :meth:`update` before
    each one.

    Parameters
    ----------
    n_cells : int or None, default=None
        The fit's work: its rows x features (a prediction's rows x trees).  The thread
        count is at most :func:`~._threads.region_threads` of it (a thread for every
        ``per_thread`` cells); where that is one thread, every region of the fit runs on
        one and nothing is looked at (a look would cost more than it saves).  None: no
        bound by the work; look whenever numba's count is above 1 (on one thread there is
        nothing to give up, so a fit there never looks: a forest's worker,
        ``NUMBA_NUM_THREADS=1``).
    interval : float, default=0.25
        Least wall time between two looks, which keeps the clock ticks' rounding (1/100 s
        a core) small against the time measured.
    per_thread : int, default=THREAD_MIN_WORK
        The least work of a thread (:func:`~._threads.region_threads`).
    reuse : bool, default=False
        Take the free cores of a look of the last :data:`LOOK_REUSE_S` seconds (a
        prediction, which has no iterations to watch); a fit looks afresh.
    """

    #: a core counts as taken when another process used at least 1 - _ROUND of it
    _ROUND = 0.6
    #: whether fits look at the load at all: the install's kernel build
    #: (:mod:`treeboost._prebuild`) turns it off in its own processes, which keep each
    #: other's cores busy and must compile the parallel growers all the same
    _watch = True
    #: the last look: (perf_counter, the cores it found free), for ``reuse``
    _last_look = None

    def __init__(self, n_cells=None, interval=0.25, per_thread=THREAD_MIN_WORK, reuse=False):
        self.n_cells = n_cells
        self.interval = interval
        self.per_thread = per_thread
        self.reuse = reuse
        self.n_threads = None
        self._start_threads = None
        self._cap = None
        self._cores = None
        self._tick = None
        self._last = None

    @classmethod
    def for_prediction(cls, n_cells):
        """The share of a prediction of ``n_cells`` rows x trees: a :class:`CoreShare`
        that reuses a recent look (``reuse=True``), or, where that work feeds one thread
        (:func:`~._threads.region_threads`), a context that does nothing: the walk then
        runs on the calling thread whatever numba's count, and setting the count to 1
        and back would cost more than walking a row through a hundred trees."""
        if region_threads(n_cells) < 2:
            return contextlib.nullcontext()
        return cls(n_cells=n_cells, reuse=True)

    def __enter__(self):
        self._start_threads = self.n_threads = numba.get_num_threads()
        # the most threads the work feeds, numba's count at most
        self._cap = self._start_threads
        if self.n_cells is not None:
            self._cap = region_threads(self.n_cells, self.per_thread, self._start_threads)
        if not self._watch or self._cap < 2:
            self._set(self._cap)
            return self
        try:
            self._cores = frozenset(os.sched_getaffinity(0))
            if not self.reuse:
                self._tick = os.sysconf("SC_CLK_TCK")
                self._last = self._sample()
            self._set(self._free_cores())
        except (AttributeError, OSError, ValueError):
            self._last = None  # not Linux: nothing to watch
            self._set(self._cap)
        return self

    def __exit__(self, *exc):
        if self.n_threads != self._start_threads:
            numba.set_num_threads(self._start_threads)
        return False

    def _free_cores(self):
        """The cores of this process that no task of another process is running on: a
        look at the load (the last one, for ``reuse``, when recent)."""
        now = time.perf_counter()
        last = CoreShare._last_look
        if self.reuse and last is not None and now - last[0] < LOOK_REUSE_S:
            return last[1]
        # a process that keeps a core busy is running at each of three looks; the
        # kernel's own short tasks seldom are
        free = len(self._cores) - min(self.running_elsewhere() for _ in range(3))
        CoreShare._last_look = (now, free)
        return free

    def _sample(self):
        """A :data:`LoadSample` now."""
        busy = 0
        want = self._cores
        with open(STAT) as f:
            f.readline()  # the sum over all cores
            for line in f:
                if not line.startswith("cpu"):
                    break
                fields = line.split()
                if int(fields[0][3:]) in want:
                    # user nice system idle iowait irq softirq: the busy ones, without
                    # the time a hypervisor took (steal), which no thread count gives back
                    busy += sum(int(v) for v in fields[1:4]) + int(fields[6]) + int(fields[7])
        own = os.times()
        return LoadSample(time.perf_counter(), busy / self._tick, own.user + own.system)

    @staticmethod
    def running_elsewhere():
        """Tasks of other processes running at this instant: the kernel's count of
        running tasks less this process's threads that run (the caller, and OpenMP
        workers still spinning after an earlier region)."""
        with open(LOADAVG) as f:
            running = int(f.read().split()[3].split("/")[0])
        if running <= 1:  # the caller alone
            return 0
        own = 0
        for tid in os.listdir(TASKS):
            try:
                with open(f"{TASKS}/{tid}/stat") as f:
                    # the state follows the name, which is in parentheses
                    own += f.read().rpartition(")")[2].split()[0] == "R"
            except OSError:  # the thread ended meanwhile
                pass
        return max(0, running - max(own, 1))

    def _set(self, n):
        n = max(1, min(self._cap, n))
        if n != self.n_threads:
            numba.set_num_threads(n)
            self.n_threads = n
        return n

    @staticmethod
    def others(now, before):
        """Cores other processes kept busy between two :data:`LoadSample` s."""
        busy_elsewhere = (now.busy - before.busy) - (now.own - before.own)
        return max(0.0, busy_elsewhere) / (now.wall - before.wall)

    def update(self):
        """Look at the load when ``interval`` has passed and set numba's thread count for
        the next iteration; return it."""
        if self._last is None or time.perf_counter() - self._last.wall < self.interval:
            return self.n_threads
        try:
            now = self._sample()
        except (OSError, ValueError):
            self._last = None
            return self.n_threads
        taken = int(self.others(now, self._last) + self._ROUND)
        self._last = now
        return self._set(len(self._cores) - taken)
