"""The numba engine under every estimator: binning, per-sample statistics, histograms,
split search, partition, tree growth, tree arrays and prediction.

This layer imports no estimator and nothing from scikit-learn; the estimators in
:mod:`treeboost.trees` and :mod:`treeboost.ensembles` sit on it.
"""
