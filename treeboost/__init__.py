"""treeboost: decision trees and tree ensembles on one fast histogram engine."""
from .engine._threads import prefer_passive_wait

prefer_passive_wait()   # before numba loads OpenMP (see engine/_threads.py)

from .ensembles import (AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier,
                        BaggingRegressor, ExtraTreesClassifier, ExtraTreesRegressor,
                        GradientBoostingClassifier, GradientBoostingRegressor,
                        HistGradientBoostingClassifier, HistGradientBoostingRegressor,
                        RandomForestClassifier, RandomForestRegressor)
from .persistence import load, save
from .trees import (C45Classifier, DecisionTreeClassifier, DecisionTreeRegressor,
                    ExtraTreeClassifier, ExtraTreeRegressor, ID3Classifier,
                    RuleListClassifier)

__version__ = "0.1.0"

__all__ = ["AdaBoostClassifier", "AdaBoostRegressor", "BaggingClassifier", "BaggingRegressor",
           "C45Classifier", "DecisionTreeClassifier", "DecisionTreeRegressor",
           "ExtraTreeClassifier", "ExtraTreeRegressor", "ExtraTreesClassifier",
           "ExtraTreesRegressor", "GradientBoostingClassifier", "GradientBoostingRegressor",
           "HistGradientBoostingClassifier", "HistGradientBoostingRegressor",
           "ID3Classifier", "RandomForestClassifier", "RandomForestRegressor",
           "RuleListClassifier", "__version__", "load", "save"]
