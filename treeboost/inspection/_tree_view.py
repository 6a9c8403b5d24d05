"""One tree of any fitted treeboost model, with the names and labels to print it.

Every text and picture of a tree (:func:`~treeboost.inspection.export_text`,
:func:`~treeboost.inspection.export_rules`, :func:`~treeboost.inspection.export_graphviz`,
:func:`~treeboost.inspection.plot_tree`) and
:func:`~treeboost.inspection.trees_to_dataframe` read a tree through a :class:`TreeView`,
so that they all pick trees with the same ``tree_index`` and print the same names:

* a single tree (CART, ID3, C4.5): ``tree_index=0`` only;
* forests, bagging and AdaBoost: ``tree_index`` is the member's position in
  ``estimators_``; every member must be a treeboost tree;
* gradient boosting: ``tree_index`` is the iteration and ``class_index`` the class
  (output) of K-class boosting, or ``tree_index=(iteration, class)``; two classes and
  regression have one tree per iteration (``class_index`` 0).

A bagging member fitted on a subset of the columns (``max_features < 1`` or
``bootstrap_features``) tests its own column ``j``, which is the model's column
``estimators_features_[i][j]``: the view names it, and labels its categories, by the
model's column.

Every walk over a tree's nodes (here, in the pictures, rules and text, and in
:mod:`treeboost.trees.pruning`) goes through :func:`preorder` or :func:`postorder` over
:func:`tree_children`: an explicit stack, so that a valid tree of any depth is walked (a
recursive walk stops at Python's recursion limit, 1,000 levels by default) in time
linear in its nodes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from typing import TypeVar

    from sklearn.base import BaseEstimator

    from .._typing import ArrayLike, NDArray

    _F = TypeVar("_F", bound=Callable[..., Any])
    #: which tree of a model: an int, or (iteration, class) for K-class boosting
    TreeIndex = int | tuple[int, int]

__all__ = [
    "TreeView",
    "index_doc",
    "named_view",
    "postorder",
    "preorder",
    "select_tree",
    "tree_children",
    "tree_view",
    "tree_views",
]


# -- walks over a tree's nodes -----------------------------------------------------------
def tree_children(tree: Any) -> list[tuple[int, ...]]:
    """Per node of ``tree``, its children's ids in branch order: ``()`` at a leaf,
    ``(left, right)`` at a split of a binary :class:`~treeboost.engine.Tree`, one per
    branch of a :class:`~treeboost.trees.classic.MultiwayTree` (category code order, or
    ``(<= t, > t)``)."""
    if hasattr(tree, "children_left"):
        left = tree.children_left.tolist()
        right = tree.children_right.tolist()
        # a leaf's children are -1 (TREE_LEAF)
        return [() if a < 0 else (a, b) for a, b in zip(left, right)]
    return [tuple(c.tolist()) for c in tree.children]


def preorder(
    children: Sequence[Sequence[int]],
    root: int = 0,
    max_depth: int | None = None,
    stop: Callable[[int], bool] | None = None,
) -> Iterator[tuple[int, int, int, int]]:
    """``(node, parent, branch, depth)`` of the nodes under ``root``, depth first, each
    node before its subtree and its branches in order (a binary tree's left first).

    ``parent`` and ``branch`` (the position of ``node`` in ``children[parent]``) are -1
    at ``root``, whose ``depth`` is 0.  The walk does not go below a node at
    ``max_depth``, nor below a node for which ``stop(node)`` is true (asked when the
    node is yielded, after the caller's loop body has seen it).  A tree whose children
    come after their parent (every loaded tree's) visits each node once.
    """
    stack = [(root, -1, -1, 0)]
    while stack:
        node, parent, branch, depth = item = stack.pop()
        yield item
        kids = children[node]
        if len(kids) == 0 or depth == max_depth or (stop is not None and stop(node)):
            continue
        # pushed last branch first, so that the first branch is walked first
        stack.extend((kids[b], node, b, depth + 1) for b in range(len(kids) - 1, -1, -1))


def postorder(
    children: Sequence[Sequence[int]], root: int = 0, max_depth: int | None = None
) -> Iterator[tuple[int, int, int, int]]:
    """The tuples of :func:`preorder`, each node after its subtree (branches in
    order): the leaves come left to right, a parent after all its children."""
    # a node waits on the stack, below its children, until its subtree is done
    stack = [(root, -1, -1, 0, False)]
    while stack:
        node, parent, branch, depth, done = stack.pop()
        kids = children[node]
        if done or len(kids) == 0 or depth == max_depth:
            yield node, parent, branch, depth
            continue
        stack.append((node, parent, branch, depth, True))
        stack.extend((kids[b], node, b, depth + 1, False) for b in range(len(kids) - 1, -1, -1))


def _bitset_members(bitset_row, n_categories):
    codes = np.arange(n_categories)
    words = bitset_row[codes >> 6]
    return codes[((words >> (codes & 63).astype(np.uint64)) & np.uint64(1)) == 1]


def _fmt(v, decimals):
    """``v`` with at most ``decimals`` decimals, trailing zeros dropped; a non-zero value
    that would round to zero keeps its significant digits (``-0.0004``, never ``-0``)."""
    if not np.isfinite(v):
        return str(v)
    text = f"{v:.{decimals}f}".rstrip("0").rstrip(".")
    if text in ("0", "-0") and v != 0:
        return f"{v:.{max(decimals, 1)}g}"
    return "0" if text == "-0" else text


def _leaf_text(view, node, decimals):
    """(prediction, confidence) of a leaf: the majority class and its fraction for a
    classifier's tree, else the value (a boosting tree's raw score)."""
    value = view.tree.value[node]
    if view.classes is not None and len(view.classes) > 0:
        k = int(np.argmax(value))
        return str(view.classes[k]), float(value[k])
    return _fmt(float(value[0]), decimals), None


def tree_view(
    model: BaseEstimator,
    feature_names: Iterable[str] | None = None,
    class_names: ArrayLike | None = None,
    tree_index: TreeIndex = 0,
    class_index: int | None = None,
) -> TreeView:
    """The :class:`TreeView` every export reads (see this
    module for what ``tree_index`` and ``class_index`` pick)."""
    return named_view(select_tree(model, tree_index, class_index), feature_names, class_names)


_INDEX_DOC = """tree_index : int or (int, int), default=0
        Which tree of ``model``: 0 for a single tree; the member of a forest, bagging or
        AdaBoost ensemble (``estimators_[tree_index]``, a treeboost tree); the iteration
        of gradient boosting, or ``(iteration, class)`` for K classes.
    class_index : int or None, default=None
        The class of K-class gradient boosting's tree (None: 0, or the class given in
        ``tree_index``).  An index out of range, or a member that is not a treeboost tree,
        raises ValueError."""


def index_doc(function: _F) -> _F:
    """Put the description of ``tree_index`` and ``class_index`` in ``function``'s
    docstring (its ``%(tree_index)s``; none under ``python -OO``, which drops them)."""
    if function.__doc__ is not None:
        function.__doc__ = function.__doc__.replace("%(tree_index)s", _INDEX_DOC)
    return function


@dataclass(frozen=True)
class TreeView:
    """One tree of a fitted model and how to name what it tests.

    Attributes
    ----------
    tree : Tree or MultiwayTree
    multiway : bool
        An ID3 / C4.5 tree (one branch per category or two per cut).
    feature_names : tuple of str
        The name of each feature the tree tests (``tree.feature`` indexes it).
    columns : ndarray of int
        The model's column of each of the tree's features.
    n_columns : int
        The model's number of columns (``n_features_in_``).
    classes : ndarray or None
        The labels of ``tree.value``'s columns for a classifier's tree (class fractions),
        None for regression and boosting trees.
    raw_score : bool
        A boosting tree: its leaf values are raw scores, summed over the trees with
        ``init_score_`` (log-odds for two classes, one score per class for K).
    show_missing : ndarray of bool
        Per feature: whether training had missing values in it (a split then says
        where they go).
    index : dict
        Where the tree sits: ``{"tree_index": i}``, for boosting also ``"iteration"`` and
        ``"class"`` (``tree_index`` then counts ``iteration * K + class``, as LightGBM).
    encoder : FeatureEncoder or None
        The model's input encoder: category labels (``category_names``: the shared code
        of rare categories described) and thresholds of date columns
        (``format_threshold``).
    own_categories : list
        Per feature, the labels the tree's category codes index when the tree learned
        them itself from the model's encoded columns (a bagging or AdaBoost member
        fitted on encoded data), else None.
    """

    # a Tree or a MultiwayTree, told apart by ``multiway``
    tree: Any
    multiway: bool
    feature_names: tuple[str, ...]
    columns: NDArray[np.int64]
    n_columns: int
    classes: NDArray[Any] | None
    raw_score: bool
    show_missing: NDArray[np.bool_]
    index: dict[str, int]
    # a FeatureEncoder (whose per-feature lists a type checker reads as lists of None)
    encoder: Any
    # per feature, an array or list of labels, or None
    own_categories: list[Any]

    @property
    def value_label(self) -> str:
        """What a leaf's number is: ``"class"``, ``"value"`` or ``"value (raw score)"``."""
        if self.classes is not None:
            return "class"
        return "value (raw score)" if self.raw_score else "value"

    def n_codes(self, j: int, members: Iterable[int] = ()) -> int:
        """Number of category codes of the tree's feature ``j`` (at least one past the
        largest code in ``members``)."""
        own = self.own_categories[j]
        if own is not None:
            n = len(own)
        else:
            cats = self._model_categories(self.columns[j])
            n = 0 if cats is None else len(cats)
        return max([n] + [int(c) + 1 for c in members])

    def _model_categories(self, col):
        if self.encoder is None:
            return None
        return self.encoder.categories_[col]

    def category_split(self, node: int) -> NDArray[np.integer[Any]] | None:
        """The category codes going left at binary ``node`` when it splits a categorical
        column of the model, else None (a numeric split).

        Besides a tree's category sets, this is a bagging or AdaBoost member fitted on
        the model's encoded columns that cuts a category code as a number,
        ``code <= t``: its left side is the codes up to ``t``."""
        tree = self.tree
        j = int(tree.feature[node])
        if tree.is_categorical[node]:
            return _bitset_members(tree.categories_left[node], 256)
        cats = self._model_categories(int(self.columns[j]))
        if self.own_categories[j] is None and cats is not None:
            return np.flatnonzero(np.arange(len(cats)) <= tree.threshold[node])
        return None

    def _model_codes(self, j, codes):
        """(model column, its codes) of the category codes ``codes`` of the tree's
        feature ``j``, or (column, None) when the tree's own labels are not the model's
        codes (an ID3 / C4.5 column of integers or intervals, a numeric model column)."""
        codes = [int(c) for c in codes]
        col = int(self.columns[j])
        own = self.own_categories[j]
        if own is None:
            return col, codes
        labels = [own[c] for c in codes]
        # a member fitted on the model's encoded columns: its labels are the model's codes
        if self._model_categories(col) is None or not all(
            isinstance(v, (Integral, float, np.floating, np.integer)) and float(v) == int(v)
            for v in labels
        ):
            return col, None
        return col, [int(v) for v in labels]

    def category_values(self, j: int, codes: Iterable[int]) -> list[Any]:
        """The category labels (the values in X) of the codes ``codes`` of the tree's
        feature ``j``; the shared code of a grouped column is its label ``other (rare)``."""
        col, model_codes = self._model_codes(j, codes)
        if model_codes is None:
            return [self.own_categories[j][int(c)] for c in codes]
        cats = self._model_categories(col)
        if cats is None:
            return model_codes
        return [cats[c] for c in model_codes]

    def category_members(self, j: int, codes: Iterable[int]) -> list[Any]:
        """:meth:`category_values`, each code of a grouped column replaced by the
        categories it stands for: the values of X that take these branches."""
        col, model_codes = self._model_codes(j, codes)
        values = self.category_values(j, codes)
        rare = vars(self.encoder).get("rare_categories_") if self.encoder is not None else None
        if model_codes is None or rare is None or rare[col] is None:
            return values
        out = []
        for c in model_codes:
            out.extend(self.encoder.code_members(col, int(c)))
        return out

    def category_labels(self, j: int, codes: Iterable[int]) -> list[str]:
        """Readable labels of the codes ``codes`` of the tree's feature ``j``: the
        encoder's ``category_names`` (the shared code of a grouped column says how many
        rare categories it stands for and names a few)."""
        col, model_codes = self._model_codes(j, codes)
        if model_codes is None or self._model_categories(col) is None:
            return [str(v) for v in self.category_values(j, codes)]
        return list(self.encoder.category_names(col, np.asarray(model_codes, np.int64)))

    def column_category_text(self, column: int, values: Iterable[Any]) -> list[str]:
        """:meth:`category_labels` of category labels ``values`` of the model's
        ``column`` (a rule's condition holds labels)."""
        cats = self._model_categories(column)
        if cats is None:
            return [str(v) for v in values]
        lookup = {v: i for i, v in enumerate(cats.tolist())}
        codes = [lookup.get(v) for v in values]
        if any(c is None for c in codes):  # an ID3 / C4.5 column's own labels
            return [str(v) for v in values]
        return list(self.encoder.category_names(column, np.asarray(codes, np.int64)))

    def threshold_text(self, j: int, value: float, decimals: int) -> str:
        """A numeric threshold of feature ``j`` as text: a date for a date column (the
        encoder's ``format_threshold``), else the number with ``decimals`` decimals."""
        col = int(self.columns[j])
        # a member's threshold on the model's category codes stays a number
        if (
            self.encoder is not None
            and self.own_categories[j] is None
            and self._model_categories(col) is None
            and np.isfinite(value)
        ):
            text = self.encoder.format_threshold(col, float(value))
            if text is not None:
                return str(text)
        return _fmt(float(value), decimals)

    def column_threshold_text(self, column: int, value: float, decimals: int) -> str:
        """:meth:`threshold_text` of the tree's feature that reads the model's
        ``column``."""
        j = np.flatnonzero(self.columns == column)
        if j.size == 0:
            return _fmt(float(value), decimals)
        return self.threshold_text(int(j[0]), value, decimals)


