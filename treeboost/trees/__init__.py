"""The base learners: binning, histograms, split search, growth, the CART estimators, the
classic multiway trees (ID3, C4.5), pruning, rules and pictures."""

from ..engine import BinMapper
from .cart import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
)
from .classic import C45Classifier, ID3Classifier, MultiwayTree
from .encoding import FeatureEncoder
from ..engine import TreeGrower
from .pruning import (
    cost_complexity_pruning_path,
    pessimistic_pruning,
    pre_pruning,
    prune_ccp,
    reduced_error_pruning,
)
from .rules import RuleListClassifier
from ..engine import Tree

__all__ = [
    "BinMapper",
    "C45Classifier",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ExtraTreeClassifier",
    "ExtraTreeRegressor",
    "FeatureEncoder",
    "ID3Classifier",
    "MultiwayTree",
    "RuleListClassifier",
    "Tree",
    "TreeGrower",
    "cost_complexity_pruning_path",
    "pessimistic_pruning",
    "pre_pruning",
    "prune_ccp",
    "reduced_error_pruning",
]
