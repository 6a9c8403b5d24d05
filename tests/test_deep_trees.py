"""Every walk over a loaded tree's nodes (the exports, rules, table, pictures, SHAP and the
pruning methods) handles a valid tree 20,000 splits deep: no RecursionError under the
default recursion limit, and a cost linear in the nodes (seconds, not minutes).

The deep trees are chains: each split sends one side to a leaf and the other on to the
next split, the continuing side alternating (left, right, left, ...), so that the picture's
layout zigzags.  The binary one is saved and loaded (its arrays pass every check of a
model file); the multiway one (C4.5, continuous cuts) passes its model's checks."""

import sys
import time
import warnings

import numpy as np
import pytest

import treeboost
from treeboost.engine.predict.tree import Tree
from treeboost.inspection import (
    export_graphviz,
    export_rules,
    export_text,
    extract_rules,
    rule_coverage,
    shap_values,
    trees_to_dataframe,
)
from treeboost.trees.classic import C45Classifier, MultiwayTree
from treeboost.trees.pruning import (
    cost_complexity_pruning_path,
    pessimistic_pruning,
    pre_pruning,
    prune_ccp,
    reduced_error_pruning,
)

DEPTH = 20_000
#: seconds one walk of a DEPTH-deep tree may take: the walks take one or two on a busy
#: two-core machine; the quadratic ones took minutes
BUDGET = 60.0

X_SMALL = np.arange(40, dtype=np.float64).reshape(-1, 1)
Y_SMALL = (X_SMALL[:, 0] > 20).astype(int)


def _chain_shape(depth):
    """Internal nodes 0, 2, 4, ...: node ``2k`` continues to ``2k + 2`` on the left for
    even ``k``, on the right for odd ``k``; its other child ``2k + 1`` is a leaf."""
    n = 2 * depth + 1
    internal = np.arange(0, 2 * depth, 2)
    on_left = np.arange(depth) % 2 == 0
    left = np.full(n, -1, np.int32)
    right = np.full(n, -1, np.int32)
    left[internal] = np.where(on_left, internal + 2, internal + 1)
    right[internal] = np.where(on_left, internal + 1, internal + 2)
    node_depth = np.zeros(n, np.int32)
    node_depth[1:] = (np.arange(1, n) + 1) // 2
    return n, internal, left, right, node_depth


def _chain_counts(left, right, internal):
    """Per node, its rows and the fractions of classes 0 and 1 when each split peels one
    row, the one peeled at split ``k`` of class ``k % 2`` (a tree grown on such data):
    every node weighs what its children weigh together."""
    n = left.shape[0]
    k = np.arange(internal.shape[0])
    peeled = np.where(k % 2 == 0, right[internal], left[internal])
    rows = np.zeros(n)
    ones = np.zeros(n)
    rows[peeled] = 1
    ones[peeled] = k % 2
    rows[n - 1], ones[n - 1] = 1, k.size % 2
    for i in internal[::-1].tolist():  # children before their parent
        rows[i] = rows[left[i]] + rows[right[i]]
        ones[i] = ones[left[i]] + ones[right[i]]
    p = ones / rows
    return rows, np.column_stack([1 - p, p])


def _binary_chain(base, depth):
    """A :class:`Tree` ``depth`` splits deep, every split the root split of ``base``."""
    n, internal, left, right, node_depth = _chain_shape(depth)
    arrays = {"children_left": left, "children_right": right, "depth": node_depth}
    for name in ("feature", "threshold", "is_categorical", "missing_go_left", "bin_threshold"):
        a = getattr(base, name)
        col = np.full(n, -1 if name == "feature" else 0, a.dtype)
        if name == "threshold":
            col[:] = np.nan
        col[internal] = a[0]
        arrays[name] = col
    arrays["gain"] = np.zeros(n)
    arrays["gain"][internal] = base.gain[0]
    rows, value = _chain_counts(left, right, internal)
    arrays["value"] = value
    arrays["impurity"] = 1 - (value**2).sum(axis=1)
    arrays["n_node_samples"] = rows.astype(base.n_node_samples.dtype)
    arrays["weighted_n_node_samples"] = rows
    arrays["categories_left"] = np.zeros((0, 4), np.uint64)
    return Tree(base.n_features, base.n_outputs, **arrays)


