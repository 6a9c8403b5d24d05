"""One tree of a treeboost model drawn by dtreeviz (``pip install dtreeviz``).

dtreeviz reads a tree through an adaptor of its own, a ``ShadowDecTree`` subclass per
library (scikit-learn, XGBoost, LightGBM, ...); :func:`dtreeviz_model` builds the one
for treeboost's trees and hands it to ``dtreeviz.model``, whose ``view()`` then draws
the tree with the training rows' distribution at each node.

The adaptor reads the tree as :mod:`._tree_view` picks it (``tree_index`` and
``class_index`` as in :func:`~treeboost.inspection.export_text`) and the rows as the
model's encoder gives them: category codes for a categorical column, seconds since the
epoch for a date column.  Each node's rows are the engine's own walk of the tree
(``decision_path``), so the counts dtreeviz prints are the rows the model sends there.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils import compute_class_weight

from ._tree_view import _names, index_doc, tree_view

__all__ = ["dtreeviz_model"]


def _require_dtreeviz():
    try:
        import dtreeviz  # type: ignore[import-untyped,import-not-found,unused-ignore]  # noqa: F401
        from dtreeviz.models.shadow_decision_tree import ShadowDecTree  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "dtreeviz_model needs dtreeviz: pip install dtreeviz (and graphviz's dot "
            "program to render the drawing)."
        ) from exc
    return ShadowDecTree


class _TreeboostShadow:
    """dtreeviz's view of one treeboost tree (a ``Tree`` of the engine) of ``model``: the
    methods of dtreeviz's ``ShadowDecTree``, combined with it by :func:`_shadow_class`.

    ``X_train`` is the model's encoded X, ``y_train`` the class indices (into
    ``model.classes_``) of a classifier or the target of a regressor; a node's
    feature is the model's column its split tests."""

    # set by dtreeviz's ShadowDecTree, the base this class is combined with
    X_train: Any
    y_train: Any
    X_train_raw: Any
    y_raw: Any

    def __init__(self, model, view, X_train, y_train, feature_names, target_name, class_names):
        self.model = model
        self.view = view
        self.tree = view.tree
        self._columns = np.where(self.tree.children_left != -1, view.columns[self.tree.feature], -1)
        self.node_to_samples = None
        # the base is dtreeviz's ShadowDecTree
        super().__init__(  # type: ignore[call-arg]
            model, X_train, y_train, feature_names, target_name, class_names
        )

    # -- the model -------------------------------------------------------------
    def is_fit(self):
        return True

    def is_classifier(self):
        return is_classifier(self.model)

    def nclasses(self):
        return len(self.model.classes_) if self.is_classifier() else 1

    def classes(self):
        if self.is_classifier():
            return self.model.classes_

    def get_class_weight(self):
        return getattr(self.model, "class_weight", None)

    def get_class_weights(self):
        weight = self.get_class_weight()
        if not self.is_classifier() or weight is None:
            return None
        return compute_class_weight(
            weight, classes=np.arange(self.nclasses()), y=np.asarray(self.y_train)
        )

    def criterion(self):
        from dtreeviz.models.shadow_decision_tree import VisualisationNotYetSupportedError

        crit = getattr(self.model, "criterion", None)
        if not isinstance(crit, str):
            raise VisualisationNotYetSupportedError("criterion()", type(self.model).__name__)
        return crit.upper() if crit in ("gini", "mse") else crit

    def get_score(self):
        from dtreeviz.models.shadow_decision_tree import VisualisationNotYetSupportedError

        if "tree_" not in vars(self.model):  # a member of an ensemble
            raise VisualisationNotYetSupportedError("get_score()", "an ensemble's tree")
        return self.model.score(self.X_train_raw, self.y_raw)

    def get_min_samples_leaf(self):
        return getattr(self.model, "min_samples_leaf", 1)

    def get_max_depth(self):
        return int(self.tree.max_depth)

    # -- the tree's arrays -----------------------------------------------------------
    def nnodes(self):
        return int(self.tree.node_count)

    def get_children_left(self):
        return np.asarray(self.tree.children_left, dtype=int)

    def get_children_right(self):
        return np.asarray(self.tree.children_right, dtype=int)

    def get_features(self):
        return self._columns

    def get_node_feature(self, id):
        return int(self._columns[id])

    def is_categorical_split(self, id):
        return bool(self.tree.is_categorical[id]) and self.tree.children_left[id] != -1

    def get_node_split(self, id):
        if self.is_categorical_split(id):
            return [int(c) for c in self.view.category_split(id)]
        return float(self.tree.threshold[id])

    def get_thresholds(self):
        return np.array(
            [
                self.get_node_split(i) if self.tree.children_left[i] != -1 else -1
                for i in range(self.nnodes())
            ],
            dtype=object,
        )

    def get_root_edge_labels(self):
        return ["&le;", "&gt;"]

    def _goes_left(self, id, x):
        """Whether the values ``x`` of node ``id``'s column go left (NaN: the
        split's missing side; a category outside the set: right)."""
        x = np.asarray(x, dtype=np.float64)
        if self.is_categorical_split(id):
            left = np.isin(x, self.get_node_split(id))
        else:
            left = x <= self.tree.threshold[id]
        return np.where(np.isnan(x), bool(self.tree.missing_go_left[id]), left)

    def shouldGoLeftAtSplit(self, id, x):
        return bool(self._goes_left(id, x))

    # -- the rows at each node ---------------------------------------------------------
    def get_node_samples(self):
        if self.node_to_samples is None:
            X = np.asarray(self.X_train, dtype=np.float64)[:, self.view.columns]
            paths = self.tree.decision_path(np.ascontiguousarray(X)).tocsc()
            self.node_to_samples = {
                node: paths.indices[paths.indptr[node] : paths.indptr[node + 1]].tolist()
                for node in range(self.nnodes())
            }
        return self.node_to_samples

    def get_node_nsamples(self, id):
        return len(self.get_node_samples()[id])

    def get_split_samples(self, id):
        samples = np.asarray(self.get_node_samples()[id], dtype=np.int64)
        left = self._goes_left(id, self.X_train[samples, self.get_node_feature(id)])
        return np.flatnonzero(left), np.flatnonzero(~left)

    def get_node_nsamples_by_class(self, id):
        if not self.is_classifier():
            return None
        y = np.asarray(self.y_train)[self.get_node_samples()[id]]
        counts = np.bincount(y, minlength=self.nclasses())
        weights = self.get_class_weights()
        return counts if weights is None else counts * weights

    def get_prediction(self, id):
        value = self.tree.value[id]
        if not self.is_classifier():
            return float(value[0])
        if self.view.classes is not None:  # class fractions
            return int(np.argmax(value))
        # a boosting tree's raw score: the node's most frequent class
        return int(np.argmax(self.get_node_nsamples_by_class(id)))

    def get_node_criterion(self, id):
        return float(self.tree.impurity[id])

    def get_feature_path_importance(self, node_list):
        tree = self.tree
        gain = np.zeros(self.view.n_columns)
        w, imp = tree.weighted_n_node_samples, tree.impurity
        for node in node_list:
            left, right = tree.children_left[node], tree.children_right[node]
            if left != -1:
                gain[self._columns[node]] += (
                    w[node] * imp[node] - w[left] * imp[left] - w[right] * imp[right]
                )
        total = gain.sum()
        return gain / total if total > 0 else gain


