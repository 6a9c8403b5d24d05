"""engine._numba.borrowed_views.flat: ``reshape(-1)`` of a C-contiguous array, made in place."""

import numpy as np
import pytest
from numba import njit

from treeboost.engine._numba.borrowed_views import borrow, flat


@njit
def _flat_and_write(a, i, v):
    out = flat(a)
    out[i] = v
    return out


@njit
def _flat_of_borrowed(a):
    return flat(borrow(a)).sum()


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5), (0, 3), (7,)])
def test_flat_is_the_reshaped_view(shape):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    expected = a.reshape(-1).copy()
    if a.size:
        out = _flat_and_write(a, a.size - 1, -1.0)
        expected[-1] = -1.0
        np.testing.assert_array_equal(out, expected)
        assert a.reshape(-1)[-1] == -1.0  # a view: the write reached the array
        assert _flat_of_borrowed(a) == expected.sum()
    else:
        assert _flat_of_borrowed(a) == 0.0


def test_flat_keeps_its_array_alive():
    out = _flat_and_write(np.ones((50, 4)), 0, 2.0)  # the 2-d array has no other owner
    np.testing.assert_array_equal(out, np.r_[2.0, np.ones(199)])


def test_flat_refuses_a_non_contiguous_layout():
    from numba.core.errors import TypingError

    with pytest.raises(TypingError):
        _flat_and_write(np.ones((4, 6))[:, ::2], 0, 1.0)
