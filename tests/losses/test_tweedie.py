"""The Tweedie loss: its derivatives against finite differences of its value, and its
parameter's checks."""

import numpy as np
import pytest

from treeboost.losses.tweedie import TweedieLoss


@pytest.mark.parametrize("power", [1.1, 1.5, 1.9])
def test_tweedie_derivatives_against_finite_differences(power):
    rng = np.random.RandomState(1)
    y = rng.gamma(1.0, 2.0, 50) * (rng.uniform(size=50) < 0.7)
    raw = rng.normal(0, 1, 50)
    loss = TweedieLoss(power)
    g, h = loss.gradient_hessian(y, raw)
    eps = 1e-6
    fd_g = (loss.pointwise(y, raw + eps) - loss.pointwise(y, raw - eps)) / (2 * eps)
    fd_h = (loss.gradient_hessian(y, raw + eps)[0] - loss.gradient_hessian(y, raw - eps)[0]) / (
        2 * eps
    )
    np.testing.assert_allclose(g, fd_g, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(h, fd_h, rtol=1e-6, atol=1e-8)
    assert np.all(h > 0)


@pytest.mark.parametrize("power", [1.0, 2.0, "x"])
def test_tweedie_power_outside_its_range_is_refused(power):
    with pytest.raises((ValueError, TypeError)):
        TweedieLoss(power)
