"""The base learner: binning, histograms, split search, growth, and the CART estimators."""
from .binning import BinMapper
from .cart import DecisionTreeClassifier, DecisionTreeRegressor
from .encoding import FeatureEncoder
from .grower import TreeGrower
from .tree import Tree

__all__ = ["BinMapper", "DecisionTreeClassifier", "DecisionTreeRegressor", "FeatureEncoder",
           "Tree", "TreeGrower"]
