"""A grown tree's arrays, copied out of the grower's workspace in one pass.

The workspace's node arrays are reused by the next tree, so the :class:`~.tree.Tree`
keeps copies of them, with what it derives at the same time: the leaves' ``feature`` -1
and ``gain`` 0, each split's real threshold, each node's weight and value.  A fully
grown forest tree has tens of thousands of nodes, and a dozen NumPy passes over them
cost a tenth of the tree's growth; :func:`tree_arrays` makes one.
"""

from collections import namedtuple

import numpy as np

from .._numba.jit import kernel
from ..split.criteria import newton_leaf_value

#: how the node values are read from the summed statistics (:func:`tree_arrays`)
VALUES_CLASSES, VALUES_MEANS, VALUES_NEWTON = 0, 1, 2

#: the arrays of a :class:`~.tree.Tree` that :func:`tree_arrays` gives, by their names
#: there (``weight``: ``weighted_n_node_samples``)
TreeArrays = namedtuple(
    "TreeArrays",
    [
        "children_left",
        "children_right",
        "feature",
        "bin_threshold",
        "missing_go_left",
        "impurity",
        "depth",
        "gain",
        "is_categorical",
        "threshold",
        "weight",
        "value",
        "n_node_samples",
    ],
)


@kernel
def _copy_out(nodes, node_count, is_categorical, edges, kind, n_stats, l1, l2):
    nc = node_count
    left = nodes.children_left[:nc].copy()
    right = nodes.children_right[:nc].copy()
    feature = nodes.feature[:nc].copy()
    bin_thr = nodes.bin_threshold[:nc].copy()
    missing_left = nodes.missing_go_left[:nc].copy()
    stats = nodes.stats
    impurity = nodes.impurity[:nc].copy()
    depth = nodes.depth[:nc].copy()
    gain = np.zeros(nc)
    is_cat = np.zeros(nc, np.bool_)
    threshold = np.full(nc, np.nan)
    n_node = np.empty(nc, np.int64)
    k = n_stats
    n_values = k if kind == VALUES_CLASSES else (k - 1 if kind == VALUES_MEANS else 1)
    weight = np.empty(nc)
    value = np.empty((nc, n_values))
    last_edge = edges.shape[1] - 1
    last_col = stats.shape[1] - 1
    for i in range(nc):
        if left[i] == -1:
            feature[i] = -1
        else:
            f = feature[i]
            gain[i] = nodes.gain[i]
            is_cat[i] = is_categorical[f]
            if not is_cat[i]:
                threshold[i] = edges[f, min(np.int64(bin_thr[i]), last_edge)]
        # (stats[i, c], not a row's view: a view would count references in the loop)
        n_node[i] = np.int64(np.rint(stats[i, last_col]))
        if kind == VALUES_NEWTON:
            weight[i] = stats[i, 1]
            value[i, 0] = newton_leaf_value(stats[i, 0], stats[i, 1], l1, l2)
        elif kind == VALUES_MEANS:
            # (w, w*y_1, .., w*y_K): the mean of each output
            w = stats[i, 0]
            weight[i] = w
            for c in range(n_values):
                value[i, c] = stats[i, 1 + c] / w if w > 0 else 0.0
        else:
            # the classes' weights added in turn, as NumPy's sum over a row of fewer than
            # 8 adds them: the same bits as NumPy gave
            w = stats[i, 0]
            for c in range(1, k):
                w += stats[i, c]
            weight[i] = w
            d = w if w > 0 else 1.0
            for c in range(k):
                value[i, c] = stats[i, c] / d
    return (
        left,
        right,
        feature,
        bin_thr,
        missing_left,
        impurity,
        depth,
        gain,
        is_cat,
        threshold,
        weight,
        value,
        n_node,
    )


#: most classes whose weights NumPy's sum of a row adds in turn (from 8 on, in blocks)
_MAX_SEQUENTIAL_CLASSES = 7


def tree_arrays(nodes, node_count, is_categorical, edges, kind, n_stats, l1, l2):
    """:class:`TreeArrays` of the first ``node_count`` nodes of the workspace's
    ``nodes`` (:class:`~.layout.NodeArrays`).

    Parameters
    ----------
    is_categorical : ndarray of bool, shape (n_features,)
    edges : ndarray of shape (n_features, width)
        Each feature's bin edges, ``inf`` past its last
        (:meth:`~.binning.BinMapper.edge_table`): the threshold of "code <= b" is
        ``edges[f, min(b, width - 1)]``.
    kind : int
        ``VALUES_CLASSES``: the stats are ``(w_1, .., w_K, count)``, the weight
        ``sum_k w_k`` and the value ``w_k / weight``; ``VALUES_MEANS``: ``(w, w y_1, ..,
        w y_K, count)``, the weight ``w`` and the values ``w y_k / w`` (0 when ``w`` is
        0); ``VALUES_NEWTON``: ``(g, h, count)``, the weight ``h`` and the value
        ``-T(g) / (h + l2)`` (:func:`~.criteria.newton_leaf_value`, ``T`` the L1
        threshold of ``l1``).
    n_stats : int
        The stats' columns but the count.
    """
    if kind == VALUES_CLASSES and n_stats > _MAX_SEQUENTIAL_CLASSES:
        # NumPy's pairwise sum, not reproduced in the kernel: the weights come from it
        out = TreeArrays(
            *_copy_out(nodes, node_count, is_categorical, edges, kind, n_stats, l1, l2)
        )
        stats = nodes.stats[:node_count, :n_stats]
        w = stats.sum(axis=1)
        np.divide(stats, np.where(w > 0, w, 1.0)[:, None], out=out.value)
        return out._replace(weight=w)
    return TreeArrays(*_copy_out(nodes, node_count, is_categorical, edges, kind, n_stats, l1, l2))
