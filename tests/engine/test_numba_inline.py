"""The inliner's block copier (engine/_numba/inline.py) makes the copies numba's own makes."""

import copy
import re

import numpy as np
import pytest
from numba import njit
from numba.core import inline_closurecall, ir
from numba.core.compiler import run_frontend

from treeboost.engine import speed_up_compilation

# the shortcuts are never applied on import (engine/_numba/compilation.py): applied here, in
# this test process only
speed_up_compilation()
from treeboost.engine._numba.inline import BlockCopier, copy_inlined_ir_once


@njit(inline="always")
def _step(a, n, t):
    s = 0.0
    for k in range(n):
        if a[k] > t:
            s += a[k]
        else:
            s -= 1.0
    return s


def _body(a, t):
    x = _step(a, a.shape[0], t)
    y = _step(a, a.shape[0] // 2, t + 1.0)
    return x + y if x > y else x - y


def _blocks_copied(the_ir, copier):
    """The blocks of ``the_ir`` copied as numba's inliner copies them (``copy_ir``)."""
    return {label: copier.deepcopy(block) for label, block in the_ir.blocks.items()}


def _objects(blocks):
    """Every mutable IR object (statement, expression, variable, scope, list, dict)
    reachable from ``blocks`` (tuples are left out: a deep copy may share an immutable
    one, as :func:`copy.deepcopy` does)."""
    seen = {}
    stack = list(blocks.values())
    while stack:
        x = stack.pop()
        if id(x) in seen or not isinstance(
            x, (ir.Block, ir.Inst, ir.Expr, ir.Var, ir.Scope, ir.VarMap, list, tuple, dict)
        ):
            continue
        if not isinstance(x, tuple):
            seen[id(x)] = x
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        else:
            stack.extend(vars(x).values())
    return seen


def test_installed_in_numbas_inliner():
    assert copy_inlined_ir_once()
    assert isinstance(inline_closurecall.copy, BlockCopier)


@pytest.mark.parametrize("func", [_body, _step.py_func])
def test_copy_equals_numbas_and_shares_nothing_with_the_original(func):
    original = run_frontend(func)
    ours = _blocks_copied(original, BlockCopier())
    numbas = _blocks_copied(original, copy)
    assert ours.keys() == numbas.keys()
    for label in ours:
        assert ours[label] == numbas[label]
        assert ours[label].body == original.blocks[label].body
    assert not set(_objects(ours)) & set(_objects(original.blocks))
    # the copy's blocks share one scope, as the original's do
    assert len({id(b.scope) for b in ours.values()}) == 1
    assert len({id(b.scope) for b in original.blocks.values()}) == 1


def test_two_copies_of_one_ir_share_nothing():
    original = run_frontend(_body)
    copier = BlockCopier()
    first = _blocks_copied(original, copier)
    second = _blocks_copied(original, copier)
    assert not set(_objects(first)) & set(_objects(second))
    # and a copy of the copy is a third, separate one
    third = {label: copier.deepcopy(b) for label, b in first.items()}
    assert not set(_objects(third)) & set(_objects(first))


def test_other_arguments_go_to_copy_deepcopy():
    copier = BlockCopier()
    x = {"a": [1, 2]}
    y = copier.deepcopy(x)
    assert y == x and y["a"] is not x["a"]
    memo = {}
    block = run_frontend(_body).blocks[0]
    assert copier.deepcopy(block, memo) == block and memo


def _llvm_of_body(copier):
    saved = inline_closurecall.copy
    inline_closurecall.copy = copier
    try:
        disp = njit(_body)
        disp(np.arange(5.0), 1.0)
        text = disp.inspect_llvm(disp.signatures[0])
    finally:
        inline_closurecall.copy = saved
    # numbered names (blocks, versions, unique ids) differ from one compilation to the next
    text = re.sub(r"_v\d+", "_v#", text)
    text = re.sub(r"B\d+", "B#", text)
    text = re.sub(r"B#v\d+", "B#v#", text)
    return re.sub(r"\[\d+ x i8\]", "[# x i8]", text)  # strings holding such names


def test_a_kernel_with_inlined_steps_compiles_to_the_same_code():
    _llvm_of_body(copy)  # the first compilation of the steps differs
    numbas = _llvm_of_body(copy)
    ours = _llvm_of_body(BlockCopier())
    assert ours == numbas
    assert njit(_body)(np.arange(5.0), 1.0) == _body(np.arange(5.0), 1.0)
