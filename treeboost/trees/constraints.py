"""The ``monotonic_cst`` and ``interaction_cst`` parameters, checked and resolved to the
form the grower takes (:class:`treeboost.engine.split.constraints.Constraints`).

The rules and the messages are scikit-learn's (its trees and HistGradientBoosting):
one of -1, 0, 1 per feature (a dict maps feature names to them), no constraint on a
categorical feature, none with a multi-output y or more than two classes; interaction
sets of feature indices, ``"pairwise"`` or ``"no_interactions"``, the features no set
names forming one more set.
"""

from __future__ import annotations

import itertools
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engine import Constraints

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .._typing import ArrayLike, InteractionCst, MonotonicCst, NDArray


def check_monotonic_cst(
    estimator: Any,
    monotonic_cst: MonotonicCst,
    n_features: int,
    is_categorical: ArrayLike | None = None,
) -> NDArray[np.int8] | None:
    """``monotonic_cst`` as an int8 array of shape ``(n_features,)``, or None when it is
    None or all zeros.

    Parameters
    ----------
    estimator : estimator
        Names the features of a dict (``feature_names_in_``).
    monotonic_cst : array-like of int, dict of str to int, or None
    n_features : int
    is_categorical : ndarray of bool, optional
        A constraint on a categorical feature raises ValueError.
    """
    if monotonic_cst is None:
        return None
    if isinstance(monotonic_cst, dict):
        names = getattr(estimator, "feature_names_in_", None)
        if names is None:
            raise ValueError(
                f"{type(estimator).__name__} was not fitted on data with "
                f"feature names. Pass monotonic_cst as an integer array "
                f"instead."
            )
        unknown = sorted(set(monotonic_cst) - set(names))
        if unknown:
            shown = unknown[:5] + (["..."] if len(unknown) > 5 else [])
            raise ValueError(
                f"monotonic_cst contains {len(unknown)} unexpected feature names: {shown}."
            )
        cst = np.zeros(n_features, np.int8)
        for f, name in enumerate(names):
            if name in monotonic_cst:
                value = monotonic_cst[name]
                if value not in (-1, 0, 1):
                    raise ValueError(
                        f"monotonic_cst['{name}'] must be either -1, 0 or 1. Got {value!r}."
                    )
                cst[f] = value
    else:
        raw = np.asarray(monotonic_cst)
        if raw.ndim != 1 or raw.shape[0] != n_features:
            raise ValueError(
                f"monotonic_cst has shape {raw.shape[0] if raw.ndim else ()} "
                f"but the input data X has {n_features} features."
            )
        if raw.dtype.kind not in "iufb" or not np.all(np.isin(raw, (-1, 0, 1))):
            raise ValueError(
                f"monotonic_cst must be None or an array-like of -1, 0 or 1, "
                f"but got {np.unique(raw)}"
            )
        cst = raw.astype(np.int8)
    if is_categorical is not None and np.any(cst[np.asarray(is_categorical, bool)] != 0):
        raise ValueError("Categorical features cannot have monotonic constraints.")
    return cst if cst.any() else None


def check_monotonic_target(
    monotonic_cst: MonotonicCst, n_outputs: int, n_classes: int | None = None
) -> None:
    """Raise ValueError when the target cannot take monotonic constraints: several
    outputs, or more than two classes (``n_classes``, for a classifier)."""
    if monotonic_cst is None:
        return
    if n_outputs > 1:
        raise ValueError("Monotonicity constraints are not supported with multiple outputs.")
    if n_classes is not None and n_classes > 2:
        raise ValueError(
            "Monotonicity constraints are not supported with multiclass "
            "classification: they constrain the probability of the positive "
            "class of a binary target."
        )


def check_interaction_cst(
    interaction_cst: InteractionCst, n_features: int
) -> list[set[int]] | None:
    """``interaction_cst`` as a list of sets of feature indices, the features no set
    names added as one more set; None when it is None.

    ``"pairwise"`` is every pair of features, ``"no_interactions"`` one set per feature.
    """
    if interaction_cst is None:
        return None
    # any iterable the user gave: checked below
    groups: Iterable[Any]
    if isinstance(interaction_cst, str) and interaction_cst == "no_interactions":
        groups = [[f] for f in range(n_features)]
    elif isinstance(interaction_cst, str) and interaction_cst == "pairwise":
        groups = itertools.combinations(range(n_features), 2)
    else:
        groups = interaction_cst
    try:
        sets = [set(group) for group in groups]
    except TypeError:
        raise ValueError(
            f"Interaction constraints must be a sequence of tuples or lists, "
            f"got: {interaction_cst!r}."
        ) from None
    for group in sets:
        for f in group:
            if not (isinstance(f, Integral) and 0 <= int(f) < n_features):
                raise ValueError(
                    f"Interaction constraints must consist of integer indices "
                    f"in [0, n_features - 1] = [0, {n_features - 1}], "
                    f"specifying the position of features, got invalid "
                    f"indices: {group!r}"
                )
    rest = set(range(n_features)) - set().union(*sets)
    if rest:
        sets.append(rest)
    return sets


def grower_constraints(
    monotonic_cst: NDArray[np.int8] | None, interaction_sets: list[set[int]] | None
) -> Constraints | None:
    """The :class:`~treeboost.engine.split.constraints.Constraints` of checked parameters, or
    None without any."""
    if monotonic_cst is None and interaction_sets is None:
        return None
    return Constraints(monotonic_cst, interaction_sets)
