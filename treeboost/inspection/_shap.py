"""Exact TreeSHAP values of any treeboost binary-tree model.

A model's output is written as a constant plus a sum of per-tree leaf values (a forest's
trees divided by their number, AdaBoost's votes times their weights, boosting's leaf
values with the initial score as the constant); the SHAP values of a sum are the sums
of the trees' SHAP values, which :mod:`treeboost.engine.shap` computes exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple, Optional

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import check_is_fitted

from ..engine import ShapTrees, into_row_blocks
from ..ensembles.adaboost import AdaBoostClassifier, AdaBoostRegressor
from ..ensembles.bagging import BaseBagging
from ..ensembles.forest import BaseForest
from ..ensembles.gradient_boosting import BaseGradientBoosting
from ..trees.cart import BaseDecisionTree

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

    from .._typing import Float64Array, MatrixLike

__all__ = ["shap_values"]


class _Part(NamedTuple):
    """Trees that read one input matrix, and what they add to which outputs."""

    trees: list
    #: per tree, its leaf values as they enter the explained output, (node_count, V)
    values: list
    #: per tree, the first output its V values go to
    outputs: list
    #: per tree, the model's feature behind each column the tree reads (None: the column)
    players: Optional[list] = None
    #: the matrix the trees read, from the model's encoded X (None: that matrix itself)
    encode: Optional[Callable] = None


class _Additive(NamedTuple):
    """A model's explained output as ``offset + sum of the parts' tree values``."""

    n_outputs: int
    offset: np.ndarray
    parts: list


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
    equals ``predict(X)`` (regressors), ``predict_proba(X)`` (tree, forest and bagging
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
    decompose, fitted = _family(model)
    check_is_fitted(model, fitted)
    Xe = model._encode_X(X, reset=False)
    additive = decompose(model)
    n_features = model.n_features_in_
    K = additive.n_outputs
    values = np.zeros((Xe.shape[0], n_features, K))
    expected = np.array(additive.offset, dtype=np.float64).reshape(K)
    for part in additive.parts:
        if not part.trees:
            continue
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


def _family(model):
    """The decomposition of ``model``'s kind and the attribute that says it is fitted."""
    if isinstance(model, BaseDecisionTree):
        return _tree, "tree_"
    if isinstance(model, BaseForest):
        return _forest, "estimators_"
    if isinstance(model, BaseBagging):
        return _bagging, "estimators_"
    if isinstance(model, BaseGradientBoosting):
        return _boosting, "trees_"
    if isinstance(model, AdaBoostClassifier):
        return _adaboost, "estimators_"
    if isinstance(model, AdaBoostRegressor):
        raise ValueError(
            "shap_values: AdaBoostRegressor predicts the weighted median of its "
            "trees, which is not a sum of per-tree values: TreeSHAP does not "
            "apply (explain its members one by one, or use a forest or "
            "gradient boosting)."
        )
    raise TypeError(
        f"shap_values: model must be a treeboost binary-tree model (a CART tree, "
        f"a forest, bagging or AdaBoostClassifier of CART trees, or gradient "
        f"boosting), got {type(model).__name__}"
        + (
            " (a multiway tree)"
            if hasattr(model, "tree_") and not hasattr(model.tree_, "children_left")
            else ""
        )
        + "."
    )


def _n_classes(model):
    return int(model.n_classes_) if is_classifier(model) else 1


def _tree(model):
    tree = model.tree_
    K = tree.value.shape[1]
    return _Additive(K, np.zeros(K), [_Part([tree], [tree.value], [0])])


def _forest(model):
    trees = [m.tree_ for m in model.estimators_]
    K = _n_classes(model)
    scale = 1.0 / len(trees)
    return _Additive(
        K, np.zeros(K), [_Part(trees, [t.value * scale for t in trees], [0] * len(trees))]
    )


def _boosting(model):
    init = getattr(model, "init_", None)
    if init is not None and not isinstance(init, str):
        raise ValueError(
            f"shap_values: the initial raw score comes from "
            f"{type(init).__name__} (init=...), which is not a sum of tree "
            f"values: TreeSHAP does not apply (fit with init=None or 'zero')."
        )
    K = np.asarray(model._init_raw).shape[0]
    trees, outputs = [], []
    for per_output in model.trees_:
        for k, tree in enumerate(per_output):
            trees.append(tree)
            outputs.append(k)
    # the leaf values already hold the learning rate (predict adds them as they are)
    return _Additive(
        K,
        np.asarray(model._init_raw, dtype=np.float64),
        [_Part(trees, [t.value[:, :1] for t in trees], outputs)],
    )


