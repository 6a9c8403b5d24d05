"""A fitted model is never half-updated: a predict in one thread while another thread refits
the same estimator sees the old model or the new one, never a mixture (it used to read the
new number of outputs with the old packed trees and write past its buffer)."""

import threading
import time
import warnings

import numpy as np
import pytest

import treeboost
from treeboost.engine.predict.tree import PackedTrees

rng = np.random.RandomState(0)
X = rng.normal(size=(400, 4))
Y3 = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)  # three classes
Y2 = (X[:, 2] > 0).astype(int)  # two classes, another feature

MODELS = {
    "GradientBoostingClassifier": dict(n_estimators=5, max_leaf_nodes=8),
    "RandomForestClassifier": dict(n_estimators=8, max_depth=5),
    "AdaBoostClassifier": dict(n_estimators=8),
    "BaggingClassifier": dict(n_estimators=5),
    "DecisionTreeClassifier": dict(max_depth=5),
}


def _race(model, refit, check, seconds=0.4):
    """Run ``check(model)`` in a loop in a thread while this thread runs ``refit(i)``;
    return the problems the checker met."""
    problems = []
    done = threading.Event()

    def reader():
        while not done.is_set():
            try:
                problem = check(model)
            except Exception as exc:  # noqa: BLE001 - reported below
                problem = repr(exc)
            if problem:
                problems.append(problem)

    thread = threading.Thread(target=reader)
    thread.start()
    stop, i = time.perf_counter() + seconds, 0
    try:
        while time.perf_counter() < stop or i < 4:
            refit(i)
            i += 1
    finally:
        done.set()
        thread.join()
    return problems


@pytest.mark.parametrize("name", MODELS)
def test_predict_during_refit_sees_the_old_or_the_new_model(name):
    cls = getattr(treeboost, name)
    params = dict(MODELS[name], random_state=0)
    expected = [cls(**params).fit(X, y) for y in (Y3, Y2)]
    outputs = [(m.predict(X), m.predict_proba(X)) for m in expected]
    model = cls(**params).fit(X, Y3)

    def check(m):
        proba = m.predict_proba(X)
        for pred, ref in outputs:
            if proba.shape == ref.shape and np.allclose(proba, ref, rtol=0, atol=1e-12):
                return None
        return f"a mixture: probabilities of shape {proba.shape} match neither model"

    problems = _race(model, lambda i: model.fit(X, Y2 if i % 2 == 0 else Y3), check)
    assert not problems, problems[:3]


def test_warm_start_during_predict_and_a_failed_refit_keep_a_whole_model():
    params = dict(n_estimators=5, max_leaf_nodes=8, random_state=0, warm_start=True)
    model = treeboost.GradientBoostingRegressor(**params).fit(X, X[:, 0])
    staged = [
        p.copy()
        for p in treeboost.GradientBoostingRegressor(
            **dict(params, n_estimators=20, warm_start=False)
        )
        .fit(X, X[:, 0])
        .staged_predict(X)
    ]

    def check(m):
        pred = m.predict(X)
        if not any(np.allclose(pred, s, rtol=0, atol=1e-12) for s in staged[4::5]):
            return "a prediction between two warm-start fits"
        return None

    def grow(i):
        model.set_params(n_estimators=min(20, 10 + 5 * i)).fit(X, X[:, 0])

    problems = _race(model, grow, check, seconds=0.2)
    assert not problems, problems[:3]
    before = model.predict(X)
    bad_y = X[:, 0].copy()
    bad_y[3] = np.nan
    with pytest.raises(ValueError):
        model.set_params(warm_start=False).fit(X, bad_y)
    np.testing.assert_array_equal(model.predict(X), before)  # the old model, whole


def test_packed_trees_are_keyed_on_the_trees_and_check_their_buffers():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = treeboost.GradientBoostingClassifier(n_estimators=3, random_state=0).fit(X, Y3)
        b = treeboost.GradientBoostingClassifier(n_estimators=3, random_state=1, subsample=0.5).fit(
            X, Y3
        )
    packed_a = a._packer()
    # the other model's trees, as many of them: the cache must not answer for them
    a.__dict__["trees_"] = b.trees_
    assert a._packer() is not packed_a
    assert b._packer().n_outputs_used == 3
    with pytest.raises(ValueError, match="out must be"):
        packed_a.predict(X, 1, out=np.zeros((X.shape[0], 1)))
    with pytest.raises(ValueError, match="columns"):
        packed_a.predict(X[:, :1], 3)
    assert isinstance(packed_a, PackedTrees)
