"""ONNX export of every treeboost binary-tree model: :func:`to_onnx`, and the converters
that let ``skl2onnx.to_onnx`` take treeboost models (:func:`register_skl2onnx`).

The graph is one ``TreeEnsemble`` node of the ai.onnx.ml domain, opset 5 (set membership
for categorical splits, thresholds and leaf weights in the input's type: double for a
float64 input), then the model's offset, link and class labels as plain ONNX nodes::

    raw = TreeEnsemble(X) + offset
    probabilities = link(scale * raw)          # or the regressor's values
    label = classes[argmax(probabilities)]     # classifiers
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from ..inspection._model_trees import model_trees
from ._tree_ensemble import ensemble_arrays, float32_thresholds, graph_input, legacy_arrays

__all__ = ["to_onnx", "register_skl2onnx", "graph_input", "ML_OPSET", "ONNX_OPSET"]

#: the ai.onnx.ml opset of ``TreeEnsemble`` (onnxruntime runs it from 1.20 on)
ML_OPSET = 5
#: the ai.onnx.ml opset of ``TreeEnsembleRegressor`` in the skl2onnx converters (skl2onnx
#: writes ai.onnx.ml 3 at most)
LEGACY_ML_OPSET = 3
#: the default opset of the ai.onnx domain
ONNX_OPSET = 21


def _import_onnx():
    try:
        import onnx
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ImportError(
            "treeboost.export.to_onnx needs the onnx package: pip install onnx onnxruntime"
        ) from exc
    return onnx


class _Emitter(NamedTuple):
    """Where the graph's nodes go: ``node(op, inputs, outputs, domain, **attrs)``,
    ``constant(name_hint, array) -> name`` and ``name(hint) -> unique name``."""

    node: Callable
    constant: Callable
    name: Callable


def _tensor(onnx, name, array):
    from onnx import numpy_helper

    return numpy_helper.from_array(np.asarray(array), name)


def _ensemble_v5(onnx, arrays, splits, mt, dtype):
    """The op and attributes of ``TreeEnsemble`` (ai.onnx.ml 5)."""
    attrs = dict(
        aggregate_function=1,  # SUM
        n_targets=int(mt.n_outputs),
        post_transform=0,
        tree_roots=arrays.tree_roots,
        nodes_featureids=arrays.nodes_featureids.tolist(),
        nodes_modes=_tensor(onnx, "nodes_modes", arrays.nodes_modes),
        nodes_splits=_tensor(onnx, "nodes_splits", splits.astype(dtype)),
        nodes_truenodeids=arrays.nodes_truenodeids.tolist(),
        nodes_trueleafs=arrays.nodes_trueleafs.tolist(),
        nodes_falsenodeids=arrays.nodes_falsenodeids.tolist(),
        nodes_falseleafs=arrays.nodes_falseleafs.tolist(),
        nodes_missing_value_tracks_true=arrays.nodes_missing_value_tracks_true.tolist(),
        leaf_targetids=arrays.leaf_targetids.tolist(),
        leaf_weights=_tensor(onnx, "leaf_weights", arrays.leaf_weights.astype(dtype)),
    )
    if arrays.membership_values.size:
        attrs["membership_values"] = _tensor(
            onnx, "membership_values", arrays.membership_values.astype(dtype)
        )
    return "TreeEnsemble", attrs


def _ensemble_v3(onnx, arrays, splits, mt, dtype):
    """The op and attributes of the older ``TreeEnsembleRegressor`` (ai.onnx.ml 3,
    what skl2onnx writes): thresholds and weights as tensors of the input's type."""
    legacy = legacy_arrays(arrays, splits)
    attrs = {
        name: getattr(legacy, name)
        for name in legacy._fields
        if name not in ("nodes_values", "target_weights")
    }
    attrs["nodes_modes"] = list(legacy.nodes_modes)
    attrs.update(n_targets=int(mt.n_outputs), aggregate_function="SUM", post_transform="NONE")
    if dtype == np.float64:
        attrs.update(
            nodes_values_as_tensor=_tensor(onnx, "v", legacy.nodes_values),
            target_weights_as_tensor=_tensor(onnx, "w", legacy.target_weights),
        )
    else:  # the plain float attributes, as skl2onnx writes (and hummingbird reads) them
        attrs.update(
            nodes_values=legacy.nodes_values.astype(np.float32).tolist(),
            target_weights=legacy.target_weights.astype(np.float32).tolist(),
        )
    return "TreeEnsembleRegressor", attrs


