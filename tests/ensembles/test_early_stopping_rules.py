"""The early-stopping rule objects against the loops they stand for (scikit-learn's
``GradientBoosting`` loss history, its ``HistGradientBoosting`` scores, LightGBM's
callback), on hypothesis-drawn score sequences, and the rule each booster's plan holds."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treeboost import GradientBoostingRegressor, HistGradientBoostingClassifier
from treeboost.ensembles.early_stopping import BestScore, LossPlateau, ScorePlateau

scores = st.lists(st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 1)), max_size=30)
rounds = st.integers(1, 6)
tols = st.sampled_from([0.0, 0.1, 0.5])


def sklearn_gb_stop(losses, k, tol):
    """The iteration scikit-learn's GradientBoosting stops at (its ``loss_history``
    ring of ``k`` losses, infinite at first), or None."""
    history = np.full(k, np.inf)
    for i, loss in enumerate(losses):
        if np.any(loss + tol < history):
            history[i % k] = loss
        else:
            return i
    return None


def first_stop(rule, values):
    for i in range(len(values)):
        if rule.should_stop(values[: i + 1]):
            return i
    return None


@settings(max_examples=300, deadline=None)
@given(scores, rounds, tols)
def test_loss_plateau_is_sklearn_gradient_boosting_rule(losses, k, tol):
    assert first_stop(LossPlateau(k, tol), losses) == sklearn_gb_stop(losses, k, tol)


@settings(max_examples=300, deadline=None)
@given(scores, rounds, tols)
def test_score_plateau_stops_when_no_recent_score_beats_the_reference(values, k, tol):
    for i in range(len(values)):
        seen = values[: i + 1]
        expected = len(seen) > k and max(seen[-k:]) <= seen[-k - 1] + tol
        assert ScorePlateau(k, tol).should_stop(seen) == expected


@settings(max_examples=300, deadline=None)
@given(scores, rounds, tols)
def test_best_score_counts_rounds_since_the_best(values, k, tol):
    rule = BestScore(k, tol)
    rule.restart(0)
    for i, value in enumerate(values):
        stop = rule.update(i, value)
        # the best: the first score to beat every earlier best by more than tol
        best, best_i = -np.inf, 0
        for j, v in enumerate(values[: i + 1]):
            if v > best + tol:
                best, best_i = v, j
        assert (rule.best_iteration, stop) == (best_i, i - best_i >= k)
        if stop:
            break


def test_each_booster_plan_holds_its_rule():
    assert GradientBoostingRegressor(n_iter_no_change=3, tol=0.5)._plan().stopping_rule == (
        LossPlateau(3, 0.5)
    )
    assert HistGradientBoostingClassifier(n_iter_no_change=4, tol=0.25)._plan().stopping_rule == (
        ScorePlateau(4, 0.25)
    )
