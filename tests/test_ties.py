"""Ties between equally good splits: a seeded draw where scikit-learn's twin permutes the
features at each split (trees, forests, bagging, AdaBoost, GradientBoosting), the lowest
feature index in HistGradientBoosting (as scikit-learn's and LightGBM's)."""

import numba
import numpy as np
import pytest

import treeboost as tb
from treeboost.engine.binning.mapper import BinMapper
from treeboost.engine.split.criteria import SQUARED_ERROR
from treeboost.engine import TreeGrower


def _twin_columns(n=60, seed=0):
    """Two identical columns and a noise column: every split of the first is the
    second's too."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    X = np.column_stack([a, a, rng.normal(size=n)])
    y = a + 0.1 * rng.normal(size=n)
    return X, y


def _features(tree):
    return set(tree.feature[tree.feature >= 0].tolist())


def _tree_key(tree):
    return (tree.feature.tobytes(), tree.threshold.tobytes(), tree.value.tobytes())


def test_identical_features_are_both_chosen_over_seeds():
    X, y = _twin_columns()
    roots = {
        int(tb.DecisionTreeRegressor(random_state=s).fit(X, y).tree_.feature[0]) for s in range(20)
    }
    assert roots == {0, 1}
    # and within one tree the nodes draw on their own
    used = _features(tb.DecisionTreeRegressor(random_state=0).fit(X, y).tree_)
    assert {0, 1} <= used


def test_a_seed_gives_the_same_tree():
    X, y = _twin_columns()
    for s in range(5):
        a = tb.DecisionTreeRegressor(random_state=s).fit(X, y).tree_
        b = tb.DecisionTreeRegressor(random_state=s).fit(X, y).tree_
        assert _tree_key(a) == _tree_key(b)


def test_a_tree_without_ties_draws_nothing():
    # distinct features and large nodes: the same tree for every seed (no feature
    # sampling, no tie; small nodes would tie: two features often isolate the same row)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 3))
    y = X @ np.array([1.0, 2.0, -1.0]) + rng.normal(size=80)
    keys = {
        _tree_key(tb.DecisionTreeRegressor(min_samples_leaf=10, random_state=s).fit(X, y).tree_)
        for s in range(5)
    }
    assert len(keys) == 1


def test_the_draw_does_not_depend_on_threads():
    # large enough for the parallel grower (rows x features >= PARALLEL_GROWER_MIN_WORK),
    # whose threads evaluate the features; the draw among the tied ones stays serial
    rng = np.random.default_rng(2)
    a = rng.integers(0, 40, size=6000).astype(float)
    X = np.column_stack([a] * 6 + [rng.normal(size=(6000, 4))])
    y = a + rng.normal(size=6000)
    bm = BinMapper(255)
    Xb = bm.fit_transform(X)  # feature-major codes
    stats = np.column_stack([np.ones_like(y), y, np.ones_like(y)])
    before = numba.get_num_threads()
    trees = []
    try:
        for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(threads)
            grower = TreeGrower(bm, SQUARED_ERROR, 2, random_state=3, parallel=True)
            trees.append(grower.grow(Xb, stats, y * y)[0])
    finally:
        numba.set_num_threads(before)
    assert _tree_key(trees[0]) == _tree_key(trees[1])
    assert len(_features(trees[0]) & set(range(6))) > 1


def test_forest_n_jobs_does_not_change_the_trees():
    X, y = _twin_columns(120)
    one = tb.RandomForestRegressor(n_estimators=6, random_state=0, n_jobs=1).fit(X, y)
    two = tb.RandomForestRegressor(n_estimators=6, random_state=0, n_jobs=2).fit(X, y)
    for a, b in zip(one.estimators_, two.estimators_):
        assert _tree_key(a.tree_) == _tree_key(b.tree_)


def test_forest_with_all_features_and_no_bootstrap_has_trees_that_differ():
    # scikit-learn's forest gains over its single tree here by its ties alone
    X, y = _twin_columns()
    forest = tb.RandomForestRegressor(
        n_estimators=8, max_features=None, bootstrap=False, random_state=0
    ).fit(X, y)
    assert len({_tree_key(e.tree_) for e in forest.estimators_}) > 1


@pytest.mark.parametrize(
    "make",
    [
        lambda: tb.BaggingRegressor(n_estimators=8, bootstrap=False, random_state=0),
        lambda: tb.AdaBoostRegressor(n_estimators=8, random_state=0),
    ],
    ids=["bagging", "adaboost"],
)
def test_ensembles_of_trees_draw_their_ties(make):
    X, y = _twin_columns()
    used = set()
    for e in make().fit(X, y).estimators_:
        used |= _features(e.tree_)
    assert {0, 1} <= used


def test_gradient_boosting_draws_its_ties():
    X, y = _twin_columns()
    model = tb.GradientBoostingRegressor(n_estimators=10, random_state=0).fit(X, y)
    used = set()
    for trees in model.trees_:
        used |= _features(trees[0])
    assert {0, 1} <= used


def test_hist_gradient_boosting_keeps_the_lowest_index():
    X, y = _twin_columns()
    for s in range(3):
        model = tb.HistGradientBoostingRegressor(
            max_iter=10, min_samples_leaf=5, random_state=s
        ).fit(X, y)
        used = set()
        for trees in model.trees_:
            used |= _features(trees[0])
        assert 1 not in used and 0 in used


def test_column_order_changes_only_the_seed():
    # two columns giving the same partitions (one a monotone transform of the other) but
    # different thresholds between the training values: over seeds each order of the
    # columns puts either at the root, about as often, and the two orders grow the same
    # set of possible trees
    rng = np.random.default_rng(4)
    a = np.sort(rng.uniform(1, 3, size=30))
    y = np.where(a > 2, 1.0, 0.0) + 0.01 * np.arange(30)
    X = np.column_stack([a, a**3])
    seeds = range(40)

    def roots(cols):
        out = []
        for s in seeds:
            t = tb.DecisionTreeRegressor(max_depth=1, random_state=s).fit(X[:, cols], y).tree_
            out.append((cols[t.feature[0]], round(float(t.threshold[0]), 9)))
        return out

    ab, ba = roots([0, 1]), roots([1, 0])
    assert set(ab) == set(ba) and len(set(ab)) == 2
    for r in (ab, ba):
        share = sum(f == 0 for f, _ in r) / len(r)
        assert 0.2 < share < 0.8
