"""A treeboost model as a sum of trees: the one decomposition every consumer reads.

Every binary-tree model of treeboost computes its output as a constant plus a sum of
per-tree leaf values, mapped through a link::

    raw_k(x) = offset_k + sum_t values_t[leaf_t(x), k - output_t]
    output(x) = link(raw(x))

a forest's trees divided by their number, bagging's members likewise (hard voting: a
one-hot vote per leaf), AdaBoost's votes times their weights, boosting's leaf values with
the initial score as the offset.  :func:`model_trees` writes that rule once;
:func:`~treeboost.inspection.shap_values` explains ``raw`` with it, and the exporters
(:mod:`treeboost.export`) write it to other formats.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Optional

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import check_is_fitted

from ..ensembles.adaboost import AdaBoostClassifier, AdaBoostRegressor
from ..ensembles.bagging import BaseBagging
from ..ensembles.forest import BaseForest
from ..ensembles.gradient_boosting import BaseGradientBoosting
from ..trees.cart import BaseDecisionTree

__all__ = ["ModelTree", "ModelTrees", "model_trees", "LINKS"]

#: the links from the summed raw score to the model's output: ``identity`` (regression,
#: and the class probabilities of trees, forests and bagging), ``exp`` (Poisson and Gamma
#: losses), ``sigmoid`` (one raw score ``F`` of two classes: ``p_1 = expit(scale F)``,
#: ``p_0 = 1 - p_1``), ``softmax`` (``p = softmax(scale F)`` over the K raw scores)
LINKS = ("identity", "exp", "sigmoid", "softmax")


class ModelTree(NamedTuple):
    """One tree of a model and what it adds to which outputs.

    The node arrays are the engine tree's (:class:`treeboost.engine.Tree`):
    ``children_left``, ``children_right`` (-1 at leaves), ``feature``, ``threshold``
    (``x <= threshold`` goes left), ``is_categorical`` and ``categories_left`` (256-bit
    sets of the category codes that go left), ``missing_go_left`` (the side of NaN and
    of categories unseen in training).
    """

    #: the engine tree (its node arrays)
    tree: object
    #: its leaf values as they enter the model's raw score, shape (node_count, V):
    #: weights (``1 / n_trees``, AdaBoost's ``alpha``) already applied
    values: np.ndarray
    #: the first raw output its V values go to
    output: int
    #: the model's feature behind each column the tree reads (None: column j is feature j)
    features: Optional[np.ndarray] = None
    #: the member's own encoder when its tree reads its own encoding of the model's
    #: encoded columns (None: the tree reads the model's encoded X itself)
    encoder: object = None
    #: the matrix the tree reads, from the model's encoded X (None: that matrix itself)
    encode: Optional[Callable] = None


class ModelTrees(NamedTuple):
    """A model as ``link(offset + sum of its trees' values)``."""

    #: raw outputs (1 for a binary boosting or AdaBoost classifier, K for K classes)
    n_outputs: int
    #: the raw score before any tree (boosting's initial score), shape (n_outputs,)
    offset: np.ndarray
    #: the trees, in the order the model sums them
    trees: list
    #: one of :data:`LINKS`
    link: str
    #: the factor of the raw score inside the link (2 for the exponential loss,
    #: ``1 / (K - 1)`` for AdaBoost of K > 2 classes)
    link_scale: float
    #: the class labels of a classifier (the label of ``argmax`` of its probabilities),
    #: None for a regressor
    classes: Optional[np.ndarray]
    #: the model's method whose values ``offset + sum`` are: ``"predict_proba"``,
    #: ``"decision_function"`` or ``"predict"`` (before the link)
    raw_method: str
    #: whether the trees are gradient boosting's (``GradientBoosting*``,
    #: ``HistGradientBoosting*``): each fitted to the gradients of the ones before, the
    #: kind of model a booster's format (LightGBM's text model) writes
    boosting: bool = False


def model_trees(model: Any) -> ModelTrees:
    """The trees of a fitted treeboost binary-tree model and how they add up.

    Parameters
    ----------
    model : fitted treeboost estimator
        ``DecisionTree*``, ``ExtraTree*``, ``RandomForest*``, ``ExtraTrees*``,
        ``Bagging*`` of treeboost CART trees, ``GradientBoosting*``,
        ``HistGradientBoosting*``, ``AdaBoostClassifier`` of treeboost CART trees.

    Returns
    -------
    ModelTrees

    Raises
    ------
    TypeError
        ``model`` is not one of those (or a member is not a treeboost CART tree).
    ValueError
        ``model`` is not a sum of trees (``AdaBoostRegressor``: a weighted median;
        boosting with an estimator as ``init``).
    """
    decompose, fitted = _family(model)
    check_is_fitted(model, fitted)
    return decompose(model)


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
            "AdaBoostRegressor predicts the weighted median of its trees, which is "
            "not a sum of per-tree values: it cannot be written as a sum of trees "
            "(take its members one by one, or use a forest or gradient boosting)."
        )
    raise TypeError(
        f"model must be a treeboost binary-tree model (a CART tree, a forest, "
        f"bagging or AdaBoostClassifier of CART trees, or gradient boosting), got "
        f"{type(model).__name__}"
        + (
            " (a multiway tree)"
            if hasattr(model, "tree_") and not hasattr(model.tree_, "children_left")
            else ""
        )
        + "."
    )


