"""A lighter LLVM clean-up of the engine's functions before numba links them.

numba optimizes a compiled function's LLVM code twice.  First each function of the new
module on its own (``CPUCodeLibrary._optimize_functions``, the *function passes*, at the
``NUMBA_OPT`` level, 3 by default), then the library's final module, in which the
already optimized modules of every kernel it calls are linked (the *module passes*, at
the same level).  The module pipeline at level 3 simplifies every function again, callees
first, before it inlines and vectorizes, so for the engine's kernels the first run mostly
prepares work the second redoes; on the grower, whose body is some twenty thousand lines
of unoptimized LLVM code, it was the largest single cost of a first fit (what it cost:
benchmarks/README.md, "Third session of 2026-11-25").

:func:`light_engine_prepass` runs that first clean-up at level 1 (promotion of locals to
registers, constant folding, dead code and control-flow simplification, without the
costly level-3 function pipeline) for the modules that define a function of
``treeboost.engine``.  The module passes are numba's own and unchanged, so the kernels are
optimized as fully as before; the machine code differs in details only, and the
engine's speed benchmarks are unchanged.

Left as numba does them:

* every module that defines no engine function: other libraries' numba code in the same
  process compiles as it would without treeboost;
* the modules of ``prange`` loops (numba's parfor gufuncs, named
  ``__numba_parfor_gufunc``): their loops lose speed without the level-3 clean-up before
  the module passes (a packed forest's prediction took a sixth longer).

Nothing is installed when numba's code library has not the members this relies on
(another numba version): compilation is then only slower.
"""
from numba.core import codegen as _codegen

#: level of the engine's function passes (numba's default is ``NUMBA_OPT``, 3)
PREPASS_OPT_LEVEL = 1

#: mangled-name markers: a function of the engine, and a parfor gufunc
_ENGINE_MARK = "9treeboost6engine"
_PARFOR_MARK = "__numba_parfor_gufunc"

_Library = getattr(_codegen, "CPUCodeLibrary", None)


def takes_light_prepass(ll_module):
    """Whether the functions of ``ll_module`` (an ``llvmlite.binding`` module) get the
    lighter clean-up: it defines a function of the engine and none of numba's parfor
    gufuncs."""
    engine = False
    for func in ll_module.functions:
        if func.is_declaration:
            continue
        if _PARFOR_MARK in func.name:
            return False
        engine = engine or _ENGINE_MARK in func.name
    return engine


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


def _has_expected_shape():
    return (_Library is not None
            and callable(getattr(_Library, "_optimize_functions", None))
            and callable(getattr(_codegen.CPUCodegen, "_function_pass_manager", None)))


def light_engine_prepass():
    """Install the lighter function passes for the engine's modules (once; a no-op when
    numba's code library is not of the expected shape).  Returns whether they are
    installed."""
    if not _has_expected_shape():
        return False
    current = _Library._optimize_functions
    if getattr(current, "_treeboost_numba_optimize_functions", None) is None:
        _Library._optimize_functions = _make_optimize_functions(current)
    return True
