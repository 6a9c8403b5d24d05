"""Rows of 64-byte blocks moved and compared as vectors: :func:`copy_row`,
:func:`rows_min_max`; and :func:`prefetch_row` and :func:`prefetch_item`, a row or an
item asked for before it is read.

The lean grower (:mod:`.grow.random_tree`) keeps each sample's codes in a row of whole 8-byte
words and moves rows in every partition.  numba runs LLVM without its SLP vectoriser
(see :mod:`._pairs`), so a loop over a row's words copies them one word at a time, with
the loop's own counting, and that copy is most of a partition's cost.  With rows padded
to whole 64-byte blocks (:data:`ROW_BLOCK_WORDS` words), :func:`copy_row` copies a row
block by block as one vector load and one vector store: the same bytes;
:func:`rows_min_max` keeps a node's running minimum and maximum of every code in vector
registers.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

#: words of one block of a row: rows are whole blocks
ROW_BLOCK_WORDS = 8


def _is_rows(t):
    return (
        isinstance(t, types.Array) and t.ndim == 2 and t.layout == "C" and t.dtype == types.uint64
    )


def _copy_codegen(context, builder, signature, args):
    """The code of :func:`copy_row`: the source row read a block at a time, each block
    stored to the destination row."""
    dst_ty, i_ty, src_ty, j_ty = signature.args
    dary = context.make_array(dst_ty)(context, builder, args[0])
    ii = context.cast(builder, args[1], i_ty, types.intp)
    sary = context.make_array(src_ty)(context, builder, args[2])
    jj = context.cast(builder, args[3], j_ty, types.intp)
    n_words = builder.extract_value(sary.shape, 1)
    block = ir.VectorType(ir.IntType(64), ROW_BLOCK_WORDS).as_pointer()
    n_blocks = builder.udiv(n_words, n_words.type(ROW_BLOCK_WORDS))
    with cgutils.for_range(builder, n_blocks) as loop:
        off = builder.mul(loop.index, loop.index.type(ROW_BLOCK_WORDS))
        at_s = builder.add(builder.mul(jj, n_words), off)
        at_d = builder.add(builder.mul(ii, n_words), off)
        # 8-byte alignment: numpy aligns an array to 16 bytes at least, not 64
        v = builder.load(
            builder.bitcast(builder.gep(sary.data, [at_s], inbounds=True), block), align=8
        )
        builder.store(
            v, builder.bitcast(builder.gep(dary.data, [at_d], inbounds=True), block), align=8
        )
    return context.get_dummy_value()


@intrinsic
def copy_row(typingctx, dst, i, src, j):
    """``dst[i] = src[j]`` for C-contiguous 2-d uint64 arrays whose rows are whole blocks
    of :data:`ROW_BLOCK_WORDS` words (the same row length in both), a block at a time.
    The source row is read before it is written, so ``dst[i]`` may be ``src[j]``
    itself.  No bounds are checked (as numba's indexing)."""
    if not (_is_rows(dst) and _is_rows(src) and all(isinstance(t, types.Integer) for t in (i, j))):
        return None
    return types.none(dst, i, src, j), _copy_codegen


@intrinsic
def prefetch_row(typingctx, rows, i):
    """Ask the CPU to bring row ``i`` of the C-contiguous 2-d ``rows`` into its caches
    (the row's first and last byte: a row shorter than a cache line may straddle two),
    without waiting for it and without a fault if the row is not there.  A loop that
    reads rows in an order the hardware prefetchers cannot follow (a node's samples,
    scattered over the data) names the rows it will read a few steps ahead.  Nothing is
    read or checked: an ``i`` out of range is harmless."""
    if not (
        isinstance(rows, types.Array)
        and rows.ndim == 2
        and rows.layout == "C"
        and isinstance(i, types.Integer)
    ):
        return None

    def codegen(context, builder, signature, args):
        first, stride = _address_of(context, builder, signature, args)
        _prefetch(builder, first)
        _prefetch(builder, builder.add(first, builder.sub(stride, stride.type(1))))
        return context.get_dummy_value()

    return types.none(rows, i), codegen


@intrinsic
def prefetch_item(typingctx, values, i):
    """Ask the CPU to bring item ``i`` of the 1-d array ``values`` into its caches, as
    :func:`prefetch_row` a row: for a loop that reads items in an order the hardware
    prefetchers cannot follow (a leaf's samples, scattered over the rows).  Nothing is
    read or checked: an ``i`` out of range is harmless."""
    if not (isinstance(values, types.Array) and values.ndim == 1 and isinstance(i, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        _prefetch(builder, _address_of(context, builder, signature, args)[0])
        return context.get_dummy_value()

    return types.none(values, i), codegen


_I64 = ir.IntType(64)


def _address_of(context, builder, signature, args):
    """The integer address of item (row) ``i`` along the first axis of the array of a
    ``(array, i)`` call, and that axis's stride in bytes."""
    aty, ity = signature.args
    ary = context.make_array(aty)(context, builder, args[0])
    ii = context.cast(builder, args[1], ity, types.intp)
    stride = builder.extract_value(ary.strides, 0)
    return builder.add(builder.ptrtoint(ary.data, _I64), builder.mul(ii, stride)), stride


def _prefetch(builder, address):
    """LLVM's prefetch of the byte at the integer ``address``: a read, kept in every
    level of cache, of data."""
    i32 = ir.IntType(32)
    byte = ir.IntType(8).as_pointer()
    fn = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32]), "llvm.prefetch.p0"
    )
    builder.call(fn, [builder.inttoptr(address, byte), i32(0), i32(3), i32(1)])


