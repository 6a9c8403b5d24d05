"""Attributes with costs (Mitchell, *Machine Learning*, 3.7.5): a selection measure that
prefers cheap attributes and uses costly ones only where they pay.

With ``Gain`` the tree's own score of an attribute at a node (information gain for ID3,
the gain ratio for C4.5) and ``Cost(A) > 0`` the price of measuring attribute ``A``:

* Tan and Schlimmer (1990): ``Gain^2(S, A) / Cost(A)``;
* Núñez (1988): ``(2^Gain(S, A) - 1) / (Cost(A) + 1)^w``, with ``w`` in ``[0, 1]`` the
  weight of the cost against the gain (``w = 0``: the cost is ignored).

Both measures rise with the gain for a fixed cost, so the best cut of a continuous
attribute is the same with or without costs; only the choice between attributes changes.
CART (:class:`~treeboost.DecisionTreeClassifier`, ``feature_costs``) compares its
features' best splits by the same formula, compiled into its grower
(:func:`treeboost.engine.grow.acceptance.cost_sensitive_measure`), with the gain of its
own criterion.
"""

from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np

from ..engine import COST_MEASURE_CODES, cost_sensitive_measure

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from .._typing import ArrayLike, Float64Array

__all__ = ["COST_MEASURES", "cost_sensitive_score", "resolve_feature_costs"]

#: the names of the measures, as ``cost_measure`` takes them
COST_MEASURES = tuple(COST_MEASURE_CODES)


def cost_sensitive_score(
    gain: ArrayLike, cost: ArrayLike, measure: str = "tan_schlimmer", weight: float = 1.0
) -> Float64Array:
    """The cost-sensitive selection measure of each attribute.

    Parameters
    ----------
    gain : array-like of float
        ``Gain(S, A)`` of each attribute (bits).
    cost : array-like of float
        ``Cost(A) > 0`` of each attribute.
    measure : {"tan_schlimmer", "nunez"}
        ``Gain^2 / Cost`` or ``(2^Gain - 1) / (Cost + 1)^w``.
    weight : float in [0, 1]
        Núñez's ``w`` (unused by Tan and Schlimmer's measure).

    Returns
    -------
    ndarray of float
    """
    if measure not in COST_MEASURE_CODES:
        raise ValueError(f"cost_measure must be one of {COST_MEASURES}, got {measure!r}.")
    g, c = np.broadcast_arrays(np.asarray(gain, np.float64), np.asarray(cost, np.float64))
    code = COST_MEASURE_CODES[measure]
    # the compiled grower's own formula (CART compares its features by it)
    out = [cost_sensitive_measure(gi, ci, code, float(weight)) for gi, ci in zip(g.flat, c.flat)]
    return np.asarray(out, dtype=np.float64).reshape(g.shape)


def resolve_feature_costs(
    feature_costs: Mapping[str | int, float] | Sequence[float] | ArrayLike | None,
    n_features: int,
    names: Sequence[str] | None,
) -> Float64Array | None:
    """The cost of each column from ``feature_costs``, or None without costs.

    A mapping names columns (by name, or index) and leaves the others at cost 1; an
    array gives one cost per column.  Every cost must be a finite number > 0.

    Raises
    ------
    ValueError
        On an unknown column, a wrong length or a cost that is not finite and positive.
    """
    if feature_costs is None:
        return None
    names = list(names) if names is not None else []
    if isinstance(feature_costs, dict):
        costs = np.ones(n_features)
        for key, value in feature_costs.items():
            if isinstance(key, (Integral, np.integer)) and not isinstance(key, bool):
                idx = int(key)
                if not 0 <= idx < n_features:
                    raise ValueError(f"feature_costs: column index {idx} is out of range.")
            elif key in names:
                idx = names.index(key)
            else:
                raise ValueError(f"feature_costs names an unknown column {key!r}.")
            costs[idx] = _one_cost(value, key)
        return costs
    try:
        costs = np.asarray(feature_costs, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"feature_costs must be a dict or one number per column, got {feature_costs!r:.60}."
        ) from None
    if costs.shape != (n_features,):
        raise ValueError(
            f"feature_costs must give one cost per column ({n_features}), got shape {costs.shape}."
        )
    for i, value in enumerate(costs):
        _one_cost(value, i)
    return costs


def _one_cost(value, key):
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = np.nan
    if not np.isfinite(v) or v <= 0:
        raise ValueError(f"feature_costs[{key!r}] must be a finite number > 0, got {value!r}.")
    return v
