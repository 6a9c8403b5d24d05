"""The growth parameters a tree and the ensembles built of trees read alike.

scikit-learn's forms of the stopping and sampling parameters (a count or a fraction of the
rows, ``max_features`` as a name, count or fraction), their checks, and the checks of the
targets that the trees and the ensembles share.  The CART trees, the forests, bagging and
the boosting classes all read them from here.
"""

from __future__ import annotations

import numbers
import warnings
from numbers import Integral, Real
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions

from ..persistence import check_classes

if TYPE_CHECKING:
    from .._input.encoding import FeatureEncoder
    from .._typing import MaxFeatures

__all__ = [
    "SPLIT_CONSTRAINTS",
    "check_multi_output",
    "check_output_classes",
    "deprecated_criterion",
    "resolve_count",
    "resolve_max_features",
    "store_params",
]

#: the checks of the parameters that decide whether a node splits and on which features,
#: as scikit-learn's trees make them
SPLIT_CONSTRAINTS = {
    # a fraction is a float (RealNotInt): the integer 1 is a count, and a split
    # needs at least 2 samples, as in scikit-learn
    "min_samples_split": [
        Interval(Integral, 2, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
    ],
    "min_samples_leaf": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="neither"),
    ],
    "min_weight_fraction_leaf": [Interval(Real, 0.0, 0.5, closed="both")],
    "min_impurity_decrease": [Interval(Real, 0.0, None, closed="left")],
    "max_features": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
        StrOptions({"sqrt", "log2"}),
        None,
    ],
}


def resolve_max_features(max_features: MaxFeatures, n_features: int) -> int:
    """Number of features sampled per node from scikit-learn's ``max_features`` forms."""
    if max_features is None:
        return n_features
    if isinstance(max_features, str):
        if max_features == "sqrt":
            return max(1, int(np.sqrt(n_features)))
        if max_features == "log2":
            return max(1, int(np.log2(n_features)))
        raise ValueError(
            f"max_features must be 'sqrt', 'log2', an int, a float or None, got {max_features!r}."
        )
    if isinstance(max_features, numbers.Integral):
        if max_features > n_features:
            raise ValueError(
                f"max_features={max_features} is larger than the number of features ({n_features})."
            )
        return int(max_features)
    return max(1, int(max_features * n_features))


def resolve_count(value: int | float, n_samples: int) -> int:
    """An int count, or a float fraction of ``n_samples`` (ceil), as scikit-learn does."""
    if isinstance(value, numbers.Integral):
        return int(value)
    return int(np.ceil(value * n_samples))


def check_output_classes(est, where):
    """``classes_`` of a multi-output classifier read from a file: a list of at least two
    sorted label arrays, ``n_classes_`` their sizes; returns the sizes."""
    classes, n = est.classes_, getattr(est, "n_classes_", None)
    if len(classes) < 2:
        raise ValueError(f"{where}.classes_: a list of classes needs two outputs or more.")
    sizes = np.array(
        [
            check_classes(
                SimpleNamespace(classes_=c, n_classes_=int(np.size(c))), f"{where}.classes_[{k}]"
            )
            for k, c in enumerate(classes)
        ],
        dtype=np.intp,
    )
    if not isinstance(n, np.ndarray) or n.shape != sizes.shape or np.any(n != sizes):
        raise ValueError(
            f"{where}.n_classes_: must be the sizes of classes_ ({sizes.tolist()}), got {n!r:.60}."
        )
    return sizes


def check_multi_output(criterion: str, encoder: FeatureEncoder) -> None:
    """A regression tree grows on several outputs (their mean squared error) with
    ``criterion="squared_error"`` and numeric features (``encoder``: the fitted
    FeatureEncoder); the others raise ValueError."""
    if criterion not in ("squared_error", "friedman_mse"):
        raise ValueError(
            f"criterion={criterion!r} does not take a multi-output y in "
            f"treeboost: use criterion='squared_error' (the mean of the "
            f"outputs' squared errors), or one model per output."
        )
    if encoder.is_categorical_.any():
        raise ValueError(
            "A multi-output y needs numeric features: treeboost orders the "
            "categories of a categorical split by one target. Encode the "
            "categorical columns (e.g. one-hot) or fit one model per output."
        )


def deprecated_criterion(criterion: str) -> str:
    """``criterion``, with ``"friedman_mse"`` mapped to ``"squared_error"`` and a
    FutureWarning, as scikit-learn 1.9 does: Friedman's improvement
    ``W_L W_R (mean_L - mean_R)^2 / W`` of a binary split *is* its decrease of the
    weighted squared error, so the two always chose the same splits."""
    if isinstance(criterion, str) and criterion == "friedman_mse":
        warnings.warn(
            'Value `"friedman_mse"` for `criterion` is deprecated (as in '
            "scikit-learn 1.9, which removes it in 1.11). It maps to "
            '`"squared_error"` as both were always equivalent. Use '
            '`criterion="squared_error"` to remove this warning.',
            FutureWarning,
        )
        return "squared_error"
    return criterion


def store_params(est, params):
    """Keep an estimator's ``__init__`` arguments as its attributes, unchanged, as
    scikit-learn's estimator contract asks (``params``: the ``locals()`` of ``__init__``,
    ``self`` left out).  A regressor then maps its ``criterion`` through
    :func:`deprecated_criterion`."""
    for name, value in params.items():
        if name not in ("self", "__class__"):
            setattr(est, name, value)
