"""Many trees' node arrays stacked into one set, as the kernels that walk a whole ensemble
read them (prediction of packed trees, tree SHAP, the lane walk of a forest).

Tree ``t``'s nodes occupy ``[roots[t], roots[t] + node_count_t)``; its children, which
point into its own nodes, are shifted by ``roots[t]`` so that they point into the stack,
and a leaf's ``TREE_LEAF`` stays one.  This is the one place where trees are stacked:
:func:`stack_roots` places them, :func:`shift_children` (and :func:`shifted_child` in a
kernel) moves their children; :class:`TreeStack` stacks whole trees, and the subtree
graft of :mod:`~..grow.subtrees` calls the two functions.
"""

import numpy as np

from .._numba.jit import inlined
from .routing import TREE_LEAF

#: the category bitsets of a stack without a categorical split: one row, never read
NO_CATEGORIES = np.zeros((1, 4), np.uint64)


def stack_roots(sizes, first=0):
    """The first node of each block of ``sizes`` nodes laid one after the other from node
    ``first``: ``first + sum(sizes[:t])`` for block ``t``, int64.

    Parameters
    ----------
    sizes : ndarray of int64, shape (n_blocks,)
        Each block's node count (a tree's, or a grafted subtree's nodes below its root).
    first : int, default 0
        The node where the first block starts.

    Returns
    -------
    ndarray of int64, shape (n_blocks,)
    """
    return (first + np.concatenate([[0], np.cumsum(sizes)[:-1]])).astype(np.int64)


def shift_children(children, shift):
    """``children + shift`` with a leaf's :data:`~.routing.TREE_LEAF` kept: a tree's
    children moved to the nodes of a stack (or of a grafted tree).

    Parameters
    ----------
    children : ndarray of int
        Child indices, ``TREE_LEAF`` at the leaves.
    shift : int or ndarray of int
        What each child moves by (an array lines up with ``children``).

    Returns
    -------
    ndarray of int64 (or of ``children``'s wider type)
    """
    return np.where(children == TREE_LEAF, TREE_LEAF, children + shift)


@inlined
def shifted_child(child, root):
    """:func:`shift_children` for one child, inside a kernel that copies a tree to nodes
    ``root:`` of a stack (:func:`~.packed_forest._place_tree`)."""
    if child == TREE_LEAF:
        return TREE_LEAF
    return child + root


class TreeStack:
    """The node arrays of ``trees`` (objects with a ``node_count`` and the arrays of a
    :class:`~.tree.Tree`) stacked one tree after the other.

    Attributes
    ----------
    sizes : ndarray of int64, shape (n_trees,)
        Each tree's node count.
    roots : ndarray of int64, shape (n_trees,)
        The first node of each tree in the stack: ``roots[t] = sum(sizes[:t])``.
    shift : ndarray of int64, shape (n_nodes,)
        ``roots[t]`` at every node of tree ``t``.
    """

    def __init__(self, trees):
        self.trees = list(trees)
        self.sizes = np.array([t.node_count for t in self.trees], dtype=np.int64)
        self.roots = stack_roots(self.sizes)
        self.shift = np.repeat(self.roots, self.sizes)

    def concat(self, name):
        """The array ``name`` of every tree, one after the other."""
        return np.concatenate([getattr(t, name) for t in self.trees])

    def children(self):
        """``(left, right)``, int64: the children as nodes of the stack (``TREE_LEAF``
        kept at the leaves)."""
        left = self.concat("children_left").astype(np.int64)
        right = self.concat("children_right").astype(np.int64)
        return shift_children(left, self.shift), shift_children(right, self.shift)

    def bitsets(self):
        """The category bitsets of every node (rows line up with the nodes), or
        :data:`NO_CATEGORIES` when no tree has a categorical split."""
        if any(np.asarray(t.is_categorical).any() for t in self.trees):
            return self.concat("categories_left")
        return NO_CATEGORIES
