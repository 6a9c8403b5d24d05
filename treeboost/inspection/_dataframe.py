"""Every node of every tree of a fitted model as one pandas DataFrame."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..engine import TREE_LEAF
from ._tree_view import tree_views

if TYPE_CHECKING:
    import pandas as pd
    from sklearn.base import BaseEstimator

__all__ = ["trees_to_dataframe"]


def trees_to_dataframe(model: BaseEstimator) -> pd.DataFrame:
    """One row per node of every tree of ``model``, as LightGBM's
    ``Booster.trees_to_dataframe``.

    Parameters
    ----------
    model : fitted treeboost estimator
        A CART tree, an ID3 / C4.5 tree, a forest (RandomForest, ExtraTrees), bagging or
        AdaBoost of treeboost trees, or gradient boosting.

    Returns
    -------
    pandas.DataFrame
        Columns, in this order:

        * ``tree_index`` -- the tree's ``tree_index`` in
          :func:`~treeboost.inspection.export_text` and the other exports: 0 for a
          single tree, the member's position in ``estimators_`` for an ensemble; for
          gradient boosting ``iteration * K + class`` (K trees per iteration, as LightGBM
          counts), with the columns ``iteration`` and ``class`` after it (pass
          ``tree_index=(iteration, class)`` to the exports);
        * ``node`` (the row of the tree's arrays), ``parent``, ``left_child``,
          ``right_child`` (nullable integers: ``<NA>`` at the root and at leaves), and for
          ID3 / C4.5 trees ``children`` (a tuple, one child per branch) and ``branch``
          (the label of the branch from the parent);
        * ``depth``;
        * ``feature`` -- the name of the model's column tested (a bagging member's subset
          named by the model's columns), missing at leaves;
        * ``split_type`` -- "numeric", "categorical", missing at leaves;
        * ``threshold`` -- a numeric split's ``x <= threshold`` going left (``inf``: "is
          missing"; a date column: seconds since 1970-01-01, as the encoder codes it),
          NaN otherwise;
        * ``categories`` -- a categorical split's categories going left, as a tuple of
          the values of X (a shared code of rare categories stands for all of them, so
          ``x in categories`` tells the side); an ID3 / C4.5 node: one label per branch,
          in branch order; None otherwise;
        * ``missing_go_left`` -- nullable bool, ``<NA>`` at leaves and at multiway nodes
          (which send a missing value down every branch);
        * ``value`` -- the node's output (the mean, or a boosting tree's raw score added
          to ``init_score_``), or one column ``value_<label>`` per class (class
          fractions) or per output;
        * ``weight`` (``weighted_n_node_samples``), ``count`` (``n_node_samples``),
          ``impurity``, ``gain`` (the split's weighted impurity decrease, or a boosting
          tree's second-order gain; 0 at leaves; an ID3 / C4.5 node: the gain of the
          attribute it chose, NaN at leaves).  The ``impurity`` of a boosting tree grown
          with the second-order gain (HistGradientBoosting, ``split_gain="hessian"``) is
          not a Gini index or a variance but the node's second-order objective
          ``-1/2 G^2 / (H + lambda)`` (G, H: the sums of the node's gradients and
          hessians, lambda the L2 regularization): zero or negative, lower is better, and
          a split's ``gain`` is the parent's value minus its children's.

    Raises
    ------
    ValueError
        ``model`` is not a fitted treeboost tree or ensemble, or one of its members is not
        a treeboost tree.

    Examples
    --------
    >>> from treeboost import DecisionTreeRegressor
    >>> from treeboost.inspection import trees_to_dataframe
    >>> reg = DecisionTreeRegressor(max_depth=1).fit([[0], [1], [2], [3]], [0, 0, 1, 1])
    >>> trees_to_dataframe(reg)[["node", "parent", "feature", "threshold", "value"]]
       node  parent feature  threshold  value
    0     0    <NA>      x0        1.5    0.5
    1     1       0     NaN        NaN    0.0
    2     2       0     NaN        NaN    1.0
    """
    import pandas as pd

    views = tree_views(model)
    parts = [_multiway_columns(v) if v.multiway else _binary_columns(v) for v in views]
    if not parts:
        # a boosting fit that diverged at its first iteration keeps no tree
        parts = [_no_tree()]
    columns = {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}
    frame = pd.DataFrame(columns)
    for name in ("parent", "left_child", "right_child"):
        # -1 (none) becomes <NA>: a node id column that cannot be mistaken for node -1
        ids = frame[name].astype("Int64")
        frame[name] = ids.mask(ids < 0)
    frame["missing_go_left"] = pd.array(
        [None if v is None else bool(v) for v in frame["missing_go_left"]], dtype="boolean"
    )
    return frame


def _no_tree():
    """The columns of a booster's frame, without rows."""
    ints = (
        "tree_index",
        "iteration",
        "class",
        "node",
        "parent",
        "left_child",
        "right_child",
        "depth",
        "count",
    )
    objects = ("feature", "split_type", "categories", "missing_go_left")
    names = ints[:8] + (
        "feature",
        "split_type",
        "threshold",
        "categories",
        "missing_go_left",
        "value",
        "weight",
        "count",
        "impurity",
        "gain",
    )
    return {
        name: np.empty(0, np.int64 if name in ints else object if name in objects else np.float64)
        for name in names
    }


