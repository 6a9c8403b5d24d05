"""Parameters of the boosters that LightGBM and XGBoost users tune, as one mixin each
booster takes: ``n_jobs`` (numba's thread count scoped to a fit or a prediction),
``importance_type`` (split counts or total gains)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import numpy as np
from joblib import effective_n_jobs
from sklearn.utils._param_validation import Interval, StrOptions
from numbers import Integral

from ._parallel import tree_threads

if TYPE_CHECKING:
    from .._typing import Float64Array
    from ._boosting import BaseGradientBoosting

    # to the type checker, the mixins are the boosters they are mixed into
    _BoosterBase = BaseGradientBoosting
else:
    _BoosterBase = object

#: what ``importance_type`` takes: None (scikit-learn's normalised impurity decrease),
#: LightGBM's ``"split"`` and ``"gain"``
IMPORTANCE_TYPES = {"split", "gain"}

#: the parameter rules the mixin adds to a booster's
BOOSTER_PARAM_CONSTRAINTS = {
    "importance_type": [StrOptions(IMPORTANCE_TYPES), None],
    "n_jobs": [Interval(Integral, None, None, closed="neither"), None],
}


@contextlib.contextmanager
def fit_threads(n_jobs):
    """numba's thread count for the calling thread inside the block: ``n_jobs`` as
    joblib reads it (-1: every core numba may use, ``-k``: all but ``k - 1``), capped
    at ``NUMBA_NUM_THREADS``; None leaves the count as it is.  numba's count is per
    thread, so the block changes nothing for other threads and restores it after."""
    if n_jobs is None:
        yield None
        return
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning: give a positive count, -1 or None.")
    with tree_threads(effective_n_jobs(n_jobs)) as threads:
        yield threads


def split_importances(trees, n_features):
    """LightGBM's ``importance_type="split"``: how many times each feature splits a
    node, over every tree of ``trees`` (an iterable of engine trees)."""
    counts = np.zeros(n_features)
    for tree in trees:
        internal = tree.children_left != -1
        counts += np.bincount(tree.feature[internal], minlength=n_features)
    return counts


def gain_importances(trees, n_features):
    """LightGBM's ``importance_type="gain"``: the total gain of each feature's splits,
    ``sum G_L^2/(H_L+l) + G_R^2/(H_R+l) - G^2/(H+l)`` over every split of it (twice the
    engine's gain, which carries the factor 1/2 of the second-order expansion), not
    normalised."""
    total = np.zeros(n_features)
    for tree in trees:
        internal = tree.children_left != -1
        total += np.bincount(
            tree.feature[internal], weights=2.0 * tree.gain[internal], minlength=n_features
        )
    return total


class BoosterParamsMixin(_BoosterBase):
    """``n_jobs`` and ``importance_type`` of a booster (before the booster's base class
    in the bases, so that its ``_fit`` and ``feature_importances_`` wrap the base's)."""

    def _fit(self, *args, **kwargs):
        with fit_threads(getattr(self, "n_jobs", None)):
            return super()._fit(*args, **kwargs)

    def _raw_predict(self, X, *args, **kwargs):
        n_jobs = getattr(self, "n_jobs", None)
        if n_jobs is None:  # numba's count as it is (and no context to enter)
            return super()._raw_predict(X, *args, **kwargs)
        with fit_threads(n_jobs):
            return super()._raw_predict(X, *args, **kwargs)

    @property
    def feature_importances_(self) -> Float64Array:
        """Importance of each feature, by ``importance_type``: None, the total
        second-order gain (or squared-error decrease) of each feature's splits, each
        tree's divided by its root weight, normalised to sum to 1 (scikit-learn's);
        ``"split"``, the number of splits on each feature; ``"gain"``, the total gain of
        its splits in LightGBM's units, ``G_L^2/(H_L+l) + G_R^2/(H_R+l) - G^2/(H+l)``,
        not normalised (LightGBM's ``feature_importances_``)."""
        kind = getattr(self, "importance_type", None)
        if kind is None:
            return super().feature_importances_
        trees = [t for it in self.trees_ for t in it]
        if kind == "split":
            return split_importances(trees, self.n_features_in_)
        return gain_importances(trees, self.n_features_in_)
