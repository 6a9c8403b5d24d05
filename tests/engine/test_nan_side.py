"""The side of NaN at a boosting split that saw no missing value: the child of the larger
hessian sum, left on a tie, whatever order the sums were added in (a data-parallel fit
adds its shards' sums; the first iteration's hessians are all equal)."""

import numpy as np

from treeboost.engine.split.criteria import GINI, NEWTON
from treeboost.engine.split.scoring import HESSIAN_TIE_RTOL, hessian_goes_left, nan_goes_left


def _sequential(h, n):
    s = 0.0
    for _ in range(n):
        s += h
    return s


def test_equal_hessians_send_nan_left_in_any_order():
    # 40 equal hessians, 20 a side: added one by one, the node's sum less the left
    # child's is one unit in the last place above the left child's
    h = 0.8762491038964166
    left = _sequential(h, 20)
    total = _sequential(h, 40)
    assert total - left > left  # the tie the order broke
    assert hessian_goes_left(left, total)
    assert hessian_goes_left(left, left + left)  # two shards' sums
    assert nan_goes_left(np.array([0.0, left, 20.0]), np.array([0.0, total, 40.0]), NEWTON)


def test_a_larger_hessian_decides():
    total = 10.0
    assert hessian_goes_left(5.0 + 1e-9, total)
    assert not hessian_goes_left(5.0 - 1e-9, total)
    # the tie's width is relative to the node's sum
    assert hessian_goes_left(5.0 - 0.4 * HESSIAN_TIE_RTOL * total, total)
    assert not hessian_goes_left(5.0 - 2 * HESSIAN_TIE_RTOL * total, total)
    assert hessian_goes_left(-1.0, -2.0)  # equal, whatever the sign


def test_trees_send_nan_to_more_samples_and_right_on_a_tie():
    # by counts, exact: scikit-learn's n_left > n_right
    assert nan_goes_left(np.array([3.0, 1.0, 4.0]), np.array([4.0, 3.0, 7.0]), GINI)
    assert not nan_goes_left(np.array([2.0, 2.0, 4.0]), np.array([4.0, 4.0, 8.0]), GINI)
