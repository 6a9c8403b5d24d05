"""A user's own objective: a plain callable ``(y_true, raw_prediction[, sample_weight]) ->
(gradient, hessian)`` as LightGBM's ``objective=callable`` takes it, and the checks every
loss that is not one of treeboost's own passes each iteration.

A callable gives no value of the loss, only its derivatives, so the booster takes from it:

- the gradient ``g_i = dL/dF_i`` and hessian ``h_i = d2L/dF_i^2`` of every row;
- the initial score: the constant ``F0`` that minimises the loss, found by Newton's method
  on the constant from ``F = 0``, ``F <- F - sum_i w_i g_i(F) / sum_i w_i h_i(F)``
  (one step for the squared error, the log-odds for the logistic loss);
- the leaf values: the Newton step ``-sum_leaf w g / (sum_leaf w h + lambda)``.

Its ``train_score_`` entries are NaN (there is no value to record): evaluation metrics
(``eval_metric``) measure such a fit.
"""

import inspect

import numpy as np
from scipy.special import expit, softmax

from .base import Loss

#: Newton steps of the initial score, and the step size at which they stop
INIT_NEWTON_STEPS = 50
INIT_NEWTON_TOL = 1e-12


def is_builtin(loss):
    """Whether ``loss`` is one of treeboost's own losses (trusted: never checked)."""
    cls = type(loss)
    return cls.__module__.startswith("treeboost.losses.") and cls is not CallableLoss


def check_gradient_hessian(loss, g, h, raw):
    """``(g, h)`` as float64 arrays of ``raw``'s shape, or a ValueError that names the
    loss and what is wrong: a shape, a non-finite value or a negative hessian.

    A hessian of 0 is taken (a flat loss): the Newton step's ``lambda`` and the
    ``min_child_weight`` bound keep it finite; a negative one is refused, since it turns
    the Newton step uphill.  treeboost's own losses are not checked.
    """
    if is_builtin(loss):
        return g, h
    name = f"loss={loss.display_name}"
    out = []
    for what, a in (("gradient", g), ("hessian", h)):
        a = np.asarray(a)
        if a.dtype.kind not in "fiub":
            raise ValueError(f"{name}: the {what} must be numeric, got dtype {a.dtype}.")
        a = np.asarray(a, dtype=np.float64)
        if a.shape != raw.shape:
            raise ValueError(
                f"{name}: the {what} has shape {a.shape}, the raw predictions {raw.shape} "
                f"(one value per row{' and output' if raw.ndim == 2 else ''})."
            )
        bad = ~np.isfinite(a)
        if bad.any():
            i = int(np.flatnonzero(bad.ravel())[0])
            raise ValueError(
                f"{name}: the {what} is not finite at {int(bad.sum())} value(s) "
                f"(the first at flat index {i}: {float(a.ravel()[i])!r})."
            )
        out.append(a)
    if (out[1] < 0).any():
        i = int(np.flatnonzero(out[1].ravel() < 0)[0])
        raise ValueError(
            f"{name}: the hessian must be non-negative (the Newton step needs a convex "
            f"loss), got {float(out[1].ravel()[i])!r} at flat index {i}."
        )
    return out[0], out[1]


def newton_constant(sums, n_outputs):
    """The constant raw score ``F0`` (one per output) that minimises a loss known by its
    derivatives alone: Newton's method on the constant from ``F = 0``,
    ``F <- F - G(F) / H(F)`` with ``G = sum_i w_i g_i(F)`` and ``H = sum_i w_i h_i(F)``
    per output (an output whose ``H`` is 0 keeps its value), until a step is at most
    ``INIT_NEWTON_TOL`` of ``max(1, |F|)`` or after ``INIT_NEWTON_STEPS`` steps.

    Parameters
    ----------
    sums : callable
        ``sums(f)`` -> ``(G, H)``, arrays of shape (n_outputs,), at every row's raw score
        ``f`` (the rows of one machine, or summed over a cluster's workers).
    n_outputs : int

    Returns
    -------
    ndarray of shape (n_outputs,)
    """
    f = np.zeros(n_outputs)
    for _ in range(INIT_NEWTON_STEPS):
        G, H = (np.atleast_1d(np.asarray(a, dtype=np.float64)) for a in sums(f.copy()))
        step = np.where(H > 0, -G / np.where(H > 0, H, 1.0), 0.0)
        f += step
        if np.max(np.abs(step)) <= INIT_NEWTON_TOL * max(1.0, np.max(np.abs(f))):
            break
    return f


