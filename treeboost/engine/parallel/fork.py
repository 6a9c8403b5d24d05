"""A process forked from one that ran the engine's kernels keeps running them.

On Linux numba's parallel kernels run on GNU OpenMP (numba's ``omp`` threading layer,
the one it picks where TBB is not installed), which does not survive ``fork()``: the
forking thread's OpenMP team is a pool of threads that the child does not have, and the
child's first parallel region waits for them for ever.  numba guards against that hang
with a kill: its ``parallel_for`` compares the pid its layer recorded at start with the
caller's parent pid, and a child of that process gets ``SIGTERM`` on its first parallel
kernel, whatever its thread count ("Terminating: fork() called from a process already
using GNU OpenMP, this is unsafe.").  A ``multiprocessing`` child (the ``fork`` start
method) was killed on its first fit or prediction, and a ``multiprocessing.Pool`` whose
task was lost with its worker waited for ever.

Two hooks of :func:`os.register_at_fork` make the fork safe:

* before the fork, in the forking thread: OpenMP's ``omp_pause_resource_all`` (OpenMP
  5.0, GNU OpenMP since GCC 9) lets that thread's team go (its threads end), so the
  child has no team to wait for and starts its own, with every thread, on its first
  region; the parent's next region starts its team again (a few tens of microseconds);
* in the child: numba's layer records the child's pid (``launch_threads``, which numba
  calls once per process and which sets nothing else that differs from the parent's),
  so that its check lets the child's kernels run.

Where the team cannot be let go (an OpenMP without the call), the child's forking thread
runs numba's kernels on one thread (a region of one thread uses no team, and threads the
child starts have teams of their own), with a :class:`RuntimeWarning` that says so.

The hooks act only where numba's layer has started on GNU OpenMP: with TBB or the
workqueue (fork-safe) or LLVM's and Intel's OpenMP (fork handlers of their own) nothing
happens, and nothing is done at import.  They are process-wide, as numba's layer is:
another library's parallel kernels in the child run (instead of being killed) after a
fork from a process that imported the engine.
"""

import ctypes
import os
import sys
import warnings

#: the OpenMP 5.0 ``omp_pause_soft`` (either kind frees GNU OpenMP's teams)
_OMP_PAUSE_SOFT = 1

#: ``omp_pause_resource_all`` of the OpenMP under numba's layer, once looked up (False:
#: looked up, not there)
_pause = None

#: whether the last fork's parent let its team go (read in the child)
_team_released = False


def _gnu_omp_layer():
    """numba's ``omppool`` module when numba's threading layer has started on GNU
    OpenMP in this process, else None.  Reads ``sys.modules`` only: a fork hook imports
    nothing."""
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if parallel is None or not getattr(parallel, "_is_initialized", False):
        return None
    if getattr(parallel, "_threading_layer", None) != "omp":
        return None
    omppool = sys.modules.get("numba.np.ufunc.omppool")
    if omppool is None or getattr(omppool, "openmp_vendor", None) != "GNU":
        return None
    return omppool


def _pause_function(omppool):
    """``omp_pause_resource_all`` of the OpenMP library ``omppool`` is linked to, or
    None where it has none (before GCC 9)."""
    global _pause
    if _pause is None:
        try:
            # the handle of the loaded module; its symbol look-up searches the
            # libraries it needs, among them its OpenMP
            func = ctypes.CDLL(omppool.__file__).omp_pause_resource_all
        except (AttributeError, OSError):
            _pause = False
        else:
            func.argtypes, func.restype = [ctypes.c_int], ctypes.c_int
            _pause = func
    return _pause or None


def release_team():
    """Let the calling thread's OpenMP team go; returns whether it is gone (OpenMP's
    call exists and succeeded).  The thread's next parallel region starts a new team."""
    omppool = _gnu_omp_layer()
    pause = None if omppool is None else _pause_function(omppool)
    return pause is not None and pause(_OMP_PAUSE_SOFT) == 0


def _before_fork():
    global _team_released
    _team_released = False
    if _gnu_omp_layer() is not None:
        _team_released = release_team()


def _after_fork_in_child():
    omppool = _gnu_omp_layer()
    if omppool is None:
        return
    numba = sys.modules["numba"]
    # records this process's pid (numba's check then passes) and sets OpenMP's thread
    # count and nesting to numba's, as they were in the parent
    ctypes.CFUNCTYPE(None, ctypes.c_int)(omppool.launch_threads)(
        int(numba.config.NUMBA_NUM_THREADS)
    )
    if not _team_released:
        # the forking thread's team is the parent's: a region of more than one thread
        # would wait for its threads; one of one thread uses none of them
        numba.set_num_threads(1)
        warnings.warn(
            "This process was forked from one that ran numba's parallel kernels on GNU "
            "OpenMP, whose threads a forked process does not have, and its OpenMP cannot "
            "release them before the fork (it has no omp_pause_resource_all): this "
            "thread runs treeboost's (and numba's) kernels on one thread. Use the "
            "'forkserver' or 'spawn' start method of multiprocessing for parallel fits "
            "in child processes.",
            RuntimeWarning,
            stacklevel=1,
        )


_registered = False


def register():
    """Register the hooks with :func:`os.register_at_fork` (once per process)."""
    global _registered
    if not _registered:
        os.register_at_fork(before=_before_fork, after_in_child=_after_fork_in_child)
        _registered = True


register()
