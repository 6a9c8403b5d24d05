"""How a raw value goes at a split: the one predicate of every walk of a tree on raw
values (:mod:`.tree`, :mod:`.csr_rows`, :mod:`.tree_shap`), and :func:`goes_left_binned`, its
twin on bin codes (the grower's partition)."""

from collections import namedtuple

import numpy as np

from .._numba.jit import inlined

#: the child id of a leaf in a tree's ``children_left`` and ``children_right``
TREE_LEAF = -1

#: a tree's splits as every walk reads them, one entry a node: the children (``left[node]``
#: is :data:`TREE_LEAF` at a leaf), the feature and its threshold (raw values, or bin codes
#: for a walk on binned X), the missing values' side, whether the split is categorical, and
#: the 256-bit category sets (``bitset[node]``, read at categorical nodes only)
Splits = namedtuple(
    "Splits", ["left", "right", "feature", "threshold", "missing_left", "is_cat", "bitset"]
)


@inlined
def goes_left_raw(x, missing_go_left, is_categorical, categories, row, threshold):
    """Does a raw value ``x`` go left at a split?  The one predicate of every walk on raw
    values (apply, decision path, packed prediction); :func:`goes_left_binned`
    is its twin on bin codes.  ``categories[row]`` is the split's 256-bit set of the
    categories that go left (read for categorical splits only).  NaN, and a category
    code outside 0..255 (never seen in training), take the missing values' side."""
    if np.isnan(x):
        return missing_go_left
    if is_categorical:
        if x < 0 or x >= 256:
            return missing_go_left
        c = np.int64(x)
        return (categories[row, c >> 6] >> np.uint64(c & 63)) & np.uint64(1) == 1
    return x <= threshold


@inlined
def goes_left_at_node(x, node, threshold, missing_go_left, is_cat, bitset):
    """:func:`goes_left_raw` at ``node`` of a tree's arrays (the category set is read
    at categorical nodes only: a tree without any has a single row of them)."""
    return goes_left_raw(x, missing_go_left[node], is_cat[node], bitset, node, threshold[node])


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


@inlined
def child_of_row(X, i, splits, node):
    """The child of internal ``node`` that row ``i`` of the raw matrix ``X`` goes to."""
    go = goes_left_at_node(
        X[i, splits.feature[node]],
        node,
        splits.threshold,
        splits.missing_left,
        splits.is_cat,
        splits.bitset,
    )
    return splits.left[node] if go else splits.right[node]


@inlined
def leaf_of_row(X, i, splits, root):
    """The leaf row ``i`` of the raw matrix ``X`` reaches from ``root`` in the tree (or the
    concatenated trees) of ``splits``."""
    node = root
    while splits.left[node] != TREE_LEAF:
        node = child_of_row(X, i, splits, node)
    return node
