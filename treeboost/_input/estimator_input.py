"""The input handling every treeboost estimator mixes in (:class:`EncoderMixin`): feature
names and count checked as scikit-learn does, X encoded by a
:class:`~treeboost._input.encoding.FeatureEncoder` learned at fit, integer parameters that
must fit in an int64."""

import numbers

import numpy as np
from scipy.sparse import issparse
from sklearn.utils.validation import _check_feature_names, _check_n_features

from .._atomic import AtomicRefitMixin
from .encoding import FeatureEncoder
from .fast_path import numeric_rows
from .targets import check_class_weight

__all__ = ["EncoderMixin", "check_int64_params"]

_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


def check_int64_params(est):
    """Refuse an integer parameter of ``est`` outside an int64 (the engine's kernels take
    them as such: a larger one raised OverflowError or was wrapped around), naming it."""
    for name, value in est.get_params(deep=False).items():
        if (
            isinstance(value, numbers.Integral)
            and not isinstance(value, bool)
            and not _INT64_MIN <= int(value) <= _INT64_MAX
        ):
            raise ValueError(
                f"The {name!r} parameter of {type(est).__name__} must fit in a 64-bit "
                f"integer (at most 2**63 - 1), got {value!r}."
            )


class EncoderMixin(AtomicRefitMixin):
    """Input handling shared by every treeboost estimator with a ``categorical_features``
    parameter: feature names and count checked as scikit-learn does, X encoded by a
    :class:`FeatureEncoder` learned at fit.

    Through :class:`~treeboost._atomic.AtomicRefitMixin`, a refit installs its new state at
    once and predict reads one consistent state, even with other threads."""

    #: whether X may be a scipy.sparse matrix or array (numeric features only)
    _accepts_sparse = True
    #: whether X may hold +-inf (scikit-learn's HistGradientBoosting takes them)
    _allows_infinite = False

    def __sklearn_tags__(self):
        """scikit-learn's tags, plus what the encoder takes: categorical columns
        (``input_tags.categorical``) and text categories in a DataFrame
        (``input_tags.string``: a pandas or polars column of strings is read as
        categories)."""
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    def _validate_params(self):
        """scikit-learn's check of the parameters against ``_parameter_constraints``,
        then what its intervals leave open: an integer parameter must fit in an int64
        (the engine's kernels take them as such: a larger one raised OverflowError or
        was wrapped around), and ``class_weight`` must hold finite weights."""
        super()._validate_params()
        check_int64_params(self)
        if "class_weight" in self.get_params(deep=False):
            check_class_weight(self.class_weight)

    def _encode_X(self, X, reset, y=None, sample_weight=None):
        """X encoded; at a fit (``reset``), ``y`` and ``sample_weight`` rank the
        categories of a column of more than 255 (regression, or two classes).

        A prediction's plain float ndarray of a numeric model is taken as it is, without
        the full checks, where they would conclude the same
        (:func:`~treeboost._input.fast_path.numeric_rows`)."""
        if not reset:
            Xn = numeric_rows(self, X)
            if Xn is not None:
                return Xn
        if issparse(X) and not self._accepts_sparse:
            raise TypeError(
                f"{type(self).__name__} does not accept a sparse X "
                f"({type(X).__name__}); pass a dense array (X.toarray())."
            )
        _check_feature_names(self, X, reset=reset)
        if reset:
            self._encoder = FeatureEncoder(
                self.categorical_features, allow_infinite=self._allows_infinite
            )
            Xe = self._encoder.fit_transform(
                X, target=lambda: _grouping_target(self, y, sample_weight), sample_weight=None
            )
        else:
            Xe = self._encoder.transform(X)
        _check_n_features(self, Xe, reset=reset)
        if reset and Xe.shape[0] == 0:
            raise ValueError(
                f"Found array with 0 sample(s) (shape={Xe.shape}) while a minimum of 1 is required."
            )
        return Xe


def _grouping_target(est, y, sample_weight):
    """``(target, weight)`` that rank categories for ``est``: ``y`` as floats for a
    regressor, 1.0 for the second of exactly two classes of a classifier; ``(None,
    None)`` when there is none to rank by (no ``y``, more than two classes, or a ``y``
    or weights that the estimator's own checks will refuse after this)."""
    from sklearn.base import is_classifier

    if y is None:
        return None, None
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        return None, None
    try:
        if is_classifier(est):
            classes = np.unique(y)
            if classes.shape[0] != 2:
                return None, None
            target = (y == classes[1]).astype(np.float64)
        else:
            target = y.astype(np.float64)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        return None, None
    if not np.isfinite(target).all() or (
        w is not None and (w.shape != target.shape or not np.isfinite(w).all() or (w < 0).any())
    ):
        return None, None
    return target, w
