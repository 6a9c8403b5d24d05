"""CART estimators: DecisionTreeClassifier and DecisionTreeRegressor.

Both follow scikit-learn's estimator contract and grow their tree with the shared
:class:`~treeboost.engine.grow.grower.TreeGrower` on data binned once by
:class:`~treeboost.engine.binning.mapper.BinMapper`.
"""

from __future__ import annotations

import numbers
import threading
import warnings
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone, is_classifier
from sklearn.utils import Bunch, check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from ..engine import (
    AttributeCosts,
    CoreShare,
    CLASSIFICATION_CRITERIA,
    REGRESSION_CRITERIA,
    BinMapper,
    SampleStatistics,
    StoppingRules,
    Tree,
    TreeGrower,
    fit_transform_weighted,
)
from ..persistence import (
    PersistenceMixin,
    check_classes,
    register,
    validate_part,
)
from ..persistence._spec import check_state, integer
from .._input.encoding import FeatureEncoder
from .._input.estimator_input import EncoderMixin
from .._input.weights import check_weights
from .category_guard import CAT_SMOOTH, GUARD_CONSTRAINTS, MIN_SAMPLES_PER_CATEGORY, category_guard
from .._input.targets import (
    check_poisson_target,
    check_regression_outputs,
    encode_classification_target,
)
from .attribute_costs import COST_MEASURES, resolve_feature_costs
from .constraints import check_monotonic_cst, check_monotonic_target, grower_constraints
from .pruning import cost_complexity_pruning_path, prune_ccp
from ._fitted_state import check_binned_state
from ._params import (
    SPLIT_CONSTRAINTS,
    check_multi_output,
    check_output_classes,
    deprecated_criterion,
    resolve_count,
    resolve_max_features,
    store_params,
)
from .._input.fast_path import quick_check_is_fitted

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Literal, TypeVar, Union

    import pandas as pd
    from scipy import sparse

    from ..engine import GrowerWorkspace

    from .._input.encoding import FeatureEncoder
    from .._typing import (
        ArrayLike,
        CategoricalFeatures,
        ClassificationCriterion,
        ClassWeight,
        Float64Array,
        MatrixLike,
        MaxBins,
        MaxFeatures,
        NDArray,
        RandomStateLike,
        RegressionCriterion,
    )

    #: ``class_weight`` of a classification tree: also one ``{label: weight}`` per output
    #: of a multi-output ``y``
    TreeClassWeight = Union[ClassWeight, Sequence[Mapping[Any, float]]]
    _TreeT = TypeVar("_TreeT", bound="BaseDecisionTree")


#: each thread's generator for :func:`_grower_seed`
_SEEDERS = threading.local()


