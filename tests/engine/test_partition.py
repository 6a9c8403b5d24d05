"""The partition kernel against a stable numpy partition, for numeric, categorical and
missing-value splits."""

import numpy as np
import pytest

from treeboost.engine.grow.partition import BinnedSplit, partition_serial
from treeboost.engine.predict.routing import goes_left_binned


def _split(kind, missing_go_left):
    cats = np.zeros((2, 4), np.uint64)
    for c in (1, 5, 70, 200):
        cats[1, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    if kind == "numeric":
        return BinnedSplit(255, missing_go_left, False, cats, 0, 100)
    return BinnedSplit(255, missing_go_left, True, cats, 1, 0)


def _goes_left(codes, split):
    return np.array([goes_left_binned(c, *split) for c in codes])


@pytest.mark.parametrize("kind", ["numeric", "categorical"])
@pytest.mark.parametrize("missing_go_left", [False, True])
def test_partition_is_stable_and_complete(kind, missing_go_left):
    rng = np.random.RandomState(0)
    n = 1000
    col = rng.choice([1, 5, 70, 99, 100, 101, 200, 254, 255], n).astype(np.uint8)
    idx = rng.permutation(n).astype(np.int32)
    s0, e0 = 17, 901
    split = _split(kind, missing_go_left)
    left = _goes_left(col[idx[s0:e0]], split)
    expected = np.concatenate([idx[s0:e0][left], idx[s0:e0][~left]])
    before, after = idx[:s0].copy(), idx[e0:].copy()
    buf = np.empty(n, np.int32)
    n_left = partition_serial(idx, s0, e0, col, split, buf)
    assert n_left == left.sum()
    np.testing.assert_array_equal(idx[s0:e0], expected)
    np.testing.assert_array_equal(idx[:s0], before)
    np.testing.assert_array_equal(idx[e0:], after)


def test_the_binned_predicate():
    split = _split("numeric", True)
    assert list(_goes_left([100, 101, 255, 0], split)) == [True, False, True, True]
    split = _split("categorical", False)
    assert list(_goes_left([1, 2, 200, 255], split)) == [True, False, True, False]
