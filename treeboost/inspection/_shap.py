"""Exact TreeSHAP values of any treeboost binary-tree model.

A model's output is a constant plus a sum of per-tree leaf values
(:func:`~._model_trees.model_trees` writes each model so); the SHAP values of a sum are
the sums of the trees' SHAP values, which :mod:`treeboost.engine.predict.tree_shap`
computes exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple, Optional

import numpy as np

from ..engine import ShapTrees, into_row_blocks
from ._model_trees import model_trees

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

    from .._typing import Float64Array, MatrixLike

__all__ = ["shap_values"]


def shap_values(model: BaseEstimator, X: MatrixLike) -> tuple[Float64Array, float | Float64Array]:
    """Exact path-dependent TreeSHAP values of a fitted treeboost tree model.

    For each row ``x`` and feature ``i``, ``phi_i`` is the Shapley value of ``i`` in the
    game ``v(S) = E[f(x) | x_S]``, where the expectation is the trees' path-dependent
    one (at a node splitting on a feature of ``S`` follow ``x``, at any other take the
    children weighted by their ``weighted_n_node_samples``) (Lundberg et al., "From local
    explanations to global understanding with explainable AI for trees", Nature Machine
    Intelligence 2020, Algorithm 2)::

        phi_i = sum_{S subset of F \\ {i}}  |S|! (M - |S| - 1)! / M!  (v(S + i) - v(S))

    and they add up to the explained output: ``values.sum(axis=1) + expected_value``
    equals ``predict(X)`` (regressors of the identity link), ``log(predict(X))`` (the
    boosted regressors of ``loss="poisson"`` or ``"gamma"``, whose trees add up the raw
    score ``F`` and predict ``exp(F)``), ``predict_proba(X)`` (tree, forest and bagging
    classifiers, one output per class), ``decision_function(X)`` (gradient boosting and
    AdaBoost classifiers: the raw score, one output for two classes).

    Parameters
    ----------
    model : fitted treeboost estimator
        ``DecisionTree*``, ``ExtraTree*``, ``RandomForest*``, ``ExtraTrees*``,
        ``Bagging*`` whose members are treeboost CART trees, ``GradientBoosting*``, or
        ``AdaBoostClassifier`` with treeboost CART trees.  ``AdaBoostRegressor`` (a
        weighted median of its trees, not a sum) and the multiway ID3 / C4.5 trees are
        refused.
    X : array-like, pandas DataFrame or scipy.sparse matrix of shape (n_samples, n_features)
        Checked and encoded as ``predict`` does (feature names and count, categorical
        columns; NaN is a missing value); a sparse X is explained in dense blocks of
        rows.

    Returns
    -------
    values : ndarray of shape (n_samples, n_features) or (n_samples, n_features, n_outputs)
        The second form for models with several outputs.
    expected_value : float or ndarray of shape (n_outputs,)
        The output with no feature known, ``v({})``.

    Raises
    ------
    TypeError
        ``model`` is not a model this function explains.
    ValueError
        ``model`` is not additive over its trees (``AdaBoostRegressor``), or ``X`` is
        not what the model predicts on.
    sklearn.exceptions.NotFittedError
        ``model`` is not fitted.
    """
    additive = _explained(model)
    Xe = model._encode_X(X, reset=False)
    n_features = model.n_features_in_
    K = additive.n_outputs
    values = np.zeros((Xe.shape[0], n_features, K))
    expected = np.array(additive.offset, dtype=np.float64).reshape(K)
    for part in _parts(additive.trees):
        packed = ShapTrees(part.trees, part.values, part.outputs, part.players)
        # a sparse X is explained in dense blocks of rows, as predict walks it
        into_row_blocks(
            lambda Xd, out, packed=packed, encode=part.encode: packed.shap_values(
                Xd if encode is None else encode(Xd), n_features, K, out=out
            ),
            Xe,
            values,
        )
        expected = expected + packed.expected_values(K)
    if K == 1:
        return np.ascontiguousarray(values[:, :, 0]), float(expected[0])
    return values, expected


class _Part(NamedTuple):
    """Trees that read one input matrix, packed together for the SHAP kernel."""

    trees: list
    values: list
    outputs: list
    players: Optional[list] = None
    encode: Optional[Callable] = None


def _explained(model):
    """:func:`~._model_trees.model_trees` of ``model``, its errors named for shap_values."""
    try:
        return model_trees(model)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"shap_values: {exc}") from None


def _parts(trees):
    """The trees that read the model's encoded X, packed as one part (in their order),
    then one part for each tree that reads its own encoding of it."""
    direct = [t for t in trees if t.encode is None]
    parts = []
    if direct:
        parts.append(
            _Part([t.tree for t in direct], [t.values for t in direct], [t.output for t in direct])
        )
    for t in trees:
        if t.encode is not None:
            players = None if t.features is None else [t.features]
            parts.append(_Part([t.tree], [t.values], [t.output], players, t.encode))
    return parts
