"""The ways the engine compiles a kernel with numba, named once.

Every kernel releases the GIL (forests grow their trees on threads) and is cached on
disk.  numba also compiles, for every function, a C callback wrapper (for code that
takes the function's address) and a Python entry point; on a first fit each one costs
compile time (benchmarks/README.md, "Cold start, 2026-11-25"), so a kernel gets only the
ones it uses:

* :data:`kernel`: called from Python and from other kernels; no C callback (nothing
  takes a kernel's address);
* :data:`parallel_kernel`: the same, with ``prange`` loops on numba's threads;
* :data:`internal`: called only from other kernels: neither entry point (its records
  would cost more to box than its body costs to compile);
* :data:`inlined`: a small step or helper inlined into each kernel that calls it
  (numba's intermediate representation is copied there: no compiled copy of its own,
  no call, and the caller's constants fold inside it).

A kernel that needs other options (numba's runtime, no reference counting) names them
itself.
"""
from numba import njit

kernel = njit(nogil=True, cache=True, no_cfunc_wrapper=True)
parallel_kernel = njit(nogil=True, cache=True, no_cfunc_wrapper=True, parallel=True)
internal = njit(nogil=True, cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
inlined = njit(nogil=True, cache=True, inline="always")
