"""The category guard of the trees' categorical splits (:mod:`treeboost.trees.category_guard`):
the split a stump finds is the one the rule written out by hand finds, categories absent
from a node go with its missing values, and a column of many levels of few rows no longer
takes the root from a real signal."""

import itertools

import numpy as np
import pandas as pd
import pytest

import treeboost as tb
from treeboost.engine.split.categorical import MAX_CAT_EXACT


def _guarded_stump(codes, y, min_count, smooth):
    """The best split of one categorical column with NaN (code -1) by the guard's rule,
    by brute force over the prefixes of the smoothed order and both sides of the missing
    values: (the set of codes that go left, whether the missing values go left)."""
    cats = np.unique(codes[codes >= 0])
    counts = np.array([(codes == c).sum() for c in cats])
    searched = cats[counts >= min_count] if len(cats) > MAX_CAT_EXACT else cats
    if len(cats) <= MAX_CAT_EXACT:
        smooth = 0.0
    prior = y.mean()
    key = {
        c: (y[codes == c].sum() + smooth * prior) / ((codes == c).sum() + smooth) for c in searched
    }
    order = sorted(searched, key=lambda c: key[c])
    missing = ~np.isin(codes, searched)
    best = (np.inf, None, None)

    def sse(mask):
        return ((y[mask] - y[mask].mean()) ** 2).sum() if mask.any() else 0.0

    for p, miss_left in itertools.product(range(1, len(order) + 1), (False, True)):
        left = np.isin(codes, order[:p]) | (missing & miss_left)
        if left.all() or not left.any():
            continue
        loss = sse(left) + sse(~left)
        if loss < best[0] - 1e-9:
            best = (loss, set(order[:p]), miss_left)
    return best[1], best[2], set(searched)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("min_count,smooth", [(0, 0.0), (4, 0.0), (4, 10.0), (6, 3.0)])
def test_the_stump_is_the_rule_by_hand(seed, min_count, smooth):
    rng = np.random.default_rng(seed)
    n_cats = 9
    sizes = rng.integers(1, 12, n_cats)
    codes = np.repeat(np.arange(n_cats), sizes)
    codes = np.concatenate([codes, np.full(rng.integers(0, 5), -1)])
    effect = rng.normal(0, 1, n_cats)
    y = np.where(codes >= 0, effect[np.maximum(codes, 0)], 0.3) + rng.normal(0, 0.5, len(codes))
    X = codes.reshape(-1, 1).astype(float)
    X[codes < 0] = np.nan
    stump = tb.DecisionTreeRegressor(
        max_depth=1,
        categorical_features=[0],
        min_samples_per_category=min_count,
        cat_smooth=smooth,
    ).fit(X, y)
    want_left, want_missing_left, searched = _guarded_stump(codes, y, min_count, smooth)
    pred = stump.predict(X)
    left_value = stump.tree_.value[stump.tree_.children_left[0]].ravel()[0]
    went_left = np.isclose(pred, left_value)
    for c in range(n_cats):
        # a category set aside goes with the missing values
        want = c in want_left if c in searched else want_missing_left
        assert went_left[codes == c].all() == want, c
    if (codes < 0).any():
        assert went_left[codes < 0].all() == want_missing_left


def test_a_category_absent_from_the_node_goes_with_its_missing_values():
    """The root splits on ``x1``; in its right child the category ``e`` has no row, and
    the missing values go with ``a`` and ``b``: ``e`` takes their side at predict (it used
    to go right, away from them)."""
    cat = ["e"] * 10 + ["c"] * 2 + ["a"] * 5 + ["b"] * 5 + [None] * 5 + ["c"] * 5 + ["d"] * 5
    x1 = [0] * 12 + [1] * 25
    y = [-100.0] * 12 + [0.0] * 15 + [10.0] * 10
    X = pd.DataFrame({"x1": np.array(x1, float), "cat": pd.Series(cat, dtype=object)})
    tree = tb.DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, y)
    assert tree.tree_.feature[0] == 0
    new = pd.DataFrame({"x1": [1.0, 1.0, 1.0], "cat": pd.Series(["a", None, "e"], dtype=object)})
    assert tree.predict(new) == pytest.approx([0.0, 0.0, 0.0])


def test_unseen_categories_at_predict_follow_the_rare_ones():
    """Categories of one or two rows are set aside with the missing values; a category
    never seen at fit is missing at predict and takes their side, not the larger child."""
    rng = np.random.default_rng(0)
    big = np.repeat(["big0", "big1", "big2", "big3", "big4"], 30)
    rare = np.array([f"r{i}" for i in range(40)])
    cat = np.concatenate([big, rare])
    y = np.concatenate([np.zeros(150), np.full(40, 10.0)]) + rng.normal(0, 0.1, 190)
    X = pd.DataFrame({"cat": pd.Series(cat, dtype=object)})
    stump = tb.DecisionTreeRegressor(max_depth=1).fit(X, y)
    new = pd.DataFrame({"cat": pd.Series(["never seen", "r3", "big1"], dtype=object)})
    pred = stump.predict(new)
    assert pred[0] == pytest.approx(pred[1]) and pred[0] > 9.0 and pred[2] < 1.0


def test_many_levels_of_few_rows_do_not_take_the_root():
    """A column of 90 levels of 2 rows each, unrelated to y, against a numeric column
    that explains half of its variance: the exact subset search puts the levels at the root (their
    own labels order them), the guard leaves them out."""
    rng = np.random.default_rng(1)
    n = 180
    signal = rng.normal(size=n)
    y = signal + rng.normal(size=n)
    levels = pd.Series(np.repeat([f"id{i}" for i in range(90)], 2)[rng.permutation(n)])
    X = pd.DataFrame({"signal": signal, "levels": levels.astype(object)})
    exact = tb.DecisionTreeRegressor(max_depth=1, min_samples_per_category=0, cat_smooth=0.0).fit(
        X, y
    )
    guarded = tb.DecisionTreeRegressor(max_depth=1).fit(X, y)
    assert exact.tree_.feature[0] == 1
    assert guarded.tree_.feature[0] == 0


@pytest.mark.parametrize(
    "make",
    [
        tb.RandomForestRegressor,
        tb.ExtraTreesRegressor,
        tb.BaggingRegressor,
        tb.RandomForestClassifier,
        tb.ExtraTreesClassifier,
        tb.BaggingClassifier,
        tb.DecisionTreeClassifier,
        tb.ExtraTreeRegressor,
    ],
)
def test_every_tree_family_takes_the_parameters(make):
    model = make(min_samples_per_category=0, cat_smooth=0.0)
    assert model.get_params()["min_samples_per_category"] == 0
    assert model.get_params()["cat_smooth"] == 0.0
    with pytest.raises(ValueError, match="min_samples_per_category"):
        make(min_samples_per_category=-1).fit(np.zeros((4, 1)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="cat_smooth"):
        make(cat_smooth=-1.0).fit(np.zeros((4, 1)), [0, 1, 0, 1])
