"""The parameters LightGBM and XGBoost users tune on HistGradientBoosting: the one
split-acceptance rule, min_split_gain, subsample, importance_type, raw scores, n_jobs
and the Tweedie loss; against LightGBM on the same bins (integer features of fewer
values than ``max_bins``: one bin a value in both) and against brute force."""

import numba
import numpy as np
import pytest

from treeboost import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from treeboost.losses.tweedie import TweedieLoss

from tests._helpers import lightgbm_on_our_bins

N_ITER = 5


def _integer_data(n=2000, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 12, size=(n, 5)).astype(float)
    y = X[:, 0] * 1.5 + np.sin(X[:, 1]) * 3 + X[:, 2] * X[:, 3] * 0.2 + rng.normal(0, 1, n)
    return X, y


def _ours(**params):
    params = {"max_iter": N_ITER, **params}
    return HistGradientBoostingRegressor(
        max_leaf_nodes=15, min_samples_leaf=20, early_stopping=False, **params
    )


def _lightgbm(**params):
    return lightgbm_on_our_bins(
        n_estimators=N_ITER,
        num_leaves=15,
        min_child_samples=20,
        learning_rate=0.1,
        reg_lambda=0.0,
        **params,
    )


def _internal(model):
    for trees in model.trees_:
        for tree in trees:
            yield tree, tree.children_left != -1


# -- min_split_gain -----------------------------------------------------------------------


@pytest.mark.parametrize("min_split_gain", [0.0, 2000.0, 50000.0])
def test_min_split_gain_grows_lightgbms_trees(min_split_gain):
    X, y = _integer_data()
    ref = _lightgbm(min_split_gain=min_split_gain, importance_type="split").fit(X, y)
    ours = _ours(min_split_gain=min_split_gain, importance_type="split").fit(X, y)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-6)
    np.testing.assert_array_equal(ours.feature_importances_, ref.feature_importances_)
    ref.set_params(importance_type="gain")
    ours.set_params(importance_type="gain")
    np.testing.assert_allclose(ours.feature_importances_, ref.feature_importances_, rtol=1e-5)


def test_min_split_gain_keeps_only_larger_gains():
    X, y = _integer_data()
    free = _ours().fit(X, y)
    gains = np.concatenate([2 * t.gain[i] for t, i in _internal(free)])
    threshold = float(np.median(gains))
    model = _ours(min_split_gain=threshold).fit(X, y)
    kept = np.concatenate([2 * t.gain[i] for t, i in _internal(model)])
    assert kept.size > 0 and np.all(kept >= threshold)
    assert kept.size < gains.size
    # 0 is the default model, bit for bit
    np.testing.assert_array_equal(_ours(min_split_gain=0.0).fit(X, y).predict(X), free.predict(X))


def test_min_split_gain_needs_the_second_order_gain():
    X, y = _integer_data(200)
    with pytest.raises(ValueError, match="min_split_gain=1.0 .*split_gain='gradient'"):
        _ours(min_split_gain=1.0, split_gain="gradient").fit(X, y)


# -- subsample ----------------------------------------------------------------------------