def _grower_seed(random_state):
    """``check_random_state(random_state).randint(2**31 - 1)``, the seed of a tree's
    grower.  For an integer ``random_state`` (a forest's trees) the thread's generator is
    seeded again with it instead of built anew: ``RandomState(int)`` first seeds itself
    from the operating system's entropy, which costs more than a small tree's growth, and
    holds the GIL that a forest's workers share."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        rng = getattr(_SEEDERS, "rng", None)
        if rng is None:
            rng = _SEEDERS.rng = np.random.RandomState()
        rng.seed(int(random_state))
        return rng.randint(np.iinfo(np.int32).max)
    return check_random_state(random_state).randint(np.iinfo(np.int32).max)


class BaseDecisionTree(PersistenceMixin, EncoderMixin, BaseEstimator):
    """Shared fitting and prediction of the CART estimators."""

    _parameter_constraints = {
        **SPLIT_CONSTRAINTS,
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
        "max_bins": [Interval(Integral, 2, 65535, closed="both"), StrOptions({"auto"}), None],
        "categorical_features": ["array-like", StrOptions({"auto"}), None],
        "splitter": [StrOptions({"best", "random"})],
        "ccp_alpha": [Interval(Real, 0.0, None, closed="left")],
        "monotonic_cst": ["array-like", None],
        "feature_costs": [dict, "array-like", None],
        "cost_measure": [StrOptions(set(COST_MEASURES))],
        "cost_weight": [Interval(Real, 0.0, 1.0, closed="both")],
        **GUARD_CONSTRAINTS,
    }

    def _stats(self, y, sample_weight):
        raise NotImplementedError

    def fit(
        self: _TreeT, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> _TreeT:
        """Build the tree from the training set (X, y).

        Parameters
        ----------
        X : array-like, DataFrame or scipy.sparse matrix, shape (n_samples, n_features)
            NaN marks a missing value; pandas ``category`` / object / string columns (or
            the columns named in ``categorical_features``) are categorical.  A sparse X
            (CSR or CSC, matrix or array; numeric columns only, a stored NaN is missing)
            is binned without a dense copy of its floats; at density up to 5 % its
            codes are kept as its entries (:mod:`treeboost.engine.binning.sparse_codes`, memory
            in proportion to the non-zeros; Extra-Trees' random cuts and
            ``absolute_error`` read dense codes).  Predict walks its rows, with the
            results of its dense form.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights, not all zero.

        Returns
        -------
        self
        """
        self._validate_params()
        Xe = self._encode_X(X, reset=True, y=y, sample_weight=sample_weight)
        y = self._validate_y(y, Xe.shape[0])
        # a regression target also bounds the weights (sums of w * y must not overflow)
        w = check_weights(sample_weight, Xe, None if is_classifier(self) else y)
        # seeded: above BinMapper's subsample the edges come from drawn rows
        self.bin_mapper_ = BinMapper(
            self.max_bins, self._encoder.is_categorical_, random_state=self.random_state
        )
        Xb = fit_transform_weighted(self.bin_mapper_, Xe, w)
        return self.grow_binned(Xb, self._stats(y, w), w, parallel=True)

    def _grower(self, n_samples, total_weight, seed, parallel, in_parts=True):
        n_features = self.n_features_in_
        mss = resolve_count(self.min_samples_split, n_samples)
        msl = resolve_count(self.min_samples_leaf, n_samples)
        self.max_features_ = resolve_max_features(self.max_features, n_features)
        decrease = self.min_impurity_decrease
        if is_classifier(self) and self._multi_output():
            # decreases are grown on the indicators' scale (see _criterion_code)
            decrease /= self._indicator_scale()
        stopping = StoppingRules(
            max_depth=self.max_depth,
            min_samples_split=max(mss, 2 * msl, 2),
            min_samples_leaf=msl,
            min_weight_leaf=self.min_weight_fraction_leaf * total_weight,
            min_impurity_decrease=decrease,
            max_leaf_nodes=self.max_leaf_nodes,
        )
        return TreeGrower(
            self.bin_mapper_,
            self._criterion_code(),
            self._n_stats(),
            stopping,
            max_features=self.max_features_,
            random_state=seed,
            parallel=parallel,
            splitter=self.splitter,
            constraints=grower_constraints(self._monotonic_cst(), None),
            in_parts=in_parts,
            attribute_costs=self._attribute_costs(),
            category_guard=category_guard(self),
        )

    def _attribute_costs(self):
        """``feature_costs`` checked against the data being fitted (None: no costs)."""
        costs = resolve_feature_costs(
            getattr(self, "feature_costs", None),
            self.n_features_in_,
            getattr(self, "feature_names_in_", None),
        )
        if costs is None:
            return None
        if self.splitter == "random":
            raise ValueError(
                "feature_costs need splitter='best': a random cut is not chosen by its "
                "gain, got splitter='random'."
            )
        return AttributeCosts(costs, self.cost_measure, float(self.cost_weight))

    def _monotonic_cst(self):
        """``monotonic_cst`` checked against the data being fitted (None: no constraint)."""
        given = getattr(self, "monotonic_cst", None)
        if given is None:
            return None
        # the target first, as scikit-learn checks
        if is_classifier(self):
            multi = self._multi_output()
            check_monotonic_target(
                given, 2 if multi else 1, None if multi else int(self.n_classes_)
            )
        else:
            check_monotonic_target(given, getattr(self, "_n_targets", 1))
        return check_monotonic_cst(self, given, self.n_features_in_, self._encoder.is_categorical_)

    def grow_binned(
        self: _TreeT,
        binned: NDArray[Any],
        stats: SampleStatistics,
        weights: Float64Array,
        *,
        parallel: bool = True,
        seed: int | None = None,
        workspace: GrowerWorkspace | None = None,
        in_parts: bool = True,
    ) -> _TreeT:
        """Grow ``tree_`` on data already binned by ``bin_mapper_``.

        The tree's :meth:`fit` ends here, and so does each member of a forest or a bagging
        ensemble, which bins its data once for all its trees: the tree grown is the one
        ``fit`` grows on the same rows and weights.  ``fit`` (or the ensemble) has set the
        tree's fitted input attributes (``n_features_in_``, the encoder, ``bin_mapper_``,
        the classes or outputs) before.

        Parameters
        ----------
        binned : ndarray of shape (n_samples, n_features)
            The bin codes of the training rows.
        stats : SampleStatistics
            The rows' weighted sums the criterion reads (class counts, or ``w`` and
            ``w * y``), of the targets and ``weights``.
        weights : ndarray of shape (n_samples,)
            The rows' weights; the rows of weight 0 are not grown on, and the total weight
            bounds ``min_weight_fraction_leaf``.
        parallel : bool, default=True
            Whether the grower's kernels run on numba's threads (a large tree shares its
            nodes' work among the threads other busy processes leave free).
        seed : int or None, default=None
            The grower's seed; None draws it from ``random_state`` as ``fit`` does.
        workspace : GrowerWorkspace or None, default=None
            Row buffers reused from tree to tree (an ensemble's worker passes its own).
        in_parts : bool, default=True
            Whether a large node's rows may be split among the threads; ensembles pass
            False, so that a member's tree is the same on one thread as on several
            (:class:`~treeboost.engine.grow.grower.TreeGrower`).

        Returns
        -------
        self
        """
        sample_indices = np.flatnonzero(weights > 0)
        total_weight = weights.sum()
        if seed is None:
            seed = _grower_seed(self.random_state)
        grower = self._grower(sample_indices.shape[0], total_weight, seed, parallel, in_parts)
        multi_class = is_classifier(self) and self._multi_output()
        # a large tree shares its nodes' work among the threads other busy processes
        # leave free
        n_cells = sample_indices.shape[0] * self.n_features_in_ if parallel else 0
        with CoreShare(n_cells=n_cells):
            self.tree_, _ = grower.grow(
                binned, stats, None, sample_indices, workspace, return_leaves=False
            )
        if multi_class:  # scikit-learn's numbers: the mean Gini index of the outputs
            self.tree_.impurity *= self._indicator_scale()
            self.tree_.gain *= self._indicator_scale()
        if self.ccp_alpha > 0.0:
            self.tree_ = prune_ccp(self, self.ccp_alpha).tree_
        return self

    def cost_complexity_pruning_path(
        self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> Bunch:
        """The minimal cost-complexity pruning path of the tree grown on ``X, y`` (this
        estimator's parameters with ``ccp_alpha=0``), as scikit-learn's method.

        Returns
        -------
        path : sklearn.utils.Bunch
            ``ccp_alphas``: the effective alphas of the subtrees, non-decreasing from 0;
            ``impurities``: the total leaf impurity ``sum_t w_t/w_root impurity_t`` of
            each subtree.  ``ccp_alpha=ccp_alphas[i]`` grows the ``i``-th subtree.
        """
        full = clone(self).set_params(ccp_alpha=0.0).fit(X, y, sample_weight=sample_weight)
        path = cost_complexity_pruning_path(full)
        return Bunch(ccp_alphas=path.ccp_alphas, impurities=path.impurities)

    def split_report(
        self,
        X: MatrixLike,
        y: ArrayLike,
        node: int = 0,
        sample_weight: ArrayLike | None = None,
        as_frame: bool = True,
    ) -> pd.DataFrame | list[dict[str, Any]]:
        """Each feature's best split at ``node`` on the training rows ``X, y`` that
        reach it: ``gain`` (``I(S) - sum_c W_c / W I(S_c)``, the criterion's decrease per
        unit of the node's weight), ``cost`` and ``score`` (the cost-sensitive measure
        the grower compares the features by, ``Gain^2 / Cost`` or ``(2^Gain - 1) /
        (Cost + 1)^w``; the gain without ``feature_costs``), ``chosen``.  See
        :func:`treeboost.trees.cart_report.cart_split_report`."""
        from .cart_report import cart_split_report

        return cart_split_report(self, X, y, node, sample_weight, as_frame)

    # -- prediction -------------------------------------------------------------------
    def _transform(self, X):
        quick_check_is_fitted(self, "tree_")
        return self._encode_X(X, reset=False)

    def apply(self, X: MatrixLike) -> NDArray[np.int64]:
        """Index of the leaf each sample ends up in."""
        Xe = self._transform(X)
        return self.tree_.apply(Xe)

    def decision_path(self, X: MatrixLike) -> sparse.csr_matrix:
        """Sparse indicator matrix of the nodes each sample goes through."""
        Xe = self._transform(X)
        return self.tree_.decision_path(Xe)

    def get_depth(self) -> int:
        """Depth of the tree (a single leaf has depth 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves of the tree."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    @property
    def feature_importances_(self) -> Float64Array:
        """Normalised total weighted impurity decrease brought by each feature."""
        check_is_fitted(self, "tree_")
        return self.tree_.compute_feature_importances()

    @property
    def categories_(self) -> list[NDArray[Any] | None]:
        """Categories of each categorical feature (None for numeric ones)."""
        check_is_fitted(self, "tree_")
        # (the encoder's per-feature lists are read as lists of None by a type checker)
        enc: Any = self._encoder
        return enc.categories_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        return tags

    # -- the state read from a model file ---------------------------------------------------

    _persist_attributes = ("classes_", "n_classes_", "bin_mapper_", "max_features_", "tree_")
    #: the outputs of the y being fitted; a fitted tree reads them from tree_
    _persist_transient = ("_n_targets",)
    _state_spec = {"max_features_": integer(1, "n_features_in_", none_ok=True)}

    def _validate_state(self, where="model", **context):
        """Check a loaded tree: its encoder, bin mapper and classes, and its ``tree_``
        against them (features, categorical splits, bins, one value column per class
        holding class fractions, or one for the regression mean)."""
        super()._validate_state(where, **context)
        required = ["n_features_in_", "_encoder", "bin_mapper_", "max_features_", "tree_"]
        if not check_binned_state(self, where, required, is_classifier(self)):
            return
        n = self.n_features_in_
        flags = self._encoder.is_categorical_
        check_state(self, where, self._state_spec, {"n_features_in_": n})
        blocks = None
        K: int | None
        if is_classifier(self) and isinstance(self.classes_, list):
            blocks = check_output_classes(self, where)
            K = int(blocks.sum())
        else:
            K = check_classes(self, where) if is_classifier(self) else None
        validate_part(
            self.tree_,
            f"{where}.tree_",
            expect=Tree,
            n_features=n,
            n_outputs=K,
            categorical=flags,
            bin_mapper=self.bin_mapper_,
        )
        if is_classifier(self):
            value = self.tree_.value
            # predict_proba returns these rows (averaged by the ensembles) as they are,
            # one block of class fractions per output
            sums = [
                b.sum(axis=1)
                for b in np.split(
                    value, np.cumsum(blocks)[:-1] if blocks is not None else [], axis=1
                )
            ]
            if np.any(value < 0) or any(np.any(np.abs(t - 1) > 1e-6) for t in sums):
                raise ValueError(
                    f"{where}.tree_.value: class fractions must be >= 0 and sum "
                    f"to 1 in every node (for every output)."
                )


class DecisionTreeClassifier(ClassifierMixin, BaseDecisionTree):
    """A CART classification tree on histogram-binned features.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss", "gain_ratio"}, default="gini"
        Impurity ``Gini(D) = 1 - sum_k p_k^2``; ``Ent(D) = -sum_k p_k log2 p_k`` with the
        split chosen by information gain ``Ent(D) - sum_v |D_v|/|D| Ent(D_v)``; or the gain
        ratio, that gain divided by the split information of the binary partition.
        ``"log_loss"`` is ``"entropy"`` (as in scikit-learn).
    max_depth : int, default=None
        Maximum depth; None grows until leaves are pure or hit the other limits.
    min_samples_split : int or float, default=2
        Minimum number of samples (or fraction of them) to split a node.
    min_samples_leaf : int or float, default=1
        Minimum number of samples (or fraction) in each child.
    min_weight_fraction_leaf : float, default=0.0
        Minimum fraction of the total sample weight in each child.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Number of features drawn at random at each node (all when None).  If none of
        them gives a valid split, the remaining features are searched too.
    random_state : int, RandomState instance or None, default=None
        Seeds the feature sampling.
    max_leaf_nodes : int, default=None
        Grow best-first (largest impurity decrease first) up to this many leaves.
    min_impurity_decrease : float, default=0.0
        Split only if ``N_t/N * (impurity - N_tL/N_t * impurity_L - N_tR/N_t * impurity_R)``
        reaches this value (weighted counts).
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplied into ``sample_weight``.
    max_bins : int, None or "auto", default="auto"
        Bins per numeric feature, in [2, 65535]; None gives one bin per distinct value
        (exact CART).  ``"auto"``: one bin per distinct value for a feature of at most
        16,384 distinct values, so that the tree makes the splits of scikit-learn's exact
        tree (and Extra-Trees draw their cuts between the node's training values), and
        255 quantile bins for a feature of more (the values are counted on the 200,000
        rows the bins are learned from).  Thresholds are always midpoints between
        adjacent training values.  What "auto" costs: a feature of more than 255 bins
        makes every feature's codes two bytes instead of one and its large nodes'
        histograms wider, about 2.5x the fit time of ``max_bins=255`` on 10,000 rows of
        40 continuous features (the same as 255 where no feature has more than 255
        distinct values, or every feature more than 16,384).  ``max_bins=255`` is the
        fastest (the default before ``"auto"``).
    categorical_features : None, "auto" or array-like, default=None
        Categorical columns (see :class:`~treeboost.trees.FeatureEncoder`);
        by default the pandas columns of category, object or string dtype.
    splitter : {"best", "random"}, default="best"
        "best" searches every cut; "random" draws as scikit-learn's random splitter:
        one cut per numeric feature uniformly in value between the node's smallest and
        largest value (Extra-Trees, Geurts et al. 2006; the values are bin centers, exact
        up to ``max_bins`` distinct values), the missing values to a random side, a
        random subset of the node's categories for a categorical feature (each category
        left with probability 1/2, both sides non-empty); every drawn feature counts
        toward ``max_features``, constant ones too, and past ``max_features`` the node
        draws one more at a time until one is not constant (or none is left).  (With
        ``criterion="absolute_error"`` a categorical feature gets its best subset and the
        missing values the better side; with sparse X, a categorical feature its best
        subset.)
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning (Breiman et al. 1984; scikit-learn's parameter):
        after growth, the weakest link (the internal node ``t`` of least
        ``alpha_eff(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1)``, ``R`` the leaf impurity
        weighted by ``w_t / w_root``) is made a leaf while ``alpha_eff <= ccp_alpha``.
        0 prunes nothing; :meth:`cost_complexity_pruning_path` lists the alphas.
    monotonic_cst : array-like of int of shape (n_features,), default=None
        1: the probability of the positive class (``classes_[1]``) does not decrease
        as the feature grows; -1: does not increase; 0: no constraint.  Binary, single
        output y and numeric features only (scikit-learn's rules).  A split on a
        constrained feature must keep its children's values ordered and within the
        node's interval, and every node's value is clipped to its interval
        (:mod:`treeboost.engine.split.constraints`).
    feature_costs : dict, array-like or None, default=None
        The cost of measuring each feature (Mitchell, *Machine Learning*, 3.7.5): a dict
        of column names (or indices) to costs > 0, the others costing 1, or one cost per
        column.  At each node the feature of largest ``cost_measure`` of its best
        split's gain ``Gain(S, A) = I(S) - sum_c W_c/W I(S_c)`` (the impurity's
        decrease per unit of the node's weight) is chosen, so that cheap features are
        preferred and costly ones used where they pay; a feature's own best split is
        the same with or without costs.  ``splitter="best"`` only.  See
        :mod:`treeboost.trees.attribute_costs`.
    cost_measure : {"tan_schlimmer", "nunez"}, default="tan_schlimmer"
        Tan and Schlimmer's ``Gain^2(S, A) / Cost(A)`` or Núñez's
        ``(2^Gain(S, A) - 1) / (Cost(A) + 1)^w``.
    cost_weight : float in [0, 1], default=1.0
        Núñez's ``w``, the weight of the cost against the gain.
    min_samples_per_category : int, default=5
        At a node with more than 4 categories of a feature present, a category with
        fewer rows in the node is left out of the split's search and goes with the
        node's missing values (:mod:`treeboost.trees.category_guard`); 0: every
        category is searched.
    cat_smooth : float, default=10.0
        At such a node the categories are ordered by their mean smoothed toward the
        node's mean ``m``, ``(sum_i w_i y_i + cat_smooth * m) / (sum_i w_i +
        cat_smooth)`` (for classification ``y_i`` is 1 for the class the order is by;
        LightGBM's parameter of that name); 0: their own means.  A category with no
        row in the node goes where its missing values go.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_classes_ : int
    tree_ : Tree
    n_features_in_ : int
    feature_names_in_ : ndarray of str (only when X has string column names)
    bin_mapper_ : BinMapper
    max_features_ : int
    feature_importances_ : ndarray of shape (n_features,)

    Notes
    -----
    Categorical features are split into two subsets of categories.  For two classes the
    categories are ordered by their rate of the second class and the best prefix of that
    order is taken, which is the optimal subset (Breiman et al., 1984); for ``K > 2``
    classes the ``K`` orders by each class's rate are all tried (a heuristic).

    A training set with a single class gives a single-leaf tree and a ``UserWarning``.
    """

    _parameter_constraints = {
        **BaseDecisionTree._parameter_constraints,
        "criterion": [StrOptions(set(CLASSIFICATION_CRITERIA))],
        "class_weight": [dict, list, StrOptions({"balanced"}), None],
    }

    def __init__(
        self,
        *,
        criterion: ClassificationCriterion = "gini",
        max_depth: int | None = None,
        min_samples_split: int | float = 2,
        min_samples_leaf: int | float = 1,
        min_weight_fraction_leaf: float = 0.0,
        max_features: MaxFeatures = None,
        random_state: RandomStateLike = None,
        max_leaf_nodes: int | None = None,
        min_impurity_decrease: float = 0.0,
        class_weight: TreeClassWeight = None,
        max_bins: MaxBins = "auto",
        categorical_features: CategoricalFeatures = None,
        splitter: Literal["best", "random"] = "best",
        ccp_alpha: float = 0.0,
        monotonic_cst: ArrayLike | None = None,
        feature_costs: Mapping[str | int, float] | ArrayLike | None = None,
        cost_measure: Literal["tan_schlimmer", "nunez"] = "tan_schlimmer",
        cost_weight: float = 1.0,
        min_samples_per_category: int = MIN_SAMPLES_PER_CATEGORY,
        cat_smooth: float = CAT_SMOOTH,
    ) -> None:
        store_params(self, locals())

    def _multi_output(self):
        return isinstance(getattr(self, "classes_", None), list)

    def _criterion_code(self):
        # several outputs: the Gini index of output k is the summed variance of its
        # class indicators, so the tree grows on the squared error of the indicators
        # of all outputs (the same splits as the mean Gini index; reports rescaled)
        if self._multi_output():
            return REGRESSION_CRITERIA["squared_error"]
        return CLASSIFICATION_CRITERIA[self.criterion]

    def _n_stats(self):
        if self._multi_output():
            return 1 + int(np.sum(self.n_classes_))
        return self.n_classes_

    def _validate_y(self, y, n_samples):
        arr = np.asarray(y) if not hasattr(y, "toarray") else None
        if arr is not None and arr.ndim == 2 and arr.shape[1] > 1:
            return self._validate_outputs(arr, n_samples)
        self.classes_, y_enc = encode_classification_target(y, n_samples)
        self.n_classes_ = self.classes_.shape[0]
        if self.n_classes_ == 1:
            warnings.warn(
                "y has a single class: the tree is a single leaf that predicts "
                f"{self.classes_[0]!r}.",
                UserWarning,
            )
        return y_enc

    def _validate_outputs(self, Y, n_samples):
        """A 2-D y of ``K`` outputs: ``classes_`` a list of ``K`` label arrays,
        ``n_classes_`` their sizes, codes of shape (n_samples, K)."""
        if self.criterion != "gini":
            raise ValueError(
                f"criterion={self.criterion!r} does not take a multi-output y "
                f"in treeboost: use criterion='gini' (the mean of the outputs' "
                f"Gini indices, as scikit-learn), or one model per output."
            )
        if self._encoder.is_categorical_.any():
            raise ValueError(
                "A multi-output y needs numeric features: encode the "
                "categorical columns (e.g. one-hot) or fit one model per "
                "output."
            )
        codes = np.empty(Y.shape, np.intp)
        self.classes_ = []
        for k in range(Y.shape[1]):
            classes_k, codes[:, k] = encode_classification_target(Y[:, k], n_samples)
            self.classes_.append(classes_k)
        self.n_classes_ = np.array([c.shape[0] for c in self.classes_], dtype=np.intp)
        return codes

    def _indicator_scale(self):
        """``sum_k C_k / K``: the mean Gini index of the outputs over the mean variance of
        all their class indicators."""
        return float(np.sum(self.n_classes_)) / len(self.n_classes_)

    def _stats(self, y, sample_weight):
        if y.ndim == 2:
            labels = np.column_stack([c[y[:, k]] for k, c in enumerate(self.classes_)])
            if self.class_weight is not None:
                # a list of dicts (one per output) or "balanced": weights multiply
                sample_weight = sample_weight * compute_sample_weight(self.class_weight, labels)
            offsets = np.r_[0, np.cumsum(self.n_classes_)[:-1]]
            onehot = np.zeros((y.shape[0], int(np.sum(self.n_classes_))))
            rows = np.arange(y.shape[0])
            for k in range(y.shape[1]):
                onehot[rows, offsets[k] + y[:, k]] = 1.0
            return SampleStatistics.regression_outputs(onehot, sample_weight)
        if self.class_weight is not None:
            # a dict names the classes by their labels, not by their codes
            sample_weight = sample_weight * compute_sample_weight(
                self.class_weight, self.classes_[np.asarray(y, dtype=np.intp)]
            )
        return SampleStatistics.classes(y, sample_weight, self.n_classes_)

    @property
    def n_outputs_(self) -> int:
        """Outputs of ``y``: 1, or ``len(classes_)`` for a multi-output ``y``."""
        check_is_fitted(self, "tree_")
        return len(self.classes_) if self._multi_output() else 1

    def predict_proba(self, X: MatrixLike) -> Float64Array | list[Float64Array]:
        """Class probabilities: the weighted class fractions of the leaf reached (a list
        of one such array per output for a multi-output ``y``)."""
        Xe = self._transform(X)
        proba = self.tree_.predict(Xe)
        if not self._multi_output():
            return proba
        return np.split(proba, np.cumsum(self.n_classes_)[:-1], axis=1)

    def predict_log_proba(self, X: MatrixLike) -> Float64Array | list[Float64Array]:
        """Logarithm of :meth:`predict_proba`."""
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            return [np.log(p) for p in proba] if isinstance(proba, list) else np.log(proba)

    def predict(self, X: MatrixLike) -> NDArray[Any]:
        """Most probable class of the leaf reached (one column per output for a
        multi-output ``y``)."""
        proba = self.predict_proba(X)
        if isinstance(proba, list):
            return np.column_stack([c[np.argmax(p, axis=1)] for c, p in zip(self.classes_, proba)])
        return self.classes_[np.argmax(proba, axis=1)]


class DecisionTreeRegressor(RegressorMixin, BaseDecisionTree):
    """A CART regression tree on histogram-binned features.

    Each split maximises the decrease of the criterion's weighted impurity; each leaf
    predicts the weighted mean of its targets (the weighted median for
    ``"absolute_error"``).  The other parameters are those of
    :class:`DecisionTreeClassifier`.

    Parameters
    ----------
    criterion : {"squared_error", "friedman_mse", "poisson", "absolute_error"}, \
default="squared_error"
        With ``S = sum w*y`` and ``W = sum w`` of a node:

        - ``"squared_error"``: the weighted variance ``sum w (y - S/W)^2 / W``; a split
          maximises ``S_L^2/W_L + S_R^2/W_R - S^2/W``;
        - ``"friedman_mse"``: the same impurity, a split scored by Friedman's improvement
          ``W_L W_R / (W_L + W_R) (S_L/W_L - S_R/W_R)^2`` (the same split up to
          rounding; scikit-learn 1.9 makes it an alias of ``"squared_error"``);
        - ``"poisson"``: the half Poisson deviance ``sum w y log(y / mean) / W``; a split
          minimises ``-S_L log(S_L/W_L) - S_R log(S_R/W_R)``, and a child whose sum of y
          is not positive is not allowed.  y must be non-negative with a positive sum;
        - ``"absolute_error"``: the mean absolute deviation around the weighted median
          ``sum w |y - median| / W``; a split minimises ``sum_L w |y - median_L| +
          sum_R w |y - median_R|``, computed exactly from the node's samples (slower: a
          sort per feature and node), and the leaves predict the weighted median.
    monotonic_cst : array-like of int of shape (n_features,), default=None
        1: the prediction (the node's mean) does not decrease as the feature grows;
        -1: does not increase; 0: no constraint.  Single-output y, numeric features.
        With ``"absolute_error"`` the children's medians are ordered.  See
        :class:`DecisionTreeClassifier`.
    max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf,
    max_features, random_state, max_leaf_nodes, min_impurity_decrease, max_bins,
    categorical_features, splitter, feature_costs, cost_measure, cost_weight,
    min_samples_per_category, cat_smooth
        As in :class:`DecisionTreeClassifier`.
    """

    _parameter_constraints = {
        **BaseDecisionTree._parameter_constraints,
        "criterion": [StrOptions(set(REGRESSION_CRITERIA))],
    }

    def __init__(
        self,
        *,
        criterion: RegressionCriterion = "squared_error",
        max_depth: int | None = None,
        min_samples_split: int | float = 2,
        min_samples_leaf: int | float = 1,
        min_weight_fraction_leaf: float = 0.0,
        max_features: MaxFeatures = None,
        random_state: RandomStateLike = None,
        max_leaf_nodes: int | None = None,
        min_impurity_decrease: float = 0.0,
        max_bins: MaxBins = "auto",
        categorical_features: CategoricalFeatures = None,
        splitter: Literal["best", "random"] = "best",
        ccp_alpha: float = 0.0,
        monotonic_cst: ArrayLike | None = None,
        feature_costs: Mapping[str | int, float] | ArrayLike | None = None,
        cost_measure: Literal["tan_schlimmer", "nunez"] = "tan_schlimmer",
        cost_weight: float = 1.0,
        min_samples_per_category: int = MIN_SAMPLES_PER_CATEGORY,
        cat_smooth: float = CAT_SMOOTH,
    ) -> None:
        store_params(self, locals())
        self.criterion = deprecated_criterion(criterion)

    def _criterion_code(self):
        return REGRESSION_CRITERIA[self.criterion]

    def _n_stats(self):
        # (w, w*y) summed per node, one w*y per output
        return 1 + getattr(self, "_n_targets", 1)

    def _validate_y(self, y, n_samples):
        y = check_regression_outputs(y, n_samples)
        self._n_targets = 1 if y.ndim == 1 else y.shape[1]
        if y.ndim == 2:
            check_multi_output(self.criterion, self._encoder)
            return y
        return check_poisson_target(y) if self.criterion == "poisson" else y

    def _stats(self, y, sample_weight):
        if y.ndim == 2:
            return SampleStatistics.regression_outputs(y, sample_weight)
        return SampleStatistics.regression(y, sample_weight)

    @property
    def n_outputs_(self) -> int:
        """Outputs of ``y`` (columns of ``predict``'s result when above 1)."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_outputs

    def predict(self, X: MatrixLike) -> Float64Array:
        """Weighted mean (or median, ``"absolute_error"``) target of the leaf reached, of
        shape (n_samples,), or (n_samples, n_outputs) for a multi-output ``y``."""
        Xe = self._transform(X)
        out = self.tree_.predict(Xe)
        return out[:, 0] if out.shape[1] == 1 else out


class ExtraTreeClassifier(DecisionTreeClassifier):
    """One extremely randomized classification tree (Geurts et al. 2006).

    A :class:`DecisionTreeClassifier` with scikit-learn's defaults for a single
    Extra-Tree: ``splitter="random"`` (one cut drawn uniformly between the node's
    smallest and largest bin of each sampled numeric feature; the best of those cuts is
    taken) and ``max_features="sqrt"``.  Meant as the member of an ensemble
    (:class:`~treeboost.ExtraTreesClassifier`, :class:`~treeboost.BaggingClassifier`).

    Parameters
    ----------
    criterion, max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf,
    random_state, max_leaf_nodes, min_impurity_decrease, class_weight, max_bins,
    categorical_features, ccp_alpha, monotonic_cst, feature_costs, cost_measure,
    cost_weight, min_samples_per_category, cat_smooth
        As in :class:`DecisionTreeClassifier`.
    splitter : {"random", "best"}, default="random"
    max_features : int, float, {"sqrt", "log2"} or None, default="sqrt"
    """

    def __init__(
        self,
        *,
        criterion: ClassificationCriterion = "gini",
        splitter: Literal["best", "random"] = "random",
        max_depth: int | None = None,
        min_samples_split: int | float = 2,
        min_samples_leaf: int | float = 1,
        min_weight_fraction_leaf: float = 0.0,
        max_features: MaxFeatures = "sqrt",
        random_state: RandomStateLike = None,
        max_leaf_nodes: int | None = None,
        min_impurity_decrease: float = 0.0,
        class_weight: TreeClassWeight = None,
        max_bins: MaxBins = "auto",
        categorical_features: CategoricalFeatures = None,
        ccp_alpha: float = 0.0,
        monotonic_cst: ArrayLike | None = None,
        feature_costs: Mapping[str | int, float] | ArrayLike | None = None,
        cost_measure: Literal["tan_schlimmer", "nunez"] = "tan_schlimmer",
        cost_weight: float = 1.0,
        min_samples_per_category: int = MIN_SAMPLES_PER_CATEGORY,
        cat_smooth: float = CAT_SMOOTH,
    ) -> None:
        store_params(self, locals())


class ExtraTreeRegressor(DecisionTreeRegressor):
    """One extremely randomized regression tree (Geurts et al. 2006).

    A :class:`DecisionTreeRegressor` with scikit-learn's defaults for a single
    Extra-Tree: ``splitter="random"`` and ``max_features=1.0`` (see
    :class:`ExtraTreeClassifier`).

    Parameters
    ----------
    criterion, max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf,
    random_state, max_leaf_nodes, min_impurity_decrease, max_bins, categorical_features,
    ccp_alpha, monotonic_cst, feature_costs, cost_measure, cost_weight,
    min_samples_per_category, cat_smooth
        As in :class:`DecisionTreeRegressor`.
    splitter : {"random", "best"}, default="random"
    max_features : int, float, {"sqrt", "log2"} or None, default=1.0
    """

    def __init__(
        self,
        *,
        criterion: RegressionCriterion = "squared_error",
        splitter: Literal["best", "random"] = "random",
        max_depth: int | None = None,
        min_samples_split: int | float = 2,
        min_samples_leaf: int | float = 1,
        min_weight_fraction_leaf: float = 0.0,
        max_features: MaxFeatures = 1.0,
        random_state: RandomStateLike = None,
        max_leaf_nodes: int | None = None,
        min_impurity_decrease: float = 0.0,
        max_bins: MaxBins = "auto",
        categorical_features: CategoricalFeatures = None,
        ccp_alpha: float = 0.0,
        monotonic_cst: ArrayLike | None = None,
        feature_costs: Mapping[str | int, float] | ArrayLike | None = None,
        cost_measure: Literal["tan_schlimmer", "nunez"] = "tan_schlimmer",
        cost_weight: float = 1.0,
        min_samples_per_category: int = MIN_SAMPLES_PER_CATEGORY,
        cat_smooth: float = CAT_SMOOTH,
    ) -> None:
        store_params(self, locals())
        self.criterion = deprecated_criterion(criterion)


register(
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
    Tree,
    BinMapper,
    FeatureEncoder,
)
