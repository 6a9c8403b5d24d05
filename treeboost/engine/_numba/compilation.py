"""Shortcuts through numba's compiler for the processes that compile the engine's kernels.

numba's typing compares its compiler flags some hundred thousand times while it types
the engine (:mod:`._numba_flags`), marks up a message for every overload it rejects
(:mod:`._numba_markup`), copies each inlined step's IR block by block
(:mod:`._numba_inline`) and optimizes the engine's LLVM modules twice
(:mod:`._numba_passes`). Each shortcut gives the same compiled code; each one replaces
a method of a numba class, which would reach every numba user of the process. They are
therefore never applied on import: the install's kernel build
(:mod:`treeboost._prebuild`) applies them in its own worker processes, which compile
nothing but the engine. A user who compiles the engine in a process of their own (a
machine whose installed kernels do not fit) may call :func:`speed_up_compilation`
first, accepting that the process's other numba code is compiled through them too.
"""

from .flags import compare_flags_cheaply
from .inline import copy_inlined_ir_once
from .markup import mark_up_without_colorama_init
from .passes import lighten_engine_passes


def speed_up_compilation():
    """Apply the four compile-time shortcuts to numba for the rest of this process.

    Returns the names of the shortcuts applied (a shortcut whose numba class does not
    have the expected shape, on another numba version, is left out: compilation is then
    only slower).
    """
    done = []
    for fn in (
        compare_flags_cheaply,
        copy_inlined_ir_once,
        mark_up_without_colorama_init,
        lighten_engine_passes,
    ):
        if fn():
            done.append(fn.__name__)
    return done
