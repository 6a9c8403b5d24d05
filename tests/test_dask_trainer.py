"""What the distributed boosting fit records of itself: round trips, nodes split and
histogram bytes per tree, none of which the one-machine model carries."""

import numpy as np

from treeboost import HistGradientBoostingClassifier
from treeboost.dask._boosting import DaskHistGradientBoostingClassifier

from .test_dask_grower import _classification, fit_partitioned


def test_histogram_bytes_per_tree_are_those_the_shards_sent():
    X, y = _classification(n=1200)
    kw = dict(max_iter=3, early_stopping=False, max_leaf_nodes=7)
    dist = fit_partitioned(DaskHistGradientBoostingClassifier(**kw), X, y, [0, 300, 600, 1200])
    n_trees = len(dist.trees_)
    assert len(dist.n_rounds_) == len(dist.n_expanded_) == len(dist.n_hist_bytes_) == n_trees
    # two shards; each sends the root's histograms and, per node split, those of one
    # child or both (float64, 2 or 3 statistics a bin): at least the root's, at most
    # both children's of every node with counts
    n_bins = dist.bin_mapper_.missing_values_code_ + 1
    per_node = X.shape[1] * n_bins * 8
    for sent, expanded in zip(dist.n_hist_bytes_, dist.n_expanded_):
        assert 2 * 2 * per_node <= sent <= 2 * 3 * per_node * (1 + 2 * expanded)
        assert sent % per_node == 0
    local = dist.to_local()
    assert type(local) is HistGradientBoostingClassifier
    assert not hasattr(local, "n_hist_bytes_")
    np.testing.assert_array_equal(local.predict_proba(X), dist.predict_proba(X))
