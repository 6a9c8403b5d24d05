"""AdaBoost with a learning rate large enough to overflow the sample weights stops boosting
with a warning (as scikit-learn does) instead of building NaN learner weights."""

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_regression

import treeboost


def test_large_learning_rate_on_iris_stops_before_the_weights_overflow(tmp_path):
    X, y = load_iris(return_X_y=True)
    with pytest.warns(UserWarning, match="boosting stopped at round 2 of 50"):
        model = treeboost.AdaBoostClassifier(learning_rate=23, random_state=0).fit(X, y)
    weights = model.estimator_weights_
    assert len(model.estimators_) == len(weights) == len(model.estimator_errors_) == 2
    assert np.all(np.isfinite(weights)) and np.all(weights > 0)
    proba = model.predict_proba(X)
    assert np.all(np.isfinite(proba))
    pred = model.predict(X)
    assert np.unique(pred).size >= 2  # it predicted one class before
    assert np.mean(pred == y) >= 0.66  # scikit-learn's AdaBoost: 0.667
    path = tmp_path / "ada.tbm"
    model.save(path)
    np.testing.assert_array_equal(treeboost.load(path).predict(X), pred)


@pytest.mark.parametrize("learning_rate", [1e200, 1e308])
def test_learner_weight_that_would_overflow(learning_rate):
    """A learner weight (or the sum of them) that would not be finite is not added; the
    first learner then gets weight 1 (the vote only depends on the weights' ratios)."""
    X, y = load_iris(return_X_y=True)
    with pytest.warns(UserWarning, match="boosting stopped"):
        model = treeboost.AdaBoostClassifier(learning_rate=learning_rate, random_state=0).fit(X, y)
    assert np.all(np.isfinite(model.estimator_weights_))
    assert np.sum(model.estimator_weights_) < 1e300
    assert np.all(np.isfinite(model.predict_proba(X)))
    assert np.unique(model.predict(X)).size >= 2


def test_regressor_with_a_huge_learning_rate_predicts_finite_values():
    X, y = make_regression(120, 4, random_state=0)
    with pytest.warns(UserWarning, match="boosting stopped"):
        model = treeboost.AdaBoostRegressor(learning_rate=1e300, random_state=0).fit(X, y)
    assert np.all(np.isfinite(model.estimator_weights_))
    assert np.all(np.isfinite(model.predict(X)))