def named_view(
    view: TreeView,
    feature_names: Iterable[str] | None = None,
    class_names: ArrayLike | None = None,
) -> TreeView:
    """``view`` with the user's names: ``feature_names`` one per column of the model
    (``n_features_in_``; a bagging member's subset picks its own), ``class_names`` one per
    class (a classifier's tree only)."""
    if feature_names is not None:
        names = [str(v) for v in feature_names]
        if len(names) != view.n_columns:
            raise ValueError(
                f"feature_names has {len(names)} names, the model has {view.n_columns} features."
            )
        view = replace(view, feature_names=tuple(names[c] for c in view.columns))
    if class_names is not None and view.classes is not None:
        classes = np.asarray(class_names)
        if classes.shape != (len(view.classes),):
            raise ValueError(
                f"class_names has {classes.size} names, the tree has {len(view.classes)} classes."
            )
        view = replace(view, classes=classes)
    return view


# -- which trees a model has -------------------------------------------------------------
def _kind(model):
    """ "tree", "boosting" or "ensemble": how a fitted model holds its trees."""
    state = vars(model)
    if "tree_" in state:
        return "tree"
    if "trees_" in state:
        return "boosting"
    if "estimators_" in state and isinstance(state["estimators_"], list):
        return "ensemble"
    from sklearn.exceptions import NotFittedError

    # NotFittedError is a ValueError: an unfitted estimator, or another object
    raise NotFittedError(
        f"model: {type(model).__name__} is not a fitted treeboost tree or tree ensemble."
    )


