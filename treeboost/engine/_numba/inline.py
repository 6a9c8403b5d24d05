"""A cheaper copy of an inlined function's IR in numba's inliner, the same copy.

The engine's small steps are inlined into the kernels that call them (``inline="always"``,
``_jit.inlined``).  For each call site numba's inliner copies the callee's intermediate
representation, twice (``InlineWorker.inline_ir``'s ``copy_ir``), by deep-copying its
blocks *one at a time*.  Every block refers to the function's scope, which lists every
variable of the function, so that each block's copy copies the whole scope again: a
copy costs (blocks x variables), and the helpers, themselves made of inlined steps, have
hundreds of each (``python benchmarks/compile_time.py`` times a first fit's
compilation).

:func:`copy_inlined_ir_once` gives the inliner's module a ``copy`` whose ``deepcopy``
copies the blocks of one IR with one shared memo: the scope and the variables shared by
several blocks are copied once, and the blocks of the copy share them as the original's
blocks do.  Nothing else changes: the copy holds the same statements, every object of it
is new, and numba then points the blocks at the caller's scope and renames the variables
(the LLVM code of every kernel of a first fit is byte for byte the same; the test checks
the copies).  The blocks of one IR are recognised as those copied one after the other,
that share a scope and were not copied yet; any other argument goes to
:func:`copy.deepcopy` unchanged.  Compilation holds numba's compiler lock, so the state
below is never shared between threads; it keeps the last IR copied alive until the next
copy.

Nothing is installed when numba's inliner does not copy through a module-level ``copy``
(another numba version): compilation is then only slower.
"""

import copy as _copy

from numba.core import inline_closurecall as _inliner
from numba.core import ir as _ir


class BlockCopier:
    """``deepcopy`` for numba's inliner: consecutive copies of the blocks of one IR share
    one memo (see the module's docstring)."""

    def __init__(self):
        self._memo = None
        self._scope = None

    def deepcopy(self, x, memo=None):
        """A deep copy of ``x``, as :func:`copy.deepcopy`; a block copied without a
        ``memo`` shares the memo of the blocks of its IR copied just before it."""
        if memo is not None or not isinstance(x, _ir.Block):
            return _copy.deepcopy(x, memo)
        if self._memo is None or x.scope is not self._scope or id(x) in self._memo:
            # the first block of another IR, or of another copy of the same one
            self._memo = {}
            self._scope = x.scope
        return _copy.deepcopy(x, self._memo)


def copy_inlined_ir_once():
    """Install :class:`BlockCopier` as the ``copy`` of numba's inliner (once; a no-op when
    the inliner does not copy through :mod:`copy`).  Returns whether it is installed."""
    current = getattr(_inliner, "copy", None)
    if isinstance(current, BlockCopier):
        return True
    if current is not _copy:
        return False
    _inliner.copy = BlockCopier()
    return True