def _emit(model, emit, x, outputs, dtype, X=None, legacy=False):
    """The nodes from the input ``x`` to ``outputs`` (``[label, probabilities]`` of a
    classifier, ``[values]`` of a regressor), the trees' numbers in ``dtype``;
    ``legacy``: the trees as ``TreeEnsembleRegressor`` of ai.onnx.ml 3."""
    onnx = _import_onnx()
    mt = model_trees(model)
    arrays = ensemble_arrays(model, mt)
    splits = (
        arrays.nodes_splits.astype(np.float64)
        if dtype == np.float64
        else float32_thresholds(arrays, X)
    )
    op, attrs = (_ensemble_v3 if legacy else _ensemble_v5)(onnx, arrays, splits, mt, dtype)
    classifier = mt.classes is not None
    raw = emit.name("raw") if (mt.offset.any() or classifier or mt.link != "identity") else None
    target = raw or outputs[-1]
    if legacy and dtype == np.float64:
        # the older operator gives float32 whatever its input: back to the graph's type
        summed = emit.name("summed")
        emit.node(op, [x], [summed], "ai.onnx.ml", **attrs)
        emit.node("Cast", [summed], [target], "", to=onnx.TensorProto.DOUBLE)
    else:
        emit.node(op, [x], [target], "ai.onnx.ml", **attrs)
    if raw is None:
        return
    if mt.offset.any():
        shifted = emit.name("shifted") if (classifier or mt.link != "identity") else outputs[-1]
        offset = emit.constant("offset", mt.offset.reshape(1, -1).astype(dtype))
        emit.node("Add", [raw, offset], [shifted], "")
        raw = shifted
    _emit_link(mt, emit, raw, outputs[-1], dtype)
    if classifier:
        _emit_label(mt.classes, emit, outputs[-1], outputs[0])


def _emit_link(mt, emit, raw, out, dtype):
    """``out = link(scale * raw)``."""
    if mt.link == "identity":
        if raw != out:
            emit.node("Identity", [raw], [out], "")
        return
    if mt.link_scale != 1.0:
        scaled = emit.name("scaled")
        emit.node(
            "Mul", [raw, emit.constant("scale", np.array(mt.link_scale, dtype))], [scaled], ""
        )
        raw = scaled
    if mt.link == "exp":
        emit.node("Exp", [raw], [out], "")
    elif mt.link == "softmax":
        emit.node("Softmax", [raw], [out], "", axis=1)
    else:  # sigmoid: [1 - p, p]
        p1, p0 = emit.name("p1"), emit.name("p0")
        emit.node("Sigmoid", [raw], [p1], "")
        emit.node("Sub", [emit.constant("one", np.array(1.0, dtype)), p1], [p0], "")
        emit.node("Concat", [p0, p1], [out], "", axis=1)


def _emit_label(classes, emit, proba, label):
    """``label = classes[argmax(proba)]``: the first largest, as ``np.argmax``."""
    index = emit.name("class_index")
    emit.node("ArgMax", [proba], [index], "", axis=1, keepdims=0, select_last_index=0)
    emit.node("Gather", [emit.constant("classes", _label_array(classes)), index], [label], "")


def _label_array(classes):
    classes = np.asarray(classes)
    if classes.dtype.kind in "iub":
        return classes.astype(np.int64)
    return classes.astype(str).astype(object)


def _label_elem(onnx, classes):
    kind = np.asarray(classes).dtype.kind
    return onnx.TensorProto.INT64 if kind in "iub" else onnx.TensorProto.STRING


def to_onnx(model, X=None, *, n_features=None, dtype=np.float64, graph_name="treeboost"):
    """An ONNX graph of a fitted treeboost tree model, scored by onnxruntime.

    The graph reads one tensor ``X`` of shape (n_samples, n_features) in ``dtype``: the
    model's encoded input (:func:`graph_input`: numeric columns as they are, a
    categorical column as its category code, NaN for a missing value).  It gives, for a
    classifier, ``label`` (the class labels, int64 or string) and ``probabilities``
    (n_samples, n_classes) as ``predict`` and ``predict_proba``; for a regressor,
    ``variable`` (n_samples, n_outputs) as ``predict``.

    Parameters
    ----------
    model : fitted treeboost estimator
        Any model :func:`~treeboost.inspection._model_trees.model_trees` takes: trees,
        forests, Extra-Trees, bagging and AdaBoostClassifier of CART trees, gradient
        boosting and histogram gradient boosting.
    X : array-like or DataFrame, optional
        Rows as ``predict`` takes them (the training rows, typically): with
        ``dtype=np.float32``, each numeric threshold becomes the float32 that keeps
        every row of ``X`` on its side (a warning names the splits no float32 keeps).
    n_features : int, optional
        Ignored unless given: then it must equal ``model.n_features_in_``.
    dtype : np.float64 or np.float32, default=np.float64
        The input's, thresholds' and leaf values' type.  float64 gives treeboost's
        splits exactly.

    Returns
    -------
    onnx.ModelProto
    """
    onnx = _import_onnx()
    from onnx import helper

    dtype = np.dtype(dtype).type
    if dtype not in (np.float64, np.float32):
        raise ValueError(f"dtype must be np.float64 or np.float32, got {dtype!r}.")
    p = int(model.n_features_in_) if hasattr(model, "n_features_in_") else None
    if n_features is not None and n_features != p:
        raise ValueError(f"n_features={n_features!r} but the model has {p} features.")
    Xg = None if X is None else graph_input(model, X)
    nodes, inits, names = [], [], set()

    def unique(hint):
        i = 0
        while f"{hint}{i or ''}" in names:
            i += 1
        names.add(f"{hint}{i or ''}")
        return f"{hint}{i or ''}"

    def constant(hint, array):
        n = unique(hint)
        inits.append(_tensor(onnx, n, array))
        return n

    def node(op, inputs, outputs, domain, **attrs):
        nodes.append(helper.make_node(op, inputs, outputs, name=unique(op), domain=domain, **attrs))

    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    classifier = model_trees(model).classes is not None
    outputs = ["label", "probabilities"] if classifier else ["variable"]
    names.update(["X", *outputs])
    _emit(model, _Emitter(node, constant, unique), "X", outputs, dtype, Xg)
    mt = model_trees(model)
    n_out = len(mt.classes) if classifier else mt.n_outputs
    out_info = [helper.make_tensor_value_info(outputs[-1], elem, [None, n_out])]
    if classifier:
        out_info.insert(
            0, helper.make_tensor_value_info("label", _label_elem(onnx, mt.classes), [None])
        )
    graph = helper.make_graph(
        nodes, graph_name, [helper.make_tensor_value_info("X", elem, [None, p])], out_info, inits
    )
    return helper.make_model(
        graph,
        opset_imports=[
            helper.make_opsetid("", ONNX_OPSET),
            helper.make_opsetid("ai.onnx.ml", ML_OPSET),
        ],
        producer_name="treeboost",
    )


