"""numba's LLVM passes on the engine's code: less work, the same optimized kernels.

numba optimizes a compiled function's LLVM code twice.  First each function of the new
module on its own (``CPUCodeLibrary._optimize_functions``, the *function passes*, at the
``NUMBA_OPT`` level, 3 by default), then the library's final module, in which the
already optimized modules of every kernel it calls are linked (the *module passes*, at
the same level), before it is turned into machine code.  The module pipeline at level 3
simplifies every function again, callees first, before it inlines and vectorizes; what
these passes cost a first fit: ``python benchmarks/compile_time.py``.

:func:`lighten_engine_passes` changes two things, for the engine's modules only:

* **a lighter clean-up before linking** (:func:`takes_light_prepass`): the function
  passes of a module that defines a function of ``treeboost.engine`` run at level 1
  (locals promoted to registers, constants folded, dead code and control flow
  simplified), not at level 3, whose work the module passes redo; on the grower, some
  twenty thousand lines of unoptimized LLVM code, it was the largest single cost;
* **no module passes for a kernel only ever linked into others**
  (:func:`is_link_only`: an engine kernel compiled without a Python entry point,
  ``_jit.internal``): its machine code is never run, since every caller links its code in
  and optimizes it at level 3 with its own, callees first.  Its own optimization only
  made the same work twice.

The callers' module passes are numba's own and unchanged, so the kernels that run are
optimized as fully as before; their machine code differs in details only, and the
engine's speed benchmarks are unchanged.  Left as numba does them: every module that
defines no engine function (other libraries' numba code in the same process compiles as
it would without treeboost), and the modules of ``prange`` loops (numba's parfor
gufuncs): their loops lose speed without the level-3 clean-up before the module passes
(a packed forest's prediction took a sixth longer).

Nothing is installed when numba's code library has not the members this relies on
(another numba version): compilation is then only slower.
"""

from numba.core import codegen as _codegen

#: level of the engine's function passes (numba's default is ``NUMBA_OPT``, 3)
PREPASS_OPT_LEVEL = 1

#: mangled-name markers: a function of the engine, a parfor gufunc, and the Python entry
#: point numba writes for a function that Python may call
_ENGINE_MARK = "9treeboost6engine"
_PARFOR_MARK = "__numba_parfor_gufunc"
_PYTHON_ENTRY_PREFIX = "_ZN7cpython"

_Library = getattr(_codegen, "CPUCodeLibrary", None)


def _defined(ll_module):
    return [func.name for func in ll_module.functions if not func.is_declaration]


def _engine_without_parfor(names):
    return any(_ENGINE_MARK in name for name in names) and not any(
        _PARFOR_MARK in name for name in names
    )


def takes_light_prepass(ll_module):
    """Whether the functions of ``ll_module`` (an ``llvmlite.binding`` module) get the
    lighter clean-up: it defines a function of the engine and none of numba's parfor
    gufuncs."""
    return _engine_without_parfor(_defined(ll_module))


def is_link_only(ll_module):
    """Whether ``ll_module``, a library's final module, holds an engine kernel that only
    other kernels call: it takes the light clean-up and defines no Python entry point."""
    names = _defined(ll_module)  # listed once for both tests
    return _engine_without_parfor(names) and not any(
        name.startswith(_PYTHON_ENTRY_PREFIX) for name in names
    )


def _make_optimize_functions(numba_optimize_functions):
    def _optimize_functions(self, ll_module):
        if not takes_light_prepass(ll_module):
            return numba_optimize_functions(self, ll_module)
        ll_module.data_layout = self._codegen._data_layout
        for func in ll_module.functions:
            fpm, pb = self._codegen._function_pass_manager(opt=PREPASS_OPT_LEVEL)
            with self._recorded_timings.record(f"Function passes on {func.name!r}", pb):
                fpm.run(func, pb)

    _optimize_functions.__doc__ = numba_optimize_functions.__doc__
    _optimize_functions._treeboost_numba_optimize_functions = numba_optimize_functions
    return _optimize_functions


def _make_optimize_final_module(numba_optimize_final_module):
    def _optimize_final_module(self):
        if is_link_only(self._final_module):
            return
        return numba_optimize_final_module(self)

    _optimize_final_module.__doc__ = numba_optimize_final_module.__doc__
    _optimize_final_module._treeboost_numba_optimize_final_module = numba_optimize_final_module
    return _optimize_final_module


def _has_expected_shape():
    return (
        _Library is not None
        and callable(getattr(_Library, "_optimize_functions", None))
        and callable(getattr(_Library, "_optimize_final_module", None))
        and callable(getattr(_codegen.CPUCodegen, "_function_pass_manager", None))
    )


def lighten_engine_passes():
    """Install the lighter passes for the engine's modules (once; a no-op when numba's
    code library is not of the expected shape).  Returns whether they are installed."""
    if not _has_expected_shape():
        return False
    current = _Library._optimize_functions
    if getattr(current, "_treeboost_numba_optimize_functions", None) is None:
        _Library._optimize_functions = _make_optimize_functions(current)
    current = _Library._optimize_final_module
    if getattr(current, "_treeboost_numba_optimize_final_module", None) is None:
        _Library._optimize_final_module = _make_optimize_final_module(current)
    return True