def _is_codes(t):
    return isinstance(t, types.Array) and t.layout == "C" and t.dtype in (types.uint8, types.uint16)


@intrinsic
def rows_min_max(typingctx, codes, start, end, lo, hi):
    """``lo[k]`` and ``hi[k]``: the smallest and largest of ``codes[i, k]`` over the rows
    ``start <= i < end`` (at least one), for every ``k`` of the row, a 64-byte block at a
    time: one vector load, minimum and maximum per row and block, the running minimum and
    maximum held in registers.  ``codes`` is C-contiguous 2-d uint8 or uint16 with rows
    of whole blocks; ``lo`` and ``hi`` are 1-d of its dtype and of its row length."""
    if not (
        _is_codes(codes)
        and codes.ndim == 2
        and _is_codes(lo)
        and _is_codes(hi)
        and lo.ndim == 1
        and hi.ndim == 1
        and lo.dtype == codes.dtype == hi.dtype
        and isinstance(start, types.Integer)
        and isinstance(end, types.Integer)
    ):
        return None
    sig = types.none(codes, start, end, lo, hi)

    def codegen(context, builder, signature, args):
        c, st, en, lo_a, hi_a = args
        cty, sty, ety, loty, hity = signature.args
        cary = context.make_array(cty)(context, builder, c)
        loary = context.make_array(loty)(context, builder, lo_a)
        hiary = context.make_array(hity)(context, builder, hi_a)
        st = context.cast(builder, st, sty, types.intp)
        en = context.cast(builder, en, ety, types.intp)
        width = builder.extract_value(cary.shape, 1)
        lanes = 64 // cty.dtype.bitwidth * 8
        vec = ir.VectorType(ir.IntType(cty.dtype.bitwidth), lanes)
        n_blocks = builder.udiv(width, width.type(lanes))
        acc_lo = cgutils.alloca_once(builder, vec)
        acc_hi = cgutils.alloca_once(builder, vec)
        one = st.type(1)

        def block_at(row, off):
            at = builder.add(builder.mul(row, width), off)
            return builder.bitcast(builder.gep(cary.data, [at], inbounds=True), vec.as_pointer())

        with cgutils.for_range(builder, n_blocks) as blocks:
            off = builder.mul(blocks.index, blocks.index.type(lanes))
            first = builder.load(block_at(st, off), align=8)
            builder.store(first, acc_lo)
            builder.store(first, acc_hi)
            with cgutils.for_range_slice(builder, builder.add(st, one), en, one) as (row, _):
                v = builder.load(block_at(row, off), align=8)
                a = builder.load(acc_lo)
                builder.store(builder.select(builder.icmp_unsigned("<", v, a), v, a), acc_lo)
                b = builder.load(acc_hi)
                builder.store(builder.select(builder.icmp_unsigned(">", v, b), v, b), acc_hi)
            for acc, ary in ((acc_lo, loary), (acc_hi, hiary)):
                ptr = builder.bitcast(builder.gep(ary.data, [off], inbounds=True), vec.as_pointer())
                builder.store(builder.load(acc), ptr, align=8)
        return context.get_dummy_value()

    return sig, codegen
