"""Monotonic constraints (trees, forests, gradient boosting) and interaction constraints
(gradient boosting): predictions that respect them, node values within the intervals the
splits set, the best valid split against brute force, scikit-learn's refusals, and
model files."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression

import treeboost as tb
from treeboost.engine.split.constraints import monotone_leaf_values
from treeboost.trees.constraints import check_interaction_cst

from ._model_files import read_parts, used_only, write_parts

CST = np.array([1, -1, 0, 0, 0])


def _regression(seed=0, n=600):
    """A linear target that grows with feature 0 and falls with feature 1 (CST)."""
    X, y = make_regression(n_samples=n, n_features=5, n_informative=5, noise=5.0, random_state=seed)
    X[:, 1] *= -1  # make_regression's coefficients are positive
    return X, y


def _classification(seed=0, n=600):
    return make_classification(
        n_samples=n, n_features=5, n_informative=5, n_redundant=0, random_state=seed
    )


def _assert_monotone(predict, X, cst, step=3.0):
    """Moving a constrained feature up never moves the prediction against its sign."""
    base = predict(X)
    for f in np.flatnonzero(cst):
        for delta in (-step, step, 10 * step):
            moved = X.copy()
            moved[:, f] += delta
            diff = (predict(moved) - base) * np.sign(delta) * cst[f]
            assert np.all(diff >= -1e-12), (f, delta, diff.min())


def _assert_node_bounds(tree, cst, column=0):
    """scikit-learn's test of the intervals: every node value lies within the interval
    its ancestors' splits set, and a constrained split's children are ordered."""
    values = tree.value[:, column]
    lower = np.full(tree.node_count, -np.inf)
    upper = np.full(tree.node_count, np.inf)
    for i in range(tree.node_count):
        v = np.float32(values[i])
        assert np.float32(lower[i]) <= v <= np.float32(upper[i])
        f = tree.feature[i]
        if f < 0:
            continue
        a, b = tree.children_left[i], tree.children_right[i]
        mid = (values[a] + values[b]) / 2
        lower[a] = lower[b] = lower[i]
        upper[a] = upper[b] = upper[i]
        if cst[f] == 1:
            assert values[a] <= values[b]
            upper[a], lower[b] = mid, mid
        elif cst[f] == -1:
            assert values[a] >= values[b]
            lower[a], upper[b] = mid, mid


@pytest.mark.parametrize(
    "make",
    [
        lambda: tb.DecisionTreeRegressor(monotonic_cst=CST),
        lambda: tb.DecisionTreeRegressor(monotonic_cst=CST, max_leaf_nodes=500),
        lambda: tb.DecisionTreeRegressor(monotonic_cst=CST, criterion="poisson"),
        lambda: tb.DecisionTreeRegressor(monotonic_cst=CST, criterion="absolute_error"),
        lambda: tb.ExtraTreeRegressor(
            monotonic_cst=CST, criterion="absolute_error", random_state=0
        ),
        lambda: tb.ExtraTreeRegressor(monotonic_cst=CST, random_state=0),
        lambda: tb.RandomForestRegressor(10, monotonic_cst=CST, random_state=0),
        lambda: tb.ExtraTreesRegressor(10, monotonic_cst=CST, random_state=0),
        lambda: tb.GradientBoostingRegressor(monotonic_cst=CST, n_estimators=30),
        lambda: tb.GradientBoostingRegressor(
            monotonic_cst=CST, n_estimators=30, split_gain="hessian", max_leaf_nodes=15
        ),
        lambda: tb.GradientBoostingRegressor(
            monotonic_cst=CST, n_estimators=30, loss="absolute_error"
        ),
        lambda: tb.GradientBoostingRegressor(monotonic_cst=CST, n_estimators=30, loss="huber"),
        lambda: tb.GradientBoostingRegressor(
            monotonic_cst=CST, n_estimators=30, loss="quantile", alpha=0.8
        ),
        lambda: tb.HistGradientBoostingRegressor(monotonic_cst=CST, max_iter=30),
        lambda: tb.HistGradientBoostingRegressor(
            monotonic_cst=CST, max_iter=30, loss="absolute_error"
        ),
    ],
    ids=[
        "tree",
        "tree-best-first",
        "tree-poisson",
        "tree-absolute",
        "extra-tree-absolute",
        "extra-tree",
        "forest",
        "extra-trees",
        "gb",
        "gb-hessian",
        "gb-absolute",
        "gb-huber",
        "gb-quantile",
        "hist",
        "hist-absolute",
    ],
)
@pytest.mark.parametrize("with_missing", [False, True])
def test_regression_predictions_are_monotone(make, with_missing):
    X, y = _regression(n=800)
    est = make()
    if "poisson" in repr(est):
        y = np.exp(y / 200)
    if with_missing:
        X = X.copy()
        X[np.random.default_rng(0).random(X.shape) < 0.2] = np.nan
    X, Xt, y, yt = X[:600], X[600:], y[:600], y[600:]
    est.fit(X, y)
    _assert_monotone(est.predict, np.nan_to_num(Xt), CST)
    if hasattr(est, "tree_"):
        _assert_node_bounds(est.tree_, CST)
    # the data follows the constraints (make_regression is linear): held-out rows are
    # predicted about as well as without them (scikit-learn's fully grown forests lose
    # 0.05 to 0.15 of R^2 here too: a node's interval forbids many of its cuts)
    free = clone(est).set_params(monotonic_cst=None).fit(X, y)
    assert est.score(Xt, yt) > free.score(Xt, yt) - 0.15


@pytest.mark.parametrize(
    "make",
    [
        lambda: tb.DecisionTreeClassifier(monotonic_cst=CST),
        lambda: tb.DecisionTreeClassifier(
            monotonic_cst=CST, max_leaf_nodes=300, criterion="entropy"
        ),
        lambda: tb.ExtraTreeClassifier(monotonic_cst=CST, random_state=0),
        lambda: tb.RandomForestClassifier(10, monotonic_cst=CST, random_state=0),
        lambda: tb.ExtraTreesClassifier(10, monotonic_cst=CST, random_state=0),
        lambda: tb.GradientBoostingClassifier(monotonic_cst=CST, n_estimators=30),
        lambda: tb.GradientBoostingClassifier(
            monotonic_cst=CST, n_estimators=30, loss="exponential"
        ),
        lambda: tb.HistGradientBoostingClassifier(monotonic_cst=CST, max_iter=30),
    ],
    ids=[
        "tree",
        "tree-entropy",
        "extra-tree",
        "forest",
        "extra-trees",
        "gb",
        "gb-exponential",
        "hist",
    ],
)
def test_classifier_positive_class_is_monotone(make):
    X, y = _classification(n=800)
    X, Xt, y, yt = X[:600], X[600:], y[:600], y[600:]
    est = make().fit(X, y)
    _assert_monotone(lambda Z: est.predict_proba(Z)[:, 1], Xt, CST)
    proba = est.predict_proba(Xt)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    if hasattr(est, "tree_"):
        _assert_node_bounds(est.tree_, CST, column=1)
    # (make_classification's classes need not follow the constraints)
    assert est.score(Xt, yt) > 0.6


def test_boosting_node_values_respect_the_intervals():
    """Each boosting tree (its raw leaf values, the learning rate is positive) holds the
    intervals, as scikit-learn's test_nodes_values."""
    X, y = _regression()
    for est in (
        tb.HistGradientBoostingRegressor(monotonic_cst=CST, max_iter=10),
        tb.GradientBoostingRegressor(monotonic_cst=CST, n_estimators=10, loss="absolute_error"),
    ):
        est.fit(X, y)
        for (tree,) in est.trees_:
            leaf = tree.children_left < 0
            # the leaves' values only: internal nodes of boosting trees are not predicted
            values = tree.value[:, 0].copy()
            fixed = monotone_leaf_values(
                tree.children_left, tree.children_right, tree.feature, values, CST
            )
            np.testing.assert_array_equal(fixed[leaf], values[leaf])