def _multiway_chain(base, depth):
    """A :class:`MultiwayTree` of continuous cuts ``depth`` deep, each ``base``'s root cut."""
    n, internal, left, right, node_depth = _chain_shape(depth)
    rows, value = _chain_counts(left, right, internal)
    children = [np.empty(0, np.int64) for _ in range(n)]
    fractions = [np.empty(0) for _ in range(n)]
    report = [None] * n
    parent = np.full(n, -1, np.int64)
    for i in internal.tolist():
        children[i] = np.array([left[i], right[i]], np.int64)
        fractions[i] = rows[children[i]] / rows[i]
        report[i] = base.report[0]
        parent[children[i]] = i
    feature = np.full(n, -1, np.int64)
    feature[internal] = base.feature[0]
    threshold = np.full(n, np.nan)
    threshold[internal] = base.threshold[0]
    return MultiwayTree(
        base.n_features,
        feature,
        np.zeros(n, bool),
        threshold,
        children,
        fractions,
        value,
        rows,
        rows,
        -(value * np.log2(np.where(value > 0, value, 1))).sum(axis=1),
        node_depth,
        parent,
        report,
    )


@pytest.fixture(scope="module")
def deep_cart(tmp_path_factory):
    clf = treeboost.DecisionTreeClassifier(max_depth=1).fit(X_SMALL, Y_SMALL)
    clf.tree_ = _binary_chain(clf.tree_, DEPTH)
    path = tmp_path_factory.mktemp("deep") / "chain.tbm"
    clf.save(path)
    loaded = treeboost.load(path)
    assert loaded.get_depth() == DEPTH
    return loaded


@pytest.fixture(scope="module")
def deep_c45():
    clf = C45Classifier(max_depth=1).fit(X_SMALL, Y_SMALL)
    clf.tree_ = _multiway_chain(clf.tree_, DEPTH)
    clf._validate_state()  # what loading it from a file checks
    assert clf.get_depth() == DEPTH
    return clf


def _timed(call):
    limit = sys.getrecursionlimit()
    start = time.perf_counter()
    out = call()
    elapsed = time.perf_counter() - start
    assert sys.getrecursionlimit() == limit
    assert elapsed < BUDGET, f"{elapsed:.1f} s"
    return out


def _n_dot_nodes(dot):
    return sum(1 for line in dot.splitlines() if "[label=" in line and "->" not in line)


#: the pruning functions, which take a binary and a multiway tree alike
PRUNING_WALKS = {
    "cost_complexity_pruning_path": (
        lambda m: cost_complexity_pruning_path(m),
        lambda out: out.n_leaves[0] == DEPTH + 1 and out.n_leaves[-1] == 1,
    ),
    "pessimistic_pruning": (
        lambda m: pessimistic_pruning(m, return_report=True),
        lambda out: len(out[1]) == DEPTH,
    ),
    "reduced_error_pruning": (
        lambda m: reduced_error_pruning(m, X_SMALL, Y_SMALL, return_report=True),
        lambda out: len(out[1]) == DEPTH,
    ),
    "pre_pruning": (
        lambda m: pre_pruning(m, X_SMALL, Y_SMALL, return_report=True),
        lambda out: len(out[1]) >= 1,
    ),
}


BINARY_WALKS = {
    "export_text": (lambda m: export_text(m), lambda out: len(out.splitlines()) == 3 * DEPTH + 1),
    "extract_rules": (lambda m: extract_rules(m), lambda out: len(out) == DEPTH + 1),
    "export_rules": (lambda m: export_rules(m), lambda out: len(out) == DEPTH + 1),
    "rule_coverage": (
        lambda m: rule_coverage(m, X_SMALL),
        lambda out: out.shape == (40, DEPTH + 1) and (out.sum(axis=1) == 1).all(),
    ),
    "export_graphviz": (
        lambda m: export_graphviz(m),
        lambda out: _n_dot_nodes(out) == 2 * DEPTH + 1,
    ),
    "trees_to_dataframe": (
        lambda m: trees_to_dataframe(m),
        lambda out: len(out) == 2 * DEPTH + 1 and out["depth"].max() == DEPTH,
    ),
    "shap_values": (lambda m: shap_values(m, X_SMALL), lambda out: out[0].shape == (40, 1, 2)),
    "prune_ccp": (lambda m: prune_ccp(m, 1e-12), lambda out: out.get_depth() <= DEPTH),
    **PRUNING_WALKS,
}


@pytest.mark.parametrize("name", sorted(BINARY_WALKS))
def test_every_walk_of_a_deep_binary_tree_finishes(deep_cart, name):
    call, check = BINARY_WALKS[name]
    assert check(_timed(lambda: call(deep_cart)))


def test_shap_values_of_a_deep_tree_add_up(deep_cart):
    values, expected = _timed(lambda: shap_values(deep_cart, X_SMALL))
    np.testing.assert_allclose(
        values.sum(axis=1) + expected, deep_cart.predict_proba(X_SMALL), atol=1e-9
    )


