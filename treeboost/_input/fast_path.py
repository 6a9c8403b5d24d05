"""The short way through a prediction's input checks, for the X they would pass as is.

:meth:`~treeboost._input.estimator_input.EncoderMixin._encode_X` checks a prediction's X as
scikit-learn does: feature names (a frame library's detection), ``check_array`` (more
frame detection, dtype conversion, finiteness), the feature count, then the
:class:`~treeboost._input.encoding.FeatureEncoder`'s rules.  On one row those checks cost
about ten times the walk of a hundred trees.  For the most common X they conclude
nothing but "X itself": a plain 2-D float64 or float32 ndarray of the fitted width, to a
model fitted without feature names, categories or dates.  :func:`numeric_rows` decides
that case in a few attribute reads and one pass over the values, and answers None for
anything else, which then takes the full checks (and raises their errors): the short
way never raises and never returns what the full checks would not.
"""

import numpy as np
from sklearn.utils.validation import check_is_fitted

#: the dtypes ``check_array(dtype=[float64, float32])`` keeps as they are (native byte
#: order: a big-endian array is converted)
_KEPT = (np.dtype(np.float64), np.dtype(np.float32))

#: values of X up to which the infinity check looks at each value without summing first
_SMALL = 4096

#: ``categorical_features`` values under which a numeric ndarray has no categorical
#: column (scikit-learn's names of "from the dtypes")
_FROM_DTYPES = ("auto", "from_dtype")


def _numeric_encoder(encoder):
    """Whether the fitted ``encoder`` passes a numeric ndarray through unchanged: no
    categorical and no datetime column, and no list of categorical columns."""
    cf = encoder.categorical_features
    if cf is not None and not (isinstance(cf, str) and cf in _FROM_DTYPES):
        return False
    flags = getattr(encoder, "is_categorical_", None)
    return flags is not None and np.count_nonzero(flags) == 0 and not encoder._any_datetime()


def _no_infinity(X):
    """Whether X holds no +-inf (NaN, a missing value, may be there).  A few rows are
    looked at value by value; more are summed first, which is finite when every value
    is (one pass without a temporary), and looked at value by value only when it is not
    (a NaN, or a sum of large finite values that overflowed)."""
    if X.size <= _SMALL:
        return np.count_nonzero(np.isinf(X)) == 0
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.add.reduce(X, axis=None)):
            return True
    return np.count_nonzero(np.isinf(X)) == 0


def numeric_rows(est, X):
    """``X`` itself where the full checks of a prediction's X by ``est`` (fitted) would
    return it unchanged, else None (the caller then runs them).

    The short way takes X when all of these hold, each a conclusion of a full check:

    * ``type(X) is np.ndarray`` (no subclass, frame, sparse matrix or list), 2-D, of
      dtype float64 or float32 in native byte order (``check_array`` keeps it: no copy
      and no conversion), with at least one row;
    * ``X.shape[1] == est.n_features_in_`` and ``est`` has no ``feature_names_in_``
      (scikit-learn's feature-count and feature-name checks pass without a warning);
    * the encoder has no categorical or datetime column (it returns a numeric X as
      ``check_array`` gave it);
    * X holds no +-inf, or the encoder takes them (its ``allow_infinite``); NaN is a
      missing value, which every estimator takes.

    Parameters
    ----------
    est : fitted estimator with an ``_encoder``
    X : object
        The X given to a prediction method.

    Returns
    -------
    ndarray or None
    """
    if (
        type(X) is not np.ndarray
        or X.ndim != 2
        or X.dtype not in _KEPT
        or X.shape[0] == 0
        or X.shape[1] != getattr(est, "n_features_in_", -1)
        or "feature_names_in_" in vars(est)
    ):
        return None
    encoder = vars(est).get("_encoder")
    if encoder is None or not _numeric_encoder(encoder):
        return None
    if encoder._finite_rule is not False and not _no_infinity(X):
        return None
    return X


def quick_check_is_fitted(est, attribute):
    """scikit-learn's ``check_is_fitted(est, attribute)``, which a fitted ``est`` passes
    with ``attribute`` among its instance attributes: looked up there first (a dict
    look-up where the full check takes microseconds), the full check else (its error)."""
    if attribute not in vars(est):
        check_is_fitted(est, attribute)
