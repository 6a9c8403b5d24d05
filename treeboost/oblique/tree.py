"""Oblique (multivariate) decision trees: each node tests ``w . x <= t``.

The axis-parallel trees of :mod:`treeboost.trees` draw a staircase where the classes
are separated by a slanted line; one oblique test draws the line (Zhou, *Machine
Learning*, section 4.5).  Two ways of finding the test are offered:

* ``splitter="oc1"``: OC1 (Murthy, Kasif and Salzberg, *A System for Induction of
  Oblique Decision Trees*, JAIR 1994): from the best axis-parallel split and from
  ``n_restarts`` random hyperplanes, each coefficient in turn is set to its best value
  with the others fixed, equal moves are taken with a decreasing probability, and
  random jumps escape the local minima;
* ``splitter="linear"``: a linear model fitted on the node's rows (Fisher's discriminant
  for classification, least squares for regression), with its best threshold, kept when
  it beats the best single attribute.

The attributes are standardised by the training mean and standard deviation before the
search; the stored test is in the units of X.  A missing value takes the node's weighted
training mean of that attribute, in training and prediction alike.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from scipy.sparse import csr_matrix

from ..persistence import PersistenceMixin, register
from ._base import (
    CLASSIFIER_CRITERIA,
    CRITERIA,
    REGRESSOR_CRITERIA,
    STOPPING_CONSTRAINTS,
    ObliqueStateMixin,
    ccp_prune,
    check_fit_input,
    fitted_X,
    grow,
    resolve_count,
    standardisation,
    statistics,
)
from ._grow import GrowParams
from ._splitters import AXIS, LINEAR, OC1
from .explain import ExplainMixin

SPLITTERS = {"oc1": OC1, "linear": LINEAR, "axis": AXIS}


class BaseObliqueTree(ExplainMixin, ObliqueStateMixin, PersistenceMixin, BaseEstimator):
    """Fitting and prediction shared by the oblique tree classifier and regressor."""

    _parameter_constraints = {
        **STOPPING_CONSTRAINTS,
        "splitter": [StrOptions(set(SPLITTERS))],
        "n_restarts": [Interval(Integral, 0, None, closed="left")],
        "n_jumps": [Interval(Integral, 0, None, closed="left")],
        "max_cycles": [Interval(Integral, 1, None, closed="left")],
        "ccp_alpha": [Interval(Real, 0.0, None, closed="left")],
    }
    _persist_attributes = ("classes_", "n_classes_", "mean_", "scale_", "tree_")

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric; NaN marks a missing value.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        self._validate_params()
        X, y, w = check_fit_input(self, X, y, sample_weight)
        self.mean_, self.scale_ = standardisation(X, w)
        S, center = statistics(self, y, w)
        n = int(np.count_nonzero(w > 0))
        msl = resolve_count(self.min_samples_leaf, n)
        params = GrowParams(
            crit=CRITERIA[self.criterion],
            splitter=SPLITTERS[self.splitter],
            max_depth=-1 if self.max_depth is None else int(self.max_depth),
            min_samples_split=max(resolve_count(self.min_samples_split, n), 2 * msl, 2),
            min_samples_leaf=msl,
            min_impurity_decrease=float(self.min_impurity_decrease),
            max_leaf_nodes=0 if self.max_leaf_nodes is None else int(self.max_leaf_nodes),
            n_restarts=int(self.n_restarts),
            n_jumps=int(self.n_jumps),
            max_cycles=int(self.max_cycles),
            n_projections=0,
            density=1.0,
            n_bins=0,
            seed=int(check_random_state(self.random_state).randint(2**31 - 1)),
        )
        tree = grow(X, S, w, self.mean_, self.scale_, params, center)
        self.tree_ = ccp_prune(tree, float(self.ccp_alpha))
        return self

    def apply(self, X):
        """The leaf index of each row."""
        return self.tree_.apply(fitted_X(self, X))

    def decision_path(self, X):
        """A CSR indicator of shape (n_samples, n_nodes): the nodes each row visits."""
        paths = self.tree_.paths(fitted_X(self, X))
        rows, cols = np.nonzero(paths >= 0)
        return csr_matrix(
            (np.ones(rows.size, dtype=np.int64), (rows, paths[rows, cols])),
            shape=(paths.shape[0], self.tree_.node_count),
        )

    def get_depth(self):
        return self.tree_.max_depth

    def get_n_leaves(self):
        return self.tree_.n_leaves

    def _validate_state(self, where="model", **context):
        super()._validate_state(where, **context)
        k = self._check_oblique_state(where, ["n_features_in_", "mean_", "scale_", "tree_"])
        if k is not None:
            self._check_tree(self.tree_, f"{where}.tree_", k)


_TREE_PARAMS = """
    splitter : {"oc1", "linear", "axis"}, default="oc1"
        How a node's test is found: OC1's randomised coordinate search, a linear model
        on the node's rows, or the best single attribute (a CART split, for
        comparison).
    max_depth : int, default=None
    min_samples_split : int or float, default=2
    min_samples_leaf : int or float, default=1
    min_impurity_decrease : float, default=0.0
        Split only if ``N_t/N * (I(t) - N_L/N_t I(L) - N_R/N_t I(R))`` reaches it
        (weighted counts).
    max_leaf_nodes : int, default=None
        Grow best first (largest decrease first) up to this many leaves.
    n_restarts : int, default=10
        OC1's random restarts: random hyperplanes ``w ~ U[-1, 1]^d`` searched besides
        the best axis-parallel one.
    n_jumps : int, default=5
        OC1's random jumps tried at each local minimum.
    max_cycles : int, default=20
        Most perturbation cycles (over every coefficient) of one search.
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning: weakest links of ``alpha_eff <= ccp_alpha``
        are cut (Breiman et al. 1984).
    random_state : int, RandomState instance or None, default=None
        Seeds OC1's restarts, jumps and moves."""