def test_opposite_data_gives_one_leaf():
    """Increasing data under a decreasing constraint: no valid split, the root predicts
    the mean (scikit-learn's test_1d_opposite_monotonicity_cst_data)."""
    X = np.linspace(-2, 2, 10).reshape(-1, 1)
    for est, target in (
        (tb.DecisionTreeRegressor(monotonic_cst=[-1]), X.ravel()),
        (tb.DecisionTreeRegressor(monotonic_cst=[1]), -X.ravel()),
    ):
        est.fit(X, target)
        assert est.tree_.node_count == 1
        assert est.tree_.value[0, 0] == pytest.approx(0.0, abs=1e-12)


def _loss(y, criterion):
    """The node's summed loss: squared error around the mean, absolute around the median."""
    if criterion == "squared_error":
        return float(np.sum((y - y.mean()) ** 2))
    return float(np.sum(np.abs(y - np.median(y))))


def _best_valid_split(x, y, cst, criterion):
    """Brute force: the root cut of least summed loss whose children's values (means or
    medians) are ordered as ``cst`` asks: ``(cut, loss)``, ``(None, inf)`` when none is."""
    center = np.mean if criterion == "squared_error" else np.median
    best, best_t = np.inf, None
    for t in np.unique(x)[:-1]:
        left, right = y[x <= t], y[x > t]
        if cst * (center(left) - center(right)) > 0:
            continue
        loss = _loss(left, criterion) + _loss(right, criterion)
        if loss < best - 1e-9:
            best, best_t = loss, t
    return best_t, best


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=4, max_size=25),
    st.lists(st.floats(-5, 5, allow_nan=False, width=32), min_size=25, max_size=25),
    st.sampled_from([-1, 1]),
    st.sampled_from(["squared_error", "absolute_error"]),
)
def test_root_split_is_the_best_valid_one(xs, ys, cst, criterion):
    x = np.asarray(xs, float)
    y = np.round(np.asarray(ys[: len(xs)], float), 2)
    tree = tb.DecisionTreeRegressor(max_depth=1, monotonic_cst=[cst], criterion=criterion).fit(
        x[:, None], y
    )
    want, loss = _best_valid_split(x, y, cst, criterion)
    if tree.tree_.node_count == 1:
        # no valid split, or none that lowers the loss
        assert want is None or loss >= _loss(y, criterion) - 1e-6
        return
    left = x <= tree.tree_.threshold[0]
    got = _loss(y[left], criterion) + _loss(y[~left], criterion)
    # the tree's split is valid and as good as the brute force's best (ties may differ)
    center = np.mean if criterion == "squared_error" else np.median
    assert cst * (center(y[left]) - center(y[~left])) <= 1e-9
    assert got == pytest.approx(loss, abs=1e-6)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_monotone_leaf_values_orders_any_values(seed):
    """Any leaf values put through monotone_leaf_values predict monotonically."""
    rng = np.random.default_rng(seed)
    X = rng.random((200, 2))
    y = rng.random(200)
    tree = tb.DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y).tree_
    cst = np.array([rng.choice([-1, 1]), 0])
    values = monotone_leaf_values(
        tree.children_left, tree.children_right, tree.feature, rng.normal(size=tree.node_count), cst
    )
    grid = rng.random((300, 2))
    leaves = tree.apply(grid)
    for f in (0,):
        moved = grid.copy()
        moved[:, f] = np.minimum(moved[:, f] + 0.3, 1.0)
        diff = (values[tree.apply(moved)] - values[leaves]) * cst[f]
        assert np.all(diff >= 0)


