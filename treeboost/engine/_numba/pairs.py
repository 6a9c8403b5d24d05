"""Two adjacent float64 values handled as one two-lane vector: :func:`add_pair`.

numba runs LLVM without its SLP vectoriser (``NUMBA_SLP_VECTORIZE`` is 0 by default,
for the whole process), so ``h[a] += g; h[a + 1] += s`` compiles to two scalar loads,
adds and stores, even where the two addresses are adjacent.  In the histogram kernels
those memory operations, not the arithmetic, bound the speed: one 16-byte load, add and
store per sample does the same work with fewer of them.  Each lane is the scalar
IEEE addition of the same operands, so the results are the same bits.
"""

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


def _is_f8_vector(t):
    return (
        isinstance(t, types.Array)
        and t.ndim == 1
        and t.layout == "C"
        and t.dtype == types.float64
        and t.mutable
    )


@intrinsic
def add_pair(typingctx, dst, a, src, b):
    """``dst[a] += src[b]; dst[a + 1] += src[b + 1]`` in one vector operation.

    ``dst`` and ``src`` are C-contiguous 1-d float64 arrays (a 2-d array's
    ``reshape(-1)``), ``a`` and ``b`` integers; no bounds are checked (as numba's
    indexing), and the two arrays must not overlap."""
    if not (
        _is_f8_vector(dst)
        and isinstance(src, types.Array)
        and src.ndim == 1
        and src.layout == "C"
        and src.dtype == types.float64
        and isinstance(a, types.Integer)
        and isinstance(b, types.Integer)
    ):
        return None
    sig = types.none(dst, a, src, b)

    def codegen(context, builder, signature, args):
        d, ai, s, bi = args
        dty, aty, sty, bty = signature.args
        dary = context.make_array(dty)(context, builder, d)
        sary = context.make_array(sty)(context, builder, s)
        ai = context.cast(builder, ai, aty, types.intp)
        bi = context.cast(builder, bi, bty, types.intp)
        pair = ir.VectorType(ir.DoubleType(), 2).as_pointer()
        dptr = builder.bitcast(builder.gep(dary.data, [ai], inbounds=True), pair)
        sptr = builder.bitcast(builder.gep(sary.data, [bi], inbounds=True), pair)
        # 8-byte alignment: a pair starts at any element
        total = builder.fadd(builder.load(dptr, align=8), builder.load(sptr, align=8))
        builder.store(total, dptr, align=8)
        return context.get_dummy_value()

    return sig, codegen
