"""HistGradientBoosting's ``reg_alpha`` (the L1 threshold of the gradient sums in the gain
and the leaf values) and ``colsample_bytree`` (the features each tree may split on):
against LightGBM on the same bins (integer features of fewer values than ``max_bins``:
one bin a value in both), against brute force on a stump, and the trees' features
against the draws."""

import numpy as np
import pytest

import treeboost
from treeboost import (
    HistGradientBoostingClassifier,
    HistGradientBoostingRanker,
    HistGradientBoostingRegressor,
)
from treeboost.ensembles import _boosting
from treeboost.ensembles._booster_params import tree_feature_count

from tests._helpers import lightgbm_on_our_bins
from tests._model_files import read_parts, used_only, write_parts

N_ITER = 5


def _integer_data(n=2000, seed=0, n_features=5):
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 12, size=(n, n_features)).astype(float)
    y = X[:, 0] * 1.5 + np.sin(X[:, 1]) * 3 + X[:, 2] * X[:, 3] * 0.2 + rng.normal(0, 1, n)
    return X, y


def _ours(**params):
    params = {"max_iter": N_ITER, "max_leaf_nodes": 15, "min_samples_leaf": 20, **params}
    return HistGradientBoostingRegressor(early_stopping=False, **params)


def _lightgbm(**params):
    params = {"n_estimators": N_ITER, "reg_lambda": 0.0, "learning_rate": 0.1, **params}
    return lightgbm_on_our_bins(num_leaves=15, min_child_samples=20, **params)


def _split_features(tree):
    return set(tree.feature[tree.children_left != -1].tolist())


# -- reg_alpha ----------------------------------------------------------------------------


@pytest.mark.parametrize("reg_lambda", [0.0, 3.0])
@pytest.mark.parametrize("reg_alpha", [0.5, 10.0, 40.0])
def test_reg_alpha_grows_lightgbms_trees(reg_alpha, reg_lambda):
    """LightGBM's trees, split for split.  (With a large ``alpha`` LightGBM's trees
    differ: a feature no split of which gains at a node is not searched again in the
    node's larger child, whose histogram is the parent's minus the sibling's; with L1 a
    gain can be negative at the parent and positive in the child, which treeboost
    searches, as the formula asks.)"""
    X, y = _integer_data()
    ref = _lightgbm(reg_alpha=reg_alpha, reg_lambda=reg_lambda, importance_type="split")
    ref.fit(X, y)
    ours = _ours(reg_alpha=reg_alpha, l2_regularization=reg_lambda, importance_type="split").fit(
        X, y
    )
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-6)
    np.testing.assert_array_equal(ours.feature_importances_, ref.feature_importances_)
    ref.set_params(importance_type="gain")
    ours.set_params(importance_type="gain")
    np.testing.assert_allclose(ours.feature_importances_, ref.feature_importances_, rtol=1e-5)


def test_reg_alpha_one_tree_leaf_values_are_lightgbms():
    """One tree (``max_iter=1``, learning rate 1): the leaf values themselves."""
    X, y = _integer_data(n=1500, seed=3)
    ref = _lightgbm(n_estimators=1, learning_rate=1.0, reg_alpha=150.0, reg_lambda=2.0)
    ours = _ours(max_iter=1, learning_rate=1.0, reg_alpha=150.0, l2_regularization=2.0)
    ref.fit(X, y)
    ours.fit(X, y)
    tree = ours.trees_[0][0]
    leaves = tree.value[tree.children_left == -1, 0]
    dump = ref.booster_.dump_model()["tree_info"][0]["tree_structure"]

    def lgb_leaves(node):
        if "leaf_value" in node:
            return [node["leaf_value"]]
        return lgb_leaves(node["left_child"]) + lgb_leaves(node["right_child"])

    # LightGBM's first tree carries the initial score (boost_from_average)
    expected = np.sort(np.asarray(lgb_leaves(dump)) - ours.init_score_[0])
    # (LightGBM keeps its initial score in a float: 1e-8 apart)
    np.testing.assert_allclose(np.sort(leaves), expected, atol=1e-6)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-6)


