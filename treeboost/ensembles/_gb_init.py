"""The initial raw score of gradient boosting from an estimator (scikit-learn's ``init``).

``init=None`` starts every row at the loss's best constant (:meth:`Loss.init_raw`),
``init="zero"`` at 0, and an estimator at its own predictions mapped to raw scores by the
loss's link: ``F0(x) = link(init.predict_proba(x))`` for a classifier (the log-odds of the
positive class for the log-loss), ``F0(x) = init.predict(x)`` for a regressor.
"""

from sklearn.base import clone


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