class CallableLoss(Loss):
    """A loss given by a callable returning its gradient and hessian.

    Parameters
    ----------
    func : callable
        ``func(y_true, raw_prediction)`` or ``func(y_true, raw_prediction,
        sample_weight)`` returning ``(gradient, hessian)``, each of ``raw_prediction``'s
        shape: (n_samples,) for a regressor or two classes (``y_true`` in {0, 1}),
        (n_samples, n_classes) for more classes (``y_true`` the class indices).  The
        booster multiplies them by ``sample_weight``; a callable that takes
        ``sample_weight`` must return them unweighted too.
    n_outputs : int, default=1
    is_classification : bool, default=False
        A classifier's probabilities are ``expit(F)`` for two classes and
        ``softmax(F)`` for more.
    """

    name = "callable"
    metric_name = "custom"
    #: no value of the loss: NaN in ``train_score_``, no overflow test on it
    has_value = False
    checks_own_gradients = True

    def __init__(self, func, n_outputs=1, is_classification=False):
        self.func = func
        self.n_outputs = int(n_outputs)
        self.is_classification = bool(is_classification)
        try:
            params = inspect.signature(func).parameters
            self._takes_weight = len(params) >= 3 or any(
                p.kind == p.VAR_POSITIONAL for p in params.values()
            )
        except (TypeError, ValueError):  # a builtin without a signature
            self._takes_weight = False
        self._weight = None

    @property
    def display_name(self):
        return getattr(self.func, "__name__", type(self.func).__name__)

    def __call__(self, y, raw, sample_weight=None):
        return float("nan")

    def pointwise(self, y, raw):
        return np.full(np.shape(raw)[0], np.nan)

    def start_iteration(self, y, raw, sample_weight):
        # the weights the callable may take with the next gradients
        self._weight = sample_weight

    def gradient_hessian(self, y, raw):
        if self._takes_weight:
            g, h = self.func(y, raw, self._weight)
        else:
            g, h = self.func(y, raw)
        return check_gradient_hessian(self, g, h, np.asarray(raw))

    def init_raw(self, y, sample_weight):
        K = self.n_outputs
        w = sample_weight[:, None] if K > 1 else sample_weight
        self._weight = sample_weight

        def sums(f):
            raw = np.tile(f, (y.shape[0], 1)) if K > 1 else np.full(y.shape[0], f[0])
            g, h = self.gradient_hessian(y, raw)
            return np.sum(w * g, axis=0), np.sum(w * h, axis=0)

        f = newton_constant(sums, K)
        return f if K > 1 else float(f[0])

    def proba(self, raw):
        if self.n_outputs == 1:
            p = expit(raw)
            return np.column_stack([1.0 - p, p])
        return softmax(raw, axis=1)

    def link(self, predictions):
        eps = np.finfo(np.float64).eps
        p = np.clip(np.asarray(predictions, np.float64), eps, 1 - eps)
        if not self.is_classification:
            return np.asarray(predictions, np.float64)
        return np.log(p[:, 1] / p[:, 0]) if self.n_outputs == 1 else np.log(p)

    def __reduce__(self):
        # pickle by reference where the callable is importable (pickle's own rule);
        # treeboost's safe model format refuses it at save time (an unregistered class)
        return (type(self), (self.func, self.n_outputs, self.is_classification))

    def _validate_state(self, where="loss", n_outputs=None):
        if not callable(self.func):
            raise ValueError(f"{where}.func: not callable.")
