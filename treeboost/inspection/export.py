"""An indented text picture of one tree of any fitted treeboost model."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._tree_view import _leaf_text, index_doc, preorder, tree_children, tree_view

if TYPE_CHECKING:
    from collections.abc import Iterable

    from sklearn.base import BaseEstimator

    from .._typing import ArrayLike
    from ._tree_view import TreeIndex

__all__ = ["export_text"]


#: levels of :func:`export_text` drawn as bars; deeper lines write their depth instead,
#: so that the text of a deep tree grows with its nodes, not with their depths squared
MAX_TEXT_INDENT = 40


def _indent(depth):
    if depth <= MAX_TEXT_INDENT:
        return "|   " * depth
    return "|   " * (MAX_TEXT_INDENT - 1) + f"[{depth}] "


@index_doc
def export_text(
    estimator: BaseEstimator,
    feature_names: Iterable[str] | None = None,
    class_names: ArrayLike | None = None,
    decimals: int = 3,
    show_weights: bool = False,
    *,
    tree_index: TreeIndex = 0,
    class_index: int | None = None,
) -> str:
    """An indented text picture of one tree of a fitted model, one line per test and
    per leaf.

    A leaf shows its class (a classifier's tree), its value (a regressor's), or its
    ``value (raw score)`` (a boosting tree: the model's raw score is ``init_score_`` plus
    one such value per tree).  Categories print as their labels, dates as dates.  Lines
    deeper than :data:`MAX_TEXT_INDENT` (40) levels are indented as the 39th level and
    then say their depth in brackets (``[41] |--- x0 <= 1.5``), so that the text grows
    linearly with the tree however deep it is.

    Parameters
    ----------
    estimator : fitted treeboost tree or ensemble
    feature_names : list of str, optional
        One name per column of the model (``n_features_in_``).
    class_names : list, optional
    decimals : int, default=3
    show_weights : bool, default=False
        Also print each leaf's value times its weight (a classifier's class weights).
    %(tree_index)s

    Examples
    --------
    >>> from treeboost import DecisionTreeClassifier
    >>> from treeboost.inspection import export_text
    >>> clf = DecisionTreeClassifier(max_depth=1).fit([[0], [1], [2], [3]], [0, 0, 1, 1])
    >>> print(export_text(clf))
    |--- x0 <= 1.5
    |   |--- class: 0
    |--- x0 >  1.5
    |   |--- class: 1
    """
    view = tree_view(estimator, feature_names, class_names, tree_index, class_index)
    if view.multiway:
        raise ValueError(
            f"export_text draws binary trees; {type(estimator).__name__}'s "
            f"tree is multiway: use export_rules, export_graphviz or plot_tree."
        )
    tree, names = view.tree, view.feature_names
    children = tree_children(tree)
    lines = []
    # the text of the test leading to each child of the nodes met so far
    tests: dict[int, str] = {}
    for node, _, _, depth in preorder(children):
        if node in tests:
            lines.append(f"{_indent(depth - 1)}|--- {tests.pop(node)}")
        if not children[node]:
            pred, _ = _leaf_text(view, node, decimals)
            extra = ""
            if show_weights:
                weights = tree.value[node] * tree.weighted_n_node_samples[node]
                extra = f" (weights: {np.round(weights, decimals).tolist()})"
            lines.append(f"{_indent(depth)}|--- {view.value_label}: {pred}{extra}")
            continue
        f = int(tree.feature[node])
        miss = bool(view.show_missing[f])
        miss_l = " (or missing)" if miss and tree.missing_go_left[node] else ""
        miss_r = " (or missing)" if miss and not tree.missing_go_left[node] else ""
        left = view.category_split(node)
        if left is not None:
            lset = "{" + ", ".join(str(v) for v in view.category_labels(f, left)) + "}"
            lt, rt = f"{names[f]} in {lset}", f"{names[f]} not in {lset}"
        else:
            t = view.threshold_text(f, float(tree.threshold[node]), decimals)
            lt, rt = f"{names[f]} <= {t}", f"{names[f]} >  {t}"
        tests[children[node][0]] = lt + miss_l
        tests[children[node][1]] = rt + miss_r
    return "\n".join(lines)
