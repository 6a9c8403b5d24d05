"""Boosting at the edges of float64: tiny and huge targets, and fits that diverge."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_regression
from sklearn.metrics import r2_score

from treeboost import GradientBoostingRegressor

X, Y = make_regression(n_samples=1000, n_features=5, noise=1.0, random_state=0)
TRAIN, TEST = slice(0, 700), slice(700, None)


@pytest.mark.parametrize("split_gain", ["hessian", "gradient"])
@pytest.mark.parametrize("loss", ["squared_error", "huber"])
def test_a_tiny_target_is_learned_as_well_as_the_unit_target(loss, split_gain):
    """Gradient boosting is scale-equivariant in y: a target times 1e-9 or 1e-10 gives the
    same test R^2 (no absolute tolerance on gains, deltas or leaf values)."""
    r2 = []
    for scale in (1.0, 1e-9, 1e-10):
        m = GradientBoostingRegressor(
            loss=loss, n_estimators=50, split_gain=split_gain, random_state=0
        )
        m.fit(X[TRAIN], Y[TRAIN] * scale)
        r2.append(r2_score(Y[TEST] * scale, m.predict(X[TEST])))
    assert r2[0] > 0.9
    assert max(r2) - min(r2) <= 0.01, r2


@pytest.mark.parametrize("loss", ["squared_error", "huber"])
def test_a_target_whose_loss_overflows_is_refused(loss):
    """The squared error of a target near 1e300 is not a float64: refused by name instead
    of an infinite training loss."""
    with pytest.raises(ValueError, match=rf"y is too large for loss='{loss}'.*overflows"):
        GradientBoostingRegressor(loss=loss, n_estimators=5).fit(X, Y * 1e300)


@pytest.mark.parametrize("loss", ["absolute_error", "quantile"])
def test_a_huge_target_is_learned_by_the_losses_linear_in_y(loss):
    """Absolute error and quantile loss stay finite near 1e300 (their gradients are
    bounded): the fit works and predicts the target's shape."""
    m = GradientBoostingRegressor(loss=loss, n_estimators=20, alpha=0.5).fit(X, Y * 1e300)
    pred = m.predict(X)
    assert np.all(np.isfinite(pred)) and np.all(np.isfinite(m.train_score_))
    assert np.corrcoef(pred / 1e300, Y)[0, 1] > 0.9


def _fit_warning(model, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(*args)
    return [w for w in caught if issubclass(w.category, RuntimeWarning)]


def test_a_diverging_fit_stops_and_keeps_the_last_finite_iteration():
    x, y = X[:300], Y[:300]
    m = GradientBoostingRegressor(learning_rate=10, n_estimators=400, random_state=0)
    caught = _fit_warning(m, x, y)
    assert len(caught) == 1 and "diverged" in str(caught[0].message)
    assert 0 < m.n_estimators_ < 400
    assert len(m.trees_) == len(m.train_score_) == m.n_estimators_
    assert np.all(np.isfinite(m.train_score_))
    assert np.all(np.isfinite(m.predict(x)))
    # the kept iterations are those of a fit that stops there by itself
    same = GradientBoostingRegressor(learning_rate=10, n_estimators=m.n_estimators_, random_state=0)
    assert not _fit_warning(same, x, y)
    np.testing.assert_array_equal(same.predict(x), m.predict(x))


def test_divergence_is_also_caught_with_a_validation_split_and_at_the_first_iteration():
    x, y = X[:300], Y[:300]
    m = GradientBoostingRegressor(
        learning_rate=10, n_estimators=400, n_iter_no_change=400, random_state=0
    )
    assert _fit_warning(m, x, y)
    assert len(m.validation_score_) == len(m.train_score_) == m.n_estimators_ < 400
    assert np.all(np.isfinite(m.validation_score_)) and np.all(np.isfinite(m.predict(x)))
    # nothing finite after the initial score: the model is the constant initial score
    first = GradientBoostingRegressor(learning_rate=1e300, n_estimators=5)
    assert _fit_warning(first, x, y)
    assert first.n_estimators_ == 0 and first.train_score_.shape == (0,)
    np.testing.assert_array_equal(first.predict(x), np.full(len(x), np.mean(y)))


def test_a_refused_target_leaves_the_estimator_unfitted():
    from sklearn.exceptions import NotFittedError

    m = GradientBoostingRegressor(n_estimators=5)
    with pytest.raises(ValueError, match="too large"):
        m.fit(X, Y * 1e300)
    assert not hasattr(m, "trees_") and not hasattr(m, "bin_mapper_")
    with pytest.raises(NotFittedError):
        m.predict(X)
    # a warm start onto a target the fitted scores cannot follow is refused as well
    m = GradientBoostingRegressor(n_estimators=5, warm_start=True).fit(X, Y)
    before = m.predict(X)
    with pytest.raises(ValueError, match="too large"):
        m.set_params(n_estimators=10).fit(X, Y * 1e300)
    np.testing.assert_array_equal(m.predict(X), before)


def test_a_diverged_model_saves_and_loads(tmp_path):
    import treeboost

    x, y = X[:300], Y[:300]
    for lr in (10, 1e300):  # some iterations kept; none kept
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            m = GradientBoostingRegressor(learning_rate=lr, n_estimators=400).fit(x, y)
        treeboost.save(m, tmp_path / "m.tbm")
        loaded = treeboost.load(tmp_path / "m.tbm")
        assert loaded.n_estimators_ == m.n_estimators_
        np.testing.assert_array_equal(loaded.predict(x), m.predict(x))


def test_huge_uniform_weights_grow_the_trees_of_unit_weights():
    """Weights near 1e297 scale every gradient and hessian alike: the split gains are
    computed as G (G/(H+l)) so that G^2 does not overflow, and the model is the one of
    unit weights (a model of single leaves would mean the gains overflowed)."""
    from treeboost import GradientBoostingClassifier

    rng = np.random.RandomState(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=400) > 0).astype(int)
    unit = GradientBoostingClassifier(n_estimators=10, split_gain="hessian", random_state=0).fit(
        X, y
    )
    huge = GradientBoostingClassifier(n_estimators=10, split_gain="hessian", random_state=0).fit(
        X, y, sample_weight=np.full(400, 1e297)
    )
    assert max(t.node_count for stage in huge.trees_ for t in stage) > 1
    np.testing.assert_allclose(
        huge.decision_function(X), unit.decision_function(X), rtol=1e-6, atol=1e-6
    )
