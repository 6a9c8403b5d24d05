"""Splitting a node's samples into its two children (stable, in place).

:func:`goes_left_binned` is the one predicate on bin codes: the grower's partition and
:func:`~.tree.Tree.apply_binned` both use it.
"""

from collections import namedtuple

import numpy as np

from .sparse_codes import row_code
from ._jit import inlined, kernel


@inlined
def goes_left_binned(
    code, missing_code, missing_go_left, is_categorical, categories, row, bin_threshold
):
    """Does a sample with bin ``code`` go left at a split?  ``categories[row]`` is the
    split's 256-bit set of the category codes that go left (read for categorical splits
    only)."""
    if code == missing_code:
        return missing_go_left
    if is_categorical:
        return (categories[row, code >> 6] >> np.uint64(code & 63)) & np.uint64(1) == 1
    return code <= bin_threshold


#: a split as the partition reads it: ``categories[row]`` is its category set
BinnedSplit = namedtuple(
    "BinnedSplit",
    ["missing_code", "missing_go_left", "is_categorical", "categories", "row", "bin_threshold"],
)


@inlined
def _goes_left(code, split):
    return goes_left_binned(
        code,
        split.missing_code,
        split.missing_go_left,
        split.is_categorical,
        split.categories,
        split.row,
        split.bin_threshold,
    )


@kernel
def partition_serial(idx, s0, e0, col, split, buf):
    """Stable partition of ``idx[s0:e0]`` at ``split``: the left samples in place, the
    right ones through ``buf``; returns the left count."""
    n_left = 0
    n_right = 0
    for i in range(s0, e0):
        s = idx[i]
        left = _goes_left(col[s], split)
        # both sides are written and the counts say which write stands (no branch on a
        # side that is as good as random): the left slot is at or before i, already
        # read, and the next right sample overwrites the right slot
        idx[s0 + n_left] = s
        buf[n_right] = s
        n_left += left
        n_right += not left
    for i in range(n_right):
        idx[s0 + n_left + i] = buf[i]
    return n_left


@kernel
def partition_sparse(idx, s0, e0, data, f, split, buf, position):
    """:func:`partition_serial` on sparse codes (``data`` a
    :class:`~.layout.BinnedData` of :mod:`.sparse_codes`), whose feature ``f`` each row
    looks up; then the new place of every row of the node into ``position``."""
    n_left = 0
    n_right = 0
    for i in range(s0, e0):
        s = idx[i]
        if _goes_left(row_code(data, s, f), split):
            idx[s0 + n_left] = s
            n_left += 1
        else:
            buf[n_right] = s
            n_right += 1
    for i in range(n_right):
        idx[s0 + n_left + i] = buf[i]
    for i in range(s0, e0):
        position[idx[i]] = i
    return n_left
