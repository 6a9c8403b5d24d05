"""ONNX export: onnxruntime scores every family as treeboost predicts, NaN and
categorical splits, links and labels included, in float64 and float32."""

import warnings

import numpy as np
import pandas as pd
import pytest

import treeboost as tb

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from treeboost.export import graph_input, to_onnx  # noqa: E402


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.normal(size=n),
            "c": pd.Categorical(rng.choice(list("pqrstu"), n)),
        }
    )
    X.loc[::7, "a"] = np.nan
    X.loc[3::11, "c"] = np.nan
    score = X["a"].fillna(1.0) + X["c"].isin(["q", "t"]) - 0.3
    y2 = np.where(score > 0, "yes", "no")
    y3 = np.where(X["b"] > 0.6, 7, (score > 0).astype(int))
    yr = 2 * X["b"] + X["c"].isin(["r", "u"]) + rng.normal(scale=0.1, size=n)
    return X, y2, y3, yr


X, Y2, Y3, YR = _data()

FAMILIES = {
    "tree-clf": lambda: tb.DecisionTreeClassifier(max_depth=6).fit(X, Y3),
    "tree-reg": lambda: tb.DecisionTreeRegressor(max_depth=6).fit(X, YR),
    "extra-tree": lambda: tb.ExtraTreeClassifier(random_state=0).fit(X, Y2),
    "forest-clf": lambda: tb.RandomForestClassifier(n_estimators=8, random_state=0).fit(X, Y3),
    "forest-reg": lambda: tb.RandomForestRegressor(n_estimators=8, random_state=0).fit(X, YR),
    "extra-trees": lambda: tb.ExtraTreesRegressor(n_estimators=8, random_state=0).fit(X, YR),
    "bagging-subset": lambda: tb.BaggingClassifier(
        n_estimators=6, max_features=0.7, random_state=0
    ).fit(X, Y3),
    "bagging-reg": lambda: tb.BaggingRegressor(n_estimators=6, random_state=0).fit(X, YR),
    "adaboost-2": lambda: tb.AdaBoostClassifier(n_estimators=8, random_state=0).fit(X, Y2),
    "adaboost-3": lambda: tb.AdaBoostClassifier(n_estimators=8, random_state=0).fit(X, Y3),
    "gb-2": lambda: tb.GradientBoostingClassifier(n_estimators=10).fit(X, Y2),
    "gb-exponential": lambda: tb.GradientBoostingClassifier(
        n_estimators=10, loss="exponential"
    ).fit(X, Y2),
    "gb-3": lambda: tb.GradientBoostingClassifier(n_estimators=10).fit(X, Y3),
    "gb-reg": lambda: tb.GradientBoostingRegressor(n_estimators=10).fit(X, YR),
    "hgb-2": lambda: tb.HistGradientBoostingClassifier(max_iter=15).fit(X, Y2),
    "hgb-3": lambda: tb.HistGradientBoostingClassifier(max_iter=15).fit(X, Y3),
    "hgb-reg": lambda: tb.HistGradientBoostingRegressor(max_iter=15).fit(X, YR),
    "hgb-poisson": lambda: tb.HistGradientBoostingRegressor(max_iter=15, loss="poisson").fit(
        X, np.exp(YR / 3)
    ),
}


def _on_thresholds(model, X):
    """Rows of X whose numeric values are moved exactly onto the model's thresholds."""
    from treeboost.inspection._model_trees import model_trees

    rows = []
    for t in model_trees(model).trees[:5]:
        tree = t.tree
        inner = np.flatnonzero((tree.children_left >= 0) & ~tree.is_categorical)
        for node in inner[:4]:
            f = (
                int(tree.feature[node])
                if t.features is None
                else int(t.features[tree.feature[node]])
            )
            if f < 2 and np.isfinite(tree.threshold[node]):
                row = X.iloc[[len(rows) % len(X)]].copy()
                row.iloc[0, f] = tree.threshold[node]
                rows.append(row)
    return pd.concat([X] + rows, ignore_index=True)


def _session(onx):
    return ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])


