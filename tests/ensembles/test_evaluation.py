"""Evaluation sets, metrics, history, best iteration, num_iteration and callbacks."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from treeboost import GradientBoostingClassifier, GradientBoostingRegressor
from treeboost.callbacks import early_stopping, log_evaluation, record_evaluation

X, Y = make_regression(400, 5, noise=20.0, random_state=0)
XT, XV, YT, YV = X[:300], X[300:], Y[:300], Y[300:]
XC, YC = make_classification(400, 5, random_state=1)


def test_history_per_set_and_metric_matches_staged_predictions():
    m = GradientBoostingRegressor(n_estimators=12, random_state=0)
    m.fit(
        XT,
        YT,
        eval_set=[(XT, YT), (XV, YV)],
        eval_names=["train", "valid"],
        eval_metric=["l2", "l1"],
    )
    assert set(m.evals_result_) == {"train", "valid"}
    staged = np.array([np.mean((YV - p) ** 2) for p in m.staged_predict(XV)])
    np.testing.assert_allclose(m.evals_result_["valid"]["l2"], staged, rtol=1e-10)
    assert len(m.evals_result_["train"]["l1"]) == 12
    assert m.best_iteration_ == int(np.argmin(staged)) + 1


def test_best_iteration_prediction_is_the_shorter_model():
    m = GradientBoostingRegressor(n_estimators=40, learning_rate=0.5, random_state=0)
    m.fit(XT, YT, eval_set=[(XV, YV)], callbacks=[early_stopping(3)])
    k = m.best_iteration_
    assert k < len(m.trees_) <= 40
    short = GradientBoostingRegressor(n_estimators=k, learning_rate=0.5, random_state=0)
    short.fit(XT, YT)
    np.testing.assert_allclose(m.predict(XV, num_iteration="best"), short.predict(XV), rtol=1e-12)
    np.testing.assert_allclose(m.predict(XV, num_iteration=k), short.predict(XV), rtol=1e-12)
    np.testing.assert_allclose(m.predict(XV, num_iteration=0), m.init_score_[0])


def test_classifier_metrics_and_num_iteration():
    m = GradientBoostingClassifier(n_estimators=10, random_state=0)
    m.fit(
        XC[:300], YC[:300], eval_set=(XC[300:], YC[300:]), eval_metric=["logloss", "auc", "error"]
    )
    r = m.evals_result_["valid_0"]
    p = m.predict_proba(XC[300:], num_iteration=4)
    want = -np.mean(np.log(p[np.arange(100), YC[300:]]))
    assert r["logloss"][3] == pytest.approx(want)
    assert m.best_iteration_ == int(np.argmin(r["logloss"])) + 1
    assert (m.predict(XC[300:], num_iteration=4) == np.argmax(p, axis=1)).all()


def test_callable_metric_and_named_metric():
    def mae(y_true, raw, sample_weight):
        return float(np.average(np.abs(y_true - raw), weights=sample_weight))

    def r2(y_true, raw, sample_weight):
        return "r2", 1 - np.sum((y_true - raw) ** 2) / np.sum((y_true - y_true.mean()) ** 2), True

    m = GradientBoostingRegressor(n_estimators=6, random_state=0)
    m.fit(XT, YT, eval_set=[(XV, YV)], eval_metric=[mae, "l1", r2])
    r = m.evals_result_["valid_0"]
    np.testing.assert_allclose(r["mae"], r["l1"])
    assert r["r2"][-1] > r["r2"][0]


def test_callbacks_see_each_iteration_and_can_stop():
    seen, record = [], {}

    def stop_at_5(env):
        seen.append(env.iteration)
        return env.iteration == 4

    m = GradientBoostingRegressor(n_estimators=50, random_state=0)
    m.fit(XT, YT, eval_set=[(XV, YV)], callbacks=[stop_at_5, record_evaluation(record)])
    assert seen == [0, 1, 2, 3, 4] and len(m.trees_) == 5
    assert record == m.evals_result_


def test_log_evaluation_prints(capsys):
    GradientBoostingRegressor(n_estimators=4, random_state=0).fit(
        XT, YT, eval_set=[(XV, YV)], eval_metric="l2", callbacks=[log_evaluation(2)]
    )
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split("\t")[0] for line in lines] == ["[2]", "[4]"]
    assert lines[0].split("\t")[1].startswith("valid_0's l2: ")


def test_early_stopping_on_a_chosen_set_and_metric():
    m = GradientBoostingRegressor(n_estimators=60, learning_rate=0.5, random_state=0)
    m.fit(
        XT,
        YT,
        eval_set=[(XV, YV), (XT, YT)],
        eval_names=["valid", "train"],
        eval_metric=["l2", "l1"],
        callbacks=[early_stopping(2, "valid", "l1")],
    )
    l1 = np.asarray(m.evals_result_["valid"]["l1"])
    assert m.best_iteration_ == int(np.argmin(l1)) + 1
    assert len(l1) == m.best_iteration_ + 2


def test_existing_early_stopping_unchanged_by_eval_sets():
    a = GradientBoostingRegressor(n_estimators=200, n_iter_no_change=3, random_state=0)
    a.fit(XT, YT)
    b = GradientBoostingRegressor(n_estimators=200, n_iter_no_change=3, random_state=0)
    b.fit(XT, YT, eval_set=[(XV, YV)])
    assert a.n_estimators_ == b.n_estimators_
    np.testing.assert_array_equal(a.predict(XV), b.predict(XV))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(eval_names=["a"]), "eval_names is given without eval_set"),
        (dict(eval_set=[(XV, YV)], eval_names=["a", "b"]), "eval_names must name each"),
        (dict(eval_set=[XV]), r"eval_set\[0\] must be a pair"),
        (dict(eval_set=[(XV, YV)], eval_metric="nope"), "eval_metric='nope'"),
    ],
)
def test_bad_evaluation_arguments(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        GradientBoostingRegressor(n_estimators=2).fit(XT, YT, **kwargs)


def test_bad_num_iteration():
    m = GradientBoostingRegressor(n_estimators=3).fit(XT, YT)
    with pytest.raises(ValueError, match="num_iteration='best' needs best_iteration_"):
        m.predict(XV, num_iteration="best")
    with pytest.raises(ValueError, match=r"num_iteration must be .* \[0, 3\], got 4"):
        m.predict(XV, num_iteration=4)
