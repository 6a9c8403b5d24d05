"""The rules that accept a node's split are written once (engine.grow.acceptance): the
compiled grower and the stepped grower of the data-parallel trainer call them."""

import inspect

import numpy as np
import pytest

from treeboost.engine.grow import stepped as steps
from treeboost.engine.grow import acceptance, examine


def test_both_growers_accept_splits_by_the_one_rule():
    # the compiled grower and the stepped grower call the same functions, and neither
    # writes the rule out again
    for module in (examine, steps):
        assert module.better_score is acceptance.better_score
        assert module.gain_accepted is acceptance.gain_accepted
        source = inspect.getsource(module)
        assert "NEWTON_GAIN_RTOL *" not in source
        assert "SCORE_RTOL *" not in source


@pytest.mark.parametrize(
    "score, best_score, best, expected",
    [(1.0, -np.inf, -1, True), (2.0, 1.0, 0, True), (1.0 + 1e-12, 1.0, 0, False)],
)
def test_better_score_keeps_ties_for_the_lowest_index(score, best_score, best, expected):
    assert acceptance.better_score(score, best_score, best) == expected
