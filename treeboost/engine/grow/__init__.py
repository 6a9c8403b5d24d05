"""The compiled growers of :class:`~treeboost.engine.grower.TreeGrower`, one concept a
module, each importing only those above it:

* :mod:`.context`: the record the steps read, and the inputs on borrowed views;
* :mod:`.sampling`: the tree's random generator and the features a node searches;
* :mod:`.histogram_pool`: the dense histogram buffers nodes borrow and give back;
* :mod:`.random_search`: Extra-Trees' random cuts at a node;
* :mod:`.examine`: step 1, a new node's impurity and best split;
* :mod:`.expand`: steps 2 to 4, the node to expand, its partition and the children's
  histograms;
* :mod:`.nodes`: the initial values of the node arrays;
* :mod:`.loop`: the general grower's compiled loop, in its copies (serial, parallel,
  exact; dense or sparse codes);
* :mod:`.random_tree`: the lean grower of Extra-Trees' usual trees;
* :mod:`.workspace`: the work arrays kept from one tree to the next.

Importing this package imports none of them.
"""