def _check(model, onx, Xs, dtype, rtol):
    out = _session(onx).run(None, {"X": graph_input(model, Xs).astype(dtype)})
    if hasattr(model, "classes_"):
        np.testing.assert_array_equal(out[0], model.predict(Xs))
        np.testing.assert_allclose(out[1], model.predict_proba(Xs), rtol=rtol, atol=rtol)
    else:
        expected = np.asarray(model.predict(Xs)).reshape(len(Xs), -1)
        np.testing.assert_allclose(out[0], expected, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("family", FAMILIES)
def test_family_float64(family):
    model = FAMILIES[family]()
    Xs = _on_thresholds(model, X)
    _check(model, to_onnx(model), Xs, np.float64, 1e-6)


@pytest.mark.parametrize("family", ["forest-clf", "gb-3", "hgb-2", "hgb-reg", "bagging-subset"])
def test_family_float32(family):
    model = FAMILIES[family]()
    Xs = _on_thresholds(model, X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        onx = to_onnx(model, Xs, dtype=np.float32)
    _check(model, onx, Xs, np.float32, 1e-5)


def test_unseen_category_takes_the_missing_side():
    model = FAMILIES["hgb-2"]()
    Xs = X.copy()
    Xs["c"] = Xs["c"].cat.add_categories(["never"])
    Xs.loc[:20, "c"] = "never"
    _check(model, to_onnx(model), Xs, np.float64, 1e-6)


def test_float32_thresholds_keep_training_rows_on_their_side():
    """Two values one float32 step apart around a threshold whose nearest float32 is
    the upper value: the nearest float32 sends the upper rows left, the nudged keeps
    them right."""
    u = np.spacing(np.float32(1.0)).astype(np.float64)
    x = np.repeat([1.0 + 0.4 * u, 1.0 + 1.4 * u], 20)[:, None]
    y = np.repeat([0.0, 5.0], 20)
    model = tb.DecisionTreeRegressor(max_depth=1).fit(x, y)
    xin = x.astype(np.float32)
    naive = _session(to_onnx(model, dtype=np.float32)).run(None, {"X": xin})[0]
    nudged = _session(to_onnx(model, x, dtype=np.float32)).run(None, {"X": xin})[0]
    assert not np.allclose(naive[:, 0], y)  # the trap this guards against
    np.testing.assert_array_equal(nudged[:, 0], y)


def test_float32_warns_when_no_threshold_separates():
    x = np.repeat([1.0, 1.0 + 1e-12], 20)[:, None]
    model = tb.DecisionTreeRegressor(max_depth=1).fit(x, np.repeat([0.0, 1.0], 20))
    with pytest.warns(UserWarning, match="float32"):
        to_onnx(model, x, dtype=np.float32)


def test_bad_arguments():
    model = FAMILIES["tree-reg"]()
    with pytest.raises(ValueError, match="dtype"):
        to_onnx(model, dtype=np.int32)
    with pytest.raises(ValueError, match="n_features"):
        to_onnx(model, n_features=5)
    with pytest.raises(ValueError, match="median"):
        to_onnx(tb.AdaBoostRegressor(n_estimators=2).fit(X, YR))


def test_skl2onnx_alone_and_in_a_pipeline():
    skl2onnx = pytest.importorskip("skl2onnx")
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from treeboost.export import register_skl2onnx

    register_skl2onnx()
    for family in ("hgb-3", "forest-reg", "adaboost-2"):
        model = FAMILIES[family]()
        Xg = graph_input(model, X)
        for dtype in (np.float32, np.float64):
            options = {"zipmap": False} if hasattr(model, "classes_") else None
            onx = skl2onnx.to_onnx(model, Xg.astype(dtype), options=options)
            s = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
            out = s.run(None, {s.get_inputs()[0].name: Xg.astype(dtype)})
            if hasattr(model, "classes_"):
                np.testing.assert_array_equal(out[0], model.predict(X))
                np.testing.assert_allclose(out[1], model.predict_proba(X), rtol=1e-5, atol=1e-6)
            else:
                np.testing.assert_allclose(out[0][:, 0], model.predict(X), rtol=1e-5, atol=1e-5)
    Xn = np.nan_to_num(graph_input(model, X))
    pipe = Pipeline([("scale", StandardScaler()), ("m", tb.HistGradientBoostingClassifier())])
    pipe.fit(Xn, Y3)
    onx = skl2onnx.to_onnx(pipe, Xn.astype(np.float32))
    s = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    out = s.run(None, {s.get_inputs()[0].name: Xn.astype(np.float32)})
    np.testing.assert_array_equal(out[0], pipe.predict(Xn))
    proba = np.array([[p[c] for c in pipe.classes_] for p in out[1]])  # ZipMap's dicts
    np.testing.assert_allclose(proba, pipe.predict_proba(Xn), rtol=1e-5, atol=1e-6)