def test_subsample_grows_each_tree_on_its_share_of_the_rows():
    X, y = _integer_data(1000)
    full = _ours().fit(X, y)
    np.testing.assert_array_equal(_ours(subsample=1.0).fit(X, y).predict(X), full.predict(X))
    half = _ours(subsample=0.5, random_state=0).fit(X, y)
    roots = [trees[0].n_node_samples[0] for trees in half.trees_]
    assert roots == [500] * N_ITER
    again = _ours(subsample=0.5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(again.predict(X), half.predict(X))
    assert not np.array_equal(half.predict(X), full.predict(X))


# -- importance_type ----------------------------------------------------------------------


def test_importance_types_against_a_count_of_the_trees():
    X, y = _integer_data(1000)
    model = _ours().fit(X, y)
    default = model.feature_importances_
    assert default.sum() == pytest.approx(1.0)
    counts = np.zeros(X.shape[1])
    gains = np.zeros(X.shape[1])
    for tree, internal in _internal(model):
        for f, g in zip(tree.feature[internal], tree.gain[internal]):
            counts[f] += 1
            gains[f] += 2 * g
    model.set_params(importance_type="split")
    np.testing.assert_array_equal(model.feature_importances_, counts)
    model.set_params(importance_type="gain")
    np.testing.assert_allclose(model.feature_importances_, gains)
    model.set_params(importance_type=None)
    np.testing.assert_array_equal(model.feature_importances_, default)


def test_importance_type_is_validated():
    X, y = _integer_data(200)
    with pytest.raises(ValueError, match="importance_type"):
        _ours(importance_type="cover").fit(X, y)


# -- raw scores ---------------------------------------------------------------------------


@pytest.mark.parametrize("loss", ["squared_error", "poisson", "gamma", "tweedie"])
def test_raw_score_is_the_margin(loss):
    X, y = _integer_data(600)
    y = np.exp(y / 10)
    model = _ours(loss=loss).fit(X, y)
    raw = model.predict(X, raw_score=True)
    expected = model.predict(X) if loss == "squared_error" else np.log(model.predict(X))
    np.testing.assert_allclose(raw, expected, rtol=1e-12)
    manual = model.init_score_[0] + sum(t[0].predict(X)[:, 0] for t in model.trees_)
    np.testing.assert_allclose(raw, manual, rtol=1e-12)


# -- n_jobs -------------------------------------------------------------------------------


def test_n_jobs_is_scoped_to_the_fit(monkeypatch):
    X, y = _integer_data(600)
    seen = []
    from treeboost.ensembles import _booster_params

    real = _booster_params.tree_threads

    def spy(threads):
        seen.append(threads)
        return real(threads)

    monkeypatch.setattr(_booster_params, "tree_threads", spy)
    before = numba.get_num_threads()
    one = _ours(n_jobs=1).fit(X, y)
    assert seen and seen[0] == 1
    assert numba.get_num_threads() == before
    np.testing.assert_array_equal(one.predict(X), _ours().fit(X, y).predict(X))
    with pytest.raises(ValueError, match="n_jobs == 0"):
        _ours(n_jobs=0).fit(X, y)
    classifier = HistGradientBoostingClassifier(max_iter=3, n_jobs=1)
    classifier.fit(X, y > np.median(y))
    assert numba.get_num_threads() == before


# -- Tweedie ------------------------------------------------------------------------------


@pytest.mark.parametrize("power, n_iter", [(1.8, 1), (1.5, N_ITER)])
def test_tweedie_is_lightgbms(power, n_iter):
    X, _ = _integer_data()
    rng = np.random.RandomState(3)
    y = rng.poisson(np.exp(0.1 * X[:, 0])) * rng.gamma(2, 1, X.shape[0])
    ref = _lightgbm(objective="tweedie", tweedie_variance_power=power)
    ref.set_params(n_estimators=n_iter).fit(X, y)
    ours = _ours(loss="tweedie", tweedie_power=power, max_iter=n_iter).fit(X, y)
    np.testing.assert_allclose(
        ours.predict(X, raw_score=True), ref.predict(X, raw_score=True), atol=1e-6
    )


def test_tweedie_refuses_bad_input(tmp_path):
    X, y = _integer_data(300)
    with pytest.raises(ValueError, match="tweedie_power"):
        _ours(loss="tweedie", tweedie_power=2.0).fit(X, np.abs(y))
    with pytest.raises(ValueError, match="loss='tweedie' requires non-negative y"):
        _ours(loss="tweedie").fit(X, y - 100)
    with pytest.raises(ValueError, match=r"power \(tweedie_power\) must be in \(1, 2\)"):
        TweedieLoss(1.0)
    from treeboost.persistence import load, save

    model = _ours(loss="tweedie", tweedie_power=1.3).fit(X, np.abs(y))
    path = save(model, tmp_path / "tweedie.tbm")
    np.testing.assert_array_equal(load(path).predict(X), model.predict(X))


def test_a_regressors_raw_score_keeps_num_iteration():
    """``predict(raw_score=)`` sits in front of the booster's ``predict``: it still takes
    ``num_iteration``, and the first k iterations' prediction is the k-th staged one."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = np.exp(X[:, 0] + 0.1 * rng.normal(size=300))
    m = HistGradientBoostingRegressor(max_iter=10, loss="poisson").fit(X, y)
    staged = list(m.staged_predict(X))
    np.testing.assert_array_equal(m.predict(X, num_iteration=4), staged[3])
    np.testing.assert_array_equal(np.exp(m.predict(X, raw_score=True, num_iteration=4)), staged[3])
