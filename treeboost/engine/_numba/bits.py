"""The bits of a float64 as an integer: :func:`sign_bit`, :func:`float_bits`.

A comparison whose result feeds arithmetic (``base += half * (c < u)``) compiles to a
compare and a select, and LLVM's x86 back end turns a select inside a loop into a branch
when it guesses the branch predictable.  In a binary search over random draws it is not:
every other step is mispredicted.  Reading the sign bit of ``c - u`` gives the same
answer as ``c < u`` for finite values (the difference of two different finite doubles is
never zero, and ``c - c`` is ``+0.0``) as a bit the back end cannot branch on.
"""

from numba import types
from numba.extending import intrinsic


@intrinsic
def sign_bit(typingctx, x):
    """1 (uint64) when the float64 ``x`` has its sign bit set (``-0.0`` included), else
    0."""
    if x != types.float64:
        return None
    sig = types.uint64(types.float64)

    def codegen(context, builder, signature, args):
        bits = builder.bitcast(args[0], context.get_value_type(types.uint64))
        return builder.lshr(bits, bits.type(63))

    return sig, codegen


@intrinsic
def float_bits(typingctx, x):
    """The 64 bits of the float64 ``x`` as a uint64 (a bit cast, no conversion)."""
    if x != types.float64:
        return None
    sig = types.uint64(types.float64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.uint64))

    return sig, codegen
