"""Multivariate (oblique) decision trees and forests: each node tests ``w . x <= t``.

* :class:`ObliqueDecisionTreeClassifier` / :class:`ObliqueDecisionTreeRegressor`: OC1
  (Murthy, Kasif and Salzberg 1994) or a linear model at each node;
* :class:`ObliqueRandomForestClassifier` / :class:`ObliqueRandomForestRegressor`: sparse
  random projections at each node (Tomita et al., SPORF, JMLR 2020).
"""

from .oblique_tree import ObliqueTree
from .forest import ObliqueRandomForestClassifier, ObliqueRandomForestRegressor
from .tree import ObliqueDecisionTreeClassifier, ObliqueDecisionTreeRegressor

__all__ = [
    "ObliqueTree",
    "ObliqueDecisionTreeClassifier",
    "ObliqueDecisionTreeRegressor",
    "ObliqueRandomForestClassifier",
    "ObliqueRandomForestRegressor",
]
