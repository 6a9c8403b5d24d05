"""The initial values of a tree's nodes in the workspace's node arrays
(:class:`~..layout.NodeArrays`), which consecutive trees reuse."""

import numpy as np

from .._jit import inlined, internal
from ..constraints import LOWER, MIDDLE, UPPER
from ..layout import GAP_UNKNOWN


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


@internal
def reset_nodes(nodes, k):
    """Give the first ``k`` nodes (those of the previous tree) their initial values.
    (Explicit loops: each slice assignment compiles its own broadcasting code.)"""
    everything = ~np.uint64(0)
    for i in range(k):
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
    for i in range(min(k, nodes.categories.shape[0])):
        for w in range(nodes.categories.shape[1]):
            nodes.categories[i, w] = 0
    for i in range(min(k, nodes.left_stats.shape[0])):
        for c in range(nodes.left_stats.shape[1]):
            nodes.left_stats[i, c] = 0.0
