"""The ways the engine compiles a kernel with numba, named once.

Every kernel releases the GIL (forests grow their trees on threads) and is cached on
disk (:mod:`.kernel_cache`).  numba also compiles, for every function, a C callback
wrapper (for code that takes the function's address) and a Python entry point; on a
first fit each one costs compile time (``python benchmarks/compile_time.py``),
so a kernel gets only the ones it uses:

* :data:`kernel`: called from Python and from other kernels; no C callback (nothing
  takes a kernel's address);
* :data:`parallel_kernel`: the same, with ``prange`` loops on numba's threads;
* :data:`internal`: called only from other kernels: neither entry point (its records
  would cost more to box than its body costs to compile);
* :data:`inlined`: a small step or helper inlined into each kernel that calls it
  (numba's intermediate representation is copied there: no compiled copy of its own,
  no call, and the caller's constants fold inside it);
* :func:`serial_and_parallel`: a kernel whose blocks of rows are independent, in two
  copies from one source: one on the calling thread (a few rows: starting numba's
  threads costs more than walking them) and one on numba's threads.

A kernel that needs other options (numba's runtime, no reference counting) names them
itself.
"""

from numba import njit, prange

from ..parallel import fork as _fork  # noqa: F401  (its fork hooks: a forked child runs the kernels)
from ..kernel_cache import KernelCache


def compiled(**options):
    """The decorator of an engine kernel: ``numba.njit`` with ``options``, releasing the
    GIL, and cached on disk by :class:`~.kernel_cache.KernelCache` (numba's cache with
    the kernels compiled at installation in front) where ``cache=True`` would attach
    numba's own."""
    jit = njit(nogil=True, **options)

    def decorate(py_func):
        dispatcher = jit(py_func)
        dispatcher._cache = KernelCache(py_func)
        return dispatcher

    return decorate


kernel = compiled(no_cfunc_wrapper=True)
parallel_kernel = compiled(no_cfunc_wrapper=True, parallel=True)
internal = compiled(no_cpython_wrapper=True, no_cfunc_wrapper=True)
inlined = compiled(inline="always")


def serial_and_parallel(make):
    """The two copies of a kernel from one source: ``(serial, parallel)``.

    ``make(blocks)`` returns the kernel's Python function, whose loop over its
    independent blocks of rows is written ``for b in blocks(n_blocks)``: ``blocks`` is
    ``range`` in the :data:`kernel` that runs on the calling thread and ``prange`` in the
    :data:`parallel_kernel` that runs on numba's threads.  ``blocks`` is a variable of
    the closure: numba folds it before it types the body, and it tells the two copies'
    cache keys apart (numba's key holds the closure's values, not the compile options).
    """
    return kernel(make(range)), parallel_kernel(make(prange))