def _names(model, n):
    names = getattr(model, "feature_names_in_", None)
    if names is None or len(names) != n:
        return [f"x{i}" for i in range(n)]
    return [str(v) for v in names]


def _model_width(model):
    n = getattr(model, "n_features_in_", None)
    if n is None:
        n = model.tree_.n_features
    return int(n)


def _view(model, est, tree, index, columns, raw_score=False):
    """The view of ``tree`` (of the estimator ``est``, part of ``model``) whose feature
    ``j`` is the model's column ``columns[j]``."""
    multiway = hasattr(tree, "children") and not hasattr(tree, "children_left")
    width = _model_width(model)
    names = _names(model, width)
    encoder: Any = getattr(model, "_encoder", None)
    own_encoder: Any = getattr(est, "_encoder", None) if est is not None else None
    n = tree.n_features
    own = [None] * n
    if multiway:
        # ID3 / C4.5 columns: encoder categories, integer values or interval labels
        own = list(est.categories_)
        if own_encoder is encoder:
            own = [
                None if encoder.categories_[columns[j]] is not None else own[j] for j in range(n)
            ]
    elif own_encoder is not None and own_encoder is not encoder:
        own = list(own_encoder.categories_)
    classes = None
    if not raw_score:
        classes = getattr(est, "classes_", None)
        if classes is not None and tree.value.shape[1] != len(classes):
            classes = None
    bm = getattr(est if est is not None else model, "bin_mapper_", None)
    show = np.ones(n, bool) if bm is None or multiway else np.asarray(bm.has_missing_, bool)
    return TreeView(
        tree=tree,
        multiway=multiway,
        feature_names=tuple(names[c] for c in columns),
        columns=np.asarray(columns, dtype=np.int64),
        n_columns=width,
        classes=classes,
        raw_score=raw_score,
        show_missing=show,
        index=index,
        encoder=encoder,
        own_categories=own,
    )


