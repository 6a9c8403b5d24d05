"""Each loss: derivatives against finite differences, initial scores and leaf values
against brute-force minimisation."""
import numpy as np
import pytest

from treeboost.losses import (AbsoluteError, BinaryLogLoss, HuberLoss, MultinomialLogLoss,
                              QuantileLoss, SquaredError)
from treeboost.losses.base import LeafSamples, grouped_weighted_quantile, weighted_quantile

rng = np.random.RandomState(0)
Y_REG = rng.normal(size=40) * 3
Y_BIN = (rng.rand(40) < 0.4).astype(float)
W = rng.randint(1, 4, size=40).astype(float)


def _huber():
    loss = HuberLoss(alpha=0.8)
    loss.update_delta(Y_REG, np.zeros_like(Y_REG), W)
    return loss


SMOOTH = [(SquaredError(), Y_REG), (BinaryLogLoss(), Y_BIN), (_huber(), Y_REG)]


@pytest.mark.parametrize("loss, y", SMOOTH, ids=lambda v: type(v).__name__)
def test_gradient_and_hessian_match_finite_differences(loss, y):
    raw = np.random.RandomState(1).normal(size=y.shape) * 2
    eps = 1e-6
    g, h = loss.gradient_hessian(y, raw)
    num_g = (loss.pointwise(y, raw + eps) - loss.pointwise(y, raw - eps)) / (2 * eps)
    np.testing.assert_allclose(g, num_g, rtol=1e-5, atol=1e-6)
    if not isinstance(loss, HuberLoss):  # Huber's second derivative jumps at +-delta
        num_h = (loss.gradient_hessian(y, raw + eps)[0]
                 - loss.gradient_hessian(y, raw - eps)[0]) / (2 * eps)
        np.testing.assert_allclose(h, num_h, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("loss", [AbsoluteError(), QuantileLoss(0.3)], ids=lambda v: v.name)
def test_subgradient_of_piecewise_linear_losses(loss):
    raw = np.random.RandomState(2).normal(size=40) * 3
    eps = 1e-7
    g, h = loss.gradient_hessian(Y_REG, raw)
    num = (loss.pointwise(Y_REG, raw + eps) - loss.pointwise(Y_REG, raw - eps)) / (2 * eps)
    np.testing.assert_allclose(g, num, atol=1e-5)
    assert np.all(h == 1.0)


def test_multinomial_gradient_and_hessian():
    K = 3
    y = np.random.RandomState(0).randint(0, K, size=30)
    raw = np.random.RandomState(1).normal(size=(30, K))
    loss = MultinomialLogLoss(K)
    g, h = loss.gradient_hessian(y, raw)
    eps = 1e-6
    for k in range(K):
        d = np.zeros(K)
        d[k] = eps
        num = (loss.pointwise(y, raw + d) - loss.pointwise(y, raw - d)) / (2 * eps)
        np.testing.assert_allclose(g[:, k], num, rtol=1e-5, atol=1e-7)
        num_h = (loss.gradient_hessian(y, raw + d)[0][:, k]
                 - loss.gradient_hessian(y, raw - d)[0][:, k]) / (2 * eps)
        np.testing.assert_allclose(h[:, k], num_h, rtol=1e-4, atol=1e-7)


def _samples(leaf, n_nodes, y, raw, g, h, w=W, l2=0.0, rows=None):
    rows = np.arange(len(y)) if rows is None else rows
    return LeafSamples(leaf, n_nodes, rows, y, raw, w, g, h, l2)


def _brute_min(f, candidates):
    vals = [f(c) for c in candidates]
    return candidates[int(np.argmin(vals))], min(vals)


@pytest.mark.parametrize("loss, y", [(SquaredError(), Y_REG), (AbsoluteError(), Y_REG),
                                     (QuantileLoss(0.25), Y_REG), (BinaryLogLoss(), Y_BIN)],
                         ids=lambda v: getattr(v, "name", "y"))
def test_initial_score_minimises_the_weighted_loss(loss, y):
    init = loss.init_raw(y, W)
    grid = np.linspace(init - 2, init + 2, 4001)
    if loss.name in ("absolute_error", "quantile"):
        grid = np.concatenate([grid, y])    # the optimum is a data point
    best, best_val = _brute_min(lambda c: loss(y, np.full_like(y, c), W), grid)
    assert loss(y, np.full_like(y, init), W) <= best_val + 1e-9


@pytest.mark.parametrize("loss", [SquaredError(), AbsoluteError(), QuantileLoss(0.7)],
                         ids=lambda v: v.name)
def test_leaf_values_minimise_the_loss_in_each_leaf(loss):
    raw = np.random.RandomState(3).normal(size=40)
    leaf = np.random.RandomState(4).randint(0, 4, size=40)
    g, h = loss.gradient_hessian(Y_REG, raw)
    values = loss.leaf_values(_samples(leaf, 4, Y_REG, raw, g, h))
    for l in range(4):
        m = leaf == l
        f = lambda c: loss(Y_REG[m], raw[m] + c, W[m])  # noqa: E731
        cands = np.concatenate([np.linspace(-5, 5, 2001), Y_REG[m] - raw[m]])
        best, best_val = _brute_min(f, cands)
        assert f(values[l]) <= best_val + 1e-9


def test_log_loss_newton_step_is_the_taylor_formula_and_lowers_the_loss():
    """The log-loss leaf value is one Newton step, sum r / sum p(1-p): not the exact
    minimiser, but it lowers the loss of the leaf."""
    raw = np.zeros(40)
    loss = BinaryLogLoss()
    g, h = loss.gradient_hessian(Y_BIN, raw)
    step = -np.sum(W * g) / np.sum(W * h)
    p = 0.5
    assert step == pytest.approx(np.sum(W * (Y_BIN - p)) / np.sum(W * p * (1 - p)))
    assert loss(Y_BIN, raw + step, W) < loss(Y_BIN, raw, W)


def test_huber_leaf_is_friedmans_m_treeboost_step():
    loss = _huber()
    raw = np.zeros_like(Y_REG)
    leaf = np.zeros(40, dtype=int)
    g, h = loss.gradient_hessian(Y_REG, raw)
    value = loss.leaf_values(_samples(leaf, 1, Y_REG, raw, g, h))[0]
    r = Y_REG - raw
    med = weighted_quantile(r, W, 0.5)
    expected = med + np.average(np.sign(r - med) * np.minimum(loss.delta, np.abs(r - med)),
                                weights=W)
    assert value == pytest.approx(expected)
    assert loss.delta == pytest.approx(weighted_quantile(np.abs(r), W, 0.8))


def test_grouped_quantile_equals_per_group_quantile():
    rng = np.random.RandomState(5)
    groups = rng.randint(0, 6, size=200)
    groups[groups == 3] = 4                     # an empty group
    values = rng.normal(size=200)
    w = rng.rand(200) + 0.1
    out = grouped_weighted_quantile(groups, values, w, 0.3, 6)
    for g in range(6):
        m = groups == g
        expected = weighted_quantile(values[m], w[m], 0.3) if m.any() else 0.0
        assert out[g] == expected