def _cart_member(model, est, i):
    """The tree of member ``i``, refusing anything but a fitted treeboost CART tree."""
    if not isinstance(est, BaseDecisionTree) or not hasattr(est, "tree_"):
        raise TypeError(
            f"shap_values: {type(model).__name__}.estimators_[{i}] is a "
            f"{type(est).__name__}; only members that are treeboost CART trees "
            f"are explained."
        )
    return est.tree_


def _class_columns(model, est, value):
    """A member's leaf values in the model's class columns (a member fitted on rows
    without some class has fewer)."""
    cols = np.searchsorted(model.classes_, est.classes_)
    if value.shape[1] == model.n_classes_ and np.array_equal(cols, np.arange(cols.size)):
        return value
    full = np.zeros((value.shape[0], model.n_classes_))
    full[:, cols] = value
    return full


def _one_hot_argmax(value):
    """Each row's first largest column as a one-hot row: a vote for the class the leaf
    predicts (``np.argmax``, as predict breaks ties)."""
    hot = np.zeros_like(value)
    hot[np.arange(value.shape[0]), np.argmax(value, axis=1)] = 1.0
    return hot


def _bagging(model):
    """Mean of the members' outputs; a member drawn on a subset of the columns reads
    them through its own encoder, and its SHAP values go to the model's features."""
    classifier = is_classifier(model)
    K = _n_classes(model)
    hard = classifier and getattr(model, "voting", "soft") == "hard"
    scale = 1.0 / len(model.estimators_)
    shared = _Part([], [], [])
    parts = [shared]
    p = model.n_features_in_
    for i, (est, feats) in enumerate(zip(model.estimators_, model.estimators_features_)):
        tree = _cart_member(model, est, i)
        feats = np.asarray(feats, dtype=np.int64)
        full = feats.shape[0] == p and np.array_equal(feats, np.arange(p))
        direct = full and getattr(est, "_encoder", None) is model._encoder
        if classifier:
            value = tree.value if direct else _class_columns(model, est, tree.value)
            if hard:
                value = _one_hot_argmax(value)
        else:
            value = tree.value[:, :1]
        value = value * scale
        if direct:
            shared.trees.append(tree)
            shared.values.append(value)
            shared.outputs.append(0)
        else:
            parts.append(
                _Part(
                    [tree],
                    [value],
                    [0],
                    [feats],
                    lambda Xe, est=est, feats=feats: est._transform(Xe[:, feats]),
                )
            )
    return _Additive(K, np.zeros(K), parts)


def _adaboost(model):
    """SAMME's decision as scikit-learn codes it: ``d_k = sum_m a_m c_mk`` with
    ``a_m = alpha_m / sum alpha``, ``c_mk = 1`` when learner ``m`` predicts class ``k``
    and ``-1 / (K - 1)`` otherwise, i.e. ``a_m (K [h_m = k] - 1) / (K - 1)`` per tree;
    two classes give one output, ``d_1 - d_0 = sum_m 2 a_m ([h_m = 1] - [h_m = 0])``."""
    alpha = np.asarray(model.estimator_weights_, dtype=np.float64)
    alpha = alpha / alpha.sum()
    K = int(model.n_classes_)
    n_out = 1 if K <= 2 else K
    shared = _Part([], [], [])
    parts = [shared]
    for i, (est, a) in enumerate(zip(model.estimators_, alpha)):
        tree = _cart_member(model, est, i)
        direct = getattr(est, "_encoder", None) is model._encoder
        votes = _one_hot_argmax(tree.value)
        if not direct:
            votes = _class_columns(model, est, votes)
        if K == 1:  # a single class: every decision is 0
            value = np.zeros((votes.shape[0], 1))
        elif K == 2:
            value = 2.0 * a * (votes[:, 1:2] - votes[:, 0:1])
        else:
            value = a * (K * votes - 1.0) / (K - 1)
        if direct:
            shared.trees.append(tree)
            shared.values.append(value)
            shared.outputs.append(0)
        else:
            parts.append(_Part([tree], [value], [0], None, lambda Xe, est=est: est._transform(Xe)))
    return _Additive(n_out, np.zeros(n_out), parts)
