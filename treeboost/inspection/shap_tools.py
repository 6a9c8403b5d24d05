"""treeboost models in shap: its ``TreeExplainer`` on treeboost's trees, and treeboost's
own SHAP values as a ``shap.Explanation``.

shap's ``TreeEnsemble`` takes a list of its ``SingleTree`` records (node arrays:
children, default child for a missing value, feature, threshold, values, node weights),
whose thresholds are either numeric (``x <= threshold`` goes left, as treeboost's) or
category sets (``threshold_types == 1``: category ``c`` goes left when bit ``c - 1`` of
the integer threshold is set).  :func:`shap_explainer` fills those records from
:func:`~treeboost.inspection._model_trees.model_trees` (one tree per model tree, plus a
one-leaf tree holding the model's offset), so shap's own C++ TreeSHAP explains the model
on treeboost's encoding of X (category code ``c`` given to shap as ``c + 1``).
"""

import numpy as np

from ._model_trees import model_trees

#: shap reads a category set as the bits of a 32-bit int: codes 0..30 only
MAX_SHAP_CATEGORIES = 31


def _import_shap():
    try:
        import shap
    except ImportError as exc:
        raise ImportError(
            "shap_explainer and shap_explanation need shap: pip install shap"
        ) from exc
    return shap


def _left_mask(bits_row):
    """The category codes 0..30 of one node's 256-bit set, as shap's integer mask."""
    return float(int(bits_row[0]) & ((1 << MAX_SHAP_CATEGORIES) - 1))


def _single_tree(shap, mt, n_outputs):
    """One model tree as shap's ``SingleTree``."""
    t = mt.tree
    left = np.asarray(t.children_left, np.int32)
    right = np.asarray(t.children_right, np.int32)
    leaf = left < 0
    feature = np.asarray(t.feature, np.int64)
    if mt.features is not None:
        feature = np.where(leaf, 0, np.asarray(mt.features)[np.where(leaf, 0, feature)])
    values = np.zeros((left.shape[0], n_outputs))
    values[:, mt.output : mt.output + mt.values.shape[1]] = mt.values
    default = np.where(np.asarray(t.missing_go_left, bool), left, right).astype(np.int32)
    threshold = np.asarray(t.threshold, np.float64).copy()
    is_cat = np.asarray(t.is_categorical, bool) & ~leaf
    record = shap.explainers._tree.SingleTree(
        {
            "children_left": left,
            "children_right": right,
            "children_default": np.where(leaf, -1, default).astype(np.int32),
            "features": np.where(leaf, -2, feature).astype(np.int32),
            "thresholds": np.where(leaf, 0.0, threshold),
            "values": values,
            "node_sample_weight": np.asarray(t.weighted_n_node_samples, np.float64),
        }
    )
    if is_cat.any():
        bits = np.asarray(t.categories_left)
        record.thresholds[is_cat] = [_left_mask(bits[i]) for i in np.flatnonzero(is_cat)]
        record.threshold_types[is_cat] = 1
    return record


def _offset_tree(shap, offset):
    """A one-leaf tree whose value is the model's offset (shap adds it to the expected
    value and to no feature)."""
    k = offset.shape[0]
    return shap.explainers._tree.SingleTree(
        {
            "children_left": np.array([-1], np.int32),
            "children_right": np.array([-1], np.int32),
            "children_default": np.array([-1], np.int32),
            "features": np.array([-2], np.int32),
            "thresholds": np.zeros(1),
            "values": np.asarray(offset, np.float64).reshape(1, k),
            "node_sample_weight": np.ones(1),
        }
    )


def _check_reachable(model, trees):
    if any(t.encode is not None for t in trees.trees):
        raise ValueError(
            "shap_explainer: the members of this model read their own encoding of X "
            "(bagging of trees with categorical columns); use shap_explanation(model, X)."
        )
    enc = model._encoder
    for f in np.flatnonzero(enc.is_categorical_):
        if len(enc.categories_[f]) > MAX_SHAP_CATEGORIES:
            raise ValueError(
                f"shap_explainer: feature {f} has {len(enc.categories_[f])} categories; "
                f"shap's TreeExplainer holds a category set of at most "
                f"{MAX_SHAP_CATEGORIES}; use shap_explanation(model, X)."
            )