def _shadow_class():
    """The ``ShadowDecTree`` subclass for a treeboost tree (made once dtreeviz is
    imported: it is an optional dependency)."""
    global _SHADOW
    if _SHADOW is None:
        ShadowDecTree = _require_dtreeviz()

        class ShadowTreeboostTree(_TreeboostShadow, ShadowDecTree):  # type: ignore[misc,valid-type,unused-ignore]
            """dtreeviz's view of one treeboost tree (see :class:`_TreeboostShadow`)."""

        _SHADOW = ShadowTreeboostTree
    return _SHADOW


_SHADOW: Any = None


@index_doc
def dtreeviz_model(
    model: Any,
    X: Any,
    y: Any,
    feature_names: Any = None,
    target_name: str | None = None,
    class_names: Any = None,
    tree_index: Any = 0,
    class_index: int | None = None,
) -> Any:
    """dtreeviz's drawing API for one tree of a fitted treeboost model.

    ``dtreeviz.model`` takes the trees of scikit-learn, XGBoost, LightGBM, Spark and
    TensorFlow; this builds its adaptor (a ``ShadowDecTree``) for a treeboost tree and
    returns what ``dtreeviz.model`` returns, so that ``.view()``,
    ``.explain_prediction_path(x)``, ``.leaf_sizes()`` and the others work as for those
    libraries.  Each node's rows are those the model's own walk sends there.

    Parameters
    ----------
    model : fitted treeboost tree or tree ensemble
        A decision tree (CART), a forest, bagging or AdaBoost of CART trees, or gradient
        boosting.
    X : array-like or DataFrame of shape (n_samples, n_features)
        Rows to show at the nodes (usually the training rows), as the model takes them;
        dtreeviz refuses missing values (NaN).  A categorical column is shown as its
        category codes, a date column as seconds since the epoch.
    y : array-like of shape (n_samples,)
        Their targets: class labels of ``model.classes_`` for a classifier.
    feature_names : list of str, optional
        One per column (default: the model's ``feature_names_in_``, else ``x0, x1, ...``).
    target_name : str, optional
    class_names : list or dict, optional
        Default: the model's ``classes_`` as text.
    %(tree_index)s

    Returns
    -------
    dtreeviz.trees.DTreeVizAPI

    Raises
    ------
    ImportError
        Without dtreeviz.
    ValueError
        A tree that is not a binary treeboost tree (ID3 / C4.5), a tree that learned its
        own categories (a bagging member fitted on encoded data), or a ``y`` outside the
        model's classes.

    Examples
    --------
    >>> from treeboost import DecisionTreeClassifier
    >>> from treeboost.inspection import dtreeviz_model
    >>> X, y = [[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1]
    >>> viz = dtreeviz_model(DecisionTreeClassifier().fit(X, y), X, y)  # doctest: +SKIP
    >>> viz.view().save("tree.svg")  # doctest: +SKIP
    """
    import dtreeviz

    shadow = _shadow_class()
    view = tree_view(model, tree_index=tree_index, class_index=class_index)
    if view.multiway or not hasattr(view.tree, "children_left"):
        raise ValueError(
            f"model: dtreeviz draws binary trees; {type(model).__name__}'s tree has one "
            f"branch per category (ID3 / C4.5)."
        )
    if any(own is not None for own in view.own_categories):
        raise ValueError(
            "model: this tree learned its own category codes (a member fitted on the "
            "model's encoded columns); dtreeviz_model draws trees that read the model's "
            "encoding."
        )
    Xe = np.asarray(model._encode_X(X, reset=False), dtype=np.float64)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != Xe.shape[0]:
        raise ValueError(
            f"y must be 1-dimensional with one value per row of X ({Xe.shape[0]}), got "
            f"shape {y.shape}."
        )
    y_train = y
    if is_classifier(model):
        classes = model.classes_
        index = np.searchsorted(classes, y)
        index = np.minimum(index, len(classes) - 1)
        if not np.array_equal(classes[index], y):
            raise ValueError(
                f"y holds labels that are not classes of the model {classes.tolist()!r}."
            )
        y_train = index.astype(np.int64)
        if class_names is None:
            class_names = [str(c) for c in classes]
    if feature_names is None:
        feature_names = _names(model, view.n_columns)
    tree = shadow(model, view, Xe, y_train, list(feature_names), target_name, class_names)
    tree.X_train_raw, tree.y_raw = X, y
    return dtreeviz.model(
        tree,
        X_train=Xe,
        y_train=y_train,
        feature_names=list(feature_names),
        target_name=target_name,
        class_names=class_names,
    )
