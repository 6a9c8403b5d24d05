"""Gradient boosting trained on data partitioned across a Dask cluster.

The data never moves: each worker bins and keeps its own partitions, builds the
histograms of its rows for the nodes the trainer asks for, and partitions its rows at
the chosen splits; only histograms, counts and sums travel. The fitted model is an
ordinary treeboost model (``to_local()`` gives the one-machine estimator).

Needs the ``distributed`` extra: ``pip install "treeboost[distributed]"``.
"""

from ._boosting import (
    DaskHistGradientBoostingClassifier,
    DaskHistGradientBoostingRegressor,
    WorkerLostError,
)

__all__ = [
    "DaskHistGradientBoostingClassifier",
    "DaskHistGradientBoostingRegressor",
    "WorkerLostError",
]
