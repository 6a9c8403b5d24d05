"""The single trees: the CART estimators, the classic multiway trees (ID3, C4.5), pruning
and the rule-list classifier.  Their text, rules and pictures are in
:mod:`treeboost.inspection`; the encoding of their input is shared with the ensembles."""

from ..engine import BinMapper
from .cart import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
)
from .classic import C45Classifier, ID3Classifier, MultiwayTree
from .._input.encoding import FeatureEncoder
from ..engine import TreeGrower
from .pruning import (
    cost_complexity_pruning_path,
    mitchell_reduced_error_pruning,
    pessimistic_pruning,
    pre_pruning,
    prune_ccp,
    reduced_error_pruning,
)
from .rules import RuleListClassifier
from .gini_report import gini_report
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
    "gini_report",
    "mitchell_reduced_error_pruning",
    "pessimistic_pruning",
    "pre_pruning",
    "prune_ccp",
    "reduced_error_pruning",
]
