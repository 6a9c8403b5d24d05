"""Stage 3, the split search: the histograms of a node and the best split they give.

* :mod:`.histogram`: per-feature histograms of the statistics, built, subtracted, compressed;
* :mod:`.criteria`: the impurity and gain formulas (Gini, entropy, squared error, the
  second-order gain) and the Newton leaf value;
* :mod:`.scoring`: a candidate split's score from its left side's sums, and the side of
  its missing values;
* :mod:`.categorical`: the categorical search (categories ordered by their statistic, the
  rare ones set aside, boosting's rules for many categories);
* :mod:`.search`: the best split of a node from its histograms, every feature, on one
  thread or many;
* :mod:`.absolute_error`: the split search of the absolute error, which no histogram sum gives;
* :mod:`.random_cuts`: Extra-Trees' random cuts, without a histogram;
* :mod:`.gap_thresholds`: a threshold in the middle of the gap the node's samples leave;
* :mod:`.constraints`: monotonic and interaction constraints on the splits and the values.

Importing this package imports none of them.
"""
