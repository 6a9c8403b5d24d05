"""TreeSHAP values (treeboost.inspection.shap_values, treeboost.engine.predict.tree_shap): against
Shapley values by brute force over every coalition, against the shap package, additivity
for every model family, refused models and inputs, and the summary plot."""

import copy
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.base import is_classifier
from sklearn.exceptions import NotFittedError

import treeboost as tb
from treeboost.engine.predict.tree_shap import ShapTrees
from treeboost.engine.predict.routing import goes_left_raw
from treeboost.inspection import shap_values


# -- brute force: the definition, coalition by coalition ---------------------------------


def _conditional(tree, x, S, players, node=0):
    """E[f | x_S] by the path-dependent rule: follow x at a split on a feature of S,
    else average the children weighted by their covers."""
    left, right = tree.children_left[node], tree.children_right[node]
    if left == -1:
        return tree.value[node]
    if players[tree.feature[node]] in S:
        go = goes_left_raw(
            x[tree.feature[node]],
            tree.missing_go_left[node],
            tree.is_categorical[node],
            tree.categories_left,
            node,
            tree.threshold[node],
        )
        return _conditional(tree, x, S, players, left if go else right)
    wl, wr = tree.weighted_n_node_samples[left], tree.weighted_n_node_samples[right]
    fl = wl / (wl + wr) if wl + wr > 0 else 0.5
    return fl * _conditional(tree, x, S, players, left) + (1 - fl) * _conditional(
        tree, x, S, players, right
    )


def _brute_force(game, M):
    """Shapley values of the M players of ``game(S) -> ndarray``."""
    phi = [0.0] * M
    for i in range(M):
        others = [j for j in range(M) if j != i]
        for k in range(M):
            weight = math.factorial(k) * math.factorial(M - k - 1) / math.factorial(M)
            for S in itertools.combinations(others, k):
                phi[i] = phi[i] + weight * (game(set(S) | {i}) - game(set(S)))
    return np.array(phi)


