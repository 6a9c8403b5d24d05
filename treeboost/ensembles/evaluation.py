"""Evaluation sets as LightGBM and XGBoost users drive them: named sets of rows scored
after every iteration by metrics given by name or as callables, their history
(``evals_result_``), the best iteration, and the callbacks that see each iteration.

A metric is a name of :data:`METRICS` or a callable ``metric(y_true, raw_prediction,
sample_weight) -> value`` (lower is better) or ``-> (name, value, is_higher_better)``;
``y_true`` is the target (a classifier's class indices), ``raw_prediction`` the raw
scores (shape (n,) or (n, K)) of the trees fitted so far.
"""

from typing import Any, Callable, NamedTuple

import numpy as np
from scipy.special import expit, softmax


def _prediction(loss, raw):
    return loss.predict(raw)


def _proba(loss, raw):
    return loss.proba(raw)


def _l2(y, raw, w, loss):
    return float(np.average((y - _prediction(loss, raw)) ** 2, weights=w))


def _rmse(y, raw, w, loss):
    return float(np.sqrt(_l2(y, raw, w, loss)))


def _l1(y, raw, w, loss):
    return float(np.average(np.abs(y - _prediction(loss, raw)), weights=w))


def _logloss(y, raw, w, loss):
    p = np.clip(_proba(loss, raw)[np.arange(y.shape[0]), y], 1e-15, 1.0)
    return float(np.average(-np.log(p), weights=w))


def _error(y, raw, w, loss):
    return float(np.average(np.argmax(_proba(loss, raw), axis=1) != y, weights=w))


def _auc(y, raw, w, loss):
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, raw if raw.ndim == 1 else softmax(raw, axis=1), sample_weight=w))


def _loss(y, raw, w, loss):
    return float(loss(y, raw, w))


#: metrics by name: ``(function(y, raw, w, loss), is_higher_better)``
METRICS = {
    "loss": (_loss, False),
    "l2": (_l2, False),
    "rmse": (_rmse, False),
    "l1": (_l1, False),
    "logloss": (_logloss, False),
    "error": (_error, False),
    "auc": (_auc, True),
}


class EvalResult(NamedTuple):
    """One metric of one evaluation set after one iteration."""

    data_name: str
    metric_name: str
    value: float
    is_higher_better: bool


class CallbackEnv(NamedTuple):
    """What a callback sees after each iteration (LightGBM's ``CallbackEnv``):
    the estimator, the 0-based ``iteration``, the first and end iteration of this fit,
    and this iteration's :class:`EvalResult` list."""

    model: Any
    iteration: int
    begin_iteration: int
    end_iteration: int
    evaluation_result_list: list


def check_metrics(eval_metric):
    """``eval_metric`` as a list of ``(name, function, is_higher_better or None)``."""
    if eval_metric is None:
        eval_metric = ["loss"]
    elif isinstance(eval_metric, str) or callable(eval_metric):
        eval_metric = [eval_metric]
    out: list[tuple[str, Callable[..., Any], bool | None]] = []
    for m in eval_metric:
        if isinstance(m, str):
            if m not in METRICS:
                raise ValueError(f"eval_metric={m!r}: not one of {sorted(METRICS)} or a callable.")
            out.append((m, *METRICS[m]))
        elif callable(m):
            out.append((getattr(m, "__name__", "custom"), m, None))
        else:
            raise TypeError(f"eval_metric must hold names or callables, got {m!r}.")
    return out


class EvalSet(NamedTuple):
    name: str
    y: np.ndarray
    sample_weight: np.ndarray
    # the rows encoded: scored by the trees' thresholds, as predict scores them
    Xe: object
    raw: np.ndarray


class Evaluation:
    """The evaluation sets of one fit, their raw scores kept up to date tree by tree,
    the metrics, the callbacks and the history."""

    def __init__(self, sets, metrics, callbacks, loss):
        self.sets = sets
        self.metrics = metrics
        self.callbacks = list(callbacks or ())
        self.loss = loss
        self.history: dict[str, dict[str, list[float]]] = {
            s.name: {m[0]: [] for m in metrics} for s in sets
        }
        self.last = []

    def _value(self, metric, s):
        name, func, higher = metric
        raw = s.raw[:, 0] if s.raw.shape[1] == 1 else s.raw
        if higher is not None:
            return name, func(s.y, raw, s.sample_weight, self.loss), higher
        out = func(s.y, raw, s.sample_weight)
        if isinstance(out, tuple):
            return str(out[0]), float(out[1]), bool(out[2])
        return name, float(out), False

    def after_iteration(self, model, iteration, trees, begin, end):
        """Add the iteration's ``trees`` to every set's scores, record the metrics and
        run the callbacks; True when a callback stops the fit."""
        results = []
        for s in self.sets:
            for k, tree in enumerate(trees):
                s.raw[:, k] += tree.predict(s.Xe)[:, 0]
            for metric in self.metrics:
                name, value, higher = self._value(metric, s)
                self.history[s.name].setdefault(name, []).append(value)
                results.append(EvalResult(s.name, name, value, higher))
        env = CallbackEnv(model, iteration, begin, end, results)
        stop = False
        for callback in self.callbacks:
            stop = bool(callback(env)) or stop
        self.last = results
        return stop

    def best_iteration(self):
        """1-based iteration of the best value of the first metric on the last set."""
        if not self.sets or not self.last:
            return None
        first = next(r for r in self.last if r.data_name == self.sets[-1].name)
        values = np.asarray(self.history[first.data_name][first.metric_name])
        if not np.isfinite(values).any():
            return None
        values = np.where(
            np.isfinite(values), values, np.inf if not first.is_higher_better else -np.inf
        )
        return int(np.argmax(values) if first.is_higher_better else np.argmin(values)) + 1


__all__ = ["METRICS", "CallbackEnv", "EvalResult", "Evaluation", "check_metrics", "expit"]
