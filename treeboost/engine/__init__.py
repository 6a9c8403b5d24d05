"""The numba engine under every estimator: binning, per-sample statistics, histograms,
split search, partition, tree growth, tree arrays and prediction.

This layer imports no estimator and nothing from scikit-learn; the estimators in
:mod:`treeboost.trees` and :mod:`treeboost.ensembles` sit on it.

Importing it changes nothing of numba: the compile-time shortcuts of
:func:`speed_up_compilation` are applied only by the install's kernel build
(:mod:`treeboost._prebuild`), in processes of its own.
"""
from ._compilation import speed_up_compilation

__all__ = ["speed_up_compilation"]
