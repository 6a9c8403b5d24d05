"""A treeboost model's trees as the attributes of ONNX's ``TreeEnsemble`` (ai.onnx.ml 5).

The trees come from :func:`~treeboost.inspection._model_trees.model_trees`; here they
are written in the columns the graph reads (:func:`graph_input`: the model's encoded X,
a category as its code), each split as ONNX tests it:

* numeric: ``BRANCH_LEQ`` on the threshold, true branch left, NaN to the learned side
  (``nodes_missing_value_tracks_true``);
* categorical: ``BRANCH_MEMBER`` of the codes on the side *opposite* the missing side,
  true branch that side, NaN to the false branch: a category unseen in training (not
  in the set) then takes the missing side, as treeboost sends it.

``TreeEnsemble``'s leaf adds one weight to one target, so a tree of V values per leaf
(a forest classifier's class probabilities) is written V times, once per target.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from ..engine import TREE_LEAF

__all__ = ["EnsembleArrays", "ensemble_arrays", "graph_input", "float32_thresholds"]

#: ``nodes_modes`` of ``TreeEnsemble``
BRANCH_LEQ, BRANCH_MEMBER = 0, 6


class EnsembleArrays(NamedTuple):
    """The node and leaf arrays of ``TreeEnsemble``, by their ONNX names."""

    tree_roots: list
    nodes_featureids: np.ndarray
    nodes_modes: np.ndarray
    nodes_splits: np.ndarray
    nodes_truenodeids: np.ndarray
    nodes_trueleafs: np.ndarray
    nodes_falsenodeids: np.ndarray
    nodes_falseleafs: np.ndarray
    nodes_missing_value_tracks_true: np.ndarray
    membership_values: np.ndarray
    leaf_targetids: np.ndarray
    leaf_weights: np.ndarray


def graph_input(model, X):
    """The matrix an exported graph reads: ``X`` encoded as the model's trees read it
    (float64; a categorical column holds its category code, ``NaN`` for missing values
    and categories unseen in training; a datetime column holds seconds since 1970)."""
    return np.ascontiguousarray(model._encode_X(X, reset=False), dtype=np.float64)


def _member_codes(encoder, column):
    """The model's code behind each code of a member's own categorical ``column`` (the
    member encoded the model's codes, numbers, as categories of its own)."""
    return np.asarray(encoder.categories_[column], dtype=np.float64)


def _known_codes(model_trees_tree, model, column):
    """The codes of the tree's categorical ``column`` that training saw."""
    enc = model_trees_tree.encoder if model_trees_tree.encoder is not None else model._encoder
    return np.arange(len(enc.categories_[column]))


def _tree_nodes(t, model):
    """One tree's internal nodes in the graph's columns: per node its model feature,
    mode, split, whether the left child is the true branch, whether NaN takes the true
    branch, and its set of codes (None for numeric nodes)."""
    tree = t.tree
    left = np.asarray(tree.children_left)
    internal = np.flatnonzero(left != TREE_LEAF)
    cols = np.asarray(tree.feature)[internal].astype(np.int64)
    feature = cols if t.features is None else np.asarray(t.features, np.int64)[cols]
    is_cat = np.asarray(tree.is_categorical, bool)[internal]
    miss_left = np.asarray(tree.missing_go_left, bool)[internal]
    split = np.asarray(tree.threshold, np.float64)[internal].copy()
    modes = np.full(internal.shape[0], BRANCH_LEQ, np.uint8)
    true_left = np.ones(internal.shape[0], bool)
    tracks_true = miss_left.copy()
    sets = [None] * internal.shape[0]
    if is_cat.any():
        bits = np.unpackbits(
            np.ascontiguousarray(tree.categories_left)[internal].view(np.uint8),
            axis=1,
            bitorder="little",
        ).astype(bool)
        for j in np.flatnonzero(is_cat):
            known = _known_codes(t, model, cols[j])
            goes_left = bits[j, known]
            # the set is the side opposite missing; NaN (and unseen codes) take the other
            side = known[~goes_left] if miss_left[j] else known[goes_left]
            true_left[j] = not miss_left[j]
            tracks_true[j] = False
            if t.encoder is not None and t.encoder.is_categorical_[cols[j]]:
                side = _member_codes(t.encoder, cols[j])[side]
            if side.size == 0:  # nothing on that side: a test no value passes
                split[j] = -np.inf
            else:
                modes[j] = BRANCH_MEMBER
                sets[j] = np.asarray(side, np.float64)
    return internal, feature, modes, split, true_left, tracks_true, sets


def _write_tree(t, model, values, target, arrays, node_base, leaf_base):
    """Append one tree (one target) to ``arrays`` (lists); return its nodes and leaves."""
    tree = t.tree
    left = np.asarray(tree.children_left)
    right = np.asarray(tree.children_right)
    internal, feature, modes, split, true_left, tracks_true, sets = _tree_nodes(t, model)
    leaves = np.flatnonzero(left == TREE_LEAF)
    if internal.size == 0:
        # a single leaf: one test whose both branches reach it
        arrays["tree_roots"].append(node_base)
        for name, v in (
            ("nodes_featureids", 0),
            ("nodes_modes", BRANCH_LEQ),
            ("nodes_splits", 0.0),
            ("nodes_truenodeids", leaf_base),
            ("nodes_trueleafs", 1),
            ("nodes_falsenodeids", leaf_base),
            ("nodes_falseleafs", 1),
            ("nodes_missing_value_tracks_true", 0),
        ):
            arrays[name].append(np.array([v]))
        arrays["leaf_targetids"].append(np.array([target]))
        arrays["leaf_weights"].append(values[leaves])
        return 1, 1
    index = np.empty(left.shape[0], np.int64)
    index[internal] = node_base + np.arange(internal.size)
    index[leaves] = leaf_base + np.arange(leaves.size)
    is_leaf = left == TREE_LEAF
    lo, hi = left[internal], right[internal]
    true_child = np.where(true_left, lo, hi)
    false_child = np.where(true_left, hi, lo)
    arrays["tree_roots"].append(int(index[0]))
    arrays["nodes_featureids"].append(feature)
    arrays["nodes_modes"].append(modes)
    arrays["nodes_splits"].append(split)
    arrays["nodes_truenodeids"].append(index[true_child])
    arrays["nodes_trueleafs"].append(is_leaf[true_child].astype(np.int64))
    arrays["nodes_falsenodeids"].append(index[false_child])
    arrays["nodes_falseleafs"].append(is_leaf[false_child].astype(np.int64))
    arrays["nodes_missing_value_tracks_true"].append(tracks_true.astype(np.int64))
    for s in sets:
        if s is not None:
            # the values of each member node in node order, each set closed by NaN
            arrays["membership_values"].append(np.append(s, np.nan))
    arrays["leaf_targetids"].append(np.full(leaves.size, target, np.int64))
    arrays["leaf_weights"].append(np.asarray(values[leaves], np.float64))
    return internal.size, leaves.size


def ensemble_arrays(model, decomposition):
    """:class:`EnsembleArrays` of every tree of ``decomposition``
    (:class:`~treeboost.inspection._model_trees.ModelTrees`), a tree of V values per
    leaf written once per target."""
    names = EnsembleArrays._fields
    arrays = {name: [] for name in names}
    n_nodes = n_leaves = 0
    for t in decomposition.trees:
        for v in range(t.values.shape[1]):
            dn, dl = _write_tree(t, model, t.values[:, v], t.output + v, arrays, n_nodes, n_leaves)
            n_nodes += dn
            n_leaves += dl
    out = {"tree_roots": arrays.pop("tree_roots")}
    kinds = {"nodes_modes": np.uint8, "nodes_splits": np.float64, "leaf_weights": np.float64}
    kinds["membership_values"] = np.float64
    for name, parts in arrays.items():
        kind = kinds.get(name, np.int64)
        out[name] = np.concatenate(parts).astype(kind) if parts else np.zeros(0, kind)
    return EnsembleArrays(**out)


def _next_below(values32):
    return np.nextafter(values32, np.float32(-np.inf), dtype=np.float32)


def float32_thresholds(arrays, X):
    """``nodes_splits`` as float32 that keep every row of ``X`` (the graph's input, in
    float64) on its side of every numeric split when the graph reads it in float32.

    A row goes left when ``x <= t``; in float32 it goes left when ``f(x) <= t32``, with
    ``f`` the rounding to float32, which is monotone.  For the training values
    ``a = max{x <= t}`` and ``b = min{x > t}`` of the split's feature, any ``t32`` in
    ``[f(a), f(b))`` keeps both sides; the float32 nearest ``t`` is taken, moved into
    that interval when it lies outside.  Where ``f(a) == f(b)`` no float32 threshold
    separates the rows: a warning counts those splits (export in float64).
    Without ``X``, the float32 nearest each threshold.
    """
    split = np.asarray(arrays.nodes_splits, np.float64)
    with np.errstate(over="ignore"):
        out = split.astype(np.float32)
    if X is None:
        return out
    numeric = arrays.nodes_modes == BRANCH_LEQ
    feats = arrays.nodes_featureids
    lost = 0
    for f in np.unique(feats[numeric]):
        nodes = np.flatnonzero(numeric & (feats == f) & np.isfinite(split))
        col = X[:, f]
        vals = np.unique(col[~np.isnan(col)])
        if nodes.size == 0 or vals.size == 0:
            continue
        pos = np.searchsorted(vals, split[nodes], side="right")
        has_a, has_b = pos > 0, pos < vals.size
        a32 = np.where(has_a, vals[np.maximum(pos - 1, 0)], -np.inf).astype(np.float32)
        b32 = np.where(has_b, vals[np.minimum(pos, vals.size - 1)], np.inf).astype(np.float32)
        t = out[nodes]
        separable = a32 < b32
        lost += int(np.sum(~separable))
        t = np.where(separable & (t < a32), a32, t)
        t = np.where(separable & (t >= b32), _next_below(b32), t)
        out[nodes] = t
    if lost:
        warnings.warn(
            f"{lost} split(s) fall between two values of X that are the same number in "
            f"float32: rows on both sides of them cannot be kept apart in float32; "
            f"export with dtype=np.float64 for the exact splits.",
            UserWarning,
            stacklevel=3,
        )
    return out


class LegacyArrays(NamedTuple):
    """The attributes of the older ``TreeEnsembleRegressor`` (ai.onnx.ml 3), by their
    ONNX names: one list per node of every tree, leaves included."""

    nodes_treeids: list
    nodes_nodeids: list
    nodes_featureids: list
    nodes_modes: list
    nodes_values: np.ndarray
    nodes_truenodeids: list
    nodes_falsenodeids: list
    nodes_missing_value_tracks_true: list
    target_treeids: list
    target_nodeids: list
    target_ids: list
    target_weights: np.ndarray


def legacy_arrays(arrays, splits):
    """:class:`LegacyArrays` of ``arrays`` (:class:`EnsembleArrays`; ``splits`` its
    thresholds in the graph's type).  The older operator has no set membership: a
    member node becomes a chain of ``BRANCH_EQ`` tests, one per code of its set, whose
    true branches all reach the set's child and whose last false branch reaches the
    other child (NaN fails every test: the other child, the missing side)."""
    roots = list(arrays.tree_roots) + [arrays.nodes_featureids.size]
    member_of = np.cumsum(arrays.nodes_modes == BRANCH_MEMBER) - 1
    sets = np.split(
        arrays.membership_values, np.flatnonzero(np.isnan(arrays.membership_values)) + 1
    )
    out = {name: [] for name in LegacyArrays._fields}
    for tree, (lo, hi) in enumerate(zip(roots[:-1], roots[1:])):
        n = hi - lo
        leaf_ids = np.concatenate(
            [
                arrays.nodes_truenodeids[lo:hi][arrays.nodes_trueleafs[lo:hi] == 1],
                arrays.nodes_falsenodeids[lo:hi][arrays.nodes_falseleafs[lo:hi] == 1],
            ]
        )
        first_leaf = int(leaf_ids.min())
        n_leaves = int(leaf_ids.max()) - first_leaf + 1
        extra = n + n_leaves  # ids of the chains' added nodes

        def child(ids, leafs, j):
            return int(ids[j] - first_leaf + n) if leafs[j] else int(ids[j] - lo)

        rows = []
        for j in range(lo, hi):
            t = child(arrays.nodes_truenodeids, arrays.nodes_trueleafs, j)
            f = child(arrays.nodes_falsenodeids, arrays.nodes_falseleafs, j)
            track = int(arrays.nodes_missing_value_tracks_true[j])
            feat = int(arrays.nodes_featureids[j])
            if arrays.nodes_modes[j] != BRANCH_MEMBER:
                rows.append((j - lo, feat, "BRANCH_LEQ", splits[j], t, f, track))
                continue
            codes = sets[member_of[j]][:-1]
            ids = [j - lo] + list(range(extra, extra + codes.size - 1))
            extra += codes.size - 1
            for k, code in enumerate(codes):
                nxt = ids[k + 1] if k + 1 < codes.size else f
                rows.append((ids[k], feat, "BRANCH_EQ", code, t, nxt, 0))
        for leaf in range(n_leaves):
            rows.append((n + leaf, 0, "LEAF", 0.0, 0, 0, 0))
        rows.sort()
        for node_id, feat, mode, value, t, f, track in rows:
            out["nodes_treeids"].append(tree)
            out["nodes_nodeids"].append(node_id)
            out["nodes_featureids"].append(feat)
            out["nodes_modes"].append(mode)
            out["nodes_values"].append(value)
            out["nodes_truenodeids"].append(t)
            out["nodes_falsenodeids"].append(f)
            out["nodes_missing_value_tracks_true"].append(track)
        leaves = slice(first_leaf, first_leaf + n_leaves)
        out["target_treeids"].extend([tree] * n_leaves)
        out["target_nodeids"].extend(range(n, n + n_leaves))
        out["target_ids"].extend(arrays.leaf_targetids[leaves].tolist())
        out["target_weights"].extend(arrays.leaf_weights[leaves].tolist())
    out["nodes_values"] = np.asarray(out["nodes_values"], dtype=np.asarray(splits).dtype)
    out["target_weights"] = np.asarray(out["target_weights"], np.float64)
    return LegacyArrays(**out)
