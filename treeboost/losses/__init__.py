"""Losses of gradient boosting: value, gradient, hessian, initial score and leaf value.

=====================  =========================  ======================
===========================
loss                   for                        initial raw score       leaf value
=====================  =========================  ======================
===========================
``squared_error``      regression                 weighted mean           Newton ``-G/H`` (mean
residual)
``absolute_error``     regression                 weighted median         weighted median of
residuals
``huber``              regression                 weighted median         Friedman's M-TreeBoost
step
``quantile``           regression                 weighted alpha-quantile alpha-quantile of
residuals
``quantile`` (list)    regression, K quantiles    each alpha_k-quantile   alpha_k-quantile, lane k
``log_loss`` (binary)  2 classes                  log-odds                Newton ``sum r / sum
p(1-p)``
``log_loss`` (K)       K classes, K trees / iter  log class priors        ``(K-1)/K`` Newton step
``exponential``        2 classes (AdaBoost)       half the log-odds       Newton ``sum w u e / sum
w e``
``poisson``            counts, y >= 0 (log link)  log weighted mean       Newton ``sum w (y-mu) /
sum w mu``
``gamma``              y > 0 (log link)           log weighted mean       Newton step
``tweedie``            y >= 0 (log link)          log weighted mean       Newton step
=====================  =========================  ======================
===========================

Each loss is a :class:`~treeboost.losses.base.Loss`: the booster asks it for everything that
differs between losses and never for its class: the value ``__call__`` (the weighted mean of
``pointwise``, written once in the base class), ``gradient_hessian`` (or, for a loss that
sets ``loss_gradient_kernel``, ``loss_gradient_hessian``: an iteration's training loss and the
next iteration's gradients in one pass), ``init_raw``, the hook
``start_iteration`` (Huber re-estimates ``delta`` there), ``leaf_values`` from the samples of
a grown tree (the Newton step times ``leaf_scale`` unless overridden), ``metric_name`` and, for
classification, ``proba``.  One loss per module.
"""

from .absolute_error import AbsoluteError
from .base import Loss
from .exponential import ExponentialLoss
from .gamma import GammaLoss
from .huber import HuberLoss
from .log_loss import BinaryLogLoss
from .multinomial import MultinomialLogLoss
from .poisson import PoissonLoss
from .multi_quantile import MultiQuantileLoss
from .quantile import QuantileLoss
from .squared_error import SquaredError
from .tweedie import TweedieLoss

__all__ = [
    "AbsoluteError",
    "BinaryLogLoss",
    "ExponentialLoss",
    "GammaLoss",
    "HuberLoss",
    "Loss",
    "MultinomialLogLoss",
    "PoissonLoss",
    "MultiQuantileLoss",
    "QuantileLoss",
    "SquaredError",
    "TweedieLoss",
]
