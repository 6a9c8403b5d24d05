"""A treeboost gradient-boosting model as a LightGBM text model.

LightGBM's text format (what ``Booster.model_to_string`` writes and
``lightgbm.Booster(model_str=...)`` reads) holds the trees of a boosting model as
arrays per tree; a numeric split there is ``x <= threshold`` to the left, with its
``decision_type`` saying where a missing value goes (bit 1, ``default_left``; bits 2-3,
``missing_type``: 2 for NaN).  treeboost's numeric splits are the same test with a
learned side for NaN, so each one is written as it is, with ``missing_type`` NaN.

The model's initial score (LightGBM has none apart from its trees) is added to every
leaf of the first tree: ``offset + v_0`` is the first term treeboost's own sum adds, so
the raw scores are the same sums in the same order.

Only what LightGBM's text model reads the same way is written: one raw output
(regression with the identity link, or two classes with the logistic link,
``objective=binary sigmoid:1``) and numeric splits.  A categorical split (LightGBM's
sets are over the category's integer value, an unseen category goes right) and K-class
models are refused; they are served by :func:`~treeboost.export.to_onnx` and
:func:`~treeboost.export.to_treelite`.
"""

from __future__ import annotations

import numpy as np

from ..engine import TREE_LEAF

__all__ = ["to_lightgbm"]

#: ``decision_type`` bits of a numeric split: NaN goes the default side (missing type
#: NaN, 2 << 2), the default side is left (bit 1)
_MISSING_NAN = 2 << 2
_DEFAULT_LEFT = 1 << 1

#: the objective line LightGBM predicts with, per treeboost link
_OBJECTIVES = {"identity": "regression", "sigmoid": "binary sigmoid:1"}


def _numbers(values):
    """LightGBM's space-separated list; floats in their shortest exact form."""
    return " ".join(repr(float(v)) if isinstance(v, float) else str(v) for v in values)


def _tree_text(index, tree, values, add):
    """The ``Tree=index`` block of one tree (``values``: its leaf values as the model
    sums them; ``add``: added to each, the initial score for the first tree)."""
    left = np.asarray(tree.children_left)
    right = np.asarray(tree.children_right)
    internal = np.flatnonzero(left != TREE_LEAF)
    leaves = np.flatnonzero(left == TREE_LEAF)
    leaf_value = [float(add + values[node, 0]) for node in leaves]
    counts = np.asarray(tree.n_node_samples)
    weights = np.asarray(tree.weighted_n_node_samples, dtype=np.float64)
    if internal.size == 0:
        return "\n".join(
            [f"Tree={index}", "num_leaves=1", "num_cat=0", f"leaf_value={leaf_value[0]!r}"]
            + ["is_linear=0", "shrinkage=1", "", ""]
        )
    if internal[0] != 0:
        raise ValueError(f"tree {index}: its root (node 0) must split.")
    code = np.empty(left.shape[0], np.int64)
    code[internal] = np.arange(internal.size)
    code[leaves] = ~np.arange(leaves.size)  # LightGBM's leaf j is child -(j + 1)
    decision = np.where(np.asarray(tree.missing_go_left, bool)[internal], _DEFAULT_LEFT, 0)
    lines = [
        f"Tree={index}",
        f"num_leaves={leaves.size}",
        "num_cat=0",
        "split_feature=" + _numbers(np.asarray(tree.feature)[internal].tolist()),
        "split_gain=" + _numbers([0] * internal.size),
        "threshold=" + _numbers(np.asarray(tree.threshold, np.float64)[internal].tolist()),
        "decision_type=" + _numbers((decision | _MISSING_NAN).tolist()),
        "left_child=" + _numbers(code[left[internal]].tolist()),
        "right_child=" + _numbers(code[right[internal]].tolist()),
        "leaf_value=" + _numbers(leaf_value),
        "leaf_weight=" + _numbers(weights[leaves].tolist()),
        "leaf_count=" + _numbers(counts[leaves].tolist()),
        "internal_value=" + _numbers([0] * internal.size),
        "internal_weight=" + _numbers(weights[internal].tolist()),
        "internal_count=" + _numbers(counts[internal].tolist()),
        "is_linear=0",
        "shrinkage=1",
        "",
        "",
    ]
    return "\n".join(lines)


