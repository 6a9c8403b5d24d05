"""Pictures of any treeboost tree: Graphviz DOT text and a matplotlib drawing.

Both work for the CART trees (``DecisionTreeClassifier`` / ``Regressor``), the multiway
ID3 / C4.5 trees, and one tree of a fitted ensemble (``tree_index``: the member, or the
iteration of gradient boosting; for K classes ``class_index`` picks the tree of one
class, or ``tree_index=(iteration, class)``), as :func:`~treeboost.inspection.export_text`
and :func:`~treeboost.inspection.export_rules` do.

* :func:`export_graphviz` returns DOT text (no graphviz binary needed to produce it;
  ``dot -Tpng tree.dot -o tree.png`` renders it).
* :func:`plot_tree` draws the tree with matplotlib (an optional dependency:
  ``pip install matplotlib``).

A node shows its test (``feature <= t``, ``feature in {...}`` or, for a multiway node, the
attribute's name), its impurity, number of samples, class counts (or value; a boosting
tree's ``value (raw score)``) and the class it predicts; each edge is labelled by the
branch it stands for (True/False for a binary test, the category or interval for a
multiway one).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np

from ._tree_view import _fmt, index_doc, postorder, tree_children, tree_view

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Literal

    from matplotlib.axes import Axes
    from sklearn.base import BaseEstimator

    from .._typing import ArrayLike, PathLike
    from ._tree_view import TreeIndex

__all__ = ["export_graphviz", "plot_tree"]

_PALETTE = [
    "#e58139",
    "#399de5",
    "#47e539",
    "#d739e5",
    "#e5d939",
    "#39e5c6",
    "#e53958",
    "#8139e5",
    "#7be539",
    "#e539b5",
]


@dataclass
class _Node:
    id: int
    test: str  # "" for a leaf
    info: list
    children: list = field(default_factory=list)  # (child id, edge label)
    color: str = "#ffffff"


_BLUE = "#399de5"


def _rgb(hex_colors):
    return np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in hex_colors])


def _colors(value, classes):
    """Per node, its fill as 0-255 RGB: the colour of its class faded by impurity
    (classification), blue by value between the tree's smallest and largest
    (regression)."""
    if classes is not None and value.shape[1] == len(classes) and len(classes) > 1:
        order = np.sort(value, axis=1)[:, ::-1]
        alpha = (order[:, 0] - order[:, 1]) / np.maximum(1.0 - order[:, 1], 1e-12)
        base = _rgb(_PALETTE)[np.argmax(value, axis=1) % len(_PALETTE)]
    else:
        vmin, vmax = float(value[:, 0].min()), float(value[:, 0].max())
        alpha = np.zeros(value.shape[0]) if vmax <= vmin else (value[:, 0] - vmin) / (vmax - vmin)
        base = _rgb([_BLUE])
    return np.rint(alpha[:, None] * base + (1 - alpha[:, None]) * 255).astype(int)


def _hex(rgb):
    return "#" + "".join(f"{c:02x}" for c in rgb)


def _nodes(view, ids, decimals=3, impurity=True):
    """The :class:`_Node` (test, text lines, labelled children, fill) of each node of
    ``ids``, by id."""
    tree, classes = view.tree, view.classes
    value = tree.value
    colors = _colors(value, classes)
    crit = "entropy" if view.multiway else "impurity"
    out = {}
    for node in ids:
        w = float(tree.weighted_n_node_samples[node])
        info = []
        if impurity and not view.raw_score:  # a boosting node's impurity is -G^2/2H
            info.append(f"{crit} = {_fmt(float(tree.impurity[node]), decimals)}")
        info.append(f"samples = {_fmt(float(tree.n_node_samples[node]), decimals)}")
        if classes is not None:
            counts = ", ".join(_fmt(v, decimals) for v in value[node] * w)
            info.append(f"value = [{counts}]")
            info.append(f"class = {classes[int(np.argmax(value[node]))]}")
        else:
            info.append(f"{view.value_label} = {_fmt(float(value[node, 0]), decimals)}")
        n = _Node(node, "", info, color=_hex(colors[node]))
        if view.multiway:
            _multiway_test(view, node, n, decimals)
        else:
            _binary_test(view, node, n, decimals)
        out[node] = n
    return out


def _binary_test(view, node, n, decimals):
    tree, names = view.tree, view.feature_names
    if tree.children_left[node] == -1:
        return
    f = int(tree.feature[node])
    left = view.category_split(node)
    if left is not None:
        shown = [str(v) for v in view.category_labels(f, left)]
        n.test = f"{names[f]} in {{{', '.join(shown)}}}"
    else:
        n.test = f"{names[f]} <= {view.threshold_text(f, float(tree.threshold[node]), decimals)}"
    miss = "missing" if tree.missing_go_left[node] else ""
    n.children = [
        (int(tree.children_left[node]), "True" + (f" / {miss}" if miss else "")),
        (int(tree.children_right[node]), "False" + ("" if miss else " / missing")),
    ]


def _multiway_test(view, node, n, decimals):
    tree, names = view.tree, view.feature_names
    if tree.feature[node] < 0:
        return
    f = int(tree.feature[node])
    if tree.is_categorical[node]:
        n.test = f"{names[f]} = ?"
        labels = view.category_labels(f, range(len(tree.children[node])))
        n.children = [(int(c), str(label)) for c, label in zip(tree.children[node], labels)]
    else:
        t = view.threshold_text(f, float(tree.threshold[node]), decimals)
        n.test = f"{names[f]} <= {t} ?"
        n.children = [
            (int(tree.children[node][0]), f"<= {t}"),
            (int(tree.children[node][1]), f"> {t}"),
        ]


# -- DOT -------------------------------------------------------------------------------
def _dot_escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


@index_doc
def export_graphviz(
    model: BaseEstimator,
    out_file: PathLike | None = None,
    *,
    feature_names: Iterable[str] | None = None,
    class_names: ArrayLike | None = None,
    tree_index: TreeIndex = 0,
    class_index: int | None = None,
    decimals: int = 3,
    impurity: bool = True,
    filled: bool = True,
    fontname: str = "helvetica",
    rankdir: Literal["TB", "LR"] = "TB",
) -> str:
    """The tree as Graphviz DOT text.

    Parameters
    ----------
    model : fitted treeboost tree or ensemble
    out_file : str, path or None, default=None
        Also write the text there (UTF-8).
    feature_names, class_names : optional names overriding the fitted ones
        (``feature_names``: one per column of the model).
    %(tree_index)s
    decimals : int, default=3
    impurity, filled : bool, default=True
        Show the impurity line; fill nodes with the colour of their class (paler when
        impure) or of their value.
    fontname : str, default="helvetica"
        For Chinese names pick a CJK font installed where DOT is rendered.
    rankdir : {"TB", "LR"}, default="TB"

    Returns
    -------
    dot : str

    Examples
    --------
    >>> from treeboost import DecisionTreeClassifier
    >>> clf = DecisionTreeClassifier(max_depth=1).fit([[0], [1], [2], [3]], [0, 0, 1, 1])
    >>> print(export_graphviz(clf).splitlines()[0])
    digraph Tree {
    """
    view = tree_view(model, feature_names, class_names, tree_index, class_index)
    nodes = _nodes(view, range(view.tree.node_count), decimals, impurity).values()
    lines = [
        "digraph Tree {",
        f'node [shape=box, style="{"filled, " if filled else ""}rounded", '
        f'color="black", fontname="{fontname}"] ;',
        f'edge [fontname="{fontname}"] ;',
        f"rankdir={rankdir} ;",
    ]
    for n in nodes:
        text = "\\n".join(_dot_escape(t) for t in ([n.test] if n.test else []) + n.info)
        fill = f', fillcolor="{n.color}"' if filled else ""
        lines.append(f'{n.id} [label="{text}"{fill}] ;')
    for n in nodes:
        for child, label in n.children:
            lines.append(f'{n.id} -> {child} [label="{_dot_escape(label)}"] ;')
    lines.append("}")
    dot = "\n".join(lines)
    if out_file is not None:
        with open(out_file, "w", encoding="utf-8") as fh:
            fh.write(dot + "\n")
    return dot


# -- matplotlib ------------------------------------------------------------------------
#: the most nodes :func:`plot_tree` draws with their text; a larger drawing shows the
#: tree's shape only (its boxes would overlap, and matplotlib takes seconds a thousand)
MAX_LABELLED_NODES = 1000


def _layout(children, max_depth=None):
    """The nodes drawn (down to ``max_depth``) as :func:`postorder` gives them, their x
    (leaves spaced 1 apart, parents centred over their outer children) and depth, and
    the number of leaves drawn."""
    walk = list(postorder(children, max_depth=max_depth))
    x: dict[int, float] = {}
    depth: dict[int, int] = {}
    n_leaves = 0
    for node, _, _, d in walk:  # children before their parent
        depth[node] = d
        kids = children[node]
        if kids and d != max_depth:
            x[node] = (x[kids[0]] + x[kids[-1]]) / 2.0
        else:
            x[node] = n_leaves
            n_leaves += 1
    return walk, x, depth, n_leaves


@index_doc
def plot_tree(
    model: BaseEstimator,
    *,
    feature_names: Iterable[str] | None = None,
    class_names: ArrayLike | None = None,
    tree_index: TreeIndex = 0,
    class_index: int | None = None,
    decimals: int = 2,
    impurity: bool = True,
    filled: bool = True,
    max_depth: int | None = None,
    fontsize: float | None = None,
    fontfamily: str | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Draw a tree with matplotlib.

    A drawing of more than :data:`MAX_LABELLED_NODES` (1,000) nodes shows the tree's
    shape only, with a UserWarning: a dot per node (in its fill colour when ``filled``)
    and the edges, without the text, which could not be read at that size; pass
    ``max_depth`` to see the text of the top levels.  The time is linear in the nodes
    drawn (a tree 20,000 levels deep draws in seconds).

    Parameters
    ----------
    model : fitted treeboost tree or ensemble
    feature_names, class_names, decimals, impurity, filled : as :func:`export_graphviz`.
    %(tree_index)s
    max_depth : int or None
        Draw only the nodes up to this depth ("..." marks a cut subtree).
    fontsize : float or None
        Text size (None: from the number of leaves).
    fontfamily : str or None
        A font with the glyphs of your names (e.g. a CJK font for the watermelon data).
    ax : matplotlib Axes or None

    Returns
    -------
    ax : matplotlib Axes

    Raises
    ------
    ValueError
        ``max_depth`` is not None or an int >= 0.
    """
    try:
        import matplotlib.pyplot as plt
        from matplotlib.collections import LineCollection
    except ImportError:
        raise ImportError(
            "plot_tree needs matplotlib: pip install matplotlib "
            "(or use export_graphviz, which needs nothing)."
        ) from None
    if max_depth is not None and (
        isinstance(max_depth, (bool, np.bool_))
        or not isinstance(max_depth, (Integral, np.integer))
        or max_depth < 0
    ):
        raise ValueError(f"max_depth must be None or an int >= 0, got {max_depth!r:.60}.")
    view = tree_view(model, feature_names, class_names, tree_index, class_index)
    children = tree_children(view.tree)
    walk, x, depth, n_leaves = _layout(children, max_depth)
    max_d = max(depth.values())
    if ax is None:
        _, ax = plt.subplots(
            figsize=(min(max(6, 2.6 * n_leaves), 60), min(max(3, 1.6 * (max_d + 1)), 40))
        )
    # every edge in one artist: a Line2D per edge costs matplotlib a millisecond each
    edges = [[(x[p], -depth[p]), (x[c], -depth[c])] for c, p, _, _ in walk if p >= 0]
    ax.add_collection(LineCollection(edges, colors="0.4", linewidths=0.8, zorder=1))
    if len(walk) > MAX_LABELLED_NODES:
        warnings.warn(
            f"plot_tree: {len(walk)} nodes to draw, more than MAX_LABELLED_NODES "
            f"({MAX_LABELLED_NODES}): drawn as dots without their text; pass max_depth "
            f"to see the text of the top levels.",
            UserWarning,
            stacklevel=2,
        )
        ids = [node for node, _, _, _ in walk]
        fill = _colors(view.tree.value, view.classes)[ids] / 255.0 if filled else "white"
        ax.scatter(
            [x[i] for i in ids],
            [-depth[i] for i in ids],
            s=9,
            c=fill,
            edgecolors="black",
            linewidths=0.3,
            zorder=2,
        )
    else:
        _draw_text(
            ax,
            view,
            walk,
            x,
            depth,
            n_leaves,
            max_depth,
            decimals,
            impurity,
            filled,
            fontsize,
            fontfamily,
        )
    ax.set_xlim(-0.7, n_leaves - 0.3)
    ax.set_ylim(-max_d - 0.6, 0.6)
    ax.set_axis_off()
    return ax


def _draw_text(
    ax, view, walk, x, depth, n_leaves, max_depth, decimals, impurity, filled, fontsize, fontfamily
):
    """Each drawn node's box of text and each edge's label (a node at ``max_depth``
    with children says "..." instead of its edges)."""
    nodes = _nodes(view, [node for node, _, _, _ in walk], decimals, impurity)
    if fontsize is None:
        fontsize = float(np.clip(90.0 / max(n_leaves, 1), 5, 10))
    text_kw: dict[str, Any] = dict(fontsize=fontsize)
    if fontfamily is not None:
        text_kw["fontfamily"] = fontfamily
    for i, _, _, d in walk:
        n = nodes[i]
        info = n.info
        if n.children and d == max_depth:
            info = info + ["..."]
        else:
            for c, label in n.children:
                ax.text(
                    (x[i] + x[c]) / 2,
                    -(depth[i] + depth[c]) / 2,
                    label,
                    ha="center",
                    va="center",
                    zorder=3,
                    color="0.2",
                    bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none"),
                    **{**text_kw, "fontsize": fontsize * 0.85},
                )
        ax.text(
            x[i],
            -depth[i],
            "\n".join(([n.test] if n.test else []) + info),
            ha="center",
            va="center",
            zorder=2,
            bbox=dict(boxstyle="round", fc=n.color if filled else "white", ec="black"),
            **text_kw,
        )
