"""The parts of scikit-learn's tree and ensemble API that treeboost adds to its own."""

import numpy as np
import pytest
from sklearn import ensemble as sk
from sklearn import tree as sktree
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_iris, make_regression
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score, mean_absolute_error
from sklearn.utils.estimator_checks import parametrize_with_checks

import treeboost as tb


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def test_log_loss_is_entropy(iris):
    X, y = iris
    # (seeded: iris' petal length and width tie at the root, drawn with the seed)
    a = tb.DecisionTreeClassifier(criterion="log_loss", max_depth=3, random_state=0).fit(X, y)
    b = tb.DecisionTreeClassifier(criterion="entropy", max_depth=3, random_state=0).fit(X, y)
    g = tb.DecisionTreeClassifier(criterion="gini", max_depth=3).fit(X, y)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not np.array_equal(a.tree_.impurity, g.tree_.impurity)
    tb.RandomForestClassifier(3, criterion="log_loss", random_state=0).fit(X, y)


@pytest.mark.parametrize(
    "model",
    [
        tb.RandomForestClassifier(4, random_state=0),
        tb.BaggingClassifier(n_estimators=4, random_state=0),
        tb.AdaBoostClassifier(n_estimators=4, random_state=0),
    ],
)
def test_ensembles_are_sequences_of_their_members(iris, model):
    X, y = iris
    with pytest.raises(AttributeError):
        len(model)
    assert bool(model)
    model.fit(X, y)
    assert len(model) == len(model.estimators_)
    assert list(model) == model.estimators_
    assert model[0] is model.estimators_[0] and model[-1] is model.estimators_[-1]
    assert model[1:3] == model.estimators_[1:3]


def test_estimator_and_estimator_(iris):
    X, y = iris
    rf = tb.ExtraTreesClassifier(3, max_depth=2, random_state=0)
    assert rf.estimator.get_params()["splitter"] == "random"
    rf.fit(X, y)
    assert rf.estimator_.max_depth == 2 and rf.estimator_.random_state is None
    assert type(rf.estimator_) is type(rf.estimators_[0])
    bag = tb.BaggingClassifier(LogisticRegression(), n_estimators=2, random_state=0)
    with pytest.raises(AttributeError):
        bag.estimator_
    assert isinstance(bag.fit(X, y).estimator_, LogisticRegression)
    assert isinstance(
        tb.BaggingRegressor(n_estimators=2).fit(X, y).estimator_, tb.DecisionTreeRegressor
    )
    ada = tb.AdaBoostClassifier(n_estimators=2).fit(X, y)
    assert ada.estimator_.max_depth == 1


def _check_paths(model, X, member_paths):
    indicator, ptr = model.decision_path(X)
    assert ptr.shape == (len(model) + 1,) and ptr[0] == 0
    assert indicator.shape == (X.shape[0], ptr[-1])
    for k, path in enumerate(member_paths):
        np.testing.assert_array_equal(indicator[:, ptr[k] : ptr[k + 1]].toarray(), path.toarray())
    leaves = model.apply(X)
    assert leaves.shape == (X.shape[0], len(model))
    for k in range(len(model)):
        # the leaf is the last node on the path (the deepest id it visits)
        block = indicator[:, ptr[k] : ptr[k + 1]].toarray()
        np.testing.assert_array_equal(block[np.arange(X.shape[0]), leaves[:, k]], 1)


def test_forest_decision_path_and_apply(iris):
    X, y = iris
    rf = tb.RandomForestClassifier(4, max_depth=4, random_state=0).fit(X, y)
    _check_paths(rf, X, [t.decision_path(X) for t in rf.estimators_])
    theirs = sk.RandomForestClassifier(4, max_depth=4, random_state=0).fit(X, y)
    ind, ptr = theirs.decision_path(X)
    assert type(ind) is type(rf.decision_path(X)[0]) and ptr.dtype.kind == "i"


def test_bagging_decision_path_and_apply(iris):
    X, y = iris
    bag = tb.BaggingClassifier(n_estimators=3, random_state=0).fit(X, y)
    _check_paths(bag, X, [t.decision_path(X) for t in bag.estimators_])
    sub = tb.BaggingClassifier(n_estimators=3, max_features=0.5, random_state=0).fit(X, y)
    _check_paths(
        sub,
        X,
        [t.decision_path(X[:, f]) for t, f in zip(sub.estimators_, sub.estimators_features_)],
    )