MULTIWAY_WALKS = {
    "extract_rules": (lambda m: extract_rules(m), lambda out: len(out) == DEPTH + 1),
    "export_rules": (lambda m: export_rules(m), lambda out: len(out) == DEPTH + 1),
    "export_graphviz": (
        lambda m: export_graphviz(m),
        lambda out: _n_dot_nodes(out) == 2 * DEPTH + 1,
    ),
    "trees_to_dataframe": (
        lambda m: trees_to_dataframe(m),
        lambda out: len(out) == 2 * DEPTH + 1 and out["depth"].max() == DEPTH,
    ),
    **PRUNING_WALKS,
}


@pytest.mark.parametrize("name", sorted(MULTIWAY_WALKS))
def test_every_walk_of_a_deep_multiway_tree_finishes(deep_c45, name):
    call, check = MULTIWAY_WALKS[name]
    assert check(_timed(lambda: call(deep_c45)))


# -- the picture --------------------------------------------------------------------------
@pytest.fixture
def plt():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


@pytest.mark.parametrize("which", ["deep_cart", "deep_c45"])
def test_plot_tree_of_a_deep_tree_draws_its_shape(request, plt, tmp_path, which):
    """More than MAX_LABELLED_NODES nodes: the shape, without text, with a warning."""
    from matplotlib.collections import LineCollection, PathCollection

    from treeboost.inspection import plot_tree

    model = request.getfixturevalue(which)
    with pytest.warns(UserWarning, match=r"40001 nodes.*max_depth"):
        ax = _timed(lambda: plot_tree(model))
    # one artist for the edges and one for the nodes, not one (or three) per node
    assert not ax.texts and not ax.lines and len(ax.collections) == 2
    edges, dots = sorted(ax.collections, key=lambda c: not isinstance(c, LineCollection))
    assert isinstance(edges, LineCollection) and isinstance(dots, PathCollection)
    assert len(edges.get_segments()) == 2 * DEPTH and len(dots.get_offsets()) == 2 * DEPTH + 1
    _timed(lambda: ax.figure.savefig(tmp_path / "deep.png", dpi=10))


@pytest.mark.parametrize("which", ["deep_cart", "deep_c45"])
def test_plot_tree_of_a_deep_tree_with_max_depth_labels_its_top(request, plt, which):
    from treeboost.inspection import plot_tree

    model = request.getfixturevalue(which)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = _timed(lambda: plot_tree(model, max_depth=5))
    # 11 nodes down to depth 5 (two a level, one at the root), 10 edge labels
    assert len(ax.texts) == 11 + 10
    assert sum("..." in t.get_text() for t in ax.texts) == 1


def test_layout_centres_parents_over_their_outer_children():
    from treeboost.inspection.drawing import _layout

    # 0 -> (1, 2); 1 -> (3, 4); 2 -> (5, 6, 7) (a multiway node); 4 -> (8, 9)
    children = [(1, 2), (3, 4), (5, 6, 7), (), (8, 9), (), (), (), (), ()]
    walk, x, depth, n_leaves = _layout(children)
    assert [node for node, _, _, _ in walk] == [3, 8, 9, 4, 1, 5, 6, 7, 2, 0]  # post-order
    assert n_leaves == 6
    assert [x[i] for i in (3, 8, 9, 5, 6, 7)] == [0, 1, 2, 3, 4, 5]
    assert x[4] == 1.5 and x[1] == 0.75 and x[2] == 4.0 and x[0] == (0.75 + 4.0) / 2
    assert [depth[i] for i in range(10)] == [0, 1, 1, 2, 2, 2, 2, 2, 3, 3]
    # cut at depth 1: the two children of the root are its leaves
    walk, x, depth, n_leaves = _layout(children, max_depth=1)
    assert [node for node, _, _, _ in walk] == [1, 2, 0] and n_leaves == 2
    assert x == {1: 0, 2: 1, 0: 0.5}


def test_preorder_walks_first_branches_first_and_stops_where_told():
    from treeboost.inspection._tree_view import preorder

    children = [(1, 2), (3, 4), (5, 6, 7), (), (8, 9), (), (), (), (), ()]
    walk = list(preorder(children))
    assert [w[0] for w in walk] == [0, 1, 3, 4, 8, 9, 2, 5, 6, 7]
    assert walk[4] == (8, 4, 0, 3) and walk[9] == (7, 2, 2, 2) and walk[0] == (0, -1, -1, 0)
    assert [w[0] for w in preorder(children, max_depth=1)] == [0, 1, 2]
    assert [w[0] for w in preorder(children, stop=lambda n: n == 1)] == [0, 1, 2, 5, 6, 7]
    assert [w[0] for w in preorder(children, root=4)] == [4, 8, 9]
