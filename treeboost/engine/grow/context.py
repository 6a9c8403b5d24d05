"""The record every step of the compiled grower reads (:data:`GrowContext`), and the
inputs and row buffers on borrowed views (:mod:`.._borrow`): the caller holds them for
the whole growth, so the kernels the loop calls do not reference-count them."""

from collections import namedtuple

from .._numba.borrowed_views import borrow
from .._numba.jit import inlined
from ..records import BinnedData, RowBuffers

#: everything the steps of the grower read: the inputs, the workspace's records, the
#: feature sampler and the number of threads the parallel grower may use
GrowContext = namedtuple(
    "GrowContext",
    [
        "data",
        "src",
        "rows",
        "nodes",
        "candidates",
        "scratch",
        "params",
        "sampler",
        "n_threads",
        "random_cuts",
        "hist_partials",
    ],
)


@inlined
def borrowed_data(data):
    """``data`` (a :class:`~.layout.BinnedData`) on borrowed views: the caller holds it
    for the whole growth (see ._borrow)."""
    return BinnedData(
        borrow(data.codes_T),
        borrow(data.n_bins),
        borrow(data.is_categorical),
        data.missing_code,
        borrow(data.bin_centers),
        borrow(data.codes_rows),
        data.sparse,
        borrow(data.zero_code),
        borrow(data.col_ptr),
        borrow(data.col_rows),
        borrow(data.col_codes),
        borrow(data.row_ptr),
        borrow(data.row_features),
        borrow(data.row_codes),
    )


@inlined
def borrowed_rows(rows, n):
    """The workspace's :class:`~.layout.RowBuffers` for a tree of ``n`` samples, on
    borrowed views."""
    return RowBuffers(
        borrow(rows.idx[:n]),
        borrow(rows.buf[:n]),
        borrow(rows.ostats[:n]),
        borrow(rows.position),
        borrow(rows.slot_of),
        borrow(rows.bucket_start),
        borrow(rows.entry_pos),
        borrow(rows.entry_code),
    )
