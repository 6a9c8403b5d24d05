"""A versioned JSON description of a model's trees, as LightGBM's ``dump_model`` and
XGBoost's JSON model are: readable by any language, with no treeboost code.

Schema (``"schema_version": 1``)::

    {"format": "treeboost-trees", "schema_version": 1,
     "model": "HistGradientBoostingClassifier",
     "features": [{"name": "age", "kind": "numeric"},
                  {"name": "city", "kind": "categorical", "categories": ["Lyon", ...]}],
     "n_outputs": K, "offset": [K floats], "link": "sigmoid", "link_scale": 1.0,
     "classes": [...] or null, "raw_method": "decision_function",
     "trees": [{"output": o, "features": null or [model feature of each tree column],
                "nodes": [{"id": 0, "feature": 2, "threshold": 0.5,
                           "missing_left": true, "left": 1, "right": 2},
                          {"id": 1, "feature": 1, "categories_left": [0, 3],
                           "missing_left": false, "left": 3, "right": 4},
                          {"id": 3, "leaf": true, "value": [V floats]}, ...]}]}

How a row is scored:

* a categorical feature's value is its position in ``features[f]["categories"]``; a
  missing value or a category not in the list is *missing*;
* at a numeric node, a missing value goes left when ``missing_left``, else the row goes
  left when ``x <= threshold``; at a categorical node, a missing value goes left when
  ``missing_left``, else the row goes left when its code is in ``categories_left``;
* the ``value`` of the leaf reached in a tree is added to the raw outputs
  ``output .. output + V - 1``, starting from ``offset``;
* the prediction is ``link(link_scale * raw)``: ``identity``, ``exp``, ``sigmoid``
  (one raw output ``F``: probabilities ``[1 - s, s]``, ``s = 1 / (1 + exp(-F))``) or
  ``softmax`` over the K outputs.  ``raw_method`` names the model method equal to the
  raw outputs (``predict_proba`` of a forest: the averaged class frequencies;
  ``decision_function`` of a boosting classifier; ``predict`` of a regressor).
"""

import json
from typing import Any

import numpy as np

from ._model_trees import model_trees

FORMAT = "treeboost-trees"
SCHEMA_VERSION = 1


def _plain(value):
    """A category label or class as a JSON value (numpy scalars as Python's)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _features(model):
    enc = model._encoder
    names = getattr(model, "feature_names_in_", None)
    out = []
    for f in range(model.n_features_in_):
        name = str(names[f]) if names is not None else f"x{f}"
        if enc.is_categorical_[f]:
            cats = [_plain(c) for c in enc.categories_[f]]
            out.append({"name": name, "kind": "categorical", "categories": cats})
        else:
            out.append({"name": name, "kind": "numeric"})
    return out


def _codes_left(bits_row):
    """The category codes of one node's 256-bit set (four uint64 words)."""
    words = np.asarray(bits_row, np.uint64)
    flags = (words[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
    return np.flatnonzero(flags.ravel()).tolist()


def _nodes(mt):
    t = mt.tree
    left, right = np.asarray(t.children_left), np.asarray(t.children_right)
    feature, threshold = np.asarray(t.feature), np.asarray(t.threshold, np.float64)
    is_cat, missing_left = np.asarray(t.is_categorical, bool), np.asarray(t.missing_go_left, bool)
    bits = np.asarray(t.categories_left) if is_cat.any() else None
    nodes = []
    for i in range(left.shape[0]):  # a loop over nodes: a dump is written once
        if left[i] < 0:
            nodes.append({"id": i, "leaf": True, "value": mt.values[i].tolist()})
            continue
        node: dict[str, Any] = {"id": i, "feature": int(feature[i])}
        if is_cat[i]:
            assert bits is not None  # read above when a node is categorical
            node["categories_left"] = _codes_left(bits[i])
        else:
            node["threshold"] = float(threshold[i])
        node.update(missing_left=bool(missing_left[i]), left=int(left[i]), right=int(right[i]))
        nodes.append(node)
    return nodes


def dump_model(model):
    """The trees of a fitted treeboost model as a JSON-ready dict (schema above).

    Parameters
    ----------
    model : fitted treeboost estimator
        A sum of binary trees: ``DecisionTree*``, ``ExtraTree*``, forests, ``Bagging*``
        of treeboost CART trees, ``GradientBoosting*``, ``HistGradientBoosting*``,
        ``AdaBoostClassifier``.

    Returns
    -------
    dict

    Raises
    ------
    TypeError, ValueError
        The model is not such a sum (``AdaBoostRegressor``: a weighted median), or its
        members encode X themselves (bagging members with categorical columns).
    """
    trees = model_trees(model)
    if any(t.encode is not None for t in trees.trees):
        raise ValueError(
            "dump_model: the members of this model read their own encoding of X "
            "(bagging of trees with categorical columns), which the JSON schema does not hold."
        )
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "model": type(model).__name__,
        "features": _features(model),
        "n_outputs": int(trees.n_outputs),
        "offset": np.asarray(trees.offset, np.float64).ravel().tolist(),
        "link": trees.link,
        "link_scale": float(trees.link_scale),
        "classes": None if trees.classes is None else [_plain(c) for c in trees.classes],
        "raw_method": trees.raw_method,
        "trees": [
            {
                "output": int(t.output),
                "features": None if t.features is None else np.asarray(t.features).tolist(),
                "nodes": _nodes(t),
            }
            for t in trees.trees
        ],
    }


def dump_json(model, path=None, indent=None):
    """:func:`dump_model` as JSON text; also written to ``path`` when given.

    Returns
    -------
    str
    """
    text = json.dumps(dump_model(model), indent=indent, allow_nan=False)
    if path is not None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return text
