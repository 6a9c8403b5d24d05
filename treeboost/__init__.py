"""treeboost: decision trees and tree ensembles on one fast histogram engine."""
from .ensembles.gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor
from .persistence import load, save
from .trees import DecisionTreeClassifier, DecisionTreeRegressor

__version__ = "0.1.0"

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "GradientBoostingClassifier",
           "GradientBoostingRegressor", "__version__", "load", "save"]
