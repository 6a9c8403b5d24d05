"""Partial dependence of a treeboost model by the recursion method (Friedman 2001).

scikit-learn's ``partial_dependence(method="recursion")`` takes only its own tree
classes; this is the same computation on treeboost's trees.  For target features ``S``
at grid point ``z``, each tree is walked from the root: at a node splitting on a feature
of ``S`` the walk follows ``z``; at any other node it takes both children, weighted by
the fraction of the node's training weight (``weighted_n_node_samples``) each holds.
The tree's partial dependence is the weighted sum of the leaf values reached, and the
model's is ``offset + sum over trees`` on its raw output (before any link: the
``decision_function`` of a boosting classifier, ``predict_proba`` of a forest).  It
equals the brute-force average ``mean_i f(z, x_i,C)`` over the training rows when each
tree's node weights are those rows' (a single tree, boosting without subsampling).
"""

from typing import NamedTuple

import numpy as np

from ._model_trees import model_trees


class PartialDependence(NamedTuple):
    """Result of :func:`partial_dependence`."""

    #: for each target feature, its grid values (encoded: a category's code)
    grid_values: list
    #: raw output at each grid point, shape (n_outputs, len(grid_values[0]), ...)
    average: np.ndarray


def _goes_left(tree, node, z):
    """Whether value(s) ``z`` of the node's feature go left (no missing values)."""
    if tree.is_categorical[node]:
        codes = z.astype(np.int64)
        word = np.asarray(tree.categories_left)[node][codes >> 6]
        return ((word >> (codes & 63).astype(np.uint64)) & np.uint64(1)).astype(bool)
    return z <= tree.threshold[node]


def _tree_dependence(mt, targets, points):
    """One tree's partial dependence at ``points`` (n_points, len(targets))."""
    t = mt.tree
    left, right = np.asarray(t.children_left), np.asarray(t.children_right)
    feature = np.asarray(t.feature)
    if mt.features is not None:
        feature = np.where(left < 0, -1, np.asarray(mt.features)[np.maximum(feature, 0)])
    w = np.asarray(t.weighted_n_node_samples, np.float64)
    out = np.zeros((points.shape[0], mt.values.shape[1]))
    stack = [(0, np.ones(points.shape[0]))]
    while stack:  # a walk over nodes, each step vectorised over the grid points
        node, weight = stack.pop()
        if left[node] < 0:
            out += weight[:, None] * mt.values[node]
            continue
        where = np.flatnonzero(targets == feature[node])
        if where.size:
            go = _goes_left(t, node, points[:, where[0]])
            stack.append((left[node], weight * go))
            stack.append((right[node], weight * ~go))
        else:
            stack.append((left[node], weight * (w[left[node]] / w[node])))
            stack.append((right[node], weight * (w[right[node]] / w[node])))
    return out


def partial_dependence(model, X, features):
    """Partial dependence of ``model``'s raw output on ``features``, by recursion.

    Parameters
    ----------
    model : fitted treeboost estimator
        A sum of binary trees (see :func:`~treeboost.inspection.dump_model`).
    X : array-like or DataFrame of shape (n_samples, n_features)
        Rows whose distinct values of each target feature form its grid (missing
        values left out); encoded as ``predict`` encodes X.
    features : int, str or list of int or str
        The target features (indices or names), one grid axis each.

    Returns
    -------
    PartialDependence
        ``average[k, i, j, ...]`` is raw output ``k`` at ``grid_values[0][i]``,
        ``grid_values[1][j]``, ... (the cartesian product of the grids).
    """
    trees = model_trees(model)
    if any(t.encode is not None for t in trees.trees):
        raise ValueError(
            "partial_dependence: the members of this model read their own encoding of X."
        )
    features = [features] if isinstance(features, (int, str, np.integer)) else list(features)
    names = list(getattr(model, "feature_names_in_", []))
    targets = []
    for f in features:
        if isinstance(f, str):
            if f not in names:
                raise ValueError(f"features: {f!r} is not a feature name of the model.")
            f = names.index(f)
        if not 0 <= int(f) < model.n_features_in_:
            raise ValueError(f"features: {f!r} is not in [0, {model.n_features_in_ - 1}].")
        targets.append(int(f))
    Xe = np.asarray(model._encode_X(X, reset=False), np.float64)
    grids = [np.unique(Xe[~np.isnan(Xe[:, f]), f]) for f in targets]
    mesh = np.meshgrid(*grids, indexing="ij")
    points = np.column_stack([m.ravel() for m in mesh])
    k = trees.n_outputs
    raw = np.tile(np.asarray(trees.offset, np.float64).reshape(1, k), (points.shape[0], 1))
    targets_arr = np.asarray(targets)
    for mt in trees.trees:
        part = _tree_dependence(mt, targets_arr, points)
        raw[:, mt.output : mt.output + part.shape[1]] += part
    shape = (k,) + tuple(g.shape[0] for g in grids)
    return PartialDependence(grids, raw.T.reshape(shape))
