"""CART's split report: each feature's best binary split at a node, its gain, its cost and
the cost-sensitive measure by which the grower compares the features (``feature_costs``,
Mitchell 3.7.5).

The gain of a split of the node's rows ``S`` into ``S_1, S_2`` is the criterion's decrease
per unit of the node's weight, ``Gain(S, A) = I(S) - sum_c W_c / W I(S_c)``, with ``I``
the Gini index ``1 - sum_k p_k^2``, the entropy in bits ``-sum_k p_k log2 p_k`` or the
(weighted) variance; a feature's gain is that of its best cut between two of its bins
(the tree's binned values, as the grower sees them; the missing values on the better
side).  The measure is :func:`~treeboost.engine.grow.acceptance.cost_sensitive_measure`
of the gain and the cost, through :func:`~.attribute_costs.cost_sensitive_score`.
"""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import is_classifier

from .._input.weights import check_weights
from .attribute_costs import cost_sensitive_score

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["cart_split_report"]


def _impurity(stats, criterion):
    """``I`` of each row of per-side sums: class weights, or ``(w, w y, w y^2)``."""
    if criterion == "squared_error":
        w = stats[..., 0]
        safe = np.where(w > 0, w, 1.0)
        return np.where(w > 0, np.maximum(stats[..., 2] / safe - (stats[..., 1] / safe) ** 2, 0), 0)
    w = stats.sum(axis=-1)
    p = stats / np.where(w > 0, w, 1.0)[..., None]
    if criterion == "gini":
        return np.where(w > 0, 1.0 - (p**2).sum(axis=-1), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(p > 0, p * np.log2(p), 0.0).sum(axis=-1)


def _best_cut(codes, stats, missing_code, order, criterion):
    """The best gain and cut (largest code on the left) of one feature's codes."""
    total = stats.sum(axis=0)
    W = total[0] if criterion == "squared_error" else total.sum()
    known = codes != missing_code
    n_codes = int(missing_code) + 1
    per_code = np.zeros((n_codes, stats.shape[1]))
    np.add.at(per_code, codes[known], stats[known])
    present = np.flatnonzero(np.bincount(codes[known], minlength=n_codes) > 0)
    if order is not None:
        present = present[np.argsort(order(per_code[present]), kind="stable")]
    missing = stats[~known].sum(axis=0)
    has_missing = bool((~known).any())
    if present.size == 0:
        return -np.inf, None
    lefts = np.cumsum(per_code[present], axis=0)
    # the known rows up to present[i] on the left (i < last: a cut between two codes;
    # i = last only with missing rows, all of them right); the missing rows right or left
    last = present.size if has_missing else present.size - 1
    L = lefts[:last]
    if has_missing:
        L = np.vstack([L, lefts[:last] + missing])
    at = np.tile(present[:last], 2 if has_missing else 1)
    if L.shape[0] == 0:
        return -np.inf, None
    R = total - L
    wl = L[:, 0] if criterion == "squared_error" else L.sum(axis=1)
    gain = (
        _impurity(total, criterion)
        - (wl * _impurity(L, criterion) + (W - wl) * _impurity(R, criterion)) / W
    )
    gain = np.where((wl > 1e-12 * W) & (W - wl > 1e-12 * W), gain, -np.inf)
    k = int(np.argmax(gain))
    best, cut = float(gain[k]), int(at[k])
    return best, cut


def cart_split_report(
    est: Any, X: Any, y: Any, node: int = 0, sample_weight: Any = None, as_frame: bool = True
) -> pd.DataFrame | list[dict[str, Any]]:
    """Each feature's best split at ``node`` of a fitted CART tree, on the training rows
    ``X, y`` that reach it: its gain, its cost and the cost-sensitive measure.

    Columns: ``feature``, ``gain`` (``I(S) - sum_c W_c / W I(S_c)``), ``cost`` (1 without
    ``feature_costs``), ``score`` (the measure, ``Gain^2 / Cost`` or ``(2^Gain - 1) /
    (Cost + 1)^w``; the gain itself without costs) and ``chosen`` (the node's feature).
    ``attrs`` hold the node's ``impurity`` ``I(S)`` and ``weight`` ``W``.
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(est, "tree_")
    n_nodes = est.tree_.node_count
    if (
        not isinstance(node, (Integral, np.integer))
        or isinstance(node, (bool, np.bool_))
        or not 0 <= node < n_nodes
    ):
        raise ValueError(f"node must be a node id in [0, {n_nodes}), got {node!r}.")
    if est.tree_.children_left[node] < 0:
        raise ValueError(f"Node {node} is a leaf: it has no split report.")
    criterion = est.criterion
    if criterion == "log_loss":
        criterion = "entropy"
    if criterion not in ("gini", "entropy", "squared_error"):
        raise ValueError(
            f"split_report takes the criteria gini, entropy, log_loss and squared_error, "
            f"got criterion={est.criterion!r}."
        )
    if getattr(est, "class_weight", None) is not None:
        raise ValueError("split_report takes no class_weight: pass sample_weight instead.")
    Xe = est._transform(X)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != Xe.shape[0]:
        raise ValueError(f"y must be one value per row of X, got shape {y.shape}.")
    w = check_weights(sample_weight, Xe)
    reach = np.asarray(est.tree_.decision_path(Xe)[:, node].todense()).ravel() > 0
    if hasattr(Xe, "toarray"):
        Xe = Xe.toarray()
    # the codes are feature-major: (n_features, n_samples)
    codes = np.asarray(est.bin_mapper_.transform(Xe)).T[reach].astype(np.int64)
    w = w[reach]
    if is_classifier(est):
        k = np.searchsorted(est.classes_, y[reach])
        stats = np.zeros((k.shape[0], len(est.classes_)))
        stats[np.arange(k.shape[0]), k] = w
    else:
        yr = y[reach].astype(np.float64)
        yr = yr - np.average(yr, weights=w)
        stats = np.column_stack([w, w * yr, w * yr * yr])
    binary = stats.shape[1] == 2 or criterion == "squared_error"

    def by_mean(per_code):
        # Breiman's order of categories: by the second class's share, or the mean target
        if criterion == "squared_error":
            return per_code[:, 1] / per_code[:, 0]
        return per_code[:, 1] / per_code.sum(axis=1)

    names = getattr(est, "feature_names_in_", None)
    costs = est._attribute_costs()
    n_features = est.n_features_in_
    gains = np.full(n_features, np.nan)
    for f in range(n_features):
        cat = bool(est.bin_mapper_.is_categorical_[f])
        if cat and not binary:
            continue  # more than two classes: the grower's category search is not a sort
        g, _ = _best_cut(
            codes[:, f],
            stats,
            est.bin_mapper_.missing_values_code_,
            by_mean if cat else None,
            criterion,
        )
        gains[f] = g if np.isfinite(g) else np.nan
    cost = np.ones(n_features) if costs is None else costs.cost
    if costs is None:
        score = gains.copy()
    else:
        score = np.where(
            np.isnan(gains),
            np.nan,
            cost_sensitive_score(np.nan_to_num(gains), cost, costs.measure, costs.weight),
        )
    chosen = int(est.tree_.feature[node])
    rows = [
        dict(
            feature=str(names[f]) if names is not None else f"x{f}",
            gain=float(gains[f]),
            cost=float(cost[f]),
            score=float(score[f]),
            chosen=f == chosen,
        )
        for f in range(n_features)
    ]
    if not as_frame:
        return rows
    import pandas as pd

    df = pd.DataFrame(rows)
    total = stats.sum(axis=0)
    df.attrs.update(impurity=float(_impurity(total, criterion)), weight=float(w.sum()))
    return df