def _feature_names(model, n):
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        return [f"Column_{i}" for i in range(n)]
    # LightGBM's names are one token each
    return ["_".join(str(v).split()) or f"Column_{i}" for i, v in enumerate(names)]


def to_lightgbm(model) -> str:
    """A LightGBM text model of a gradient-boosting model with one raw output and
    numeric splits.

    ``lightgbm.Booster(model_str=to_lightgbm(model))`` predicts the model's
    ``predict`` (a regressor) or ``predict_proba[:, 1]`` (a binary classifier), and
    with ``raw_score=True`` its ``decision_function``: the same sums of the same leaf
    values, ``raw(x) = init_score_ + sum_t value_t(x)``, and ``expit(raw)`` for two
    classes.  The booster reads :func:`~treeboost.export.graph_input` (the model's
    encoded X: a date column as seconds since 1970).

    Parameters
    ----------
    model : fitted GradientBoostingRegressor, HistGradientBoostingRegressor, or their
        classifiers on two classes
        With the squared-error, absolute-error, Huber or quantile loss (identity link)
        or the log loss; every split numeric.

    Returns
    -------
    str
        The text model (``Booster.model_to_string``'s format, version v4).

    Raises
    ------
    TypeError
        ``model`` is not a treeboost gradient-boosting model.
    ValueError
        More than one raw output (K classes), another link (Poisson, Gamma, the
        exponential loss), an initial estimator, or a categorical split.

    Examples
    --------
    >>> import lightgbm  # doctest: +SKIP
    >>> booster = lightgbm.Booster(model_str=to_lightgbm(model))  # doctest: +SKIP
    >>> booster.predict(graph_input(model, X))  # doctest: +SKIP
    """
    from ..inspection._model_trees import model_trees

    mt = model_trees(model)
    if not mt.boosting:
        raise TypeError(
            f"model must be a treeboost gradient-boosting model (GradientBoosting* or "
            f"HistGradientBoosting*), got {type(model).__name__}."
        )
    if mt.n_outputs != 1:
        raise ValueError(
            f"model: a LightGBM text model is written for one raw output (regression, "
            f"two classes), this model has {mt.n_outputs}; use to_onnx or to_treelite."
        )
    if mt.link not in _OBJECTIVES or mt.link_scale != 1.0:
        raise ValueError(
            f"model: its link {mt.link!r} (scale {mt.link_scale}) has no LightGBM "
            f"objective that predicts it here; use to_onnx or to_treelite."
        )
    blocks = []
    n_features = int(model.n_features_in_)
    for i, t in enumerate(mt.trees):
        tree = t.tree
        if t.features is not None or t.encoder is not None:
            raise ValueError(f"model: tree {i} reads columns of its own.")
        if np.asarray(tree.is_categorical, bool)[np.asarray(tree.children_left) != -1].any():
            raise ValueError(
                f"model: tree {i} has a categorical split; LightGBM's sets are over the "
                f"category's value and send an unseen one right: use to_onnx or "
                f"to_treelite."
            )
        add = float(mt.offset[0]) if i == 0 else 0.0
        blocks.append(_tree_text(i, tree, np.asarray(t.values, np.float64), add))
    if not blocks:  # no tree: the initial score alone
        blocks.append(
            "\n".join(
                ["Tree=0", "num_leaves=1", "num_cat=0", f"leaf_value={float(mt.offset[0])!r}"]
                + ["is_linear=0", "shrinkage=1", "", ""]
            )
        )
    header = [
        "tree",
        "version=v4",
        "num_class=1",
        "num_tree_per_iteration=1",
        "label_index=0",
        f"max_feature_idx={n_features - 1}",
        f"objective={_OBJECTIVES[mt.link]}",
        "feature_names=" + " ".join(_feature_names(model, n_features)),
        "feature_infos=" + " ".join(["none"] * n_features),
        "",
        "",
    ]
    footer = [
        "end of trees",
        "",
        "parameters:",
        "end of parameters",
        "",
        "pandas_categorical:null",
        "",
    ]
    return "\n".join(header) + "".join(b + "\n" for b in blocks) + "\n".join(footer)