_PERTURBATION = """
    Notes
    -----
    OC1's perturbation of coefficient ``a_m`` (Murthy et al. 1994): with the hyperplane
    ``V_j = sum_i a_i x_ji - t``, each row ``j`` changes side when ``a_m`` passes
    ``U_j = a_m - V_j / x_jm``; the ``U_j`` are sorted and the impurity of every
    partition between two of them is computed in one sweep, and ``a_m`` is set to the
    best midpoint.  The threshold is the coefficient of the constant ``-1``."""


class ObliqueDecisionTreeClassifier(ClassifierMixin, BaseObliqueTree):
    __doc__ = (
        """An oblique decision tree classifier (OC1 or a linear discriminant at each node).

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
        ``Gini(D) = 1 - sum_k p_k^2`` or ``Ent(D) = -sum_k p_k log p_k``."""
        + _TREE_PARAMS
        + """

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    tree_ : ObliqueTree
    mean_, scale_ : ndarray of shape (n_features,)
        The standardisation the search ran on.
"""
        + _PERTURBATION
        + """

    Examples
    --------
    >>> import numpy as np
    >>> from treeboost.oblique import ObliqueDecisionTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(0, 1, (400, 2))
    >>> y = (X[:, 0] + X[:, 1] > 1).astype(int)
    >>> tree = ObliqueDecisionTreeClassifier(random_state=0).fit(X, y)
    >>> tree.get_n_leaves()
    2
    """
    )

    _parameter_constraints = {
        **BaseObliqueTree._parameter_constraints,
        "criterion": [CLASSIFIER_CRITERIA],
    }

    def __init__(
        self,
        *,
        criterion="gini",
        splitter="oc1",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None,
        n_restarts=10,
        n_jumps=5,
        max_cycles=20,
        ccp_alpha=0.0,
        random_state=None,
    ):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.n_restarts = n_restarts
        self.n_jumps = n_jumps
        self.max_cycles = max_cycles
        self.ccp_alpha = ccp_alpha
        self.random_state = random_state

    def predict_proba(self, X):
        """Class fractions of the leaf each row reaches (weighted)."""
        return self.tree_.value[self.apply(X)]

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


class ObliqueDecisionTreeRegressor(RegressorMixin, BaseObliqueTree):
    __doc__ = (
        """An oblique regression tree (OC1 or least squares at each node) of squared error.

    Parameters
    ----------
    criterion : {"squared_error"}, default="squared_error\""""
        + _TREE_PARAMS
        + """

    Attributes
    ----------
    tree_ : ObliqueTree
    mean_, scale_ : ndarray of shape (n_features,)
"""
        + _PERTURBATION
    )

    _parameter_constraints = {
        **BaseObliqueTree._parameter_constraints,
        "criterion": [REGRESSOR_CRITERIA],
    }

    def __init__(
        self,
        *,
        criterion="squared_error",
        splitter="oc1",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None,
        n_restarts=10,
        n_jumps=5,
        max_cycles=20,
        ccp_alpha=0.0,
        random_state=None,
    ):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.n_restarts = n_restarts
        self.n_jumps = n_jumps
        self.max_cycles = max_cycles
        self.ccp_alpha = ccp_alpha
        self.random_state = random_state

    def predict(self, X):
        """The mean target of the leaf each row reaches."""
        return self.tree_.value[self.apply(X), 0]


register(ObliqueDecisionTreeClassifier, ObliqueDecisionTreeRegressor)
