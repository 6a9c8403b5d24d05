"""Several quantiles in one model (``quantile=[...]``, ``alpha=[...]``): one lane of
trees per quantile, each that of a model of its quantile alone (same seed, same bins),
saved and loaded, and the checks of the list."""

import numpy as np
import pytest

import treeboost as tb
from treeboost import GradientBoostingRegressor, HistGradientBoostingRegressor
from treeboost.losses import MultiQuantileLoss, QuantileLoss

QUANTILES = [0.1, 0.5, 0.9]


def _data(n=800, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 4))
    # noise whose spread grows with x1: the quantiles differ by row
    y = X[:, 0] + (1.0 + np.abs(X[:, 1])) * rng.normal(size=n)
    return X, y


def _hist(quantile, **kw):
    return HistGradientBoostingRegressor(
        loss="quantile", quantile=quantile, max_iter=15, early_stopping=False, **kw
    )


def _gb(alpha, **kw):
    return GradientBoostingRegressor(loss="quantile", alpha=alpha, n_estimators=15, **kw)


@pytest.mark.parametrize(
    "make, kw",
    [
        (_hist, {}),
        (_hist, {"max_features": 0.5, "subsample": 0.7, "random_state": 3}),
        (_gb, {"random_state": 0}),
        (_gb, {"subsample": 0.6, "max_features": 2, "random_state": 1}),
    ],
)
def test_each_lane_is_the_model_of_its_quantile(make, kw):
    X, y = _data()
    multi = make(QUANTILES, **kw).fit(X, y)
    assert isinstance(multi._loss, MultiQuantileLoss)
    pred = multi.predict(X)
    assert pred.shape == (X.shape[0], len(QUANTILES))
    assert all(len(trees) == len(QUANTILES) for trees in multi.trees_)
    for k, q in enumerate(QUANTILES):
        alone = make(q, **kw).fit(X, y)
        np.testing.assert_array_equal(pred[:, k], alone.predict(X))
        np.testing.assert_array_equal(multi.init_score_[k], alone.init_score_[0])
    # the quantiles are ordered on most rows and cover about their share
    assert np.mean(pred[:, 0] <= pred[:, 2]) > 0.95
    for k, q in enumerate(QUANTILES):
        assert abs(np.mean(y <= pred[:, k]) - q) < 0.08


def test_a_number_keeps_the_one_quantile_model():
    X, y = _data()
    one = _hist(0.3).fit(X, y)
    assert type(one._loss) is QuantileLoss and one.predict(X).shape == (X.shape[0],)
    listed = _hist([0.3]).fit(X, y)
    # a list of one keeps its column
    assert listed.predict(X).shape == (X.shape[0], 1)
    np.testing.assert_array_equal(listed.predict(X)[:, 0], one.predict(X))


def test_staged_and_raw_predictions_keep_a_column_per_quantile():
    X, y = _data()
    m = _hist(QUANTILES).fit(X, y)
    np.testing.assert_array_equal(m.predict(X, raw_score=True), m.predict(X))
    stages = list(m.staged_predict(X))
    assert len(stages) == 15 and stages[-1].shape == (X.shape[0], 3)
    np.testing.assert_allclose(stages[-1], m.predict(X), atol=1e-12)
    np.testing.assert_array_equal(m.predict(X, num_iteration=4), stages[3])


@pytest.mark.parametrize("make", [_hist, _gb])
def test_save_and_load_round_trip(make, tmp_path):
    X, y = _data()
    m = make(QUANTILES).fit(X, y)
    path = tb.save(m, tmp_path / "quantiles.tbm")
    back = tb.load(path)
    np.testing.assert_array_equal(back.predict(X), m.predict(X))
    np.testing.assert_array_equal(back._loss.alphas, QUANTILES)


@pytest.mark.parametrize(
    "bad, match",
    [
        ([0.1, 1.0], r"every quantile must lie in the open interval \(0, 1\), got \[1.0\]"),
        ([0.0, 0.5], r"every quantile must lie in the open interval"),
        ([-0.2], r"every quantile must lie in the open interval"),
        ([0.5, np.nan], r"every quantile must lie in the open interval"),
        ([0.5, 0.1, 0.5], r"each quantile once, got \[0.5\] more than once"),
        ([], r"non-empty list"),
        ([[0.1, 0.2]], r"non-empty list"),
    ],
)
def test_bad_quantile_lists_are_refused_by_name(bad, match):
    X, y = _data(200)
    with pytest.raises(ValueError, match=r"quantile: |quantile must"):
        _hist(bad).fit(X, y)
    with pytest.raises(ValueError, match=match):
        _hist(bad).fit(X, y)
    with pytest.raises(ValueError, match="alpha"):
        _gb(bad).fit(X, y)


def test_a_list_needs_the_quantile_loss():
    X, y = _data(200)
    with pytest.raises(ValueError, match="a list of quantiles needs loss='quantile'"):
        GradientBoostingRegressor(loss="huber", alpha=[0.5, 0.9]).fit(X, y)
    with pytest.raises(ValueError, match="a list of quantiles needs loss='quantile'"):
        HistGradientBoostingRegressor(quantile=[0.5, 0.9]).fit(X, y)
    with pytest.raises(TypeError, match="quantile must be a number or a list of numbers"):
        _hist(["a", "b"]).fit(X, y)
    # monotonic constraints are of one output
    with pytest.raises(ValueError, match="several quantiles"):
        _hist(QUANTILES, monotonic_cst=[1, 0, 0, 0]).fit(X, y)


def test_a_loaded_model_with_bad_quantiles_is_refused():
    loss = MultiQuantileLoss([0.2, 0.8])
    loss.alphas = np.array([0.2, 0.2])
    with pytest.raises(ValueError, match=r"loss.alphas: each quantile once"):
        loss._validate_state("loss", 2)
    loss.alphas = np.array([0.2, 0.8])
    with pytest.raises(ValueError, match="output"):
        loss._validate_state("loss", 3)


def test_dask_booster_refuses_a_list_by_name():
    pytest.importorskip("distributed")
    from treeboost.dask import DaskHistGradientBoostingRegressor

    X, y = _data(200)
    with pytest.raises(ValueError, match=r"does not support quantile=\[0.1, 0.5, 0.9\]"):
        DaskHistGradientBoostingRegressor(loss="quantile", quantile=QUANTILES).fit(X, y)
