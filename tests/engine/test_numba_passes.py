"""numba's LLVM passes on the engine's code (engine/_numba/passes.py): engine kernels get
the light clean-up before linking, link-only kernels no module passes of their own;
other numba code and prange loops keep numba's passes."""

import llvmlite.binding as llvm
import numba
import numpy as np
import pytest
from numba.core import codegen

from treeboost.engine import speed_up_compilation

# the shortcuts are never applied on import (engine/_numba/compilation.py): applied here, in
# this test process only
speed_up_compilation()
from treeboost.engine.split import search as splitting
from treeboost.engine._numba.passes import (
    PREPASS_OPT_LEVEL,
    is_link_only,
    lighten_engine_passes,
    takes_light_prepass,
)


def _module(*definitions, declarations=()):
    text = "".join(f'define i64 @"{name}"(i64 %x) {{\n  ret i64 %x\n}}\n' for name in definitions)
    text += "".join(f'declare i64 @"{name}"(i64)\n' for name in declarations)
    return llvm.parse_assembly(text)


ENGINE = "_ZN9treeboost6engine10statistics6sum_sqB3v35"
ENTRY = "_ZN7cpython9treeboost6engine10statistics6sum_sqB3v35"
OTHER = "_ZN8__main__3fooB2v1"
PARFOR = "_ZN13_3cdynamic_3e40__numba_parfor_gufunc_0x7f_2484B2v1"


@pytest.mark.parametrize(
    "definitions, declarations, light, link_only",
    [
        ((ENGINE,), (), True, True),
        ((ENGINE, ENTRY), (), True, False),  # Python may call it
        ((ENGINE,), (ENTRY,), True, True),
        ((OTHER,), (), False, False),
        ((OTHER,), (ENGINE,), False, False),  # calling an engine kernel is not being one
        ((OTHER, ENGINE), (), True, True),  # an engine kernel with another linked in
        ((ENGINE, PARFOR), (), False, False),
        ((PARFOR,), (), False, False),
    ],
)
def test_which_modules(definitions, declarations, light, link_only):
    module = _module(*definitions, declarations=declarations)
    assert takes_light_prepass(module) is light
    assert is_link_only(module) is link_only


def test_installed_once():
    assert lighten_engine_passes()
    installed = (
        codegen.CPUCodeLibrary._optimize_functions,
        codegen.CPUCodeLibrary._optimize_final_module,
    )
    assert lighten_engine_passes()
    assert (
        codegen.CPUCodeLibrary._optimize_functions,
        codegen.CPUCodeLibrary._optimize_final_module,
    ) == installed
    assert installed[0]._treeboost_numba_optimize_functions is not installed[0]
    assert installed[1]._treeboost_numba_optimize_final_module is not installed[1]


@pytest.fixture
def passes(monkeypatch):
    """What the passes did while compiling: the ``opt`` level of every function-pass
    manager made (None: numba's default), and the names of the functions whose final
    module got module passes."""
    seen = {"levels": [], "module_passes": []}
    made = codegen.CPUCodegen._function_pass_manager
    module_made = codegen.CPUCodegen._module_pass_manager

    def spy(self, **kwargs):
        seen["levels"].append(kwargs.get("opt"))
        return made(self, **kwargs)

    def module_spy(self, **kwargs):
        seen["module_passes"].append(kwargs)
        return module_made(self, **kwargs)

    monkeypatch.setattr(codegen.CPUCodegen, "_function_pass_manager", spy)
    monkeypatch.setattr(codegen.CPUCodegen, "_module_pass_manager", module_spy)
    return seen


def _copy(fresh):
    dst = np.zeros(5)
    fresh(dst, np.arange(5.0))
    np.testing.assert_array_equal(dst, np.arange(5.0))


def test_engine_kernel_gets_the_light_prepass(passes):
    # a new dispatcher of an engine function compiles anew, under the engine's name
    _copy(numba.njit(splitting.copy_into.py_func))
    # (numba's own helpers it compiles on the way keep numba's passes)
    assert PREPASS_OPT_LEVEL in passes["levels"]
    assert passes["module_passes"]  # Python calls it: its machine code runs


def test_link_only_kernel_gets_no_module_passes(passes):
    link_only = numba.njit(no_cpython_wrapper=True)(splitting.copy_into.py_func)

    @numba.njit
    def caller(dst, src):
        link_only(dst, src)

    _copy(caller)
    libraries = [cres.library for cres in link_only.overloads.values()]
    assert libraries and all(is_link_only(lib._final_module) for lib in libraries)
    # the caller's library is optimized with the kernel linked in, which it runs
    caller_module = next(iter(caller.overloads.values())).library._final_module
    assert not is_link_only(caller_module)
    assert passes["module_passes"]


def test_module_passes_skipped_only_when_link_only(passes):
    sig = "void(int64[::1], int64[::1])"
    link_only = numba.njit(no_cpython_wrapper=True)(splitting.copy_into.py_func)
    callable_from_python = numba.njit(splitting.copy_into.py_func)
    before = len(passes["module_passes"])
    link_only.compile(sig)
    assert len(passes["module_passes"]) == before
    callable_from_python.compile(sig)
    assert len(passes["module_passes"]) > before


def test_other_code_keeps_numbas_passes(passes):
    @numba.njit
    def add_one(x):
        return x + 1

    assert add_one(1) == 2
    assert passes["levels"] and PREPASS_OPT_LEVEL not in passes["levels"]
    assert passes["module_passes"]
