"""Each loss: derivatives against finite differences, initial scores and leaf values
against brute-force minimisation."""

import numpy as np
import pytest

from treeboost.losses import (
    AbsoluteError,
    BinaryLogLoss,
    GammaLoss,
    HuberLoss,
    MultinomialLogLoss,
    PoissonLoss,
    QuantileLoss,
    SquaredError,
)
from treeboost.losses.base import LeafSamples, grouped_weighted_quantile, weighted_quantile

rng = np.random.RandomState(0)
Y_REG = rng.normal(size=40) * 3
Y_BIN = (rng.rand(40) < 0.4).astype(float)
W = rng.randint(1, 4, size=40).astype(float)
Y_COUNT = rng.poisson(3.0, size=40).astype(float)
Y_POS = rng.gamma(2.0, 1.5, size=40)


def _huber():
    loss = HuberLoss(alpha=0.8)
    loss.update_delta(Y_REG, np.zeros_like(Y_REG), W)
    return loss


SMOOTH = [
    (SquaredError(), Y_REG),
    (BinaryLogLoss(), Y_BIN),
    (_huber(), Y_REG),
    (PoissonLoss(), Y_COUNT),
    (GammaLoss(), Y_POS),
]


@pytest.mark.parametrize("loss, y", SMOOTH, ids=lambda v: type(v).__name__)
def test_gradient_and_hessian_match_finite_differences(loss, y):
    raw = np.random.RandomState(1).normal(size=y.shape) * 2
    eps = 1e-6
    g, h = loss.gradient_hessian(y, raw)
    num_g = (loss.pointwise(y, raw + eps) - loss.pointwise(y, raw - eps)) / (2 * eps)
    np.testing.assert_allclose(g, num_g, rtol=1e-5, atol=1e-6)
    if not isinstance(loss, HuberLoss):  # Huber's second derivative jumps at +-delta
        num_h = (
            loss.gradient_hessian(y, raw + eps)[0] - loss.gradient_hessian(y, raw - eps)[0]
        ) / (2 * eps)
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
        num_h = (
            loss.gradient_hessian(y, raw + d)[0][:, k] - loss.gradient_hessian(y, raw - d)[0][:, k]
        ) / (2 * eps)
        np.testing.assert_allclose(h[:, k], num_h, rtol=1e-4, atol=1e-7)


def _samples(leaf, n_nodes, y, raw, g, h, w=W, l2=0.0, rows=None):
    rows = np.arange(len(y)) if rows is None else rows
    return LeafSamples(leaf, n_nodes, rows, y, raw, w, g, h, l2)


def _brute_min(f, candidates):
    vals = [f(c) for c in candidates]
    return candidates[int(np.argmin(vals))], min(vals)


@pytest.mark.parametrize(
    "loss, y",
    [
        (SquaredError(), Y_REG),
        (AbsoluteError(), Y_REG),
        (QuantileLoss(0.25), Y_REG),
        (BinaryLogLoss(), Y_BIN),
        (PoissonLoss(), Y_COUNT),
        (GammaLoss(), Y_POS),
    ],
    ids=lambda v: getattr(v, "name", "y"),
)
def test_initial_score_minimises_the_weighted_loss(loss, y):
    init = loss.init_raw(y, W)
    grid = np.linspace(init - 2, init + 2, 4001)
    if loss.name in ("absolute_error", "quantile"):
        grid = np.concatenate([grid, y])  # the optimum is a data point
    best, best_val = _brute_min(lambda c: loss(y, np.full_like(y, c), W), grid)
    assert loss(y, np.full_like(y, init), W) <= best_val + 1e-9


@pytest.mark.parametrize(
    "loss", [SquaredError(), AbsoluteError(), QuantileLoss(0.7)], ids=lambda v: v.name
)
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
    expected = med + np.average(
        np.sign(r - med) * np.minimum(loss.delta, np.abs(r - med)), weights=W
    )
    assert value == pytest.approx(expected)
    assert loss.delta == pytest.approx(weighted_quantile(np.abs(r), W, 0.8))


def test_grouped_quantile_equals_per_group_quantile():
    rng = np.random.RandomState(5)
    groups = rng.randint(0, 6, size=200)
    groups[groups == 3] = 4  # an empty group
    values = rng.normal(size=200)
    w = rng.rand(200) + 0.1
    out = grouped_weighted_quantile(groups, values, w, 0.3, 6)
    for g in range(6):
        m = groups == g
        expected = weighted_quantile(values[m], w[m], 0.3) if m.any() else 0.0
        assert out[g] == expected


# -- the interface the booster uses ---------------------------------------------------------

