"""Sample weights checked once for every estimator: finite, non-negative, of a total
whose node sums neither overflow nor underflow."""

import numpy as np
from sklearn.utils.validation import _check_sample_weight

__all__ = ["check_weights", "MAX_TOTAL_WEIGHT", "MIN_TOTAL_WEIGHT", "MAX_WEIGHTED_TARGET"]


#: Bounds on the total sample weight.  The trees sum weights (and weight times gradient,
#: hessian or target) over nodes; above ``MAX_TOTAL_WEIGHT`` such sums overflow to inf and
#: the leaf values become NaN (and the classic learners' entropies ``c log2 c``), below
#: ``MIN_TOTAL_WEIGHT`` the products of weight and hessian underflow to zero and a leaf's
#: Newton step divides by zero.
MAX_TOTAL_WEIGHT = 1e300
MIN_TOTAL_WEIGHT = 1e-300
#: Bound on ``sum(w * |y|)`` of a regression target: node sums of ``w * y`` (and of
#: ``w * g`` with ``|g| <= 2 max|y|`` in gradient boosting) stay finite with room to spare.
MAX_WEIGHTED_TARGET = 1e306


def check_weights(sample_weight, X, y=None):
    """Validated float64 sample weights: finite, non-negative, of a usable total.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,), scalar or None
        None gives unit weights, a scalar the same weight to every sample.
    X : ndarray of shape (n_samples, n_features)
        The (encoded) input; only its number of rows is used.
    y : ndarray of shape (n_samples,) or None, default=None
        A numeric regression target.  When given, ``sum(w * |y|)`` must be at most
        ``MAX_WEIGHTED_TARGET`` (1e306): the leaves are weighted means
        ``sum(w y) / sum(w)``, whose numerator must not overflow.

    Returns
    -------
    ndarray of shape (n_samples,)

    Raises
    ------
    ValueError
        Naming ``sample_weight``: a weight that is not a number, NaN, infinite or
        negative; all weights zero; a total above ``MAX_TOTAL_WEIGHT`` (1e300) or below
        ``MIN_TOTAL_WEIGHT`` (1e-300); with ``y``, ``sum(w * |y|)`` above
        ``MAX_WEIGHTED_TARGET``.

    Notes
    -----
    Weights whose total is out of range are refused rather than rescaled: every
    estimator would be unchanged by a common factor except through its absolute
    weight parameters (``min_child_weight`` and ``l2_regularization`` of gradient
    boosting) and the weighted counts it reports (``weighted_n_node_samples``), which
    rescaling would silently change.  The user can rescale knowing this.
    """
    try:
        sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    except TypeError:
        # scikit-learn's own words (a scalar, a wrong type): as scikit-learn raises them
        raise
    except ValueError as exc:
        if "sample_weight" in str(exc) or "Sample weights" in str(exc):
            raise
        # e.g. "could not convert string to float": say which argument held it
        raise ValueError(f"sample_weight must hold numbers: {exc}") from None
    # _check_sample_weight refuses NaN / inf and negative weights; kept as a guard
    if not np.all(np.isfinite(sw)):
        raise ValueError("sample_weight must be finite.")
    with np.errstate(over="ignore"):  # an overflow to inf is what is checked
        total = float(np.sum(sw))
    if total <= 0:
        raise ValueError("sample_weight sums to zero: at least one sample needs a positive weight.")
    if not total <= MAX_TOTAL_WEIGHT:
        raise ValueError(
            f"sample_weight sums to {total:.3g}; the total weight must be at "
            f"most {MAX_TOTAL_WEIGHT:.0e} (rescale the weights)."
        )
    if total < MIN_TOTAL_WEIGHT:
        raise ValueError(
            f"sample_weight sums to {total:.3g}; the total weight must be at "
            f"least {MIN_TOTAL_WEIGHT:.0e} (rescale the weights)."
        )
    if y is not None:
        with np.errstate(over="ignore"):
            ay = np.abs(np.asarray(y, dtype=np.float64))
            if ay.ndim == 2:  # several outputs: bound every output's sums at once
                ay = ay.max(axis=1)
            wy = float(np.sum(sw * ay))
        if not wy <= MAX_WEIGHTED_TARGET:
            raise ValueError(
                f"sample_weight times |y| sums to {wy:.3g}; it must be at most "
                f"{MAX_WEIGHTED_TARGET:.0e}, or the weighted means of the "
                f"targets overflow (rescale the weights or the targets)."
            )
    return sw
