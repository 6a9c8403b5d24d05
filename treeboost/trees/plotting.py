"""Pictures of any treeboost tree: Graphviz DOT text and a matplotlib drawing.

Both work for the CART trees (``DecisionTreeClassifier`` / ``Regressor``), the multiway
ID3 / C4.5 trees, and one tree of a fitted ensemble (``tree_index``; for gradient
boosting with K classes, ``class_index`` picks the tree of one class).

* :func:`export_graphviz` returns DOT text (no graphviz binary needed to produce it;
  ``dot -Tpng tree.dot -o tree.png`` renders it).
* :func:`plot_tree` draws the tree with matplotlib (an optional dependency:
  ``pip install treeboost[plot]``).

A node shows its test (``feature <= t``, ``feature in {...}`` or, for a multiway node, the
attribute's name), its impurity, number of samples, class counts (or value) and the class
it predicts; each edge is labelled by the branch it stands for (True/False for a binary
test, the category or interval for a multiway one).
"""
from dataclasses import dataclass, field

import numpy as np

from .export import _bitset_members, _fmt

__all__ = ["export_graphviz", "plot_tree"]

_PALETTE = ["#e58139", "#399de5", "#47e539", "#d739e5", "#e5d939", "#39e5c6", "#e53958",
            "#8139e5", "#7be539", "#e539b5"]


@dataclass
class _Node:
    id: int
    test: str                       # "" for a leaf
    info: list
    children: list = field(default_factory=list)    # (child id, edge label)
    color: str = "#ffffff"


# -- which tree, with which names ------------------------------------------------------
def _resolve(model, tree_index, class_index):
    """(tree, feature names, categories, classes or None, kind) of the tree to draw."""
    if hasattr(model, "tree_"):
        est = model
    elif hasattr(model, "estimators_") and len(getattr(model, "estimators_", [])):
        est = model.estimators_[tree_index]
        if not hasattr(est, "tree_"):
            raise ValueError(f"{type(est).__name__} in estimators_ is not a treeboost tree.")
    elif hasattr(model, "trees_"):
        tree = model.trees_[tree_index][class_index]
        names = getattr(model, "feature_names_in_", None)
        enc = getattr(model, "_encoder", None)
        return (tree, names, enc.categories_ if enc is not None else None, None, "boosting")
    else:
        raise ValueError(f"{type(model).__name__} is not a fitted treeboost tree or "
                         f"ensemble.")
    tree = est.tree_
    names = getattr(est, "feature_names_in_", None)
    if names is None:
        names = getattr(model, "feature_names_in_", None)
        if names is not None and len(names) != tree.n_features:
            names = None
    cats = getattr(est, "categories_", None)
    classes = getattr(est, "classes_", None)
    kind = "multiway" if hasattr(tree, "children") and not hasattr(tree, "children_left") \
        else "binary"
    return tree, names, cats, classes, kind


def _color(value, classes, vmin, vmax):
    """Class colour faded by impurity (classification); blue by value (regression)."""
    if classes is not None and value.shape[0] == len(classes) and len(classes) > 1:
        order = np.sort(value)[::-1]
        alpha = (order[0] - order[1]) / max(1.0 - order[1], 1e-12)
        base = _PALETTE[int(np.argmax(value)) % len(_PALETTE)]
    else:
        alpha = 0.0 if vmax <= vmin else (float(value[0]) - vmin) / (vmax - vmin)
        base = "#399de5"
    rgb = np.array([int(base[i:i + 2], 16) for i in (1, 3, 5)])
    mixed = np.rint(alpha * rgb + (1 - alpha) * 255).astype(int)
    return "#" + "".join(f"{c:02x}" for c in mixed)


def _nodes(model, feature_names=None, class_names=None, tree_index=0, class_index=0,
           decimals=3, impurity=True):
    tree, names, cats, classes, kind = _resolve(model, tree_index, class_index)
    if feature_names is not None:
        names = feature_names
    if names is None:
        names = [f"x{i}" for i in range(tree.n_features)]
    names = [str(n) for n in names]
    if len(names) != tree.n_features:
        raise ValueError(f"feature_names has {len(names)} names, the tree has "
                         f"{tree.n_features} features.")
    if class_names is not None:
        classes = np.asarray(class_names)
    value = tree.value
    vmin, vmax = float(value[:, 0].min()), float(value[:, 0].max())
    crit = "entropy" if kind == "multiway" else "impurity"
    out = []
    for node in range(value.shape[0]):
        w = float(tree.weighted_n_node_samples[node])
        info = []
        if impurity and kind != "boosting":    # a boosting node's impurity is -G^2/2H
            info.append(f"{crit} = {_fmt(float(tree.impurity[node]), decimals)}")
        info.append(f"samples = {_fmt(float(tree.n_node_samples[node]), decimals)}")
        if classes is not None and value.shape[1] == len(classes):
            counts = ", ".join(_fmt(v, decimals) for v in value[node] * w)
            info.append(f"value = [{counts}]")
            info.append(f"class = {classes[int(np.argmax(value[node]))]}")
        else:
            info.append(f"value = {_fmt(float(value[node, 0]), decimals)}")
        n = _Node(node, "", info, color=_color(value[node], classes, vmin, vmax))
        if kind == "multiway":
            _multiway_test(tree, node, n, names, cats, decimals)
        else:
            _binary_test(tree, node, n, names, cats, decimals)
        out.append(n)
    return out