Y_CLS = np.random.RandomState(6).randint(0, 3, size=40)
RAW_CLS = np.random.RandomState(7).normal(size=(40, 3))
EVERY_LOSS = [
    (SquaredError(), Y_REG),
    (AbsoluteError(), Y_REG),
    (_huber(), Y_REG),
    (QuantileLoss(0.3), Y_REG),
    (BinaryLogLoss(), Y_BIN),
    (MultinomialLogLoss(3), Y_CLS),
]


@pytest.mark.parametrize("loss, y", EVERY_LOSS, ids=lambda v: type(v).__name__)
def test_the_loss_value_is_the_weighted_mean_written_once_in_the_base_class(loss, y):
    assert "__call__" not in vars(type(loss))
    raw = RAW_CLS if loss.n_outputs > 1 else np.random.RandomState(8).normal(size=40)
    expected = np.sum(W * loss.pointwise(y, raw)) / np.sum(W)
    assert loss(y, raw, W) == pytest.approx(expected, rel=1e-12)


def test_each_loss_names_its_metric_and_its_leaf_scale():
    names = {type(loss).__name__: (loss.metric_name, loss.leaf_scale) for loss, _ in EVERY_LOSS}
    assert names == {
        "SquaredError": ("l2/2", 1.0),
        "AbsoluteError": ("l1", 1.0),
        "HuberLoss": ("huber", 1.0),
        "QuantileLoss": ("quantile", 1.0),
        "BinaryLogLoss": ("binary_logloss", 1.0),
        "MultinomialLogLoss": ("multi_logloss", 2 / 3),
    }


def test_huber_start_iteration_re_estimates_delta():
    loss = HuberLoss(alpha=0.8)
    for raw in (np.zeros(40), Y_REG * 0.5):
        loss.start_iteration(Y_REG, raw, W)
        assert loss.delta == weighted_quantile(np.abs(Y_REG - raw), W, 0.8)


def test_newton_step_of_the_samples_of_the_rows_with_l2():
    """Computed from the rows the tree was grown on, ``-G / (H + lambda)``; the grower's
    values are taken as they are when given."""
    rng = np.random.RandomState(9)
    rows = np.sort(rng.choice(40, 25, replace=False))
    leaf = rng.randint(1, 4, size=25)  # node 0 is internal: no sample
    g, h = BinaryLogLoss().gradient_hessian(Y_BIN, RAW_CLS[:, 0])
    step = _samples(leaf, 4, Y_BIN, RAW_CLS[:, 0], g, h, l2=2.0, rows=rows).newton_step()
    for node in range(4):
        r = rows[leaf == node]
        expected = -np.sum(W[r] * g[r]) / (np.sum(W[r] * h[r]) + 2.0)
        assert step[node] == pytest.approx(expected, rel=1e-12)
    given = np.arange(4.0)
    samples = LeafSamples(leaf, 4, rows, Y_BIN, RAW_CLS[:, 0], W, g, h, 0.0, given)
    values = BinaryLogLoss().leaf_values(samples)
    np.testing.assert_array_equal(values, given)
    assert values is not given  # the tree's own array is never aliased
    np.testing.assert_array_equal(MultinomialLogLoss(4).leaf_values(samples), 0.75 * given)


def test_robust_leaves_read_only_the_rows_of_the_tree():
    rows = np.arange(0, 40, 2)
    leaf = np.zeros(20, dtype=int)
    raw = np.zeros(40)
    g, h = AbsoluteError().gradient_hessian(Y_REG, raw)
    value = AbsoluteError().leaf_values(_samples(leaf, 1, Y_REG, raw, g, h, rows=rows))[0]
    assert value == weighted_quantile(Y_REG[rows], W[rows], 0.5)


@pytest.mark.parametrize("scale", [2.0**-990, 2.0**-60, 2.0**60])
def test_initial_scores_do_not_depend_on_the_scale_of_the_weights(scale):
    """No absolute floor on a weight sum: weights scaled by a power of two (exact in
    float64, so that the weighted quantiles break their ties alike) give the same scores."""
    for loss, y in EVERY_LOSS:
        np.testing.assert_allclose(
            loss.init_raw(y, W * scale),
            loss.init_raw(y, W),
            rtol=1e-12,
            err_msg=type(loss).__name__,
        )
    # a class without weight: the same large negative log-odds at every scale (its
    # floor, eps of the total, is subnormal at the smallest scale)
    none = np.zeros(40)
    assert BinaryLogLoss().init_raw(none, W * scale) == pytest.approx(
        BinaryLogLoss().init_raw(none, W), rel=1e-6
    )


