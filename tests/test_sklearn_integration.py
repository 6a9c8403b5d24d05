"""treeboost estimators inside scikit-learn's machinery: Pipelines, GridSearchCV (on
threads and on worker processes), nested parameters, cross_val_predict, pickling, and a
pandas frame with categorical columns going through all of it."""

import pickle

import numpy as np
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.model_selection import GridSearchCV, KFold, cross_val_predict, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import treeboost as tb

X, y = load_breast_cancer(return_X_y=True)


def test_pipeline_scores_as_the_bare_estimator_on_scaled_input():
    """Trees split on order only: scaling first changes nothing but the thresholds."""
    bare = tb.GradientBoostingClassifier(n_estimators=20, random_state=0).fit(X, y)
    pipe = make_pipeline(
        StandardScaler(), tb.GradientBoostingClassifier(n_estimators=20, random_state=0)
    ).fit(X, y)
    np.testing.assert_allclose(pipe.predict_proba(X), bare.predict_proba(X))
    assert pipe.score(X, y) == bare.score(X, y)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_grid_search_over_nested_parameters(n_jobs):
    """``estimator__max_depth`` reaches the trees inside Bagging; with ``n_jobs=2`` the
    candidates are pickled to joblib's worker processes and the result is the same."""
    grid = GridSearchCV(
        tb.BaggingClassifier(tb.DecisionTreeClassifier(), n_estimators=5, random_state=0),
        {"estimator__max_depth": [1, 4], "max_samples": [0.5, 1.0]},
        cv=3,
        n_jobs=n_jobs,
    )
    grid.fit(X, y)
    assert grid.best_params_["estimator__max_depth"] == 4
    scores = grid.cv_results_["mean_test_score"]
    ref = [
        cross_val_score(
            tb.BaggingClassifier(
                tb.DecisionTreeClassifier(max_depth=d),
                n_estimators=5,
                max_samples=s,
                random_state=0,
            ),
            X,
            y,
            cv=3,
        ).mean()
        for d in (1, 4)
        for s in (0.5, 1.0)
    ]
    np.testing.assert_allclose(scores, ref)
    assert grid.best_estimator_.estimators_[0].get_depth() <= 4


def test_cross_val_predict_probabilities_and_regression():
    proba = cross_val_predict(
        tb.RandomForestClassifier(n_estimators=10, random_state=0),
        X,
        y,
        cv=3,
        method="predict_proba",
    )
    assert proba.shape == (len(y), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.mean(np.argmax(proba, axis=1) == y) > 0.9
    Xd, yd = load_diabetes(return_X_y=True)
    pred = cross_val_predict(
        tb.GradientBoostingRegressor(n_estimators=50, random_state=0),
        Xd,
        yd,
        cv=KFold(3, shuffle=True, random_state=0),
    )
    assert np.corrcoef(pred, yd)[0, 1] > 0.5


@pytest.mark.parametrize(
    "make",
    [
        lambda: tb.DecisionTreeClassifier(max_depth=4),
        lambda: tb.RandomForestClassifier(n_estimators=5, oob_score=True, random_state=0),
        lambda: tb.AdaBoostClassifier(n_estimators=5, random_state=0),
        lambda: tb.GradientBoostingClassifier(n_estimators=5, random_state=0),
    ],
)
def test_pickled_model_predicts_the_same(make):
    model = make().fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))


def test_pandas_frame_with_categories_through_a_column_transformer_and_grid_search():
    """A frame whose category column is split by category sets in the tree, the numeric
    columns scaled by a ColumnTransformer that keeps the frame (``set_output``)."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    n = 600
    colour = rng.choice(["red", "green", "blue", "grey"], n)
    size = rng.normal(size=n)
    df = pd.DataFrame({"colour": pd.Categorical(colour), "size": size, "noise": rng.normal(size=n)})
    target = ((np.isin(colour, ["red", "grey"])) ^ (size > 0.5)).astype(int)
    pre = ColumnTransformer(
        [("num", StandardScaler(), ["size", "noise"])],
        remainder="passthrough",
        verbose_feature_names_out=False,
    )
    pre.set_output(transform="pandas")
    pipe = make_pipeline(
        pre, tb.DecisionTreeClassifier(categorical_features="auto", random_state=0)
    )
    grid = GridSearchCV(pipe, {"decisiontreeclassifier__max_depth": [1, 3]}, cv=3).fit(df, target)
    assert grid.best_params_ == {"decisiontreeclassifier__max_depth": 3}
    assert grid.best_score_ > 0.95
    tree = grid.best_estimator_[-1]
    assert list(tree.feature_names_in_) == ["size", "noise", "colour"]
    assert tree.tree_.is_categorical.any()