def test_adaboost_importances_staged_decision_log_proba(iris):
    X, y = iris
    ada = tb.AdaBoostClassifier(n_estimators=6, random_state=0).fit(X, y)
    w = ada.estimator_weights_
    brute = sum(a * t.feature_importances_ for a, t in zip(w, ada.estimators_)) / w.sum()
    np.testing.assert_allclose(ada.feature_importances_, brute)
    assert ada.feature_importances_.sum() == pytest.approx(1.0)
    staged = list(ada.staged_decision_function(X))
    assert len(staged) == len(ada)
    np.testing.assert_allclose(staged[-1], ada.decision_function(X))
    np.testing.assert_allclose(ada.predict_log_proba(X), np.log(ada.predict_proba(X)))
    reg = tb.AdaBoostRegressor(n_estimators=4, random_state=0).fit(X, y.astype(float))
    assert reg.feature_importances_.shape == (4,)
    scores = list(reg.staged_score(X, y))
    assert scores[-1] == pytest.approx(reg.score(X, y))
    bare = tb.AdaBoostClassifier(LogisticRegression(), n_estimators=2).fit(X, y)
    with pytest.raises(AttributeError, match="feature_importances_"):
        bare.feature_importances_


def test_bagging_log_proba_and_decision_function(iris):
    X, y = iris
    bag = tb.BaggingClassifier(n_estimators=3, random_state=0).fit(X, y)
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(bag.predict_log_proba(X), np.log(bag.predict_proba(X)))
    assert not hasattr(bag, "decision_function")  # trees have none
    lr = tb.BaggingClassifier(
        LogisticRegression(max_iter=500), n_estimators=3, max_features=0.75, random_state=0
    ).fit(X, y)
    brute = np.mean(
        [m.decision_function(X[:, f]) for m, f in zip(lr.estimators_, lr.estimators_features_)],
        axis=0,
    )
    np.testing.assert_allclose(lr.decision_function(X), brute)


def test_forest_float_max_samples(iris):
    X, y = iris
    rf = tb.RandomForestClassifier(3, max_samples=0.4, random_state=0).fit(X, y)
    assert all(len(s) == 60 for s in rf.estimators_samples_)
    # more draws than rows, as scikit-learn 1.9: a float above 1 or an int above n
    for m in (1.5, 225):
        rf = tb.RandomForestClassifier(3, max_samples=m, random_state=0).fit(X, y)
        assert rf._n_samples_bootstrap == 225
        assert all(len(s) == 225 for s in rf.estimators_samples_)
    with pytest.raises(ValueError, match="max_samples"):
        tb.RandomForestClassifier(3, max_samples=0.0).fit(X, y)


def test_callable_oob_score(iris):
    X, y = iris
    rf = tb.RandomForestClassifier(20, oob_score=balanced_accuracy_score, random_state=0).fit(X, y)
    seen = ~np.isnan(rf.oob_decision_function_[:, 0])
    expected = balanced_accuracy_score(y[seen], np.argmax(rf.oob_decision_function_[seen], axis=1))
    assert rf.oob_score_ == pytest.approx(expected)
    Xr, yr = make_regression(100, 4, random_state=0)
    reg = tb.RandomForestRegressor(20, oob_score=mean_absolute_error, random_state=0).fit(Xr, yr)
    assert reg.oob_score_ == pytest.approx(mean_absolute_error(yr, reg.oob_prediction_))


