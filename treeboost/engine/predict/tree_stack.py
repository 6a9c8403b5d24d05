"""Many trees' node arrays stacked into one set, as the kernels that walk a whole ensemble
read them (prediction of packed trees, tree SHAP, the lane walk of a forest).

Tree ``t``'s nodes occupy ``[roots[t], roots[t] + node_count_t)``; its children, which
point into its own nodes, are shifted by ``roots[t]`` so that they point into the stack,
and a leaf's ``TREE_LEAF`` stays one.  This is the one place where trees are stacked.
"""

import numpy as np

from .routing import TREE_LEAF

#: the category bitsets of a stack without a categorical split: one row, never read
NO_CATEGORIES = np.zeros((1, 4), np.uint64)


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
        self.roots = np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.int64)
        self.shift = np.repeat(self.roots, self.sizes)

    def concat(self, name):
        """The array ``name`` of every tree, one after the other."""
        return np.concatenate([getattr(t, name) for t in self.trees])

    def children(self):
        """``(left, right)``, int64: the children as nodes of the stack (``TREE_LEAF``
        kept at the leaves)."""
        left = self.concat("children_left").astype(np.int64)
        right = self.concat("children_right").astype(np.int64)
        leaf = left == TREE_LEAF
        return (
            np.where(leaf, TREE_LEAF, left + self.shift),
            np.where(leaf, TREE_LEAF, right + self.shift),
        )

    def bitsets(self):
        """The category bitsets of every node (rows line up with the nodes), or
        :data:`NO_CATEGORIES` when no tree has a categorical split."""
        if any(np.asarray(t.is_categorical).any() for t in self.trees):
            return self.concat("categories_left")
        return NO_CATEGORIES
