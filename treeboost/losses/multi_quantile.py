"""Several quantiles in one model: one output, a lane of trees, per quantile."""

import numpy as np

from ..persistence import register
from .base import Loss, weighted_quantile
from ..persistence._spec import array


def check_quantiles(values, name="quantile"):
    """Several quantiles as a float64 array: at least one, each in (0, 1), none twice.

    Raises
    ------
    TypeError
        ``values`` is not a sequence of numbers.
    ValueError
        Empty, a quantile outside (0, 1) (or NaN), or one given twice."""
    try:
        alphas = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or a list of numbers, got {values!r}.") from None
    if alphas.ndim != 1 or alphas.size == 0:
        raise ValueError(f"{name} must be a number or a non-empty list of them, got {values!r}.")
    outside = alphas[~((alphas > 0.0) & (alphas < 1.0))]
    if outside.size:
        raise ValueError(
            f"{name}: every quantile must lie in the open interval (0, 1), got "
            f"{outside.tolist()!r} in {alphas.tolist()!r}."
        )
    unique, counts = np.unique(alphas, return_counts=True)
    if np.any(counts > 1):
        raise ValueError(
            f"{name}: each quantile once, got {unique[counts > 1].tolist()!r} more than once "
            f"in {alphas.tolist()!r}."
        )
    return alphas


class MultiQuantileLoss(Loss):
    """Several quantiles at once, one output (a lane of trees) per quantile:
    ``L = mean_k L_k``, ``L_k`` the pinball loss of quantile ``alpha_k`` of output ``k``
    (:class:`QuantileLoss`).

    Output ``k`` has :class:`QuantileLoss`'s gradient, hessian, initial score (the
    weighted ``alpha_k``-quantile of y) and leaf values (that quantile of the leaf's
    residuals), so its trees are those a model of ``alpha_k`` alone grows on the same
    bins.  The raw scores are the predictions, one column per quantile.

    Parameters
    ----------
    alphas : array-like of float in (0, 1)
        The quantiles, each once.
    """

    name = "quantile"
    metric_name = "quantile"
    #: a regressor's predictions keep one column per quantile, also for one quantile
    keeps_columns = True
    #: the outputs' trees of an iteration grow with one seed, the one a model of a
    #: single quantile draws: each output's trees are that model's
    outputs_share_seed = True

    def __init__(self, alphas=(0.1, 0.5, 0.9)):
        self.alphas = check_quantiles(alphas, "alphas")

    @property
    def n_outputs(self):
        return int(self.alphas.shape[0])

    def _columns(self, y, raw):
        raw = np.asarray(raw, dtype=np.float64)
        return raw.reshape(raw.shape[0], -1), np.asarray(y, dtype=np.float64)[:, None]

    def pointwise(self, y, raw):
        """The mean over the quantiles of each row's pinball losses."""
        raw2, y2 = self._columns(y, raw)
        d = y2 - raw2
        a = self.alphas
        return np.where(d >= 0, a * d, (a - 1.0) * d).mean(axis=1)

    def gradient_hessian(self, y, raw):
        raw2, y2 = self._columns(y, raw)
        a = self.alphas
        g = np.where(raw2 > y2, 1.0 - a, -a)
        return g.reshape(np.shape(raw)), np.ones(np.shape(raw))

    def init_raw(self, y, sample_weight):
        return np.array([weighted_quantile(y, sample_weight, a) for a in self.alphas])

    def leaf_values(self, samples):
        """Weighted ``alpha_k``-quantile of the residuals of each leaf of output
        ``k``'s tree."""
        return samples.residual_quantiles(float(self.alphas[samples.output]))

    _persist_attributes = ("alphas",)
    _state_spec = {"alphas": array("float64", ndim=1, finite=True)}

    def _validate_state(self, where="loss", n_outputs=None):
        super()._validate_state(where, n_outputs)
        check_quantiles(self.alphas, f"{where}.alphas")


register(MultiQuantileLoss)
