"""A split's threshold in the middle of the gap its node's samples leave.

The bins are built once per estimator, on every training row, so a threshold is a bin
edge: the split "code <= b" of a node whose samples leave the codes ``b + 1 .. c - 1``
empty scores the same for every ``b`` in that range, and the search keeps the first,
right above the largest value that goes left.  scikit-learn's trees (exact search on the
node's samples) put the threshold halfway between that value and the smallest value that
goes right.  On a tree that sees a subsample (a forest's bootstrap, boosting's subsample,
a deep node of a small data set) the gaps are wide and the rows the tree did not see fall
into them: where the threshold sits there decides their side.

:func:`center_thresholds` sets each numeric split's threshold to that middle (between
the bins' centers: the values themselves where each distinct value has its bin, as on
small data; kept between the edges around the gap) and its code to the last bin whose
center lies at or below it, after the tree is grown.  No sample of the tree changes
side, so its leaves, values and statistics stay as grown; where each distinct training value has
its bin, the binned and the raw
test agree on every training value (a bin of several values may hold some on either
side of the middle: the raw threshold decides for those).

Extra-Trees' random cut is drawn uniformly between the node's smallest and largest
value, so its gap is chosen with a probability proportional to its width; scikit-learn's
threshold then lies anywhere in that gap, uniformly.  The binned cut is a bin edge, so
its threshold is moved to a uniform position in the gap (``position`` drawn from the
tree's seed), which gives the thresholds scikit-learn's draws give.
"""

import numpy as np

from .._numba.jit import inlined, kernel
from ..records import GAP_UNKNOWN
from ..binning.sparse_codes import CodeRows, row_code

#: the entries by row of dense codes (none)
NO_ROWS = CodeRows(
    np.zeros(1, np.int64), np.empty(0, np.int32), np.empty(0, np.uint8), np.empty(0, np.int64)
)


@inlined
def _code(codes_T, rows, sparse, f, r):
    if sparse:
        return np.int64(row_code(rows, r, f))
    return np.int64(codes_T[f, r])


@kernel
def center_thresholds(
    left,
    right,
    feature,
    bin_threshold,
    start,
    end,
    idx,
    codes_T,
    rows,
    sparse,
    is_categorical,
    missing_code,
    centers,
    edges,
    single,
    n_nodes,
    position,
    threshold,
    gap,
):
    """Move the numeric splits among the first ``n_nodes`` nodes into their node's gap
    (see the module docstring): ``threshold[node]`` the point ``position[node]`` of the
    way across the gap (0.5: the middle) and ``bin_threshold[node]`` its code; both are
    left as they are where the split stays where it is (categorical, no gap, or a side
    with only missing values), and at the leaves.  The tree's own arrays
    (:func:`~.tree_arrays.tree_arrays`) are written in place: no array of the moved
    thresholds to merge into them.

    ``left``/``right``: the children (-1 at leaves); ``start``/``end``: each node's
    samples are ``idx[start:end]``; ``codes_T``: feature-major codes, or with ``sparse``
    the :class:`~.sparse_codes.CodeRows` ``rows`` (``codes_T`` then unused); ``centers``: the
    bins' centers (``BinMapper.bin_centers``), ``edges`` their edges
    (``BinMapper.edge_table``), ``single`` whether each feature's bins hold one value
    each (``BinMapper.single_value_bins``).  Missing values take no part.  ``gap``: the
    node's largest code going left and smallest going right where its partition
    recorded them (:attr:`~.layout.NodeArrays.gap`: the lean Extra-Trees grower's);
    the children's samples are read for the others (``GAP_UNKNOWN``).
    """
    mc = missing_code
    for node in range(n_nodes):
        lc = left[node]
        if lc < 0:
            continue
        f = feature[node]
        if is_categorical[f]:
            continue
        rc = right[node]
        lo = np.int64(gap[node, 0])  # the largest code that goes left
        hi = np.int64(gap[node, 1])  # the smallest code that goes right
        if lo == GAP_UNKNOWN:
            lo = np.int64(-1)
            for i in range(start[lc], end[lc]):
                c = _code(codes_T, rows, sparse, f, idx[i])
                if c != mc and c > lo:
                    lo = c
            hi = np.int64(mc)
            for i in range(start[rc], end[rc]):
                c = _code(codes_T, rows, sparse, f, idx[i])
                if c < hi:
                    hi = c
        if lo < 0 or hi >= mc:
            continue
        a = centers[f, lo]
        mid = a + position[node] * (centers[f, hi] - a)
        if single[f]:
            # the centers are the node's values: anywhere from the largest going left
            # to below the smallest going right keeps every sample's side
            if not mid < centers[f, hi]:
                mid = a
        else:
            # within the edges around the gap, so that every sample of the node keeps
            # its side when a bin holds several values (its center is then no sample's)
            mid = min(max(mid, edges[f, lo]), edges[f, hi - 1])
        b = lo
        while b + 1 < hi and centers[f, b + 1] <= mid:
            b += 1
        bin_threshold[node] = b
        threshold[node] = mid
