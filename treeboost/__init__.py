"""treeboost: decision trees and tree ensembles on one fast histogram engine.

The estimators, :func:`load` and :func:`save` are imported on first use (PEP 562), so
that ``import treeboost`` and the command's ``--help`` stay fast: ``from treeboost import
RandomForestClassifier`` and ``treeboost.RandomForestClassifier`` work as always.
"""

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:  # what a type checker sees of the names imported on first use below
    from .ensembles import (
        AdaBoostClassifier,
        AdaBoostRegressor,
        BaggingClassifier,
        BaggingRegressor,
        ExtraTreesClassifier,
        ExtraTreesRegressor,
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        HistGradientBoostingClassifier,
        HistGradientBoostingRanker,
        HistGradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from .oblique import (
        ObliqueDecisionTreeClassifier,
        ObliqueDecisionTreeRegressor,
        ObliqueRandomForestClassifier,
        ObliqueRandomForestRegressor,
    )
    from .persistence import load, save
    from .trees import (
        C45Classifier,
        DecisionTreeClassifier,
        DecisionTreeRegressor,
        ExtraTreeClassifier,
        ExtraTreeRegressor,
        ID3Classifier,
        RuleListClassifier,
    )

#: public name -> the module that defines it
_LAZY = {
    **dict.fromkeys(
        [
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
        ],
        ".ensembles",
    ),
    **dict.fromkeys(
        [
            "ObliqueDecisionTreeClassifier",
            "ObliqueDecisionTreeRegressor",
            "ObliqueRandomForestClassifier",
            "ObliqueRandomForestRegressor",
        ],
        ".oblique",
    ),
    **dict.fromkeys(
        [
            "C45Classifier",
            "DecisionTreeClassifier",
            "DecisionTreeRegressor",
            "ExtraTreeClassifier",
            "ExtraTreeRegressor",
            "ID3Classifier",
            "RuleListClassifier",
        ],
        ".trees",
    ),
    **dict.fromkeys(["load", "save"], ".persistence"),
}

__all__ = sorted([*_LAZY, "__version__"])


#: subpackages reachable as attributes (``treeboost.trees.rules``), as when this package
#: imported its estimators at once
_SUBPACKAGES = frozenset(
    [
        "callbacks",
        "datasets",
        "engine",
        "ensembles",
        "export",
        "inspection",
        "losses",
        "metrics",
        "oblique",
        "persistence",
        "plotting",
        "trees",
    ]
)


def __getattr__(name):
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module, __name__), name)
    elif name in _SUBPACKAGES:
        value = importlib.import_module("." + name, __name__)
    else:
        raise AttributeError(f"module 'treeboost' has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