def test_monotone_leaf_values_keeps_ordered_values():
    X, y = _regression()
    tree = tb.DecisionTreeRegressor(max_depth=5, monotonic_cst=CST).fit(X, y).tree_
    values = tree.value[:, 0]
    np.testing.assert_array_equal(
        monotone_leaf_values(tree.children_left, tree.children_right, tree.feature, values, CST),
        values,
    )


def test_monotonic_cst_by_feature_name():
    X, y = _regression()
    frame = pd.DataFrame(X, columns=list("abcde"))
    est = tb.HistGradientBoostingRegressor(monotonic_cst={"a": 1, "b": -1}, max_iter=20)
    est.fit(frame, y)
    ref = tb.HistGradientBoostingRegressor(monotonic_cst=CST, max_iter=20).fit(X, y)
    np.testing.assert_allclose(est.predict(frame), ref.predict(X))
    with pytest.raises(ValueError, match="unexpected feature names"):
        tb.HistGradientBoostingRegressor(monotonic_cst={"z": 1}).fit(frame, y)
    with pytest.raises(ValueError, match="was not fitted on data with feature names"):
        tb.HistGradientBoostingRegressor(monotonic_cst={"a": 1}).fit(X, y)


@pytest.mark.parametrize(
    "est, X, y, match",
    [
        (tb.DecisionTreeRegressor(monotonic_cst=[1, 0]), *_regression(), "has shape 2"),
        (
            tb.DecisionTreeRegressor(monotonic_cst=[2, 0, 0, 0, 0]),
            *_regression(),
            "array-like of -1, 0 or 1",
        ),
        (
            tb.DecisionTreeClassifier(monotonic_cst=CST),
            *make_classification(n_features=5, n_informative=3, n_classes=3, random_state=0),
            "multiclass",
        ),
        (
            tb.RandomForestClassifier(3, monotonic_cst=CST),
            *make_classification(n_features=5, n_informative=3, n_classes=3, random_state=0),
            "multiclass",
        ),
        (
            tb.GradientBoostingClassifier(monotonic_cst=CST),
            *make_classification(n_features=5, n_informative=3, n_classes=3, random_state=0),
            "multiclass",
        ),
        (
            tb.DecisionTreeRegressor(monotonic_cst=CST),
            _regression()[0],
            np.c_[_regression()[1], _regression()[1]],
            "multiple outputs",
        ),
        (
            tb.HistGradientBoostingRegressor(interaction_cst=[0, 1]),
            *_regression(),
            "sequence of tuples or lists",
        ),
        (
            tb.HistGradientBoostingRegressor(interaction_cst=[{0, 9}]),
            *_regression(),
            r"integer indices in \[0, n_features - 1\] = \[0, 4\]",
        ),
        (tb.GradientBoostingRegressor(interaction_cst=[{0.5}]), *_regression(), "integer indices"),
    ],
)
def test_bad_constraints_are_refused_by_name(est, X, y, match):
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