def test_reg_alpha_binary_classifier_is_lightgbms():
    X, y = _integer_data(n=2000, seed=1)
    yc = (y > np.median(y)).astype(int)
    ref = lightgbm_on_our_bins(
        "LGBMClassifier",
        n_estimators=N_ITER,
        num_leaves=15,
        min_child_samples=20,
        reg_alpha=0.5,
        reg_lambda=1.0,
        learning_rate=0.1,
    ).fit(X, yc)
    ours = HistGradientBoostingClassifier(
        max_iter=N_ITER,
        max_leaf_nodes=15,
        min_samples_leaf=20,
        early_stopping=False,
        reg_alpha=0.5,
        l2_regularization=1.0,
    ).fit(X, yc)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)


def _soft(G, alpha):
    return np.sign(G) * np.maximum(np.abs(G) - alpha, 0.0)


@pytest.mark.parametrize("alpha, lam", [(0.0, 0.0), (30.0, 0.0), (80.0, 5.0), (1e4, 1.0)])
def test_stump_is_the_brute_force_l1_newton_step(alpha, lam):
    """A stump on one integer feature: the split maximises ``T(G_L)^2/(H_L+l) +
    T(G_R)^2/(H_R+l)`` over every cut (``T`` the soft threshold), each leaf's value is
    ``-T(G)/(H+l)`` of its rows, and the gain is half the decrease."""
    rng = np.random.RandomState(7)
    n = 400
    x = rng.randint(0, 10, size=n).astype(float)
    y = np.where(x > 4, 2.0, -1.0) + 0.3 * x + rng.normal(0, 1.0, n)
    model = HistGradientBoostingRegressor(
        max_iter=1,
        learning_rate=1.0,
        max_leaf_nodes=2,
        min_samples_leaf=5,
        min_child_weight=0.0,
        reg_alpha=alpha,
        l2_regularization=lam,
        early_stopping=False,
    ).fit(x[:, None], y)
    g = model.init_score_[0] - y  # squared error: g = F - y, h = 1
    T = lambda G: _soft(G, alpha)  # noqa: E731
    best, best_cut = -np.inf, None
    for cut in np.unique(x)[:-1]:
        left = x <= cut
        nl, nr = left.sum(), (~left).sum()
        if nl < 5 or nr < 5:
            continue
        sc = T(g[left].sum()) ** 2 / (nl + lam) + T(g[~left].sum()) ** 2 / (nr + lam)
        if sc > best + 1e-9:
            best, best_cut = sc, cut
    parent = T(g.sum()) ** 2 / (n + lam)
    tree = model.trees_[0][0]
    if best - parent <= 1e-9:  # no split gains: one leaf, the root's value
        assert tree.node_count == 1
        np.testing.assert_allclose(tree.value[0, 0], -T(g.sum()) / (n + lam), atol=1e-10)
        return
    assert tree.node_count == 3
    left = x <= best_cut
    np.testing.assert_array_equal(x <= tree.threshold[0], left)
    for child, rows in ((tree.children_left[0], left), (tree.children_right[0], ~left)):
        expected = -T(g[rows].sum()) / (rows.sum() + lam)
        np.testing.assert_allclose(tree.value[child, 0], expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(2.0 * tree.gain[0], best - parent, rtol=1e-9)


def test_reg_alpha_above_every_gradient_sum_leaves_the_initial_score():
    X, y = _integer_data(n=500)
    g_total = np.abs(y - y.mean()).sum()
    model = _ours(reg_alpha=2 * g_total).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), np.full(len(y), model.init_score_[0]))


def test_reg_alpha_shrinks_the_leaf_values():
    X, y = _integer_data()
    free = _ours(max_iter=1).fit(X, y).trees_[0][0]
    l1 = _ours(max_iter=1, reg_alpha=50.0).fit(X, y).trees_[0][0]
    assert (
        np.abs(l1.value[l1.children_left == -1]).max()
        < np.abs(free.value[free.children_left == -1]).max()
    )


def test_reg_alpha_with_gradient_split_gain_thresholds_the_leaves():
    """``split_gain="gradient"``: the leaf values are the loss's Newton step with the
    same threshold (:meth:`LeafSamples.newton_step`)."""
    X, y = _integer_data(n=800)
    model = _ours(max_iter=1, learning_rate=1.0, split_gain="gradient", reg_alpha=60.0)
    model.fit(X, y)
    tree = model.trees_[0][0]
    leaf = tree.apply(X)
    g = model.init_score_[0] - y
    for node in np.unique(leaf):
        rows = leaf == node
        expected = -_soft(g[rows].sum(), 60.0) / rows.sum()
        np.testing.assert_allclose(tree.value[node, 0], expected, atol=1e-10)


