"""Gradient boosting and random forests trained on data partitioned across a Dask
cluster.

The data never moves: each worker bins and keeps its own partitions, builds the
histograms of its rows for the nodes the trainer asks for, and partitions its rows at
the chosen splits; only histograms, counts and sums travel. A random forest needs no
histogram to travel: each worker grows its share of the trees on its own rows and only
the fitted trees come back. The fitted model is an ordinary treeboost model
(``to_local()`` gives the one-machine estimator).

Needs the ``distributed`` extra: ``pip install "treeboost[distributed]"``.
"""

from ._boosting import (
    DaskHistGradientBoostingClassifier,
    DaskHistGradientBoostingRegressor,
    WorkerLostError,
)
from ._forest import DaskRandomForestClassifier, DaskRandomForestRegressor
from ._ranking import DaskHistGradientBoostingRanker

__all__ = [
    "DaskHistGradientBoostingClassifier",
    "DaskHistGradientBoostingRanker",
    "DaskHistGradientBoostingRegressor",
    "DaskRandomForestClassifier",
    "DaskRandomForestRegressor",
    "WorkerLostError",
]