def test_categorical_feature_cannot_be_constrained():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"c": pd.Categorical(rng.choice(list("abc"), 300)), "x": rng.random(300)})
    y = rng.random(300)
    for est in (
        tb.DecisionTreeRegressor(monotonic_cst=[1, 0]),
        tb.HistGradientBoostingRegressor(monotonic_cst=[1, 0]),
    ):
        with pytest.raises(ValueError, match="Categorical features cannot have monotonic"):
            est.fit(frame, y)
    # a constraint on the numeric feature is fine
    tb.DecisionTreeRegressor(monotonic_cst=[0, 1]).fit(frame, y)


@pytest.mark.parametrize(
    "cst, n, want",
    [
        (None, 9, None),
        ([{0, 1}], 2, [{0, 1}]),
        ("pairwise", 3, [{0, 1}, {0, 2}, {1, 2}]),
        ("no_interactions", 2, [{0}, {1}]),
        ([(1, 0), [5, 1]], 6, [{0, 1}, {1, 5}, {2, 3, 4}]),
    ],
)
def test_interaction_sets_are_resolved(cst, n, want):
    assert check_interaction_cst(cst, n) == want
    est = tb.HistGradientBoostingRegressor(interaction_cst=cst)
    assert est._check_interaction_cst(n) == want


