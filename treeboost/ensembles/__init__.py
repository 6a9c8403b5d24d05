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
    "HistGradientBoostingRegressor",
    "RandomForestClassifier",
    "RandomForestRegressor",
]
