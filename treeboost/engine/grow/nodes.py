"""The initial values of a tree's nodes in the workspace's node arrays
(:class:`~..layout.NodeArrays`), which consecutive trees reuse.

The arrays are made empty and hold room for the largest tree the data allows (twice the
samples, for a fully grown tree), where a tree mostly uses a small part of them.  Their
nodes get their initial values by chunks as the trees reach them
(:func:`ready_nodes`), so that a workspace's first tree touches the pages of the nodes
it creates, not all of them: a forest's every worker makes a workspace, and the first
touch of a page costs the kernel a fault and its zeroing.  A grower keeps the invariant
that every node it may write (its ``node_count`` nodes and the next two) holds its
initial values when the tree starts or the node is created; the nodes the previous tree
wrote get them back at the start of the next (:func:`reset_nodes`)."""

import numpy as np

from .._numba.jit import inlined, internal
from ..split.constraints import LOWER, MIDDLE, UPPER
from ..records import GAP_UNKNOWN


@inlined
def reset_node(nodes, node, start, end, depth):
    """A node's place and depth, and the initial values of what every grower writes of
    it: no children, no split, no impurity or gain yet."""
    nodes.start[node] = start
    nodes.end[node] = end
    nodes.depth[node] = depth
    nodes.children_left[node] = -1
    nodes.children_right[node] = -1
    nodes.feature[node] = -1
    nodes.bin_threshold[node] = 0
    nodes.missing_go_left[node] = False
    nodes.sq_sum[node] = 0.0
    nodes.impurity[node] = 0.0
    nodes.gain[node] = 0.0
    nodes.gap[node, 0] = GAP_UNKNOWN


#: nodes given their initial values at a time, at least (:func:`ready_nodes`)
READY_CHUNK = 1024


@inlined
def ready_nodes(nodes, used, need):
    """Make sure the first ``need`` nodes hold their initial values (or have been
    written by this tree): ``used[1]`` counts the nodes initialised so far."""
    if need > used[1]:
        used[1] = init_nodes(nodes, used[1], need)


@internal
def init_nodes(nodes, start, need):
    """Give nodes ``start`` to ``need`` (and as many more as make a chunk of
    :data:`READY_CHUNK`, within the arrays) their initial values; returns the end of
    what it initialised."""
    stop = min(nodes.start.shape[0], max(need, start + READY_CHUNK))
    reset_nodes_from(nodes, start, stop)
    return stop


@internal
def reset_nodes(nodes, k):
    """Give the first ``k`` nodes (those of the previous tree) their initial values."""
    reset_nodes_from(nodes, 0, k)


@inlined
def reset_nodes_from(nodes, first, k):
    """Give nodes ``first`` to ``k`` their initial values.  (Explicit loops: each slice
    assignment compiles its own broadcasting code.)"""
    everything = ~np.uint64(0)
    for i in range(first, k):
        reset_node(nodes, i, 0, 0, 0)
        nodes.hist_slot[i] = -1
        nodes.hist_complete[i] = False
        nodes.interval[i, LOWER] = -np.inf
        nodes.interval[i, UPPER] = np.inf
        nodes.interval[i, MIDDLE] = 0.0
        for c in range(nodes.stats.shape[1]):
            nodes.stats[i, c] = 0.0
        for w in range(nodes.allowed.shape[1]):
            nodes.allowed[i, w] = everything
        nodes.gap[i, 1] = GAP_UNKNOWN
    for i in range(first, min(k, nodes.categories.shape[0])):
        for w in range(nodes.categories.shape[1]):
            nodes.categories[i, w] = 0
    for i in range(first, min(k, nodes.left_stats.shape[0])):
        for c in range(nodes.left_stats.shape[1]):
            nodes.left_stats[i, c] = 0.0
