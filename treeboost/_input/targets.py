"""Validation of the target y, shared by every estimator."""

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d


def _as_1d(y, n_samples):
    y = column_or_1d(y, warn=True)
    _check_length(y, n_samples)
    return y


def _check_length(y, n_samples):
    """Refuse a ``y`` of another number of rows than X's ``n_samples``."""
    if y.shape[0] != n_samples:
        # scikit-learn's words (check_consistent_length), naming X and y
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: "
            f"[{n_samples}, {y.shape[0]}] (X and y)."
        )


def check_regression_target(y, n_samples):
    """y as finite float64 of length ``n_samples``; a clear ValueError otherwise."""
    return _finite_floats(_as_1d(y, n_samples))


def _finite_floats(y):
    """A regression target ``y`` as float64, refused unless numeric and finite."""
    try:
        y = y.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"y must be numeric for a regressor, got dtype {y.dtype}.") from None
    if not np.all(np.isfinite(y)):
        raise ValueError("Input y contains NaN or infinity.")
    return y


def check_regression_outputs(y, n_samples):
    """A regression target of one output or several: ``(n_samples,)`` as
    :func:`check_regression_target` (a column ``(n_samples, 1)`` is raveled with
    scikit-learn's DataConversionWarning), or ``(n_samples, K)`` finite float64 for
    ``K > 1`` outputs."""
    if hasattr(y, "toarray"):
        raise TypeError("A sparse y is not supported for regression; pass a dense array.")
    arr = np.asarray(y)
    if arr.ndim != 2 or arr.shape[1] == 1:
        return check_regression_target(y, n_samples)
    _check_length(arr, n_samples)
    return np.ascontiguousarray(_finite_floats(arr))


def check_poisson_target(y):
    """The Poisson criterion's rule on a regression target (scikit-learn's checks and
    messages): no negative value, a positive sum."""
    if np.any(y < 0):
        raise ValueError(
            "Some value(s) of y are negative which is not allowed for Poisson regression."
        )
    if np.sum(y) <= 0:
        raise ValueError(
            "Sum of y is not strictly positive which is necessary for Poisson regression."
        )
    return y


def encode_classification_target(y, n_samples):
    """``(classes, y_encoded)`` of a classification target of length ``n_samples``."""
    y = _as_1d(y, n_samples)
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError("Input y contains NaN or infinity.")
    check_classification_targets(y)
    return np.unique(y, return_inverse=True)


def check_class_weight(class_weight):
    """Refuse a ``class_weight`` dict (or list of dicts, one an output) holding a weight
    that is not a finite number at least 0: a NaN or infinite weight makes NaN
    statistics, probabilities NaN or above 1."""
    dicts = class_weight if isinstance(class_weight, list) else [class_weight]
    for d in dicts:
        if not isinstance(d, dict):
            continue
        for label, w in d.items():
            try:
                ok = (
                    not isinstance(w, (bool, np.bool_))
                    and np.ndim(w) == 0
                    and np.isfinite(float(w))
                    and float(w) >= 0
                )
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise ValueError(
                    f"class_weight must give each class a finite weight at "
                    f"least 0, got {w!r} for class {label!r}."
                )
