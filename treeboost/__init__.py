"""treeboost: decision trees and tree ensembles on one fast histogram engine."""
from .ensembles import (AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier,
                        BaggingRegressor, ExtraTreesClassifier, ExtraTreesRegressor,
                        GradientBoostingClassifier, GradientBoostingRegressor,
                        RandomForestClassifier, RandomForestRegressor)
from .persistence import load, save
from .trees import DecisionTreeClassifier, DecisionTreeRegressor

__version__ = "0.1.0"

__all__ = ["AdaBoostClassifier", "AdaBoostRegressor", "BaggingClassifier", "BaggingRegressor",
           "DecisionTreeClassifier", "DecisionTreeRegressor", "ExtraTreesClassifier",
           "ExtraTreesRegressor", "GradientBoostingClassifier", "GradientBoostingRegressor",
           "RandomForestClassifier", "RandomForestRegressor", "__version__", "load", "save"]