def _member_view(model, i):
    est = model.estimators_[i]
    if "tree_" not in vars(est):
        raise ValueError(
            f"model.estimators_[{i}] is a {type(est).__name__}, not a treeboost "
            f"tree: only trees can be shown."
        )
    feats = getattr(model, "estimators_features_", None)
    n = est.tree_.n_features
    columns = np.asarray(feats[i]) if feats is not None else np.arange(n)
    if columns.shape[0] != n:
        raise ValueError(
            f"model.estimators_[{i}] tests {n} features but reads {columns.shape[0]} columns."
        )
    return _view(model, est, est.tree_, {"tree_index": i}, columns)


def _boosting_view(model, it, k):
    K = len(model.trees_[it])
    n = model.trees_[it][k].n_features
    return _view(
        model,
        None,
        model.trees_[it][k],
        {"tree_index": it * K + k, "iteration": it, "class": k},
        np.arange(n),
        raw_score=True,
    )


def _check_index(value, name, n, what):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Integral, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r:.60}.")
    if not 0 <= int(value) < n:
        raise ValueError(
            f"{name}={value!r} is out of range: the model has {n} {what} (0 to {n - 1})."
        )
    return int(value)


def _is_multi_output(model):
    if isinstance(getattr(model, "classes_", None), list):
        return True
    try:
        return getattr(model, "n_outputs_", 1) > 1
    except Exception:  # not fitted: the checks below say so
        return False