def _index_columns(view, n):
    out = {"tree_index": np.full(n, view.index["tree_index"], np.int64)}
    if "iteration" in view.index:
        out["iteration"] = np.full(n, view.index["iteration"], np.int64)
        out["class"] = np.full(n, view.index["class"], np.int64)
    return out


def _value_columns(view):
    value = np.asarray(view.tree.value, dtype=np.float64)
    if value.shape[1] == 1:
        return {"value": value[:, 0]}
    labels = view.classes if view.classes is not None else range(value.shape[1])
    return {f"value_{label}": value[:, k] for k, label in enumerate(labels)}


def _object_array(values):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _binary_columns(view):
    tree = view.tree
    n = tree.node_count
    left, right = np.asarray(tree.children_left), np.asarray(tree.children_right)
    internal = np.flatnonzero(left != TREE_LEAF)
    parent = np.full(n, -1, np.int64)
    parent[left[internal]] = internal
    parent[right[internal]] = internal
    # a member cutting the model's category codes as numbers shows its category set too
    enc = view.encoder
    on_categories = np.array(
        [enc is not None and enc.categories_[c] is not None for c in view.columns] + [False], bool
    )
    feature = np.where(left != TREE_LEAF, tree.feature, len(view.feature_names))
    candidates = internal[
        np.asarray(tree.is_categorical, bool)[internal] | on_categories[feature[internal]]
    ]
    sets = {int(node): view.category_split(node) for node in candidates}
    is_cat = np.zeros(n, bool)
    is_cat[[node for node, codes in sets.items() if codes is not None]] = True
    names = np.asarray(view.feature_names + (None,), dtype=object)
    split_type = np.full(n, None, dtype=object)
    split_type[internal] = np.where(is_cat[internal], "categorical", "numeric")
    numeric = (left != TREE_LEAF) & ~is_cat
    categories = np.full(n, None, dtype=object)
    for node in np.flatnonzero(is_cat):
        categories[node] = tuple(view.category_members(int(tree.feature[node]), sets[int(node)]))
    missing = np.full(n, None, dtype=object)
    missing[internal] = np.asarray(tree.missing_go_left, bool)[internal]
    return {
        **_index_columns(view, n),
        "node": np.arange(n, dtype=np.int64),
        "parent": parent,
        "left_child": np.where(left != TREE_LEAF, left, -1).astype(np.int64),
        "right_child": np.where(left != TREE_LEAF, right, -1).astype(np.int64),
        "depth": np.asarray(tree.depth, np.int64),
        "feature": names[feature],
        "split_type": split_type,
        "threshold": np.where(numeric, tree.threshold, np.nan),
        "categories": categories,
        "missing_go_left": missing,
        **_value_columns(view),
        "weight": np.asarray(tree.weighted_n_node_samples, np.float64),
        "count": np.asarray(tree.n_node_samples, np.int64),
        "impurity": np.asarray(tree.impurity, np.float64),
        "gain": np.asarray(tree.gain, np.float64),
    }


def _multiway_columns(view):
    tree = view.tree
    n = tree.node_count
    internal = ~tree.is_leaf
    names = view.feature_names
    left = np.full(n, -1, np.int64)
    right = np.full(n, -1, np.int64)
    feature = np.full(n, None, dtype=object)
    split_type = np.full(n, None, dtype=object)
    categories = np.full(n, None, dtype=object)
    branch = np.full(n, None, dtype=object)
    gain = np.full(n, np.nan)
    for node in np.flatnonzero(internal):
        j = int(tree.feature[node])
        kids = tree.children[node]
        feature[node] = names[j]
        report = tree.report[node]
        if report is not None:
            gain[node] = float(report["gain"][j])
        if tree.is_categorical[node]:
            split_type[node] = "categorical"
            categories[node] = tuple(view.category_values(j, range(len(kids))))
            branch[kids] = _object_array(view.category_labels(j, range(len(kids))))
        else:
            split_type[node] = "numeric"
            left[node], right[node] = int(kids[0]), int(kids[1])
            t = view.threshold_text(j, float(tree.threshold[node]), 6)
            branch[kids] = _object_array([f"<= {t}", f"> {t}"])
    children = _object_array([tuple(int(c) for c in kids) for kids in tree.children])
    return {
        **_index_columns(view, n),
        "node": np.arange(n, dtype=np.int64),
        "parent": np.asarray(tree.parent, np.int64),
        "left_child": left,
        "right_child": right,
        "children": children,
        "branch": branch,
        "depth": np.asarray(tree.depth, np.int64),
        "feature": feature,
        "split_type": split_type,
        "threshold": np.where(internal & ~tree.is_categorical, tree.threshold, np.nan),
        "categories": categories,
        "missing_go_left": np.full(n, None, dtype=object),
        **_value_columns(view),
        "weight": np.asarray(tree.weighted_n_node_samples, np.float64),
        # a row with a missing value reaches several leaves with fractions of its weight
        "count": np.asarray(tree.n_node_samples, np.float64),
        "impurity": np.asarray(tree.impurity, np.float64),
        "gain": gain,
    }