def test_extra_tree_single_estimators(iris, tmp_path):
    X, y = iris
    ours, theirs = tb.ExtraTreeClassifier(), sktree.ExtraTreeClassifier()
    shared = set(ours.get_params()) & set(theirs.get_params())
    assert {k: ours.get_params()[k] for k in shared} == {k: theirs.get_params()[k] for k in shared}
    reg_shared = set(tb.ExtraTreeRegressor().get_params()) & set(
        sktree.ExtraTreeRegressor().get_params()
    )
    assert {k: tb.ExtraTreeRegressor().get_params()[k] for k in reg_shared} == {
        k: sktree.ExtraTreeRegressor().get_params()[k] for k in reg_shared
    }
    # random cuts: other trees than the best-split tree, each reproducible by its seed
    a = tb.ExtraTreeClassifier(max_features=None, random_state=0).fit(X, y)
    b = clone(a).fit(X, y)
    best = tb.DecisionTreeClassifier(random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    assert a.tree_.node_count != best.tree_.node_count or not np.array_equal(
        a.tree_.threshold, best.tree_.threshold
    )
    assert a.score(X, y) == 1.0
    tb.save(a, tmp_path / "et.tbm")
    np.testing.assert_array_equal(tb.load(tmp_path / "et.tbm").predict(X), a.predict(X))
    bag = tb.BaggingClassifier(tb.ExtraTreeClassifier(), n_estimators=4, random_state=0).fit(X, y)
    assert bag.score(X, y) > 0.9


# the random cut is drawn between the node's smallest and largest value: repeating a row
# instead of weighting it may change the draws, so the check passes or fails with the
# data and the cut kernel (not strict; scikit-learn marks it xfail for its ExtraTrees)
_REDRAWN = "a random cut is drawn again when rows are repeated"
_RANDOM_CUT_XFAIL = {
    "check_sample_weight_equivalence_on_dense_data": _REDRAWN,
    "check_sample_weight_equivalence_on_sparse_data": _REDRAWN,
}


@parametrize_with_checks(
    [tb.ExtraTreeClassifier(), tb.ExtraTreeRegressor()],
    expected_failed_checks=lambda est: (
        _RANDOM_CUT_XFAIL if isinstance(est, tb.ExtraTreeClassifier) else {}
    ),
)
def test_extra_tree_estimator_contract(estimator, check):
    check(estimator)


# -- warnings, messages and dtypes in scikit-learn's words -----------------------------------


class _Untagged(BaseEstimator):
    """A learner that says neither classifier nor regressor (no scikit-learn mixin)."""

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y, sample_weight=None):
        self.model_ = clone(self.estimator).fit(X, y, sample_weight=sample_weight)
        self.classes_ = getattr(self.model_, "classes_", None)
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        return self.model_.predict(X)


class _NoWeight(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.zeros(X.shape[0])


def test_untagged_learners_are_taken_at_their_word(iris):
    X, y = iris
    bag = tb.BaggingClassifier(
        _Untagged(tb.DecisionTreeClassifier()), n_estimators=3, voting="hard", random_state=0
    ).fit(X, y)
    assert bag.score(X, y) > 0.9
    ada = tb.AdaBoostRegressor(
        _Untagged(tb.DecisionTreeRegressor(max_depth=3)),
        n_estimators=3,
        boosting="reweight",
        random_state=0,
    ).fit(X, y.astype(float))
    assert ada.score(X, y) > 0.5
    with pytest.raises(ValueError, match="not a regressor"):
        tb.BaggingRegressor(LogisticRegression()).fit(X, y)
    with pytest.raises(ValueError, match="not a classifier"):
        tb.AdaBoostClassifier(tb.DecisionTreeRegressor()).fit(X, y)


@pytest.mark.parametrize(
    "model, words",
    [
        (tb.RandomForestClassifier(2, oob_score=True, random_state=0), "trees were used"),
        (
            tb.BaggingClassifier(n_estimators=2, oob_score=True, random_state=0),
            "estimators were used",
        ),
    ],
)
def test_few_members_warn_about_oob_rows(iris, model, words):
    X, y = iris
    with pytest.warns(UserWarning, match=f"Some inputs do not have OOB scores.*{words}"):
        model.fit(X, y)
    assert np.isnan(getattr(model, "oob_decision_function_")[:, 0]).any()


@pytest.mark.parametrize(
    "model",
    [
        tb.RandomForestClassifier(3, warm_start=True),
        tb.BaggingClassifier(n_estimators=3, warm_start=True),
    ],
)
def test_warm_start_without_new_members_warns(iris, model):
    X, y = iris
    first = model.fit(X, y).estimators_
    with pytest.warns(UserWarning, match="without increasing n_estimators"):
        model.fit(X, y)
    assert model.estimators_ == first


def test_sklearn_error_words(iris):
    X, y = iris
    with pytest.raises(ValueError, match="only available if bootstrap=True"):
        tb.RandomForestClassifier(oob_score=True, bootstrap=False).fit(X, y)
    with pytest.raises(ValueError, match="cannot be set if `bootstrap=False`"):
        tb.ExtraTreesClassifier(max_samples=0.5).fit(X, y)
    with pytest.raises(ValueError, match="doesn't support sample_weight"):
        tb.AdaBoostClassifier(_NoWeight()).fit(X, y)
    rf = tb.RandomForestClassifier(2, random_state=0).fit(X, y)
    et = tb.ExtraTreesClassifier(2, random_state=0).fit(X, y)  # no bootstrap
    bag = tb.BaggingClassifier(n_estimators=2, random_state=0).fit(X, y)
    np.testing.assert_array_equal(et.estimators_samples_[0], np.arange(X.shape[0]))
    for model in (rf, et, bag):
        assert all(s.dtype == np.int32 for s in model.estimators_samples_)
