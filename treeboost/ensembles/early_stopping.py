"""Early-stopping rules as small objects: each says, from the scores recorded so far
(one per iteration), whether the fit stops now.  The boosters hold one rule each instead
of overriding a hook: scikit-learn's ``GradientBoosting*`` rule on losses (lower is
better) and its ``HistGradientBoosting*`` rule on scores (higher is better); the
:func:`treeboost.callbacks.early_stopping` callback watches a chosen evaluation set and
metric with the second.
"""

from dataclasses import dataclass


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