def _binary_test(tree, node, n, names, cats, decimals):
    if tree.children_left[node] == -1:
        return
    f = int(tree.feature[node])
    if tree.is_categorical[node]:
        labels = cats[f] if cats is not None and cats[f] is not None else None
        k = len(labels) if labels is not None else 256
        left = _bitset_members(tree.categories_left[node], k)
        shown = [str(labels[i]) if labels is not None else str(i) for i in left]
        n.test = f"{names[f]} in {{{', '.join(shown)}}}"
    else:
        n.test = f"{names[f]} <= {_fmt(float(tree.threshold[node]), decimals)}"
    miss = "missing" if tree.missing_go_left[node] else ""
    n.children = [(int(tree.children_left[node]), "True" + (f" / {miss}" if miss else "")),
                  (int(tree.children_right[node]), "False" + ("" if miss else " / missing"))]


def _multiway_test(tree, node, n, names, cats, decimals):
    if tree.feature[node] < 0:
        return
    f = int(tree.feature[node])
    if tree.is_categorical[node]:
        n.test = f"{names[f]} = ?"
        n.children = [(int(c), str(cats[f][v])) for v, c in enumerate(tree.children[node])]
    else:
        t = _fmt(float(tree.threshold[node]), decimals)
        n.test = f"{names[f]} <= {t} ?"
        n.children = [(int(tree.children[node][0]), f"<= {t}"),
                      (int(tree.children[node][1]), f"> {t}")]


# -- DOT -------------------------------------------------------------------------------
def _dot_escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def export_graphviz(model, out_file=None, *, feature_names=None, class_names=None,
                    tree_index=0, class_index=0, decimals=3, impurity=True, filled=True,
                    fontname="helvetica", rankdir="TB"):
    """The tree as Graphviz DOT text.

    Parameters
    ----------
    model : fitted treeboost tree, or ensemble (one tree: ``tree_index``, ``class_index``)
    out_file : str, path or None, default=None
        Also write the text there (UTF-8).
    feature_names, class_names : optional names overriding the fitted ones.
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
    nodes = _nodes(model, feature_names, class_names, tree_index, class_index, decimals,
                   impurity)
    lines = ["digraph Tree {",
             f'node [shape=box, style="{"filled, " if filled else ""}rounded", '
             f'color="black", fontname="{fontname}"] ;',
             f'edge [fontname="{fontname}"] ;', f"rankdir={rankdir} ;"]
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
def _layout(nodes):
    """x (leaves spaced 1 apart, parents centred over their children) and depth."""
    x, depth = {}, {}
    counter = [0]

    def visit(i, d):              # recursion depth = tree depth, small for these trees
        depth[i] = d
        kids = nodes[i].children
        if not kids:
            x[i] = counter[0]
            counter[0] += 1
            return
        for c, _ in kids:
            visit(c, d + 1)
        x[i] = (x[kids[0][0]] + x[kids[-1][0]]) / 2.0

    import sys
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10000))
    try:
        visit(0, 0)
    finally:
        sys.setrecursionlimit(limit)
    return x, depth, counter[0]


def plot_tree(model, *, feature_names=None, class_names=None, tree_index=0, class_index=0,
              decimals=2, impurity=True, filled=True, max_depth=None, fontsize=None,
              fontfamily=None, ax=None):
    """Draw a tree with matplotlib.

    Parameters
    ----------
    model : fitted treeboost tree, or ensemble (one tree: ``tree_index``, ``class_index``)
    feature_names, class_names, decimals, impurity, filled : as :func:`export_graphviz`.
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
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("plot_tree needs matplotlib: pip install treeboost[plot] "
                          "(or use export_graphviz, which needs nothing).") from None
    nodes = _nodes(model, feature_names, class_names, tree_index, class_index, decimals,
                   impurity)
    if max_depth is not None:
        nodes = _truncate(nodes, max_depth)
    x, depth, n_leaves = _layout(nodes)
    max_d = max(depth.values())
    if ax is None:
        _, ax = plt.subplots(figsize=(min(max(6, 2.6 * n_leaves), 60),
                                      min(max(3, 1.6 * (max_d + 1)), 40)))
    if fontsize is None:
        fontsize = float(np.clip(90.0 / max(n_leaves, 1), 5, 10))
    text_kw = dict(fontsize=fontsize)
    if fontfamily is not None:
        text_kw["fontfamily"] = fontfamily
    for i in x:
        n = nodes[i]
        for c, label in n.children:
            ax.plot([x[i], x[c]], [-depth[i], -depth[c]], color="0.4", lw=0.8, zorder=1)
            ax.text((x[i] + x[c]) / 2, -(depth[i] + depth[c]) / 2, label, ha="center",
                    va="center", zorder=3, color="0.2",
                    bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none"),
                    **{**text_kw, "fontsize": fontsize * 0.85})
        text = "\n".join(([n.test] if n.test else []) + n.info)
        ax.text(x[i], -depth[i], text, ha="center", va="center", zorder=2,
                bbox=dict(boxstyle="round", fc=n.color if filled else "white", ec="black"),
                **text_kw)
    ax.set_xlim(-0.7, n_leaves - 0.3)
    ax.set_ylim(-max_d - 0.6, 0.6)
    ax.set_axis_off()
    return ax


def _truncate(nodes, max_depth):
    """Nodes deeper than ``max_depth`` dropped; their parents show "..."."""
    out = {}
    stack = [(0, 0)]
    while stack:
        i, d = stack.pop()
        n = nodes[i]
        if d == max_depth and n.children:
            n = _Node(n.id, n.test, n.info + ["..."], [], n.color)
        out[i] = n
        stack.extend((c, d + 1) for c, _ in n.children)
    return {i: out[i] for i in sorted(out)}
