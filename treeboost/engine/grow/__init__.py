"""Stage 4, growing a tree: the grower, its compiled loops and the steps they share.

* :mod:`.grower`: :class:`TreeGrower`, which grows one tree on binned data from per-sample
  statistics, and its stopping rules;
* :mod:`.records`: the named records of the grower's state that the kernels share
  (:class:`GrowthParams`, the workspace, the split candidates);
* :mod:`.acceptance`: the rules that accept a node's split (gain, ties, attribute costs);
* :mod:`.context`: the record the steps read, and the inputs on borrowed views;
* :mod:`.sampling`: the tree's random generator and the features a node searches;
* :mod:`.histogram_pool`: the dense histogram buffers nodes borrow and give back;
* :mod:`.random_search`: Extra-Trees' random cuts at a node;
* :mod:`.examine`: step 1, a new node's impurity and best split;
* :mod:`.expand`: steps 2 to 4, the node to expand, its partition and the children's
  histograms;
* :mod:`.partition`: a node's samples split into its two children, stably, in place;
* :mod:`.nodes`: the initial values of the node arrays;
* :mod:`.loop`: the general grower's compiled loop, in its copies (serial, parallel,
  exact; dense or sparse codes);
* :mod:`.random_tree`: the lean grower of Extra-Trees' usual trees;
* :mod:`.subtrees`: a fully grown tree's small nodes grown as tasks on every thread;
* :mod:`.stepped`: the steps for a loop driven from outside (the Dask trainer);
* :mod:`.workspace`: the work arrays kept from one tree to the next;
* :mod:`.tree_arrays`: a grown tree's arrays copied out of the workspace;
* :mod:`.leaf_ranges`: which samples the grower put in each leaf.

Importing this package imports none of them.
"""