def _classes(model):
    return np.asarray(model.classes_) if is_classifier(model) else None


def _n_classes(model):
    return int(model.n_classes_) if is_classifier(model) else 1


def _averaged(model, K):
    """The link and raw method of a mean of trees: probabilities or values as they are."""
    method = "predict_proba" if is_classifier(model) else "predict"
    return dict(link="identity", link_scale=1.0, classes=_classes(model), raw_method=method)


def _tree(model):
    tree = model.tree_
    K = tree.value.shape[1]
    return ModelTrees(K, np.zeros(K), [ModelTree(tree, tree.value, 0)], **_averaged(model, K))


def _forest(model):
    trees = [m.tree_ for m in model.estimators_]
    K = trees[0].value.shape[1] if trees else _n_classes(model)
    scale = 1.0 / len(trees)
    return ModelTrees(
        K,
        np.zeros(K),
        [ModelTree(t, t.value * scale, 0) for t in trees],
        **_averaged(model, K),
    )


def _boosting_link(model, K):
    """The link of a boosting model's loss: its ``predict_proba`` / ``predict``."""
    name = getattr(model._loss, "name", None)
    if is_classifier(model):
        scale = 2.0 if name == "exponential" else 1.0
        return dict(
            link="sigmoid" if K == 1 else "softmax",
            link_scale=scale,
            classes=_classes(model),
            raw_method="decision_function",
        )
    return dict(
        link="exp" if name in ("poisson", "gamma") else "identity",
        link_scale=1.0,
        classes=None,
        raw_method="predict",
    )


def _boosting(model):
    init = getattr(model, "init_", None)
    if init is not None and not isinstance(init, str):
        raise ValueError(
            f"The initial raw score comes from {type(init).__name__} (init=...), "
            f"which is not a sum of tree values (fit with init=None or 'zero')."
        )
    K = np.asarray(model._init_raw).shape[0]
    trees = []
    # the leaf values already hold the learning rate (predict adds them as they are)
    for per_output in model.trees_:
        for k, tree in enumerate(per_output):
            trees.append(ModelTree(tree, tree.value[:, :1], k))
    return ModelTrees(
        K,
        np.asarray(model._init_raw, dtype=np.float64),
        trees,
        **_boosting_link(model, K),
        boosting=True,
    )


def _cart_member(model, est, i):
    """The tree of member ``i``, refusing anything but a fitted treeboost CART tree."""
    if not isinstance(est, BaseDecisionTree) or not hasattr(est, "tree_"):
        raise TypeError(
            f"{type(model).__name__}.estimators_[{i}] is a {type(est).__name__}; only "
            f"members that are treeboost CART trees are taken."
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
    them through its own encoder."""
    classifier = is_classifier(model)
    K = _n_classes(model)
    hard = classifier and getattr(model, "voting", "soft") == "hard"
    scale = 1.0 / len(model.estimators_)
    p = model.n_features_in_
    trees = []
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
            trees.append(ModelTree(tree, value, 0))
        else:
            encode = lambda Xe, est=est, feats=feats: est._transform(Xe[:, feats])  # noqa: E731
            trees.append(ModelTree(tree, value, 0, feats, est._encoder, encode))
    return ModelTrees(K, np.zeros(K), trees, **_averaged(model, K))


def _adaboost(model):
    """SAMME's decision as scikit-learn codes it: ``d_k = sum_m a_m c_mk`` with
    ``a_m = alpha_m / sum alpha``, ``c_mk = 1`` when learner ``m`` predicts class ``k``
    and ``-1 / (K - 1)`` otherwise, i.e. ``a_m (K [h_m = k] - 1) / (K - 1)`` per tree;
    two classes give one output, ``d_1 - d_0 = sum_m 2 a_m ([h_m = 1] - [h_m = 0])``;
    ``predict_proba`` is ``softmax(d / (K - 1))`` (two classes: ``expit(d)``)."""
    alpha = np.asarray(model.estimator_weights_, dtype=np.float64)
    alpha = alpha / alpha.sum()
    K = int(model.n_classes_)
    n_out = 1 if K <= 2 else K
    trees = []
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
            trees.append(ModelTree(tree, value, 0))
        else:
            encode = lambda Xe, est=est: est._transform(Xe)  # noqa: E731
            trees.append(ModelTree(tree, value, 0, None, est._encoder, encode))
    return ModelTrees(
        n_out,
        np.zeros(n_out),
        trees,
        link="sigmoid" if n_out == 1 else "softmax",
        link_scale=1.0 if n_out == 1 else 1.0 / (K - 1),
        classes=_classes(model),
        raw_method="decision_function",
    )
