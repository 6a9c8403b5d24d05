"""The types a skops file of a treeboost model holds, for ``skops.io.load(trusted=...)``.

skops rebuilds only the types it is told to trust.  A treeboost model holds the classes
registered for treeboost's own model files (estimators, trees, the encoder, the bin
mapper, the losses: each checks its state on load), plus two prediction caches that
skops saves with the estimator's ``__dict__`` and numpy's dtype objects.
"""

from ._registry import registered_classes

#: caches of the boosting predictor saved in the estimator's ``__dict__`` (rebuilt from
#: the trees when absent, so a ``.tbm`` file drops them; skops keeps them)
_PREDICTION_CACHES = (
    "treeboost.engine.predict.tree.PackedTrees",
    "treeboost.engine.predict.eight_rows.LaneArrays",
)


def skops_trusted_types():
    """The type names to pass as ``trusted=`` to ``skops.io.load`` for a treeboost model.

    Returns
    -------
    list of str
        Sorted ``module.qualname`` names: every class registered for treeboost's model
        files, the predictor's caches and ``numpy.dtype``.

    Examples
    --------
    >>> import skops.io as sio  # doctest: +SKIP
    >>> sio.dump(model, "model.skops")  # doctest: +SKIP
    >>> model = sio.load("model.skops", trusted=skops_trusted_types())  # doctest: +SKIP
    """
    names = set(registered_classes()) | set(_PREDICTION_CACHES) | {"numpy.dtype"}
    return sorted(names)