def _branch_features(tree):
    """The sets of features split on along each root-to-leaf path."""
    out = []
    stack = [(0, frozenset())]
    while stack:
        i, seen = stack.pop()
        f = tree.feature[i]
        if f < 0:
            out.append(seen)
            continue
        stack.append((tree.children_left[i], seen | {f}))
        stack.append((tree.children_right[i], seen | {f}))
    return out


@pytest.mark.parametrize(
    "make",
    [
        lambda c: tb.HistGradientBoostingRegressor(interaction_cst=c, max_iter=20),
        lambda c: tb.GradientBoostingRegressor(interaction_cst=c, n_estimators=20, max_depth=4),
        lambda c: tb.GradientBoostingRegressor(
            interaction_cst=c, n_estimators=20, max_features=3, random_state=0
        ),
    ],
)
def test_every_branch_stays_in_one_interaction_set(make):
    X, y = _regression()
    sets = [{0, 1}, {1, 2, 3}]
    est = make(sets).fit(X, y)
    allowed = check_interaction_cst(sets, 5)
    used = set()
    for trees in est.trees_:
        for branch in _branch_features(trees[0]):
            assert any(branch <= s for s in allowed), branch
            used |= branch
    assert len(used) >= 3  # the trees do split, on several sets' features


def test_no_interactions_is_additive():
    """scikit-learn's test_interaction_cst_numerically: with one set per feature the model
    is a sum of functions of one feature each."""
    rng = np.random.RandomState(42)
    X = rng.uniform(size=(2000, 2))
    y = X[:, 0] + X[:, 1] + 5 * X[:, 0] * X[:, 1]
    est = tb.HistGradientBoostingRegressor(interaction_cst=[{0}, {1}], random_state=42)
    est.fit(X, y)
    d = 0.25
    Xt = X[(X[:, 0] < 1 - d) & (X[:, 1] < 1 - d)]
    mixed = (
        est.predict(Xt + [d, d])
        + est.predict(Xt)
        - est.predict(Xt + [d, 0])
        - est.predict(Xt + [0, d])
    )
    np.testing.assert_allclose(mixed, 0.0, atol=1e-12)
    free = tb.HistGradientBoostingRegressor(random_state=42).fit(X, y)
    mixed_free = (
        free.predict(Xt + [d, d])
        + free.predict(Xt)
        - free.predict(Xt + [d, 0])
        - free.predict(Xt + [0, d])
    )
    assert np.abs(mixed_free).mean() > 0.1  # the test can fail: the data interacts


def test_constrained_models_round_trip(tmp_path):
    X, y = _regression()
    models = [
        tb.HistGradientBoostingRegressor(
            monotonic_cst=CST, interaction_cst=[{0, 1}], max_iter=10
        ).fit(X, y),
        tb.DecisionTreeRegressor(monotonic_cst=list(CST)).fit(X, y),
    ]
    for i, model in enumerate(models):
        path = model.save(tmp_path / f"m{i}.tbm")
        loaded = tb.load(path)
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
        assert loaded.get_params()["monotonic_cst"] is not None
    assert tb.load(tmp_path / "m0.tbm").interaction_cst == [{0, 1}]


def test_a_file_without_constraints_loads_unconstrained(tmp_path):
    X, y = _regression()
    model = tb.HistGradientBoostingRegressor(max_iter=5).fit(X, y)
    doc, arrays = read_parts(model.save(tmp_path / "new.tbm"))
    state = doc["model"]["state"]
    del state["monotonic_cst"], state["interaction_cst"]
    write_parts(tmp_path / "old.tbm", doc, used_only(doc, arrays))
    old = tb.load(tmp_path / "old.tbm")
    assert old.monotonic_cst is None and old.interaction_cst is None
    np.testing.assert_array_equal(old.predict(X), model.predict(X))


def test_unconstrained_trees_are_unchanged():
    """All-zero constraints grow exactly the tree without them."""
    X, y = _regression()
    a = tb.DecisionTreeRegressor(random_state=0).fit(X, y)
    b = tb.DecisionTreeRegressor(random_state=0, monotonic_cst=np.zeros(5)).fit(X, y)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_array_equal(a.tree_.value, b.tree_.value)
