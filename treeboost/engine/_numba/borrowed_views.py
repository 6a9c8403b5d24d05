"""Borrowed array views for the hot loops of the grower.

Numba keeps every array alive with an atomic reference count in its memory-info block,
and it updates that count around every call that passes the array and every view it
takes: two atomic instructions per array per call.  The split search calls its helpers
once per feature per node with some twenty arrays, so on the many small nodes of a
fully grown tree the reference counting costs more than the search (measured with
``benchmarks/profile_kernels.py``), and worse when threads grow trees on the same binned matrix,
whose
count then bounces between cores.

:func:`flat` flattens a C-contiguous array without numba's reshape helper.

:func:`borrow` returns a view of an array (or of each array in a tuple) without a
memory-info block, as :func:`numba.carray` does for foreign memory: counting it is a
null-pointer test.  The caller must keep the original alive for as long as the view is
used: :func:`~.grow.loop.grow_tree` borrows its inputs and the workspace's arrays (owned by
a :class:`~.grow.workspace.GrowerWorkspace`), which its Python caller holds for the whole call,
and never returns a borrowed view.
"""

from numba import types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic
from numba.np.arrayobj import make_array


def _unowned(context, builder, ty, value):
    src = make_array(ty)(context, builder, value=value)
    out = make_array(ty)(context, builder)
    context.populate_array(
        out,
        data=src.data,
        shape=src.shape,
        strides=src.strides,
        itemsize=src.itemsize,
        meminfo=None,
    )
    return out._getvalue()


@intrinsic
def borrow(typingctx, x):
    """A view of array ``x`` (or of each array of tuple or record ``x``) that is not
    reference counted; valid only while the original is alive."""
    if isinstance(x, types.Array):

        def codegen(context, builder, sig, args):
            return _unowned(context, builder, x, args[0])

        return x(x), codegen
    if isinstance(x, types.BaseTuple):
        # a record (named tuple) may mix arrays with scalars: only the arrays change
        def codegen(context, builder, sig, args):
            items = []
            for i, t in enumerate(x):
                item = builder.extract_value(args[0], i)
                if isinstance(t, types.Array):
                    item = _unowned(context, builder, t, item)
                elif context.enable_nrt:
                    context.nrt.incref(builder, t, item)
                items.append(item)
            return context.make_tuple(builder, x, items)

        return x(x), codegen
    return None


@intrinsic
def flat(typingctx, x):
    """``x.reshape(-1)`` of a C-contiguous array ``x``: a 1-d view of all of its items,
    made in place.  numba's ``reshape`` calls a helper of its runtime that works out the
    view's strides for any layout; a gather that flattens its arrays once per node and
    feature spent a few per cent of a forest's fit in it.  The view holds ``x``'s
    reference (none for a borrowed ``x``)."""
    if not (isinstance(x, types.Array) and x.layout == "C"):
        return None
    out_ty = x.copy(ndim=1, layout="C")

    def codegen(context, builder, sig, args):
        src = make_array(x)(context, builder, value=args[0])
        size = cgutils.intp_t(1)
        for extent in cgutils.unpack_tuple(builder, src.shape, x.ndim):
            size = builder.mul(size, extent)
        out = make_array(out_ty)(context, builder)
        context.populate_array(
            out,
            data=src.data,
            shape=cgutils.pack_array(builder, [size]),
            strides=cgutils.pack_array(builder, [src.itemsize]),
            itemsize=src.itemsize,
            meminfo=src.meminfo,
            parent=src.parent,
        )
        return impl_ret_borrowed(context, builder, out_ty, out._getvalue())

    return out_ty(x), codegen
