"""Tree ensembles: Bagging, RandomForest, ExtraTrees, AdaBoost and gradient boosting."""

from .adaboost import AdaBoostClassifier, AdaBoostRegressor
from .bagging import BaggingClassifier, BaggingRegressor
from .forest import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from .gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor
from .hist_gradient_boosting import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from .ranking import HistGradientBoostingRanker

__all__ = [
    "AdaBoostClassifier",
    "AdaBoostRegressor",
    "BaggingClassifier",
    "BaggingRegressor",
    "ExtraTreesClassifier",
    "ExtraTreesRegressor",
    "GradientBoostingClassifier",
    "GradientBoostingRegressor",
    "HistGradientBoostingClassifier",
    "HistGradientBoostingRanker",
    "HistGradientBoostingRegressor",
    "RandomForestClassifier",
    "RandomForestRegressor",
]
