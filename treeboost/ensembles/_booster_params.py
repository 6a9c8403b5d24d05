"""Parameters of the boosters that LightGBM and XGBoost users tune, as one mixin each
booster takes: ``n_jobs`` (numba's thread count scoped to a fit or a prediction),
``importance_type`` (split counts or total gains); and the rules of ``colsample_bytree``
(the features each tree draws) and ``reg_alpha`` (the L1 penalty of the leaf values,
which the engine applies: :func:`treeboost.engine.split.criteria.l1_threshold`)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import numpy as np
from joblib import effective_n_jobs
from sklearn.utils._param_validation import Interval, StrOptions
from numbers import Integral, Real

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
    "colsample_bytree": [Interval(Real, 0.0, 1.0, closed="right")],
    "reg_alpha": [Interval(Real, 0.0, None, closed="left")],
}


def tree_feature_count(n_features, colsample_bytree):
    """How many of the ``n_features`` features each tree draws for ``colsample_bytree``,
    LightGBM's rule for ``feature_fraction``: ``round(colsample_bytree * n_features)``
    (halves up), at least ``min(2, n_features)``; 0 when that is every feature (no draw
    at all: the trees of ``colsample_bytree=1`` are those grown without it)."""
    frac = float(colsample_bytree)
    if not 0.0 < frac <= 1.0:
        raise ValueError(f"colsample_bytree must be in (0, 1], got {colsample_bytree!r}.")
    count = max(int(frac * n_features + 0.5), min(2, n_features))
    return 0 if count >= n_features else count


def draw_tree_features(setup, n_features):
    """One tree's features for ``colsample_bytree``: ``setup.n_tree_features`` of the
    ``n_features`` drawn without replacement from ``setup.feature_rng``, in increasing
    order (a :class:`~._boosting_records.StageSetup`); None when the trees draw
    none."""
    if not setup.n_tree_features:
        return None
    drawn = setup.feature_rng.choice(n_features, size=setup.n_tree_features, replace=False)
    return np.sort(drawn).astype(np.int64)


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
