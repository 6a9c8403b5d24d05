"""Early-stopping rules as small objects: each says, from the scores recorded so far
(one per iteration), whether the fit stops now.  A booster's plan
(:class:`~treeboost.ensembles._boosting_records.BoostingPlan`) holds its rule and the
boosting loop asks it after each iteration: scikit-learn's ``GradientBoosting*`` rule on
losses (:class:`LossPlateau`, lower is better), its ``HistGradientBoosting*`` rule on
scores (:class:`ScorePlateau`, higher is better; the one-machine and the Dask boosters
alike); the :func:`treeboost.callbacks.early_stopping` callback watches a chosen
evaluation set and metric with LightGBM's rule (:class:`BestScore`).
"""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LossPlateau:
    """scikit-learn's ``GradientBoosting*`` rule on validation losses ``s``: stop when
    ``s[-1] + tol >= max(s[-k-1:-1])``, the last loss not below the worst of the
    ``k = n_iter_no_change`` before it by more than ``tol``."""

    n_iter_no_change: int
    tol: float

    def should_stop(self, scores):
        k = self.n_iter_no_change
        if len(scores) <= k:
            return False
        return scores[-1] + self.tol >= max(scores[-k - 1 : -1])


@dataclass(frozen=True)
class ScorePlateau:
    """scikit-learn's ``HistGradientBoosting*`` rule on scores ``s`` (higher is
    better): stop when none of the last ``k = n_iter_no_change`` scores exceeds
    ``s[-k-1] + tol``."""

    n_iter_no_change: int
    tol: float

    def should_stop(self, scores):
        reference_position = self.n_iter_no_change + 1
        if len(scores) < reference_position:
            return False
        reference = scores[-reference_position] + self.tol
        return not any(score > reference for score in scores[-reference_position + 1 :])


@dataclass
class BestScore:
    """LightGBM's ``early_stopping`` callback rule on one score per iteration (higher is
    better): the best score so far ``b`` is replaced by a score ``s > b + min_delta``;
    stop once ``stopping_rounds`` iterations have passed since the best one.  It keeps
    the best score and its iteration (``best_iteration``, 0-based; None before the
    first :meth:`restart`)."""

    stopping_rounds: int
    min_delta: float
    best: float = -np.inf
    best_iteration: int | None = None

    def restart(self, iteration):
        """Forget the scores before ``iteration`` (a fit begins there)."""
        self.best, self.best_iteration = -np.inf, iteration

    def update(self, iteration, score):
        """Record ``score`` of ``iteration``; whether the fit stops now."""
        if score > self.best + self.min_delta:
            self.best, self.best_iteration = score, iteration
        return iteration - self.best_iteration >= self.stopping_rounds
