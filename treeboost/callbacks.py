"""Callbacks that see each boosting iteration, as LightGBM's ``lightgbm.callback``:
pass them as ``fit(..., callbacks=[...])``.  A callback is any callable
``callback(env)`` of a :class:`~treeboost.ensembles.evaluation.CallbackEnv`; it stops the
fit by returning True.
"""

from .ensembles.early_stopping import BestScore
from .ensembles.evaluation import CallbackEnv, EvalResult

__all__ = ["CallbackEnv", "EvalResult", "early_stopping", "log_evaluation", "record_evaluation"]


def log_evaluation(period=1):
    """Print every ``period``-th iteration's metrics: ``[i]\\tvalid's l2: 0.25``."""
    if int(period) < 1:
        raise ValueError(f"period must be at least 1, got {period!r}.")

    def _log(env):
        if (env.iteration + 1) % period == 0 or env.iteration + 1 == env.end_iteration:
            line = "\t".join(
                f"{r.data_name}'s {r.metric_name}: {r.value:.6g}"
                for r in env.evaluation_result_list
            )
            print(f"[{env.iteration + 1}]\t{line}", flush=True)

    return _log


def record_evaluation(eval_result):
    """Record every metric into the dict ``eval_result``: ``{set: {metric: [values]}}``."""
    if not isinstance(eval_result, dict):
        raise TypeError(f"eval_result must be a dict, got {type(eval_result).__name__}.")
    eval_result.clear()

    def _record(env):
        for r in env.evaluation_result_list:
            eval_result.setdefault(r.data_name, {}).setdefault(r.metric_name, []).append(r.value)

    return _record


def early_stopping(stopping_rounds, data_name=None, metric_name=None, min_delta=0.0):
    """Stop when the chosen metric on the chosen set has not improved by more than
    ``min_delta`` for ``stopping_rounds`` iterations; the estimator's
    ``best_iteration_`` is then its best iteration (1-based).

    Parameters
    ----------
    stopping_rounds : int
    data_name, metric_name : str or None, default=None
        The set and metric watched; None: the last evaluation set, the first metric.
    min_delta : float, default=0.0
    """
    if int(stopping_rounds) < 1:
        raise ValueError(f"stopping_rounds must be at least 1, got {stopping_rounds!r}.")
    if min_delta < 0:
        raise ValueError(f"min_delta must be non-negative, got {min_delta!r}.")
    rule = BestScore(stopping_rounds, min_delta)

    def _stop(env):
        results = env.evaluation_result_list
        if not results:
            raise ValueError("early_stopping needs at least one evaluation set (eval_set).")
        names = [r.data_name for r in results]
        want_set = names[-1] if data_name is None else data_name
        picked = [r for r in results if r.data_name == want_set]
        if metric_name is not None:
            picked = [r for r in picked if r.metric_name == metric_name]
        if not picked:
            raise ValueError(
                f"early_stopping: no metric {metric_name!r} on a set {want_set!r}; "
                f"got {sorted({(r.data_name, r.metric_name) for r in results})}."
            )
        r = picked[0]
        sign = 1.0 if r.is_higher_better else -1.0
        if env.iteration == env.begin_iteration or rule.best_iteration is None:
            rule.restart(env.iteration)
        stop = rule.update(env.iteration, sign * r.value)
        env.model.best_iteration_ = rule.best_iteration + 1
        return stop

    _stop.sets_best_iteration = True
    return _stop