# -- colsample_bytree ---------------------------------------------------------------------


@pytest.fixture
def recorded_draws(monkeypatch):
    """The features each tree drew, in the order of the draws."""
    draws = []
    original = _boosting.draw_tree_features

    def record(setup, n_features):
        drawn = original(setup, n_features)
        draws.append(drawn)
        return drawn

    monkeypatch.setattr(_boosting, "draw_tree_features", record)
    return draws


@pytest.mark.parametrize(
    "n_features, frac, expected",
    [(10, 0.5, 5), (10, 0.25, 3), (10, 0.05, 2), (1, 0.5, 0), (3, 0.5, 2), (10, 0.96, 0)],
)
def test_tree_feature_count_is_lightgbms_rule(n_features, frac, expected):
    # round(frac * n) halves up, at least min(2, n); every feature: no draw (0)
    assert tree_feature_count(n_features, frac) == expected
    assert tree_feature_count(n_features, 1.0) == 0


def test_each_tree_splits_on_its_drawn_features_only(recorded_draws):
    X, y = _integer_data(n_features=10)
    model = _ours(max_iter=8, colsample_bytree=0.4, random_state=0).fit(X, y)
    assert len(recorded_draws) == 8
    for drawn, (tree,) in zip(recorded_draws, model.trees_):
        assert drawn.size == 4
        assert np.all(np.diff(drawn) > 0)
        assert _split_features(tree) <= set(drawn.tolist())
        assert _split_features(tree)  # the trees still split
    assert len({tuple(d) for d in recorded_draws}) > 1  # different trees, different sets


def test_an_excluded_informative_feature_is_never_split_on(recorded_draws):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(1500, 6))
    y = 5 * X[:, 0] + 0.1 * rng.normal(size=1500)
    model = _ours(max_iter=12, colsample_bytree=0.5, random_state=1).fit(X, y)
    without = [i for i, d in enumerate(recorded_draws) if 0 not in d]
    assert without and len(without) < len(recorded_draws)
    for i, (tree,) in enumerate(model.trees_):
        assert (0 in _split_features(tree)) == (i not in without)


def test_a_tree_on_its_draw_is_the_tree_on_the_other_features_made_constant(recorded_draws):
    """The drawn features' histograms are subtracted child from sibling as the full
    ones are: a tree grown on its draw is the tree of the same data whose other features
    cannot split (constant)."""
    X, y = _integer_data(n=3000, n_features=8)
    params = dict(max_iter=1, max_leaf_nodes=31, min_samples_leaf=5)
    sampled = _ours(colsample_bytree=0.5, random_state=4, **params).fit(X, y)
    (drawn,) = recorded_draws
    Xc = X.copy()
    Xc[:, np.setdiff1d(np.arange(8), drawn)] = 0.0
    full = _ours(**params).fit(Xc, y)
    np.testing.assert_array_equal(sampled.predict(X), full.predict(Xc))


def test_multiclass_trees_draw_one_set_each(recorded_draws):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(900, 10))
    y = np.argmax(X[:, :3] + 0.3 * rng.normal(size=(900, 3)), axis=1)
    model = HistGradientBoostingClassifier(
        max_iter=4, colsample_bytree=0.3, random_state=0, early_stopping=False
    ).fit(X, y)
    assert len(recorded_draws) == 4 * 3
    trees = [t for it in model.trees_ for t in it]
    for drawn, tree in zip(recorded_draws, trees):
        assert drawn.size == 3
        assert _split_features(tree) <= set(drawn.tolist())


