"""The lighter LLVM clean-up of the engine's functions (engine/_numba_prepass.py): engine
kernels get it, other numba code and prange loops keep numba's own."""
import llvmlite.binding as llvm
import numba
import numpy as np
import pytest
from numba.core import codegen

import treeboost  # noqa: F401  (installs it)
from treeboost.engine import splitting
from treeboost.engine._numba_prepass import (PREPASS_OPT_LEVEL, light_engine_prepass,
                                             takes_light_prepass)


def _module(*definitions, declarations=()):
    text = "".join(f"define i64 @\"{name}\"(i64 %x) {{\n  ret i64 %x\n}}\n"
                   for name in definitions)
    text += "".join(f"declare i64 @\"{name}\"(i64)\n" for name in declarations)
    return llvm.parse_assembly(text)


ENGINE = "_ZN9treeboost6engine10statistics6sum_sqB3v35"
OTHER = "_ZN8__main__3fooB2v1"
PARFOR = "_ZN13_3cdynamic_3e40__numba_parfor_gufunc_0x7f_2484B2v1"


@pytest.mark.parametrize("definitions, declarations, expected", [
    ((ENGINE,), (), True),
    ((ENGINE, "_ZN7cpython9treeboost6engine4tree7predict"), (), True),
    ((OTHER,), (), False),
    ((OTHER,), (ENGINE,), False),          # calling an engine kernel is not being one
    ((ENGINE, PARFOR), (), False),
    ((PARFOR,), (), False),
])
def test_which_modules(definitions, declarations, expected):
    assert takes_light_prepass(_module(*definitions, declarations=declarations)) is expected


def test_installed_once():
    assert light_engine_prepass()
    installed = codegen.CPUCodeLibrary._optimize_functions
    assert light_engine_prepass()
    assert codegen.CPUCodeLibrary._optimize_functions is installed
    assert installed._treeboost_numba_optimize_functions is not installed


@pytest.fixture
def pass_levels(monkeypatch):
    """The ``opt`` level of every function-pass manager made while compiling (None:
    numba's default)."""
    levels = []
    made = codegen.CPUCodegen._function_pass_manager

    def spy(self, **kwargs):
        levels.append(kwargs.get("opt"))
        return made(self, **kwargs)
    monkeypatch.setattr(codegen.CPUCodegen, "_function_pass_manager", spy)
    return levels


def test_engine_kernel_gets_the_light_prepass(pass_levels):
    # a new dispatcher of an engine function compiles anew, under the engine's name
    fresh = numba.njit(splitting.copy_into.py_func)
    dst = np.zeros(5)
    fresh(dst, np.arange(5.0))
    np.testing.assert_array_equal(dst, np.arange(5.0))
    # (numba's own helpers it compiles on the way keep numba's passes)
    assert PREPASS_OPT_LEVEL in pass_levels


def test_other_code_keeps_numbas_passes(pass_levels):
    @numba.njit
    def add_one(x):
        return x + 1

    assert add_one(1) == 2
    assert pass_levels and PREPASS_OPT_LEVEL not in pass_levels
