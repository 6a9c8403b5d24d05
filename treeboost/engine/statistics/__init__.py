"""Stage 2, per-sample statistics and the leaf values computed from them.

* :mod:`.samples`: :class:`SampleStatistics`, the statistics a tree is grown from (class
  weights, weighted targets, gradients and hessians) and their sums;
* :mod:`.quantile`: weighted quantiles by selection, the leaf values of the absolute-error,
  Huber and quantile losses, and the same quantiles selected across workers;
* :mod:`.node_targets`: leaf values and impurities that need each node's samples.

Importing this package imports none of them.
"""
