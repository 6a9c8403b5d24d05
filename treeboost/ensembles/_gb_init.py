"""The initial raw score of gradient boosting from an estimator (scikit-learn's ``init``).

``init=None`` starts every row at the loss's best constant (:meth:`Loss.init_raw`),
``init="zero"`` at 0, and an estimator at its own predictions mapped to raw scores by the
loss's link: ``F0(x) = link(init.predict_proba(x))`` for a classifier (the log-odds of the
positive class for the log-loss), ``F0(x) = init.predict(x)`` for a regressor.
"""

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from ..persistence import validate_part


def fit_init_estimator(init, X, y, sample_weight, weighted):
    """A fitted clone of ``init`` on ``(X, y)`` (``y`` encoded as the booster fits it),
    with ``sample_weight`` when ``weighted`` (scikit-learn's error when it takes none)."""
    est = clone(init)
    if not weighted:
        return est.fit(X, y)
    message = f"The initial estimator {type(est).__name__} does not support sample weights."
    try:
        return est.fit(X, y, sample_weight=sample_weight)
    except TypeError as exc:
        if "unexpected keyword argument 'sample_weight'" in str(exc):
            raise ValueError(message) from exc
        raise
    except ValueError as exc:
        # a Pipeline refuses a parameter not routed to a step
        if "stepname__parameter" in str(exc):
            raise ValueError(message) from exc
        raise


def init_raw_predictions(estimator, X, loss, classifier):
    """Raw scores of shape (n_samples, n_outputs) that ``estimator`` starts ``X`` at."""
    predictions = estimator.predict_proba(X) if classifier else estimator.predict(X)
    return loss.link(predictions).reshape(X.shape[0], -1)


def check_init_estimator(init, where, n_features, n_classes=None):
    """Check a loaded booster's ``init_``: None, ``"zero"``, or a fitted estimator (of a
    class a model file may hold, checked with its own rules) that reads the booster's
    ``n_features`` columns and predicts what :func:`init_raw_predictions` maps to one
    raw score per output: for a classifier (``n_classes`` given) the probabilities of
    the classes ``0 .. n_classes - 1`` (what the booster fits it on), for a regressor
    one value per row.  (A part that holds the booster itself, or itself, is refused
    when the file is decoded.)

    Raises
    ------
    ValueError
        Naming ``where`` (``model.init_``) and what is wrong.
    """
    if init is None or (isinstance(init, str) and init == "zero"):
        return
    if isinstance(init, str) or not hasattr(init, "get_params"):
        raise ValueError(
            f"{where}: must be None, 'zero' or a fitted estimator, got {type(init).__name__} "
            f"{init!r:.40}."
        )
    validate_part(init, where)
    method = "predict_proba" if n_classes is not None else "predict"
    if not callable(getattr(init, method, None)):
        raise ValueError(f"{where}: a {type(init).__name__} has no {method}.")
    try:
        check_is_fitted(init)
    except NotFittedError:
        raise ValueError(f"{where}: the initial estimator is not fitted.") from None
    if getattr(init, "n_features_in_", None) != n_features:
        raise ValueError(
            f"{where}.n_features_in_: the initial estimator reads "
            f"{getattr(init, 'n_features_in_', None)!r:.20} features, the booster {n_features}."
        )
    if n_classes is not None:
        classes = getattr(init, "classes_", None)
        if not (
            isinstance(classes, np.ndarray)
            and classes.shape == (n_classes,)
            and np.array_equal(classes, np.arange(n_classes))
        ):
            raise ValueError(
                f"{where}.classes_: the initial estimator of {n_classes} classes must have "
                f"the classes 0 .. {n_classes - 1} (the booster's encoded classes)."
            )
    elif hasattr(init, "classes_") or getattr(init, "n_outputs_", 1) != 1:
        raise ValueError(
            f"{where}: the initial estimator of a regressor must be a regressor of one output."
        )
