"""A treeboost model as a treelite model (:func:`to_treelite`): ``treelite.gtil.predict``
scores it, ``tl2cgen`` compiles it to a shared library.

The trees are the ONNX export's (:mod:`._tree_ensemble`): the graph's columns (a
category as its code), numeric tests ``x <= t`` with the learned missing side, and
categorical tests of the codes on the side opposite the missing side (a category unseen
in training takes the missing side).  Thresholds and leaf values are float64.
"""

from __future__ import annotations

import numpy as np

from ..inspection._model_trees import model_trees
from ._tree_ensemble import BRANCH_MEMBER, ensemble_arrays

__all__ = ["to_treelite"]

#: treelite's postprocessor of each link of :data:`~..inspection._model_trees.LINKS`
_POSTPROCESSOR = {
    "identity": "identity",
    "exp": "exponential",
    "sigmoid": "sigmoid",
    "softmax": "softmax",
}


def _metadata(model, mt, tl):
    """treelite's Metadata and per-tree target/class ids, from the model's kind."""
    p = int(model.n_features_in_)
    if mt.classes is None:
        n = int(mt.n_outputs)
        meta = tl.Metadata(
            num_feature=p,
            task_type="kRegressor",
            average_tree_output=False,
            num_target=n,
            num_class=[1] * n,
            leaf_vector_shape=(1, 1),
        )
        return meta, "target"
    if mt.link == "sigmoid":
        meta = tl.Metadata(
            num_feature=p,
            task_type="kBinaryClf",
            average_tree_output=False,
            num_target=1,
            num_class=[1],
            leaf_vector_shape=(1, 1),
        )
        return meta, "none"
    meta = tl.Metadata(
        num_feature=p,
        task_type="kMultiClf",
        average_tree_output=False,
        num_target=1,
        num_class=[len(mt.classes)],
        leaf_vector_shape=(1, 1),
    )
    return meta, "class"


def to_treelite(model):
    """A treelite model of a fitted treeboost tree model.

    ``treelite.gtil.predict(tl_model, graph_input(model, X))`` gives ``predict`` of a
    regressor (shape (n, n_outputs, 1)), ``predict_proba`` of a classifier of K > 2
    classes (shape (n, 1, K)) and the positive class's probability of a binary one
    (shape (n, 1, 1)); see :func:`~treeboost.export.graph_input` for the input.

    Parameters
    ----------
    model : fitted treeboost estimator
        Any model :func:`~treeboost.export.to_onnx` takes.

    Returns
    -------
    treelite.Model
    """
    try:
        import treelite.model_builder as tl
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ImportError("to_treelite needs treelite: pip install treelite tl2cgen") from exc
    mt = model_trees(model)
    arrays = ensemble_arrays(model, mt)
    meta, axis = _metadata(model, mt, tl)
    # softmax(scale F) and sigmoid(scale F): treelite's sigmoid takes alpha; the
    # softmax reads the scaled sums
    scale = mt.link_scale if mt.link == "softmax" else 1.0
    targets = arrays.leaf_targetids
    roots = list(arrays.tree_roots) + [arrays.nodes_featureids.size]
    tree_target = [int(targets[_first_leaf(arrays, lo, hi)]) for lo, hi in zip(roots, roots[1:])]
    n_tree = len(tree_target)
    annotation = tl.TreeAnnotation(
        num_tree=n_tree,
        target_id=tree_target if axis == "target" else [0] * n_tree,
        class_id=tree_target if axis == "class" else [0] * n_tree,
    )
    post = tl.PostProcessorFunc(
        name=_POSTPROCESSOR[mt.link],
        **({"sigmoid_alpha": float(mt.link_scale)} if mt.link == "sigmoid" else {}),
    )
    base = np.asarray(mt.offset, np.float64) * scale
    if axis == "none":
        base = base[:1]
    builder = tl.ModelBuilder(
        threshold_type="float64",
        leaf_output_type="float64",
        metadata=meta,
        tree_annotation=annotation,
        postprocessor=post,
        base_scores=base.tolist(),
    )
    for lo, hi in zip(roots, roots[1:]):
        _build_tree(builder, arrays, lo, hi, scale)
    return builder.commit()


def _first_leaf(arrays, lo, hi):
    ids = np.concatenate(
        [
            arrays.nodes_truenodeids[lo:hi][arrays.nodes_trueleafs[lo:hi] == 1],
            arrays.nodes_falsenodeids[lo:hi][arrays.nodes_falseleafs[lo:hi] == 1],
        ]
    )
    return int(ids.min())


def _build_tree(builder, arrays, lo, hi, scale):
    """One tree: internal node j has key ``j - lo``, leaf l key ``n + l - first``."""
    n = hi - lo
    first = _first_leaf(arrays, lo, hi)
    weights = arrays.leaf_weights
    member_of = np.cumsum(arrays.nodes_modes == BRANCH_MEMBER) - 1
    values = arrays.membership_values
    sets = np.split(values, np.flatnonzero(np.isnan(values)) + 1)
    builder.start_tree()
    if n == 1 and arrays.nodes_truenodeids[lo] == arrays.nodes_falsenodeids[lo]:
        # a single leaf (the ONNX form's test of two equal branches)
        builder.start_node(0)
        builder.leaf(float(weights[arrays.nodes_truenodeids[lo]] * scale))
        builder.end_node()
        builder.end_tree()
        return
    leaves = set()

    def key(ids, leafs, j):
        if leafs[j]:
            leaves.add(int(ids[j]))
            return int(ids[j]) - first + n
        return int(ids[j]) - lo

    for j in range(lo, hi):
        t = key(arrays.nodes_truenodeids, arrays.nodes_trueleafs, j)
        f = key(arrays.nodes_falsenodeids, arrays.nodes_falseleafs, j)
        track = bool(arrays.nodes_missing_value_tracks_true[j])
        feature = int(arrays.nodes_featureids[j])
        builder.start_node(j - lo)
        if arrays.nodes_modes[j] == BRANCH_MEMBER:
            # true branch: the set's side, NaN and unseen codes the false branch
            builder.categorical_test(
                feature,
                default_left=False,
                category_list=sets[member_of[j]][:-1].astype(np.int64).tolist(),
                category_list_right_child=False,
                left_child_key=t,
                right_child_key=f,
            )
        else:
            builder.numerical_test(
                feature,
                float(arrays.nodes_splits[j]),
                default_left=track,
                opname="<=",
                left_child_key=t,
                right_child_key=f,
            )
        builder.end_node()
    for leaf in sorted(leaves):
        builder.start_node(leaf - first + n)
        builder.leaf(float(weights[leaf] * scale))
        builder.end_node()
    builder.end_tree()
