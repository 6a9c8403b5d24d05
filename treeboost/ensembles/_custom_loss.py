"""A booster's ``loss`` parameter when it is not a name: a :class:`~treeboost.losses.Loss`
instance (a user's subclass) or a callable objective."""

import copy

from ..losses.base import Loss
from ..losses.custom import CallableLoss


def user_loss(loss, n_outputs, classifier):
    """The fit's loss for ``loss=`` a Loss instance (a copy, so that a fit never changes
    the parameter) or a callable; None for a loss's name.  Refuses, naming ``loss``, an
    instance of the wrong kind or number of outputs."""
    if isinstance(loss, str):
        return None
    if isinstance(loss, Loss):
        fitted = copy.deepcopy(loss)
        kind = "classification" if fitted.is_classification else "regression"
        if bool(fitted.is_classification) != classifier:
            raise ValueError(
                f"loss={type(loss).__name__}(): a {kind} loss cannot fit a "
                f"{'classifier' if classifier else 'regressor'}."
            )
        if fitted.n_outputs != n_outputs:
            raise ValueError(
                f"loss={type(loss).__name__}(): has {fitted.n_outputs} output(s), the data "
                f"needs {n_outputs} (one raw score per class beyond two classes)."
            )
        return fitted
    if callable(loss):
        return CallableLoss(loss, n_outputs, classifier)
    raise TypeError(f"loss must be a str, a treeboost.losses.Loss or a callable, got {loss!r}.")