def select_tree(
    model: BaseEstimator, tree_index: TreeIndex = 0, class_index: int | None = None
) -> TreeView:
    """The :class:`TreeView` of one tree of ``model``.

    Parameters
    ----------
    model : fitted treeboost tree or ensemble
    tree_index : int or (int, int), default=0
        The member of a forest, bagging or AdaBoost ensemble; the iteration of gradient
        boosting, or ``(iteration, class)``; 0 for a single tree.
    class_index : int or None, default=None
        The class (output) of K-class gradient boosting (None: 0, or the second item of
        ``tree_index``).

    Raises
    ------
    ValueError
        An index out of range, a model that is not a fitted treeboost tree or ensemble,
        a member that is not a treeboost tree, ``class_index`` on a model without
        classes of trees, or a ``(iteration, class)`` pair that disagrees with
        ``class_index``.
    TypeError
        An index that is not an int (or a pair of ints for boosting).
    """
    kind = _kind(model)
    if _is_multi_output(model):
        raise ValueError(
            f"{type(model).__name__} was fitted on a multi-output y: its trees "
            f"hold one value per output (or per class of every output), which "
            f"the exports, rules and plots do not show; fit one model per "
            f"output to read its trees."
        )
    if isinstance(tree_index, tuple):
        if kind != "boosting" or len(tree_index) != 2:
            raise ValueError(
                f"tree_index={tree_index!r}: a pair (iteration, class) picks a "
                f"tree of gradient boosting only; give an int."
            )
        pair_class = tree_index[1]
        if class_index is not None and class_index != pair_class:
            raise ValueError(
                f"class_index={class_index!r} disagrees with tree_index="
                f"{tree_index!r}; give the class once."
            )
        tree_index, class_index = tree_index
    if kind == "boosting":
        it = _check_index(tree_index, "tree_index", len(model.trees_), "iteration(s)")
        K = len(model.trees_[it])
        k = _check_index(
            0 if class_index is None else class_index, "class_index", K, "tree(s) per iteration"
        )
        return _boosting_view(model, it, k)
    if class_index not in (None, 0):
        raise ValueError(
            f"class_index={class_index!r}: only gradient boosting of K classes "
            f"has one tree per class; {type(model).__name__} has one tree per "
            f"index."
        )
    if kind == "tree":
        _check_index(tree_index, "tree_index", 1, "tree")
        n = model.tree_.n_features
        return _view(model, model, model.tree_, {"tree_index": 0}, np.arange(n))
    i = _check_index(tree_index, "tree_index", len(model.estimators_), "member(s)")
    return _member_view(model, i)


def tree_views(model: BaseEstimator) -> list[TreeView]:
    """The :class:`TreeView` of every tree of ``model``, in ``tree_index`` order (for
    boosting: iteration by iteration, class by class)."""
    kind = _kind(model)
    if kind == "tree":
        return [select_tree(model)]
    if kind == "boosting":
        return [
            _boosting_view(model, it, k)
            for it in range(len(model.trees_))
            for k in range(len(model.trees_[it]))
        ]
    return [_member_view(model, i) for i in range(len(model.estimators_))]
