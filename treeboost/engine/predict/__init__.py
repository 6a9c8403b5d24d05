"""Stage 5, a grown tree and its prediction on raw X.

* :mod:`.tree`: :class:`Tree`, a fitted tree as flat arrays, and the packed trees of an
  ensemble (:class:`PackedTrees`);
* :mod:`.routing`: how a raw value goes at a split, the one predicate of every walk;
* :mod:`.eight_rows`: eight rows walked down a tree at once;
* :mod:`.csr_rows`: trees walked over the rows of a CSR matrix;
* :mod:`.sparse_blocks`: prediction on a sparse X in dense blocks of rows;
* :mod:`.packed_forest`, :mod:`.tree_stack`: a forest's trees in one set of arrays;
* :mod:`.tree_shap`: exact path-dependent TreeSHAP over packed trees.

Importing this package imports none of them.
"""
