"""treelite export: treelite.gtil.predict and a tl2cgen-compiled library give treeboost's
predictions, numeric and categorical splits and NaN included."""

import numpy as np
import pytest

treelite = pytest.importorskip("treelite")

from tests.export.test_onnx import FAMILIES, X, _on_thresholds  # noqa: E402
from treeboost.export import graph_input, to_treelite  # noqa: E402


def _expected(model, Xs):
    if hasattr(model, "classes_"):
        proba = model.predict_proba(Xs)
        return proba[:, 1:] if proba.shape[1] == 2 else proba
    return np.asarray(model.predict(Xs)).reshape(len(Xs), -1)


@pytest.mark.parametrize(
    "family",
    [
        "tree-clf",
        "tree-reg",
        "forest-clf",
        "extra-trees",
        "bagging-subset",
        "adaboost-2",
        "adaboost-3",
        "gb-2",
        "gb-exponential",
        "gb-3",
        "gb-reg",
        "hgb-3",
        "hgb-poisson",
    ],
)
def test_gtil_predicts_as_treeboost(family):
    model = FAMILIES[family]()
    Xs = _on_thresholds(model, X)
    out = treelite.gtil.predict(to_treelite(model), graph_input(model, Xs))
    np.testing.assert_allclose(out.reshape(len(Xs), -1), _expected(model, Xs), rtol=1e-6, atol=1e-7)


def test_tl2cgen_compiles_it(tmp_path):
    tl2cgen = pytest.importorskip("tl2cgen")
    model = FAMILIES["gb-3"]()
    lib = tmp_path / "model.so"
    tl2cgen.export_lib(to_treelite(model), toolchain="gcc", libpath=str(lib), params={})
    predictor = tl2cgen.Predictor(str(lib))
    out = predictor.predict(tl2cgen.DMatrix(graph_input(model, X)))
    np.testing.assert_allclose(out.reshape(len(X), -1), _expected(model, X), rtol=1e-5, atol=1e-6)
