"""Bagging and AdaBoost grow treeboost trees on their shared bins, and fit any other
member (a subclass of a treeboost tree that overrides ``fit`` included) through its
own ``fit``."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

import treeboost as tb


class PlainTree(tb.DecisionTreeClassifier):
    """A subclass that keeps the base ``fit``: it grows on the shared bins."""


class OwnFitTree(tb.DecisionTreeClassifier):
    """A subclass with its own ``fit``: fitted through it, on its own bins."""

    def fit(self, X, y, sample_weight=None):
        self.own_fit_ = True
        return super().fit(X, y, sample_weight=sample_weight)


class OwnFitRegressor(tb.DecisionTreeRegressor):
    def fit(self, X, y, sample_weight=None):
        self.own_fit_ = True
        return super().fit(X, y, sample_weight=sample_weight)


def _models(tree):
    return [
        tb.BaggingClassifier(tree, n_estimators=4, random_state=0),
        tb.AdaBoostClassifier(tree, n_estimators=4, random_state=0),
        tb.AdaBoostClassifier(tree, n_estimators=4, random_state=0, boosting="resample"),
    ]


@pytest.mark.parametrize("i", range(3))
def test_plain_subclass_grows_on_the_shared_bins(i):
    X, y = make_classification(150, 5, random_state=0)
    plain = _models(PlainTree(max_depth=2))[i].fit(X, y)
    base = _models(tb.DecisionTreeClassifier(max_depth=2))[i].fit(X, y)
    for member in plain.estimators_:
        assert member.bin_mapper_ is plain.bin_mapper_
        assert not hasattr(member, "own_fit_")
    np.testing.assert_array_equal(plain.predict_proba(X), base.predict_proba(X))


@pytest.mark.parametrize("i", range(3))
def test_overridden_fit_is_called_on_the_raw_rows(i):
    X, y = make_classification(150, 5, random_state=0)
    model = _models(OwnFitTree(max_depth=2))[i].fit(X, y)
    for member in model.estimators_:
        assert member.own_fit_
        assert member.bin_mapper_ is not getattr(model, "bin_mapper_", None)
    assert model.predict(X).shape == (150,)


@pytest.mark.parametrize(
    "make",
    [
        lambda e: tb.BaggingRegressor(e, n_estimators=3, random_state=0),
        lambda e: tb.BaggingRegressor(e, n_estimators=3, random_state=0, max_features=0.6),
        lambda e: tb.AdaBoostRegressor(e, n_estimators=3, random_state=0),
        lambda e: tb.AdaBoostRegressor(e, n_estimators=3, random_state=0, boosting="reweight"),
    ],
)
def test_overridden_fit_of_a_regression_tree(make):
    X, y = make_regression(120, 5, random_state=0)
    model = make(OwnFitRegressor(max_depth=3)).fit(X, y)
    assert all(m.own_fit_ for m in model.estimators_)
    assert np.isfinite(model.predict(X)).all()
