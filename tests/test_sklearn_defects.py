"""Known differences from scikit-learn's behaviour, each fixed and pinned here."""

import warnings

import numpy as np
import pytest
from sklearn import ensemble as sk
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.datasets import load_iris, make_classification, make_regression
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor as SkTreeRegressor
from sklearn.utils import get_tags

import treeboost as tb


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


# -- 1. AdaBoost with a huge learning rate ------------------------------------------------------


def test_adaboost_huge_learning_rate_stops_without_nan(iris):
    X, y = iris
    with pytest.warns(UserWarning, match="boosting stopped"):
        clf = tb.AdaBoostClassifier(learning_rate=23, random_state=0).fit(X, y)
    assert np.all(np.isfinite(clf.estimator_weights_))
    assert np.all(np.isfinite(clf.predict_proba(X)))
    assert len(clf.estimators_) < 50


# -- 2. min_samples_split=1 ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "est",
    [
        tb.DecisionTreeClassifier(min_samples_split=1),
        tb.ExtraTreeClassifier(min_samples_split=1),
        tb.RandomForestClassifier(2, min_samples_split=1),
    ],
)
def test_min_samples_split_int_one_is_refused(iris, est):
    X, y = iris
    with pytest.raises(ValueError, match="min_samples_split"):
        est.fit(X, y)


def test_min_samples_split_float_one_is_a_fraction(iris):
    X, y = iris
    # 1.0 = all the samples: only the root may split
    tree = tb.DecisionTreeClassifier(min_samples_split=1.0).fit(X, y)
    assert tree.get_depth() == 1


# -- 3. a subclass that overrides fit -----------------------------------------------------------


class CountingTree(tb.DecisionTreeClassifier):
    calls = 0

    def fit(self, X, y, sample_weight=None):
        type(self).calls += 1
        return super().fit(X, y, sample_weight=sample_weight)


@pytest.mark.parametrize(
    "make",
    [
        lambda e: tb.BaggingClassifier(e, n_estimators=3, random_state=0),
        lambda e: tb.AdaBoostClassifier(e, n_estimators=3, random_state=0),
    ],
)
def test_overridden_fit_is_called(iris, make):
    X, y = iris
    CountingTree.calls = 0
    model = make(CountingTree(max_depth=1)).fit(X, y)
    assert CountingTree.calls == len(model.estimators_) > 0
    assert model.score(X, y) > 0.6


def test_plain_tree_keeps_the_shared_bins(iris):
    X, y = iris
    bag = tb.BaggingClassifier(tb.DecisionTreeClassifier(), n_estimators=3, random_state=0).fit(
        X, y
    )
    ada = tb.AdaBoostClassifier(n_estimators=3, random_state=0).fit(X, y)
    for model in (bag, ada):
        assert all(m.bin_mapper_ is model.bin_mapper_ for m in model.estimators_)


# -- 4. out-of-bag results of an earlier fit ----------------------------------------------------


@pytest.mark.parametrize(
    "model",
    [
        tb.RandomForestClassifier(10, random_state=0),
        tb.BaggingClassifier(n_estimators=10, random_state=0),
        tb.RandomForestRegressor(10, random_state=0),
    ],
)
def test_refit_drops_old_oob_results(iris, model):
    X, y = iris
    model.set_params(oob_score=True).fit(X, y)
    assert hasattr(model, "oob_score_")
    model.set_params(oob_score=False).fit(X, y)
    for name in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
        assert not hasattr(model, name)
    model.set_params(oob_score=True).fit(X[:100], y[:100])
    oob = getattr(model, "oob_decision_function_", getattr(model, "oob_prediction_", None))
    assert oob.shape[0] == 100


# -- 5. tags follow the member -------------------------------------------------------------------


@pytest.mark.parametrize("cls", [tb.BaggingClassifier, tb.AdaBoostClassifier])
def test_allow_nan_tag_follows_the_member(cls):
    assert get_tags(cls()).input_tags.allow_nan
    assert get_tags(cls(tb.DecisionTreeClassifier())).input_tags.allow_nan
    assert not get_tags(cls(LogisticRegression())).input_tags.allow_nan


# -- 6. nested random states of bagging's members -----------------------------------------------