@pytest.mark.parametrize(
    "loss, y",
    [(PoissonLoss(), Y_COUNT), (GammaLoss(), Y_POS)],
    ids=lambda v: getattr(v, "name", "y"),
)
def test_log_link_losses_are_their_deviances_up_to_terms_free_of_the_score(loss, y):
    # the half deviance of scikit-learn's metrics minus L(y, F) does not depend on F
    from sklearn.metrics import mean_gamma_deviance, mean_poisson_deviance

    dev = mean_poisson_deviance if loss.name == "poisson" else mean_gamma_deviance
    gaps = []
    for c in (-1.0, 0.3, 2.0):
        raw = np.full_like(y, c) + np.linspace(-0.5, 0.5, y.size)
        gaps.append(0.5 * dev(y, loss.predict(raw), sample_weight=W) - loss(y, raw, W))
    np.testing.assert_allclose(gaps, gaps[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(loss.link(loss.predict(np.array([0.5, -2.0]))), [0.5, -2.0])


@pytest.mark.parametrize(
    "loss, y",
    [
        (BinaryLogLoss(), Y_BIN.astype(np.int64)),
        (MultinomialLogLoss(3), np.random.RandomState(3).randint(0, 3, size=40)),
        (SquaredError(), Y_REG),
        (AbsoluteError(), Y_REG),
        (QuantileLoss(0.8), Y_REG),
    ],
    ids=["binary", "multinomial", "squared", "absolute", "quantile"],
)
def test_one_pass_loss_and_gradients_equal_the_two_calls(loss, y):
    """``loss_gradient_hessian``: the loss of ``__call__`` (to rounding) and the very
    gradients of ``gradient_hessian``, also into given arrays of either memory order
    (the booster's are transposes)."""
    assert loss.gradient_carries
    shape = (40,) if loss.n_outputs == 1 else (40, loss.n_outputs)
    raw = np.random.RandomState(4).normal(size=shape) * 3
    g, h = loss.gradient_hessian(y, raw)
    value, g1, h1 = loss.loss_gradient_hessian(y, raw, W)
    assert value == pytest.approx(loss(y, raw, W), rel=1e-13)
    np.testing.assert_array_equal(g1, g)
    np.testing.assert_array_equal(h1, h)
    out = (np.empty(shape[::-1]).T, np.empty(shape[::-1]).T)
    _, g2, h2 = loss.loss_gradient_hessian(y, raw, W, out=out)
    assert g2 is out[0] and h2 is out[1]
    np.testing.assert_array_equal(g2, g)
    np.testing.assert_array_equal(h2, h)


def test_the_default_one_pass_is_the_two_calls():
    loss = PoissonLoss()
    assert not loss.gradient_carries
    raw = np.random.RandomState(4).normal(size=40)
    value, g, h = loss.loss_gradient_hessian(Y_REG, raw, W)
    assert value == loss(Y_REG, raw, W)
    np.testing.assert_array_equal(g, loss.gradient_hessian(Y_REG, raw)[0])


def test_leaf_samples_take_the_leaves_of_the_rows_when_read():
    rows = np.arange(0, 40, 2)
    leaf_of_sample = np.arange(40) % 3
    s = LeafSamples(
        None, 3, rows, Y_REG, np.zeros(40), W, Y_REG, W, 0.0, leaf_of_sample=leaf_of_sample
    )
    np.testing.assert_array_equal(s.node, leaf_of_sample[rows])
    with pytest.raises(ValueError, match="node or leaf_of_sample"):
        LeafSamples(None, 3, rows, Y_REG, np.zeros(40), W, Y_REG, W, 0.0)


def test_huber_leaves_of_several_nodes_are_the_numpy_formula():
    """The one-kernel leaf values equal the formula written with numpy (grouped medians,
    clipped deviations summed by np.bincount), bit for bit, on a subset of the rows."""
    loss = _huber()
    rng = np.random.RandomState(6)
    raw = rng.normal(size=40)
    rows = np.sort(rng.choice(40, 30, replace=False))
    node = rng.choice([1, 3, 4], size=30)  # nodes 0 and 2 hold no row
    g, h = loss.gradient_hessian(Y_REG, raw)
    values = loss.leaf_values(LeafSamples(node, 5, rows, Y_REG, raw, W, g, h, 0.0))
    r = Y_REG[rows] - raw[rows]
    w = W[rows]
    med = grouped_weighted_quantile(node, r, w, 0.5, 5)
    dev = r - med[node]
    clipped = np.sign(dev) * np.minimum(loss.delta, np.abs(dev))
    wsum = np.bincount(node, weights=w, minlength=5)
    csum = np.bincount(node, weights=w * clipped, minlength=5)
    expected = med + np.divide(csum, wsum, out=np.zeros(5), where=wsum > 0)
    np.testing.assert_array_equal(values, expected)
    assert values[0] == 0.0 and values[2] == 0.0