def _frame(seed, n=300):
    """Four features: two numeric with missing values, a categorical one with missing
    values, one numeric."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.normal(size=n),
            "c": pd.Categorical(rng.choice(list("pqrst"), n)),
            "d": rng.integers(0, 4, n).astype(float),
        }
    )
    X.loc[rng.random(n) < 0.15, "a"] = np.nan
    X.loc[rng.random(n) < 0.1, "b"] = np.nan
    X.loc[rng.random(n) < 0.1, "c"] = np.nan
    y = (
        np.nan_to_num(X["a"].to_numpy()) * 2
        + X["c"].isin(["p", "q"]) * 1.5
        + np.nan_to_num(X["b"].to_numpy()) * X["d"]
        + rng.normal(size=n) * 0.3
    )
    return X, np.asarray(y, dtype=float)


def _classes(y, k):
    return np.digitize(y, np.quantile(y, np.linspace(0, 1, k + 1)[1:-1]))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_single_trees_equal_brute_force_shapley_values(seed):
    X, y = _frame(seed)
    rows = X.iloc[:6]
    for model in (
        tb.DecisionTreeRegressor(max_depth=5, random_state=seed),
        tb.DecisionTreeClassifier(max_depth=5, random_state=seed),
    ):
        model.fit(X, _classes(y, 3) if is_classifier(model) else y)
        values, expected = shap_values(model, rows)
        tree = model.tree_
        assert tree.is_categorical.any()  # the brute force covers category sets
        Xe = model._encoder.transform(rows)
        assert np.isnan(Xe).any()  # and missing values
        ident = np.arange(4)
        for r in range(len(rows)):
            phi = _brute_force(lambda S: _conditional(tree, Xe[r], S, ident), 4)
            got = values[r] if values.ndim == 3 else values[r][:, None]
            np.testing.assert_allclose(got, phi, atol=1e-12)
        empty = _conditional(tree, Xe[0], set(), ident)
        np.testing.assert_allclose(np.ravel(expected), empty, atol=1e-12)


def test_boosting_equals_brute_force_sum_over_trees():
    X, y = _frame(3)
    model = tb.GradientBoostingClassifier(n_estimators=4, max_leaf_nodes=6, min_samples_leaf=5).fit(
        X, _classes(y, 3)
    )
    rows = X.iloc[:4]
    values, expected = shap_values(model, rows)
    Xe = model._encoder.transform(rows)
    ident = np.arange(4)

    def game(x, S):
        return model.init_score_ + np.array(
            [
                sum(_conditional(t, x, S, ident)[0] for t in (it[k] for it in model.trees_))
                for k in range(3)
            ]
        )

    for r in range(len(rows)):
        np.testing.assert_allclose(values[r], _brute_force(lambda S: game(Xe[r], S), 4), atol=1e-12)
    np.testing.assert_allclose(expected, game(Xe[0], set()), atol=1e-12)


def test_bagging_feature_subsets_equal_brute_force_on_the_model_features():
    # members read drawn (and repeated) columns: a feature read through two columns is
    # one player of the model's game
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) + 2 * np.nan_to_num(X[:, 1]) * np.nan_to_num(X[:, 2])
    model = tb.BaggingRegressor(
        tb.DecisionTreeRegressor(max_depth=4),
        n_estimators=6,
        max_features=3,
        bootstrap_features=True,
        random_state=0,
    ).fit(X, y)
    assert any(np.unique(f).size < f.size for f in model.estimators_features_)
    values, expected = shap_values(model, X[:5])

    def game(x, S):
        return np.mean(
            [
                _conditional(m.tree_, x[f], S, f)[0]
                for m, f in zip(model.estimators_, model.estimators_features_)
            ]
        )

    for r in range(5):
        np.testing.assert_allclose(values[r], _brute_force(lambda S: game(X[r], S), 4), atol=1e-12)
    assert expected == pytest.approx(game(X[0], set()), abs=1e-12)


def test_zero_cover_children_give_finite_values_equal_to_brute_force():
    X, y = _frame(5)
    model = tb.DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    tree = copy.deepcopy(model.tree_)
    w = tree.weighted_n_node_samples.copy()
    internal = np.flatnonzero(tree.children_left != -1)
    w[tree.children_left[internal[0]]] = 0.0  # a child with no cover
    last = internal[-1]
    w[tree.children_left[last]] = w[tree.children_right[last]] = 0.0  # no cover at all
    tree.weighted_n_node_samples = w
    Xe = model._encoder.transform(X.iloc[:8])
    packed = ShapTrees([tree], [tree.value], [0])
    values = packed.shap_values(Xe, 4, 1)[:, :, 0]
    assert np.isfinite(values).all()
    ident = np.arange(4)
    for r in range(8):
        np.testing.assert_allclose(
            values[r], _brute_force(lambda S: _conditional(tree, Xe[r], S, ident)[0], 4), atol=1e-12
        )
    expected = packed.expected_values(1)[0]
    np.testing.assert_allclose(values.sum(axis=1) + expected, tree.predict(Xe)[:, 0], atol=1e-9)


def _random_tree(rng, n_features, n_outputs, max_depth):
    """A random binary tree in preorder: numeric and categorical splits, both missing
    sides, features repeated along paths, covers that are sometimes zero."""
    from treeboost.engine.predict.tree import Tree

    categorical = rng.random(n_features) < 0.4
    nodes = []

    def grow(depth):
        node = len(nodes)
        nodes.append(None)
        if depth == max_depth or (depth > 0 and rng.random() < 0.25):
            nodes[node] = (-1, -1, -1, depth)
            return node
        f = int(rng.integers(n_features))
        left = grow(depth + 1)
        right = grow(depth + 1)
        nodes[node] = (left, right, f, depth)
        return node

    grow(0)
    n = len(nodes)
    left, right, feature, depth = (np.array(c) for c in zip(*nodes))
    internal = left != -1
    is_cat = internal & categorical[np.maximum(feature, 0)]
    bits = np.zeros((n, 4), np.uint64)
    bits[is_cat, 0] = rng.integers(0, 16, is_cat.sum()).astype(np.uint64)
    weight = rng.choice([0.0, 0.5, 1.0, 3.0, 7.0], n, p=[0.1, 0.2, 0.3, 0.2, 0.2])
    return Tree(
        n_features,
        n_outputs,
        children_left=left.astype(np.int32),
        children_right=right.astype(np.int32),
        feature=np.where(internal, feature, -1).astype(np.int32),
        threshold=np.where(internal & ~is_cat, rng.normal(size=n), np.nan),
        is_categorical=is_cat,
        categories_left=bits,
        missing_go_left=rng.random(n) < 0.5,
        bin_threshold=np.zeros(n, np.int32),
        value=rng.normal(size=(n, n_outputs)),
        impurity=np.zeros(n),
        n_node_samples=np.ones(n, np.int64),
        weighted_n_node_samples=weight,
        gain=np.zeros(n),
        depth=depth.astype(np.int32),
    )


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_features=st.integers(1, 4),
    n_outputs=st.integers(1, 2),
    max_depth=st.integers(0, 6),
)
def test_random_trees_equal_brute_force(seed, n_features, n_outputs, max_depth):
    rng = np.random.default_rng(seed)
    trees = [_random_tree(rng, n_features, n_outputs, max_depth) for _ in range(2)]
    X = np.where(
        rng.random((4, n_features)) < 0.2,
        np.nan,
        np.where(
            rng.random((4, n_features)) < 0.5,
            rng.integers(0, 5, (4, 4))[:, :n_features],
            rng.normal(size=(4, n_features)),
        ),
    )
    packed = ShapTrees(trees, [t.value for t in trees], [0, 0])
    values = packed.shap_values(X, n_features, n_outputs)
    ident = np.arange(n_features)

    def game(x, S):
        return sum(_conditional(t, x, S, ident) for t in trees)

    for r in range(X.shape[0]):
        np.testing.assert_allclose(
            values[r], _brute_force(lambda S: game(X[r], S), n_features), atol=1e-9
        )
    np.testing.assert_allclose(packed.expected_values(n_outputs), game(X[0], set()), atol=1e-9)


def test_a_deep_chain_over_few_features_equals_brute_force():
    # 300 levels, two features: the path buffers are as long as the distinct features
    from treeboost.engine.predict.tree import Tree

    depth = 300
    n = 2 * depth + 1
    left = np.full(n, -1, np.int32)
    right = np.full(n, -1, np.int32)
    internal = np.arange(0, 2 * depth, 2)
    left[internal] = internal + 2  # the chain goes on to the left
    right[internal] = internal + 1  # and a leaf hangs on the right
    node_depth = np.zeros(n, np.int32)
    node_depth[1:] = (np.arange(1, n) + 1) // 2
    rng = np.random.default_rng(14)
    feature = np.full(n, -1, np.int32)
    feature[internal] = np.arange(depth) % 2
    threshold = np.full(n, np.nan)
    threshold[internal] = np.linspace(3, -3, depth)
    tree = Tree(
        2,
        1,
        children_left=left,
        children_right=right,
        feature=feature,
        threshold=threshold,
        is_categorical=np.zeros(n, bool),
        categories_left=np.zeros((0, 4), np.uint64),
        missing_go_left=rng.random(n) < 0.5,
        bin_threshold=np.zeros(n, np.int32),
        value=rng.normal(size=(n, 1)),
        impurity=np.zeros(n),
        n_node_samples=np.ones(n, np.int64),
        weighted_n_node_samples=rng.uniform(0.5, 2, n),
        gain=np.zeros(n),
        depth=node_depth,
    )
    packed = ShapTrees([tree], [tree.value], [0])
    assert packed.forest.max_unique == 2
    X = np.array([[0.0, 1.0], [-2.5, np.nan], [2.9, -2.9]])
    values = packed.shap_values(X, 2, 1)
    ident = np.arange(2)
    for r in range(3):
        np.testing.assert_allclose(
            values[r], _brute_force(lambda S: _conditional(tree, X[r], S, ident), 2), atol=1e-9
        )


# -- additivity: every family adds up to its explained output ----------------------------

FAMILIES = [
    (lambda: tb.DecisionTreeRegressor(max_depth=6), "r", "predict"),
    (lambda: tb.DecisionTreeClassifier(max_depth=6), 3, "predict_proba"),
    (lambda: tb.RandomForestRegressor(n_estimators=4, max_depth=6, random_state=0), "r", "predict"),
    (
        lambda: tb.RandomForestClassifier(n_estimators=4, max_depth=6, random_state=0),
        3,
        "predict_proba",
    ),
    (lambda: tb.ExtraTreesRegressor(n_estimators=4, max_depth=6, random_state=0), "r", "predict"),
    (
        lambda: tb.ExtraTreesClassifier(n_estimators=4, max_depth=6, random_state=0),
        2,
        "predict_proba",
    ),
    (
        lambda: tb.BaggingRegressor(n_estimators=3, max_features=0.75, random_state=0),
        "r",
        "predict",
    ),
    (lambda: tb.BaggingClassifier(n_estimators=3, random_state=0), 3, "predict_proba"),
    (
        lambda: tb.BaggingClassifier(
            n_estimators=3, max_features=0.5, voting="hard", random_state=0
        ),
        3,
        "predict_proba",
    ),
    (lambda: tb.GradientBoostingRegressor(n_estimators=5), "r", "predict"),
    (lambda: tb.GradientBoostingRegressor(n_estimators=5, loss="huber"), "r", "predict"),
    (lambda: tb.GradientBoostingClassifier(n_estimators=5), 2, "decision_function"),
    (lambda: tb.GradientBoostingClassifier(n_estimators=5), 3, "decision_function"),
    (lambda: tb.AdaBoostClassifier(n_estimators=5, random_state=0), 2, "decision_function"),
    (lambda: tb.AdaBoostClassifier(n_estimators=5, random_state=0), 3, "decision_function"),
]


@pytest.mark.parametrize(
    "make, target, output",
    FAMILIES,
    ids=[f"{m().__class__.__name__}-{t}-{o}" for m, t, o in FAMILIES],
)
def test_values_add_up_to_the_model_output(make, target, output):
    X, y = _frame(6)
    y = y if target == "r" else _classes(y, target)
    model = make().fit(X, y)
    values, expected = shap_values(model, X)
    want = getattr(model, output)(X)
    assert values.shape[:2] == X.shape
    if want.ndim == 1:
        assert values.ndim == 2 and isinstance(expected, float)
    else:
        assert values.shape[2] == want.shape[1] and expected.shape == (want.shape[1],)
    np.testing.assert_allclose(values.sum(axis=1) + expected, want, rtol=0, atol=1e-6)
    assert np.abs(values).sum() > 0


def test_a_numpy_matrix_and_a_single_row_are_explained_as_predict_reads_them():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 3))
    X[::7, 1] = np.nan
    model = tb.GradientBoostingRegressor(n_estimators=3).fit(X, X[:, 0] - X[:, 2])
    values, expected = shap_values(model, X[:1])
    assert values.shape == (1, 3)
    np.testing.assert_allclose(values.sum(axis=1) + expected, model.predict(X[:1]))
    with pytest.raises(ValueError, match="0 sample"):  # as predict refuses it
        model.predict(X[:0])
    with pytest.raises(ValueError, match="0 sample"):
        shap_values(model, X[:0])


def test_text_columns_and_a_booster_without_trees():
    X, y = _frame(15, n=1000)  # rows enough for a regularised categorical split
    X["c"] = X["c"].astype(object).where(X["c"].notna(), None)  # text, not category
    model = tb.GradientBoostingClassifier(n_estimators=10).fit(X, _classes(y, 2))
    values, expected = shap_values(model, X)
    np.testing.assert_allclose(values.sum(axis=1) + expected, model.decision_function(X), atol=1e-9)
    assert np.abs(values[:, 2]).max() > 0  # the text column is split on
    # a fit that diverged at its first iteration keeps no tree: the initial score alone
    empty = copy.deepcopy(model)
    empty.trees_ = []
    empty._packed = None
    values, expected = shap_values(empty, X)
    assert not values.any() and expected == pytest.approx(model.init_score_[0])
    np.testing.assert_allclose(expected, empty.decision_function(X))


def test_a_loaded_model_is_explained_as_the_fitted_one(tmp_path):
    X, y = _frame(13, n=200)
    for model, output in (
        (tb.BaggingClassifier(n_estimators=3, max_features=0.75, random_state=0), "predict_proba"),
        (tb.AdaBoostClassifier(n_estimators=3, random_state=0), "decision_function"),
    ):
        model.fit(X, _classes(y, 3))
        model.save(tmp_path / "model.tbm")
        loaded = tb.load(tmp_path / "model.tbm")
        values, expected = shap_values(loaded, X)
        np.testing.assert_array_equal(values, shap_values(model, X)[0])
        np.testing.assert_allclose(
            values.sum(axis=1) + expected, getattr(loaded, output)(X), atol=1e-9
        )


# -- the shap package on the same trees ---------------------------------------------------


def test_agrees_with_the_shap_package_on_the_same_trees():
    shap = pytest.importorskip("shap")
    rng = np.random.default_rng(8)
    X = rng.normal(size=(400, 5))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) * np.nan_to_num(X[:, 1]) + np.nan_to_num(X[:, 2])
    model = tb.GradientBoostingRegressor(n_estimators=5, max_leaf_nodes=8).fit(X, y)
    trees = [it[0] for it in model.trees_]
    as_shap = {
        "base_offset": float(model.init_score_[0]),
        "trees": [
            {
                "children_left": t.children_left.astype(np.int32),
                "children_right": t.children_right.astype(np.int32),
                "children_default": np.where(
                    t.missing_go_left, t.children_left, t.children_right
                ).astype(np.int32),
                "features": t.feature.astype(np.int32),
                "thresholds": np.nan_to_num(t.threshold, nan=0.0),
                "values": t.value.copy(),
                "node_sample_weight": t.weighted_n_node_samples.copy(),
            }
            for t in trees
        ],
    }
    explainer = shap.TreeExplainer(as_shap)
    want = explainer.shap_values(X[:50])
    values, expected = shap_values(model, X[:50])
    np.testing.assert_allclose(values, want, atol=1e-9)
    assert expected == pytest.approx(float(np.ravel(explainer.expected_value)[0]), abs=1e-9)


# -- refused models and inputs ----------------------------------------------------------


def test_unsupported_models_are_refused_by_name():
    X, y = _frame(9, n=120)
    yc = _classes(y, 2)
    with pytest.raises(ValueError, match="AdaBoostRegressor.*median"):
        shap_values(tb.AdaBoostRegressor(n_estimators=2).fit(X, y), X)
    Xc = X.assign(a=X["a"].fillna(0) > 0, b=X["b"].fillna(0) > 0).astype(str)
    with pytest.raises(TypeError, match="ID3Classifier"):
        shap_values(tb.ID3Classifier().fit(Xc, yc), Xc)
    from sklearn.tree import DecisionTreeRegressor as SkTree

    with pytest.raises(TypeError, match="got DecisionTreeRegressor"):
        shap_values(SkTree().fit(np.zeros((4, 1)), np.arange(4)), np.zeros((4, 1)))
    with pytest.raises(TypeError, match="got str"):
        shap_values("model", X)
    Xn = np.nan_to_num(X[["a", "b", "d"]].to_numpy())
    bag = tb.BaggingRegressor(SkTree(max_depth=2), n_estimators=2).fit(Xn, y)
    with pytest.raises(TypeError, match=r"estimators_\[0\] is a DecisionTreeRegressor"):
        shap_values(bag, Xn)
    with pytest.raises(NotFittedError):
        shap_values(tb.GradientBoostingClassifier(), X)
    with pytest.raises(NotFittedError):
        shap_values(tb.RandomForestRegressor(), X)


def test_bad_X_is_refused_as_predict_refuses_it():
    X, y = _frame(10, n=120)
    model = tb.DecisionTreeRegressor(max_depth=3).fit(X, y)
    with pytest.raises(ValueError, match="feature"):
        shap_values(model, X.iloc[:, :3])
    with pytest.raises(ValueError, match="feature names"):
        shap_values(model, X.rename(columns={"a": "z"}))
    Xn = np.nan_to_num(X[["a", "b", "d"]].to_numpy())
    model = tb.GradientBoostingRegressor(n_estimators=2).fit(Xn, y)
    with pytest.raises(ValueError, match="3 features"):
        shap_values(model, Xn[:, :2])
    with pytest.raises(ValueError):
        shap_values(model, np.where(np.arange(3) == 0, np.inf, Xn[:5]))


def test_packed_trees_refuse_what_the_kernel_would_index_out_of_bounds():
    X, y = _frame(11, n=120)
    model = tb.DecisionTreeRegressor(max_depth=3).fit(X, y)
    tree = copy.deepcopy(model.tree_)
    Xe = model._encoder.transform(X)
    packed = ShapTrees([tree], [tree.value], [0])
    with pytest.raises(ValueError, match="columns"):
        packed.shap_values(Xe[:, :1], 4, 1)
    with pytest.raises(ValueError, match="out must be"):
        packed.shap_values(Xe, 4, 1, out=np.zeros((len(Xe), 4, 1), np.float32))
    with pytest.raises(ValueError, match="players"):
        packed.shap_values(Xe, 1, 1)
    bad = copy.deepcopy(tree)
    bad.children_left = bad.children_left.copy()
    bad.children_left[0] = 0
    with pytest.raises(ValueError, match="backwards"):
        ShapTrees([bad], [bad.value], [0])
    bad = copy.deepcopy(tree)
    bad.depth = bad.depth.copy()
    bad.depth[-1] += 5
    with pytest.raises(ValueError, match="depths"):
        ShapTrees([bad], [bad.value], [0])


# -- the summary plot ---------------------------------------------------------------------


def test_plot_shap_summary_draws_every_row_sorted_by_mean_abs_value(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from treeboost.plotting import plot_shap_summary

    X, y = _frame(12, n=150)
    model = tb.GradientBoostingRegressor(n_estimators=5).fit(X, y)
    values, _ = shap_values(model, X)
    ax = plot_shap_summary(values, X, max_display=3)
    order = np.argsort(-np.abs(values).mean(axis=0), kind="stable")[:3]
    assert [t.get_text() for t in ax.get_yticklabels()] == list(X.columns[order][::-1])
    points = sum(len(c.get_offsets()) for c in ax.collections)
    assert points == 3 * len(X)
    # two collections per feature, grey (missing, non-numeric) then coloured: the
    # categorical column is all grey, a numeric one grey only where it is missing
    ax = plot_shap_summary(values, X)
    ranked = list(np.argsort(-np.abs(values).mean(axis=0), kind="stable"))
    sizes = [len(c.get_offsets()) for c in ax.collections]
    for j, name in enumerate(X.columns):
        grey, coloured = sizes[2 * ranked.index(j)], sizes[2 * ranked.index(j) + 1]
        missing = len(X) if name == "c" else int(X[name].isna().sum())
        assert (grey, coloured) == (missing, len(X) - missing)
    ax.figure.savefig(tmp_path / "summary.png")
    with pytest.raises(ValueError, match="values"):
        plot_shap_summary(values[:, :, None], X)
    with pytest.raises(ValueError, match="feature_names"):
        plot_shap_summary(values, X, feature_names=["a"])
    with pytest.raises(ValueError, match="max_display"):
        plot_shap_summary(values, X, max_display=0)
    matplotlib.pyplot.close("all")