def test_colsample_bytree_is_seeded_by_random_state():
    X, y = _integer_data(n_features=10)
    a = _ours(colsample_bytree=0.3, random_state=5).fit(X, y).predict(X)
    b = _ours(colsample_bytree=0.3, random_state=5).fit(X, y).predict(X)
    c = _ours(colsample_bytree=0.3, random_state=6).fit(X, y).predict(X)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_colsample_bytree_with_subsample_and_interaction_cst(recorded_draws):
    X, y = _integer_data(n_features=6)
    cst = [[0, 1, 2], [3, 4, 5]]
    model = _ours(
        max_iter=6, colsample_bytree=0.5, subsample=0.8, interaction_cst=cst, random_state=0
    ).fit(X, y)
    for drawn, (tree,) in zip(recorded_draws, model.trees_):
        used = _split_features(tree)
        assert used <= set(drawn.tolist())
        # every branch keeps to one set: a tree of one branch at least
        assert used <= set(cst[0]) or used <= set(cst[1]) or tree.node_count > 3


def test_defaults_are_the_models_without_the_parameters():
    """``reg_alpha=0`` and ``colsample_bytree=1`` (or a fraction that keeps every
    feature) grow the default model, bit for bit."""
    X, y = _integer_data()
    base = _ours(random_state=0, subsample=0.8).fit(X, y).predict(X)
    for params in ({"reg_alpha": 0.0}, {"colsample_bytree": 1.0}, {"colsample_bytree": 0.95}):
        other = _ours(random_state=0, subsample=0.8, **params).fit(X, y).predict(X)
        np.testing.assert_array_equal(other, base)


def test_ranker_takes_both():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(600, 6))
    y = np.clip(np.round(X[:, 0] + rng.normal(0, 0.5, 600)), 0, 3).astype(int)
    group = [20] * 30
    model = HistGradientBoostingRanker(
        max_iter=5, colsample_bytree=0.5, reg_alpha=1.0, random_state=0, early_stopping=False
    ).fit(X, y, group=group)
    for (tree,) in model.trees_:
        assert len(_split_features(tree)) <= 3


# -- validation and persistence -----------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"colsample_bytree": 0.0},
        {"colsample_bytree": 1.5},
        {"colsample_bytree": -0.2},
        {"colsample_bytree": "half"},
        {"reg_alpha": -1.0},
        {"reg_alpha": "big"},
    ],
)
@pytest.mark.parametrize("cls", [HistGradientBoostingRegressor, HistGradientBoostingClassifier])
def test_bad_values_are_refused_by_name(cls, params):
    X, y = _integer_data(n=200)
    if cls is HistGradientBoostingClassifier:
        y = (y > np.median(y)).astype(int)
    (name,) = params
    with pytest.raises(ValueError, match=name):
        cls(**params).fit(X, y)


@pytest.mark.parametrize("cls", [HistGradientBoostingRegressor, HistGradientBoostingClassifier])
def test_save_and_load_keep_the_parameters_and_the_model(cls, tmp_path):
    X, y = _integer_data(n=600, n_features=6)
    if cls is HistGradientBoostingClassifier:
        y = (y > np.median(y)).astype(int)
    model = cls(
        max_iter=5, reg_alpha=2.0, colsample_bytree=0.5, random_state=0, early_stopping=False
    ).fit(X, y)
    path = treeboost.save(model, tmp_path / "model.tbm")
    loaded = treeboost.load(path)
    assert loaded.get_params()["reg_alpha"] == 2.0
    assert loaded.get_params()["colsample_bytree"] == 0.5
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


@pytest.mark.parametrize(
    "cls, fit",
    [
        (HistGradientBoostingRegressor, lambda m, X, y: m.fit(X, y)),
        (
            HistGradientBoostingRanker,
            lambda m, X, y: m.fit(X, np.clip(y, 0, 3).astype(int), group=[30] * 20),
        ),
    ],
)
def test_a_file_without_the_parameters_loads_without_them(cls, fit, tmp_path):
    X, y = _integer_data(n=600, n_features=4)
    y = y / y.std()
    model = fit(cls(max_iter=3, early_stopping=False), X, y)
    path = model.save(tmp_path / "new.tbm")
    doc, arrays = read_parts(path)
    state = doc["model"]["state"]
    del state["reg_alpha"], state["colsample_bytree"]
    write_parts(tmp_path / "old.tbm", doc, used_only(doc, arrays))
    old = treeboost.load(tmp_path / "old.tbm")
    assert old.reg_alpha == 0.0 and old.colsample_bytree == 1.0
    np.testing.assert_array_equal(old.predict(X), model.predict(X))
