"""The public loss API: a callable objective and a Loss subclass give the built-in
losses' models, bad gradients are refused by name, and the saved-model rules."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from treeboost import GradientBoostingClassifier, GradientBoostingRegressor
from treeboost.losses import Loss
from treeboost.losses.custom import CallableLoss

X, Y = make_regression(300, 5, noise=5.0, random_state=0)
XC, YC = make_classification(300, 5, random_state=0)
XM, YM = make_classification(300, 6, n_informative=4, n_classes=3, random_state=0)


def squared_error(y_true, raw):
    return raw - y_true, np.ones_like(raw)


def logistic(y_true, raw):
    p = 1.0 / (1.0 + np.exp(-raw))
    return p - y_true, p * (1.0 - p)


class MySquaredError(Loss):
    name = "my_squared_error"

    def pointwise(self, y, raw):
        return 0.5 * (y - raw) ** 2

    def gradient_hessian(self, y, raw):
        return raw - y, np.ones_like(raw)

    def init_raw(self, y, sample_weight):
        return float(np.average(y, weights=sample_weight))


@pytest.mark.parametrize("split_gain", ["gradient", "hessian"])
def test_callable_squared_error_is_the_builtin_model(split_gain):
    params = dict(n_estimators=20, random_state=0, split_gain=split_gain, subsample=0.8)
    a = GradientBoostingRegressor(**params).fit(X, Y)
    b = GradientBoostingRegressor(loss=squared_error, **params).fit(X, Y)
    np.testing.assert_allclose(b.predict(X), a.predict(X), rtol=1e-10, atol=1e-8)
    assert np.isnan(b.train_score_).all()  # a callable has no value


def test_callable_logistic_is_log_loss():
    a = GradientBoostingClassifier(n_estimators=20, random_state=0).fit(XC, YC)
    b = GradientBoostingClassifier(loss=logistic, n_estimators=20, random_state=0).fit(XC, YC)
    np.testing.assert_allclose(b.init_score_, a.init_score_, atol=1e-10)
    np.testing.assert_allclose(b.predict_proba(XC), a.predict_proba(XC), atol=1e-10)


def test_callable_softmax_is_multinomial_log_loss():
    def softmax_loss(y_true, raw):
        p = np.exp(raw - raw.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        onehot = np.eye(raw.shape[1])[y_true]
        # the built-in multinomial loss's hessian
        return p - onehot, p * (1.0 - p)

    a = GradientBoostingClassifier(n_estimators=10, random_state=0).fit(XM, YM)
    b = GradientBoostingClassifier(loss=softmax_loss, n_estimators=10, random_state=0)
    b.fit(XM, YM)
    assert b._loss.n_outputs == 3
    # K outputs: the built-in one scales its Newton step by (K-1)/K, a callable does not
    assert abs((b.predict(XM) == YM).mean() - (a.predict(XM) == YM).mean()) < 0.05


def test_loss_subclass_is_the_builtin_model_and_pickles():
    a = GradientBoostingRegressor(n_estimators=15, random_state=0).fit(X, Y)
    b = GradientBoostingRegressor(loss=MySquaredError(), n_estimators=15, random_state=0)
    b.fit(X, Y)
    np.testing.assert_allclose(b.predict(X), a.predict(X), rtol=1e-12)
    np.testing.assert_allclose(b.train_score_, a.train_score_ / 2.0, rtol=1e-10)
    c = pickle.loads(pickle.dumps(b))
    np.testing.assert_array_equal(c.predict(X), b.predict(X))


def test_weighted_callable_takes_sample_weight():
    seen = {}

    def weighted(y_true, raw, sample_weight):
        seen["w"] = sample_weight
        return raw - y_true, np.ones_like(raw)

    w = np.linspace(0.5, 2.0, Y.shape[0])
    a = GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, Y, sample_weight=w)
    b = GradientBoostingRegressor(loss=weighted, n_estimators=5, random_state=0)
    b.fit(X, Y, sample_weight=w)
    np.testing.assert_allclose(seen["w"], w)
    np.testing.assert_allclose(b.predict(X), a.predict(X), rtol=1e-10, atol=1e-8)


@pytest.mark.parametrize(
    "bad, match",
    [
        (lambda y, raw: (raw[:-1] - y[:-1], np.ones_like(raw[:-1])), "gradient has shape"),
        (lambda y, raw: (raw - y, np.ones((raw.shape[0], 2))), "hessian has shape"),
        (lambda y, raw: (np.full_like(raw, np.nan), np.ones_like(raw)), "gradient is not finite"),
        (lambda y, raw: (raw - y, np.full_like(raw, np.inf)), "hessian is not finite"),
        (lambda y, raw: (raw - y, -np.ones_like(raw)), "hessian must be non-negative"),
    ],
)
def test_bad_gradients_are_refused_by_name(bad, match):
    with pytest.raises(ValueError, match=f"loss=<lambda>: the {match}"):
        GradientBoostingRegressor(loss=bad, n_estimators=3).fit(X, Y)


def test_nan_gradient_of_a_subclass_is_refused():
    class Broken(MySquaredError):
        def gradient_hessian(self, y, raw):
            g, h = super().gradient_hessian(y, raw)
            g[3] = np.nan
            return g, h

    with pytest.raises(ValueError, match="loss=my_squared_error: the gradient is not finite"):
        GradientBoostingRegressor(loss=Broken(), n_estimators=3).fit(X, Y)


def test_loss_of_the_wrong_kind_is_refused():
    with pytest.raises(ValueError, match="regression loss cannot fit a classifier"):
        GradientBoostingClassifier(loss=MySquaredError(), n_estimators=2).fit(XC, YC)
    with pytest.raises(ValueError, match="has 1 output"):
        GradientBoostingClassifier(loss=CallableLoss(logistic, 1, True), n_estimators=2).fit(XM, YM)


def test_safe_format_refuses_a_callable_loss_at_save_time(tmp_path):
    from treeboost.persistence import save

    model = GradientBoostingRegressor(loss=squared_error, n_estimators=2).fit(X, Y)
    with pytest.raises(TypeError, match="model.loss: .* cannot be saved in the safe format"):
        save(model, tmp_path / "m.tbm")
    # pickle by reference: an importable function pickles, a lambda does not
    assert pickle.loads(pickle.dumps(model)).predict(X).shape == (X.shape[0],)
    model.set_params(loss=lambda y, raw: (raw - y, np.ones_like(raw))).fit(X, Y)
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(model)
