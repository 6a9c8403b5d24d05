"""A tree's grower seed (trees/cart.py, _grower_seed): the one a RandomState built from
the tree's random_state draws, without building one per tree."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from sklearn.utils import check_random_state

import treeboost as tb
from treeboost.trees.cart import _grower_seed


def _reference(random_state):
    return check_random_state(random_state).randint(np.iinfo(np.int32).max)


@pytest.mark.parametrize("seed", [0, 1, 42, 2**31 - 1, 2**32 - 1, np.int64(7), np.uint32(9)])
def test_integer_seeds_draw_as_a_fresh_random_state(seed):
    assert _grower_seed(seed) == _reference(seed)
    assert _grower_seed(seed) == _reference(seed)  # the thread's generator, seeded again


def test_threads_draw_their_own_seeds():
    seeds = np.random.default_rng(0).integers(0, 2**32, 2000)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(_grower_seed, seeds.tolist()))
    assert got == [_reference(int(s)) for s in seeds]


def test_a_generator_is_drawn_from_and_bad_seeds_refused():
    assert _grower_seed(np.random.RandomState(3)) == _reference(np.random.RandomState(3))
    for bad in (-1, 2**32):
        with pytest.raises(ValueError):
            _reference(bad)
        with pytest.raises(ValueError):
            _grower_seed(bad)


def test_a_forest_tree_refitted_alone_grows_the_same_tree():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    forest = tb.RandomForestClassifier(n_estimators=3, bootstrap=False, random_state=0).fit(X, y)
    for tree in forest.estimators_:
        alone = tb.DecisionTreeClassifier(**tree.get_params()).fit(X, y)
        np.testing.assert_array_equal(alone.tree_.feature, tree.tree_.feature)
        np.testing.assert_array_equal(alone.tree_.threshold, tree.tree_.threshold)