def shap_explainer(model):
    """A ``shap.TreeExplainer`` running shap's TreeSHAP on a treeboost model's trees.

    Its ``shap_values(X)`` and ``explainer(X)`` take X as the model's ``predict`` does
    (DataFrame, categories, NaN) and give, with ``feature_perturbation=
    "tree_path_dependent"``, the values of :func:`~treeboost.inspection.shap_values`:
    for each row, ``expected_value + values.sum(axis=1)`` is the model's raw output
    (``predict`` of a regressor, ``predict_proba`` of a tree, forest or bagging
    classifier, ``decision_function`` of a boosting classifier).

    Parameters
    ----------
    model : fitted treeboost estimator
        One that :func:`~treeboost.inspection.shap_values` explains.  Categorical
        columns of more than 31 categories, and bagging members with categorical
        columns, are refused (shap's category sets are 32-bit masks):
        :func:`shap_explanation` covers them.

    Returns
    -------
    shap.TreeExplainer
    """
    shap = _import_shap()
    trees = model_trees(model)
    _check_reachable(model, trees)
    k = trees.n_outputs
    records = [_single_tree(shap, t, k) for t in trees.trees]
    records.append(_offset_tree(shap, np.asarray(trees.offset, np.float64).reshape(k)))
    return _explainer_class(shap)(records, model)


def _explainer_class(shap):
    # the base is the lazily imported shap's (an argument here): no class to the checker
    class TreeboostTreeExplainer(shap.TreeExplainer):  # type: ignore[name-defined]
        """shap's TreeExplainer reading X as a treeboost model encodes it."""

        def __init__(self, records, model):
            super().__init__(records, feature_perturbation="tree_path_dependent")
            self.treeboost_model = model

        def _encoded(self, X):
            Xe = np.array(self.treeboost_model._encode_X(X, reset=False), np.float64)
            cat = self.treeboost_model._encoder.is_categorical_
            Xe[:, cat] += 1.0  # shap's category c is treeboost's code c - 1
            return Xe

        def shap_values(self, X, y=None, tree_limit=None, approximate=False, **kwargs):
            values = super().shap_values(self._encoded(X), y, tree_limit, approximate, **kwargs)
            return values

        def __call__(self, X, y=None, interactions=False, check_additivity=True):
            explanation = super().__call__(X, y, interactions, check_additivity)
            names = getattr(self.treeboost_model, "feature_names_in_", None)
            if names is not None:
                explanation.feature_names = list(names)
            explanation.data = self.treeboost_model._encode_X(X, reset=False)
            return explanation

    return TreeboostTreeExplainer


def shap_explanation(model, X):
    """treeboost's exact SHAP values of ``X`` as a ``shap.Explanation``.

    ``values`` and ``base_values`` are :func:`~treeboost.inspection.shap_values`'s
    (path-dependent TreeSHAP of the model's raw output, every row's ``base_values``
    the expected value); ``data`` is X as the trees read it (categories as codes,
    missing as NaN), ``display_data`` the rows as given, ``feature_names`` the model's
    (or ``x0, x1, ...``).  Every ``shap.plots`` function draws it.

    Parameters
    ----------
    model : fitted treeboost estimator
        One that :func:`~treeboost.inspection.shap_values` explains.
    X : array-like or DataFrame of shape (n_samples, n_features)

    Returns
    -------
    shap.Explanation
        ``values`` of shape (n_samples, n_features) or (n_samples, n_features, n_outputs).
    """
    from ._shap import shap_values

    shap = _import_shap()
    values, expected = shap_values(model, X)
    n = values.shape[0]
    base = np.broadcast_to(np.asarray(expected, np.float64), (n,) + np.shape(expected)).copy()
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        names = [f"x{i}" for i in range(model.n_features_in_)]
    display = X.to_numpy() if hasattr(X, "to_numpy") else np.asarray(X)
    return shap.Explanation(
        values=values,
        base_values=base,
        data=model._encode_X(X, reset=False),
        display_data=display,
        feature_names=list(names),
    )
