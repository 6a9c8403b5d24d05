"""The types of the public API's parameters, named once.

The annotations of treeboost's estimators, model files, data sets and command line use
these names; the modules import them for type checkers only (``if TYPE_CHECKING``), so
importing treeboost never imports this module.  Each alias follows the parameter's
documentation (numpydoc's ``Parameters`` section stays the reference for what a value
means); a value outside a ``Literal`` is refused by the estimator's parameter check at
``fit`` as before.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Callable, Literal, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse

__all__ = [
    "ArrayLike",
    "CategoricalFeatures",
    "ClassWeight",
    "ClassificationCriterion",
    "Float64Array",
    "ForestClassWeight",
    "HistCategoricalFeatures",
    "HistRegressionLoss",
    "InteractionCst",
    "MatrixLike",
    "MaxBins",
    "MaxFeatures",
    "MonotonicCst",
    "NDArray",
    "OobScore",
    "PathLike",
    "RandomStateLike",
    "RegressionCriterion",
]

#: ``X``: an array-like (a pandas DataFrame included) or a scipy sparse matrix or array
#: (named as strings: ``sparray`` is recent in scipy)
MatrixLike = Union[ArrayLike, "sparse.spmatrix", "sparse.sparray"]
#: ``random_state``: an int seed, a RandomState instance or None (scikit-learn's rule)
RandomStateLike = Union[int, np.random.RandomState, None]
#: ``max_features``: a count, a fraction, a rule or None (all features)
MaxFeatures = Union[int, float, Literal["sqrt", "log2"], None]
#: ``max_bins`` of the trees, forests, bagging and AdaBoost: a count, None (exact) or "auto"
MaxBins = Union[int, Literal["auto"], None]
#: ``categorical_features`` of the trees, forests, bagging and AdaBoost
CategoricalFeatures = Union[ArrayLike, Literal["auto"], None]
#: ``categorical_features`` of HistGradientBoosting (scikit-learn's "from_dtype" too)
HistCategoricalFeatures = Union[ArrayLike, Literal["auto", "from_dtype"], None]
#: ``monotonic_cst``: one of -1, 0, 1 per feature, or (boosting) a dict of feature names
MonotonicCst = Union[ArrayLike, Mapping[str, int], None]
#: ``interaction_cst``: sets of feature indices that may interact, or a rule
InteractionCst = Union[Sequence[Collection[int]], Literal["pairwise", "no_interactions"], None]
#: ``class_weight``: ``{label: weight}``, "balanced" or None
ClassWeight = Union[Mapping[Any, float], Literal["balanced"], None]
#: ``class_weight`` of a forest: also "balanced_subsample" (per bootstrap sample)
ForestClassWeight = Union[Mapping[Any, float], Literal["balanced", "balanced_subsample"], None]
#: the split criteria of classification trees
ClassificationCriterion = Literal["gini", "entropy", "log_loss", "gain_ratio"]
#: the split criteria of regression trees ("friedman_mse" maps to "squared_error")
RegressionCriterion = Literal["squared_error", "friedman_mse", "poisson", "absolute_error"]
#: ``loss`` of HistGradientBoostingRegressor
HistRegressionLoss = Literal[
    "squared_error", "absolute_error", "quantile", "poisson", "gamma", "tweedie"
]
#: ``oob_score`` of a forest: a flag or a score function ``oob_score(y, pred)``
OobScore = Union[bool, Callable[[Any, Any], float]]
#: a file name: a string or a path-like object
PathLike = Union[str, os.PathLike[str]]
#: an array of float64 (probabilities, decisions, predictions of a regressor)
Float64Array = NDArray[np.float64]