def _model_classes():
    """The treeboost estimators :func:`to_onnx` exports, classifiers and regressors."""
    import treeboost

    names = [
        "DecisionTree",
        "ExtraTree",
        "RandomForest",
        "ExtraTrees",
        "Bagging",
        "GradientBoosting",
        "HistGradientBoosting",
    ]
    found = [getattr(treeboost, n + kind) for n in names for kind in ("Classifier", "Regressor")]
    return found + [treeboost.AdaBoostClassifier]


def _skl2onnx_dtype(var):
    from skl2onnx.common.data_types import DoubleTensorType

    return np.float64 if isinstance(var.type, DoubleTensorType) else np.float32


def _shape_calculator(operator):
    from skl2onnx.common.data_types import Int64TensorType, StringTensorType

    model = operator.raw_operator
    x = operator.inputs[0]
    n = x.get_first_dimension()
    mt = model_trees(model)
    value_type = type(x.type)
    if mt.classes is not None:
        kind = np.asarray(mt.classes).dtype.kind
        operator.outputs[0].type = (Int64TensorType if kind in "iub" else StringTensorType)([n])
        operator.outputs[1].type = value_type([n, len(mt.classes)])
    else:
        operator.outputs[0].type = value_type([n, int(mt.n_outputs)])


def _converter(scope, operator, container):
    """skl2onnx's converter: the nodes of :func:`to_onnx` in skl2onnx's container."""
    onnx = _import_onnx()
    model = operator.raw_operator
    dtype = _skl2onnx_dtype(operator.inputs[0])

    def constant(hint, array):
        n = scope.get_unique_variable_name(hint)
        array = np.asarray(array)
        if array.dtype == object:
            values = [str(v).encode("utf-8") for v in array.ravel()]
            container.add_initializer(n, onnx.TensorProto.STRING, list(array.shape), values)
        else:
            tensor = _tensor(onnx, n, array)
            container.add_initializer(
                n, tensor.data_type, list(array.shape), array.ravel().tolist()
            )
        return n

    def node(op, inputs, outputs, domain, **attrs):
        extra = {"op_domain": domain, "op_version": LEGACY_ML_OPSET} if domain else {}
        container.add_node(
            op, inputs, outputs, name=scope.get_unique_operator_name(op), **extra, **attrs
        )

    emit = _Emitter(node, constant, scope.get_unique_variable_name)
    outputs = [o.full_name for o in operator.outputs]
    _emit(model, emit, operator.inputs[0].full_name, outputs, dtype, legacy=True)


def register_skl2onnx():
    """Register treeboost's converters with skl2onnx: afterwards ``skl2onnx.to_onnx(model,
    X)`` converts a treeboost tree model, alone or as a step of a scikit-learn Pipeline
    (X: the float32 or float64 matrix of :func:`graph_input`; its type is the graph's).

    Classifiers take skl2onnx's ``zipmap`` option (``{id(model): {"zipmap": False}}``
    gives the probabilities as a tensor; ZipMap reads float32 only).  The float32
    thresholds are the nearest float32 of treeboost's: for splits that keep every
    training row on its side in float32, use :func:`to_onnx` with the training rows.
    """
    try:
        from skl2onnx import update_registered_converter
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ImportError("register_skl2onnx needs skl2onnx: pip install skl2onnx") from exc
    from sklearn.base import is_classifier

    for cls in _model_classes():
        classifier = is_classifier(cls())
        update_registered_converter(
            cls,
            f"Treeboost{cls.__name__}",
            _shape_calculator,
            _converter,
            options={"zipmap": [True, False, "columns"], "nocl": [True, False]}
            if classifier
            else None,
        )
