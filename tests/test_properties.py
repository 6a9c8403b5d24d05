"""Invariants checked on random data (hypothesis), and thread safety."""

import threading

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st
from sklearn.base import clone

from treeboost import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
)

SETTINGS = dict(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def dataset(draw, n_classes=3):
    n = draw(st.integers(8, 40))
    d = draw(st.integers(1, 4))
    X = np.array(
        draw(
            st.lists(
                st.lists(st.integers(-3, 3).map(float), min_size=d, max_size=d),
                min_size=n,
                max_size=n,
            )
        )
    )
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    return X, y


@settings(**SETTINGS)
@given(data=dataset())
def test_predict_proba_rows_are_distributions(data):
    X, y = data
    if len(np.unique(y)) < 2:
        return
    for est in (
        DecisionTreeClassifier(max_depth=3),
        GradientBoostingClassifier(n_estimators=3, min_samples_leaf=1),
    ):
        p = est.fit(X, y).predict_proba(X)
        assert np.all((p >= 0) & (p <= 1))
        np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)


@settings(**SETTINGS)
@given(data=dataset(), seed=st.integers(0, 1000))
def test_predictions_do_not_depend_on_row_order(data, seed):
    X, y = data
    perm = np.random.RandomState(seed).permutation(len(y))
    for est in (DecisionTreeClassifier(max_bins=None), DecisionTreeRegressor(max_bins=None)):
        a = clone(est).fit(X, y).predict(X)
        b = clone(est).fit(X[perm], y[perm]).predict(X)
        np.testing.assert_allclose(a, b)


@settings(**SETTINGS)
@given(data=dataset(), reps=st.integers(2, 3))
def test_duplicating_rows_equals_multiplying_weights(data, reps):
    X, y = data
    for est in (DecisionTreeClassifier(max_bins=None), DecisionTreeRegressor(max_bins=None)):
        a = clone(est).fit(np.repeat(X, reps, axis=0), np.repeat(y, reps)).predict(X)
        b = clone(est).fit(X, y, sample_weight=np.full(len(y), float(reps))).predict(X)
        np.testing.assert_allclose(a, b)


@settings(**SETTINGS)
@given(data=dataset())
def test_monotone_transform_keeps_the_partition(data):
    X, y = data
    f = lambda v: np.exp(v) * 3 + 1  # noqa: E731  strictly increasing
    a = DecisionTreeClassifier(max_bins=None, random_state=0).fit(X, y)
    b = DecisionTreeClassifier(max_bins=None, random_state=0).fit(f(X), y)
    np.testing.assert_array_equal(a.apply(X), b.apply(f(X)))


def test_predicting_from_eight_threads_matches_serial():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(3000, 8))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    models = [
        DecisionTreeClassifier().fit(X, y),
        GradientBoostingClassifier(n_estimators=20).fit(X, y),
    ]
    for model in models:
        expected = model.predict_proba(X)
        results = [None] * 8

        def work(i):
            results[i] = model.predict_proba(X)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for r in results:
            np.testing.assert_array_equal(r, expected)


def test_fitting_two_models_at_once_in_threads():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(2000, 6))
    y = X[:, 0] * 2 + rng.normal(size=2000)
    ests = [
        GradientBoostingRegressor(n_estimators=10, random_state=0),
        DecisionTreeRegressor(max_depth=6),
    ]
    serial = [clone(e).fit(X, y).predict(X) for e in ests]
    fitted = [None, None]

    def work(i):
        fitted[i] = clone(ests[i]).fit(X, y)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for model, expected in zip(fitted, serial):
        np.testing.assert_array_equal(model.predict(X), expected)
