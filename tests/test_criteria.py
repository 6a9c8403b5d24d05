"""The regression criteria friedman_mse, poisson and absolute_error: the split each picks
is the brute-force best, the leaves and impurities are scikit-learn's, and every
regression estimator takes them (fit, persistence)."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from sklearn.base import clone
from sklearn.tree import DecisionTreeRegressor as SkTree

import treeboost
from treeboost import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeRegressor,
    ExtraTreesRegressor,
    RandomForestRegressor,
)

CRITERIA = ["squared_error", "friedman_mse", "poisson", "absolute_error"]


def weighted_median(y, w):
    """scikit-learn's weighted median: the first sorted target whose cumulative weight
    exceeds half the total, the midpoint with the previous one on an exact half."""
    order = np.argsort(y, kind="stable")
    y, w = y[order], w[order]
    keep = w > 0
    y, w = y[keep], w[keep]
    cum = np.cumsum(w)
    half = cum[-1] / 2
    r = int(np.argmax(cum > half))
    if r > 0 and cum[r - 1] == half:
        return (y[r - 1] + y[r]) / 2
    return y[r]


def node_loss(y, w, criterion):
    """The weighted impurity (W times the impurity) of one node, in plain numpy."""
    W = w.sum()
    if criterion in ("squared_error", "friedman_mse"):
        m = (w * y).sum() / W
        return (w * (y - m) ** 2).sum()
    if criterion == "poisson":
        m = (w * y).sum() / W
        if (w * y).sum() <= np.finfo(float).eps:
            return np.inf  # scikit-learn's rule: not a valid child
        pos = y > 0
        return (w[pos] * y[pos] * np.log(y[pos] / m)).sum()
    return (w * np.abs(y - weighted_median(y, w))).sum()


def split_loss(left, y, w, criterion):
    return node_loss(y[left], w[left], criterion) + node_loss(y[~left], w[~left], criterion)


def best_loss(X, y, w, criterion):
    """The smallest children's loss over every threshold of every feature, the missing
    values (NaN) on either side or alone."""
    best = np.inf
    for x in X.T:
        miss = np.isnan(x)
        vals = np.unique(x[~miss])
        lefts = [x <= t for t in (vals[:-1] + vals[1:]) / 2]
        if miss.any():
            lefts += [le | miss for le in lefts] + [~miss]
        for left in lefts:
            if left.any() and not left.all():
                best = min(best, split_loss(left, y, w, criterion))
    return best


def _root_partition(est, X):
    leaves = est.apply(X)
    return leaves == est.tree_.children_left[0]


@st.composite
def tiny_problems(draw, with_missing=False):
    n = draw(st.integers(6, 14))
    n_features = draw(st.integers(1, 2))
    X = np.array(
        draw(
            st.lists(
                st.lists(st.integers(0, 4), min_size=n_features, max_size=n_features),
                min_size=n,
                max_size=n,
            )
        ),
        dtype=float,
    )
    if with_missing:
        holes = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        X[holes, 0] = np.nan
    y = np.array(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), dtype=float)
    w = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)), dtype=float)
    return X, y, w


def _check_root(criterion, X, y, w):
    if criterion == "poisson" and y.sum() <= 0:
        return
    est = DecisionTreeRegressor(criterion=criterion, max_depth=1).fit(X, y, sample_weight=w)
    best = best_loss(X, y, w, criterion)
    if est.tree_.node_count == 1:
        # no split: none exists, or none lowers the loss (a pure node)
        assert best == np.inf or np.isclose(best, node_loss(y, w, criterion), atol=1e-9)
        return
    left = _root_partition(est, X)
    assert np.isclose(split_loss(left, y, w, criterion), best, rtol=1e-9, atol=1e-9)
    # the gain is the decrease of the weighted impurity
    assert np.isclose(est.tree_.gain[0], node_loss(y, w, criterion) - best, atol=1e-8)


@pytest.mark.parametrize("criterion", CRITERIA)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=tiny_problems())
def test_root_split_is_the_brute_force_best(criterion, problem):
    _check_root(criterion, *problem)


@pytest.mark.parametrize("criterion", ["poisson", "absolute_error"])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=tiny_problems(with_missing=True))
def test_root_split_with_missing_values_is_the_brute_force_best(criterion, problem):
    _check_root(criterion, *problem)


@pytest.mark.parametrize("criterion", CRITERIA)
def test_leaves_predict_the_mean_or_the_weighted_median(criterion):
    rng = np.random.RandomState(0)
    X = rng.randint(0, 8, (120, 2)).astype(float)
    y = rng.poisson(1 + X[:, 0]).astype(float)
    w = rng.randint(1, 4, 120).astype(float)
    est = DecisionTreeRegressor(criterion=criterion, max_depth=3).fit(X, y, sample_weight=w)
    leaves = est.apply(X)
    for leaf in np.unique(leaves):
        inside = leaves == leaf
        if criterion == "absolute_error":
            expect = weighted_median(y[inside], w[inside])
        else:
            expect = np.average(y[inside], weights=w[inside])
        assert np.isclose(est.tree_.value[leaf, 0], expect)
        impurity = node_loss(y[inside], w[inside], criterion) / w[inside].sum()
        assert np.isclose(est.tree_.impurity[leaf], impurity, atol=1e-12)


def _sklearn_problem(seed, n=400):
    """Few distinct values per feature (exact bins), a target with a clear structure so
    that ties between splits are unlikely."""
    rng = np.random.RandomState(seed)
    X = np.column_stack(
        [rng.randint(0, 40, n), rng.randint(0, 200, n), rng.randint(0, 7, n)]
    ).astype(float)
    mean = np.exp(0.5 + 0.04 * X[:, 0] - 0.005 * X[:, 1] + 0.2 * X[:, 2])
    y = rng.poisson(mean).astype(float) + rng.rand(n).round(3)
    w = rng.randint(1, 4, n).astype(float)
    return X, y, w


@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("weighted", [False, True])
def test_same_tree_as_scikit_learn(criterion, weighted):
    X, y, w = _sklearn_problem(1)
    sw = w if weighted else None
    kw = dict(max_depth=4, min_samples_leaf=5)
    ours = DecisionTreeRegressor(criterion=criterion, **kw).fit(X, y, sample_weight=sw)
    # scikit-learn 1.9 maps friedman_mse to squared_error (with a FutureWarning): the
    # same splits, as both criteria order the candidates alike
    sk_crit = "squared_error" if criterion == "friedman_mse" else criterion
    ref = SkTree(criterion=sk_crit, random_state=0, **kw).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-12)
    assert ours.tree_.node_count == ref.tree_.node_count
    np.testing.assert_allclose(
        ours.tree_.impurity[ours.apply(X)], ref.tree_.impurity[ref.apply(X)], rtol=1e-9
    )
    np.testing.assert_allclose(np.sort(ours.tree_.impurity), np.sort(ref.tree_.impurity), rtol=1e-9)
    np.testing.assert_allclose(
        ours.feature_importances_, ref.feature_importances_, rtol=1e-7, atol=1e-12
    )


@pytest.mark.parametrize(
    "est",
    [
        DecisionTreeRegressor(criterion="poisson"),
        RandomForestRegressor(criterion="poisson", n_estimators=2),
        ExtraTreesRegressor(criterion="poisson", n_estimators=2),
    ],
)
def test_poisson_refuses_negative_or_zero_targets(est):
    X = np.arange(8.0)[:, None]
    with pytest.raises(ValueError, match="negative"):
        est.fit(X, np.array([1, 2, -1, 0, 3, 1, 0, 2.0]))
    with pytest.raises(ValueError, match="Sum of y is not strictly positive"):
        est.fit(X, np.zeros(8))


def test_poisson_never_makes_a_child_without_counts():
    # the zeros on the left would be the best squared-error split; Poisson refuses a
    # child whose mean is zero
    X = np.arange(10.0)[:, None]
    y = np.array([0, 0, 0, 0, 0, 1, 2, 1, 3, 2.0])
    est = DecisionTreeRegressor(criterion="poisson").fit(X, y)
    assert np.all(est.tree_.value[:, 0] > 0)
    # fully grown on many zeros among reals: a child of zeros whose sum, the parent's
    # minus its sibling's, is a rounding residue must not pass for positive
    rng = np.random.RandomState(0)
    X = rng.randn(1000, 4)
    y = np.abs(X @ [3.0, -1.0, 0.5, 0.0] + rng.randn(1000))
    y[y < 1] = 0
    est = DecisionTreeRegressor(criterion="poisson").fit(X, y)
    assert np.all(est.tree_.value[:, 0] > 0)


@pytest.mark.parametrize("criterion", CRITERIA[1:])
@pytest.mark.parametrize("cls", [RandomForestRegressor, ExtraTreesRegressor])
def test_forests_take_every_criterion(cls, criterion):
    X, y, _ = _sklearn_problem(2, n=150)
    forest = cls(criterion=criterion, n_estimators=3, max_depth=5, random_state=0).fit(X, y)
    pred = forest.predict(X)
    assert np.all(np.isfinite(pred))
    assert forest.score(X, y) > 0.3
    assert all(t.criterion == forest.criterion for t in forest.estimators_)


def test_extra_tree_cuts_are_scored_by_the_absolute_error():
    # one feature, one random cut per node: the leaves are medians, and with a target
    # that is constant on each side of a step the tree finds it from any cut
    rng = np.random.RandomState(0)
    X = rng.rand(200, 1)
    y = np.where(X[:, 0] < 0.5, 1.0, 5.0)
    y[:5] = 100.0  # outliers move the mean, not the median
    est = ExtraTreeRegressor(criterion="absolute_error", max_depth=6, random_state=0)
    est.fit(X, y)
    leaves = est.apply(X)
    for leaf in np.unique(leaves):
        inside = leaves == leaf
        assert est.tree_.value[leaf, 0] == weighted_median(y[inside], np.ones(inside.sum()))
    assert np.median(np.abs(est.predict(X) - y)) == 0.0


def test_absolute_error_on_categorical_and_missing_features():
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    cat = rng.choice(list("abcde"), 200)
    x = rng.rand(200)
    x[rng.rand(200) < 0.2] = np.nan
    y = np.select([cat == "a", cat == "b"], [10.0, -3.0], 1.0) + rng.rand(200)
    X = pd.DataFrame({"c": pd.Categorical(cat), "x": x})
    est = DecisionTreeRegressor(criterion="absolute_error", max_depth=3).fit(X, y)
    leaves = est.apply(X)
    for leaf in np.unique(leaves):
        inside = leaves == leaf
        assert est.tree_.value[leaf, 0] == weighted_median(y[inside], np.ones(inside.sum()))
    assert est.tree_.feature[0] == 0  # the categories explain y


@pytest.mark.parametrize("criterion", CRITERIA[1:])
@pytest.mark.parametrize("cls", [DecisionTreeRegressor, RandomForestRegressor])
def test_models_with_the_new_criteria_round_trip(tmp_path, cls, criterion):
    X, y, _ = _sklearn_problem(3, n=100)
    kw = dict(n_estimators=2) if cls is RandomForestRegressor else {}
    est = cls(criterion=criterion, max_depth=4, random_state=0, **kw).fit(X, y)
    path = tmp_path / "model.tbm"
    est.save(path)
    back = treeboost.load(path)
    assert back.get_params()["criterion"] == est.criterion
    np.testing.assert_array_equal(back.predict(X), est.predict(X))


def test_log_loss_is_entropy():
    rng = np.random.RandomState(0)
    X = rng.rand(100, 3)
    y = (X[:, 0] + 0.3 * rng.rand(100) > 0.6).astype(int)
    a = DecisionTreeClassifier(criterion="log_loss", max_depth=4, random_state=0).fit(X, y)
    b = DecisionTreeClassifier(criterion="entropy", max_depth=4, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    np.testing.assert_array_equal(a.tree_.impurity, b.tree_.impurity)


@pytest.mark.parametrize(
    "cls",
    [
        DecisionTreeRegressor,
        treeboost.ExtraTreeRegressor,
        treeboost.RandomForestRegressor,
        treeboost.ExtraTreesRegressor,
    ],
)
def test_friedman_mse_is_deprecated_to_squared_error(cls):
    # scikit-learn 1.9: the same splits, so the name maps to squared_error with a warning
    with pytest.warns(FutureWarning, match="friedman_mse"):
        est = cls(criterion="friedman_mse")
    assert est.criterion == "squared_error"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clone(est)
