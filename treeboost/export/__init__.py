"""Treeboost models in the formats other tools read.

* :func:`to_onnx`: an ONNX graph (``TreeEnsemble``, ai.onnx.ml 5) that onnxruntime
  scores; :func:`register_skl2onnx` lets ``skl2onnx.to_onnx`` take treeboost models,
  alone or in a Pipeline; :func:`graph_input` is the matrix the graphs read.
* :func:`to_treelite`: a treelite model (``treelite.gtil.predict``, ``tl2cgen``).
* :func:`to_lightgbm`: a LightGBM text model (``lightgbm.Booster(model_str=...)``) of
  gradient boosting with one raw output and numeric splits.

Each name is imported on first use: onnx, skl2onnx and treelite are optional (the
LightGBM text model needs no library to be written).
"""

from .._lazy import lazy_names

#: each public name -> the module (of this package) that defines it
_HOMES = {
    "to_onnx": "onnx",
    "register_skl2onnx": "onnx",
    "graph_input": "_tree_ensemble",
    "to_treelite": "treelite",
    "to_lightgbm": "lightgbm",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