def test_bagging_sets_nested_random_states_like_sklearn():
    X, y = make_regression(80, 5, random_state=0)
    member = make_pipeline(StandardScaler(), SkTreeRegressor(max_features=0.5))
    ours = tb.BaggingRegressor(member, n_estimators=4, random_state=3).fit(X, y)
    theirs = sk.BaggingRegressor(member, n_estimators=4, random_state=3).fit(X, y)
    key = "decisiontreeregressor__random_state"
    seeds = [m.get_params()[key] for m in ours.estimators_]
    assert seeds == [m.get_params()[key] for m in theirs.estimators_]
    assert all(isinstance(s, int) for s in seeds)
    # a member refitted alone on its sample grows the same model
    rows, feats = ours.estimators_samples_[0], ours.estimators_features_[0]
    refit = clone(ours.estimators_[0]).fit(X[rows][:, feats], y[rows])
    np.testing.assert_array_equal(
        refit.predict(X[:, feats]), ours.estimators_[0].predict(X[:, feats])
    )


# -- 7. a forest member refitted alone ------------------------------------------------------------


@pytest.mark.parametrize("cls", [tb.RandomForestClassifier, tb.ExtraTreesClassifier])
def test_forest_member_refitted_alone_grows_the_same_tree(cls):
    X, y = make_classification(300, 10, n_informative=5, random_state=0)
    forest = cls(n_estimators=3, max_features=0.5, bootstrap=False, random_state=0).fit(X, y)
    for member in forest.estimators_:
        alone = clone(member).fit(X, y)
        assert alone.tree_.node_count == member.tree_.node_count
        np.testing.assert_array_equal(alone.tree_.feature, member.tree_.feature)
        np.testing.assert_array_equal(alone.tree_.threshold, member.tree_.threshold)


# -- 8. AdaBoost.R2 resampling passes no weights --------------------------------------------------


class WeightRecorder(RegressorMixin, BaseEstimator):
    def fit(self, X, y, sample_weight=None):
        self.got_weight_ = sample_weight is not None
        self.n_rows_ = X.shape[0]
        self.model_ = LinearRegression().fit(X, y)
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        return self.model_.predict(X)


def test_adaboost_regressor_resample_fits_without_weights():
    X, y = make_regression(60, 3, noise=5.0, random_state=0)
    model = tb.AdaBoostRegressor(
        WeightRecorder(), n_estimators=3, boosting="resample", random_state=0
    ).fit(X, y)
    assert not any(m.got_weight_ for m in model.estimators_)
    assert all(m.n_rows_ == 60 for m in model.estimators_)
    model = tb.AdaBoostRegressor(
        WeightRecorder(), n_estimators=3, boosting="reweight", random_state=0
    ).fit(X, y)
    assert all(m.got_weight_ for m in model.estimators_)


# -- 9. SAMME's decision function and probabilities ------------------------------------------------


def _sklearn_twin(model):
    """A scikit-learn AdaBoostClassifier holding ``model``'s fitted members and weights."""
    twin = sk.AdaBoostClassifier()
    twin.estimators_ = list(model.estimators_)
    twin.estimator_weights_ = np.asarray(model.estimator_weights_)
    twin.estimator_errors_ = np.asarray(model.estimator_errors_)
    twin.classes_ = model.classes_
    twin.n_classes_ = model.n_classes_
    twin.n_features_in_ = model.n_features_in_
    twin.estimator_ = model.estimators_[0]
    return twin


@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_adaboost_decision_and_proba_match_sklearn(n_classes):
    X, y = make_classification(200, 6, n_informative=4, n_classes=n_classes, random_state=n_classes)
    model = tb.AdaBoostClassifier(n_estimators=8, random_state=0).fit(X, y)
    twin = _sklearn_twin(model)
    np.testing.assert_allclose(model.decision_function(X), twin.decision_function(X), atol=1e-12)
    np.testing.assert_allclose(model.predict_proba(X), twin.predict_proba(X), atol=1e-12)
    np.testing.assert_array_equal(model.predict(X), twin.predict(X))
    for ours, theirs in zip(model.staged_predict_proba(X), twin.staged_predict_proba(X)):
        np.testing.assert_allclose(ours, theirs, atol=1e-12)


def test_adaboost_matches_sklearn_when_the_stumps_agree(iris):
    # on iris both grow the same stumps (same learner weights): same probabilities
    X, y = iris
    ours = tb.AdaBoostClassifier(n_estimators=10, random_state=0).fit(X, y)
    theirs = sk.AdaBoostClassifier(n_estimators=10, random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.estimator_weights_, theirs.estimator_weights_)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours.predict_proba(X)
