"""The JSON dump of a model's trees, read back by a pure-numpy walk of its schema."""

import json

import numpy as np
import pytest

import treeboost as tb
from treeboost.inspection.json_dump import SCHEMA_VERSION, dump_json, dump_model

pd = pytest.importorskip("pandas")


def _encode(doc, X):
    """X (a DataFrame) as the schema says: category positions, missing as NaN."""
    out = np.empty((len(X), len(doc["features"])))
    for f, feat in enumerate(doc["features"]):
        col = X.iloc[:, f]
        if feat["kind"] == "categorical":
            pos = {c: i for i, c in enumerate(feat["categories"])}
            out[:, f] = [pos.get(v, np.nan) for v in col.astype(object)]
        else:
            out[:, f] = col.to_numpy(np.float64, na_value=np.nan)
    return out


def _walk(doc, X):
    Z = _encode(doc, X)
    n = Z.shape[0]
    raw = np.tile(np.asarray(doc["offset"]), (n, 1))
    rows = np.arange(n)
    for tree in doc["trees"]:
        nodes = {nd["id"]: nd for nd in tree["nodes"]}
        at = np.zeros(n, int)
        while True:
            inner = np.array([not nodes[i].get("leaf", False) for i in at])
            if not inner.any():
                break
            for r in rows[inner]:
                nd = nodes[at[r]]
                f = nd["feature"] if tree["features"] is None else tree["features"][nd["feature"]]
                x = Z[r, f]
                if np.isnan(x):
                    go_left = nd["missing_left"]
                elif "threshold" in nd:
                    go_left = x <= nd["threshold"]
                else:
                    go_left = int(x) in nd["categories_left"]
                at[r] = nd["left"] if go_left else nd["right"]
        for r in rows:
            v = nodes[at[r]]["value"]
            raw[r, tree["output"] : tree["output"] + len(v)] += v
    s = doc["link_scale"] * raw
    link = doc["link"]
    if link == "sigmoid":
        p = 1 / (1 + np.exp(-s[:, 0]))
        return np.column_stack([1 - p, p])
    if link == "softmax":
        e = np.exp(s - s.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    out = np.exp(s) if link == "exp" else s
    return out[:, 0] if doc["classes"] is None and doc["n_outputs"] == 1 else out


def _data(n=150, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "a": np.where(rng.random(n) < 0.15, np.nan, rng.normal(size=n)),
            "b": rng.normal(size=n).round(1),
            "c": pd.Categorical(rng.choice(list("xyzw"), n)),
            "d": np.where(rng.random(n) < 0.1, None, rng.choice(["p", "q", "r"], n)),
        }
    )
    y = ((X["b"] > 0) ^ X["c"].isin(["x", "z"])).to_numpy().astype(int)
    y3 = y + (X["a"] > 0.5).to_numpy()
    return X, y, y3


MODELS = [
    (lambda: tb.HistGradientBoostingClassifier(max_iter=8), "y", "predict_proba"),
    (lambda: tb.HistGradientBoostingClassifier(max_iter=4), "y3", "predict_proba"),
    (lambda: tb.HistGradientBoostingRegressor(max_iter=5, loss="poisson"), "y3", "predict"),
    (lambda: tb.GradientBoostingClassifier(n_estimators=4), "y3", "predict_proba"),
    (lambda: tb.GradientBoostingRegressor(n_estimators=4), "y3", "predict"),
    (lambda: tb.RandomForestClassifier(n_estimators=3, random_state=0), "y3", "predict_proba"),
    (lambda: tb.ExtraTreesRegressor(n_estimators=3, random_state=0), "y3", "predict"),
    (lambda: tb.DecisionTreeClassifier(), "y", "predict_proba"),
    (lambda: tb.AdaBoostClassifier(n_estimators=3), "y3", "predict_proba"),
]


@pytest.mark.parametrize("make,target,method", MODELS)
def test_numpy_walk_of_the_json_reproduces_predict(make, target, method):
    X, y, y3 = _data()
    model = make().fit(X, {"y": y, "y3": y3}[target])
    doc = json.loads(dump_json(model))
    assert doc["schema_version"] == SCHEMA_VERSION and doc["format"] == "treeboost-trees"
    # rows never seen: an unseen category and an all-missing row
    Xt = pd.concat([X, X.iloc[:2].assign(c=pd.NA, a=np.nan, d="unseen")], ignore_index=True)
    Xt["c"] = Xt["c"].astype(X["c"].dtype)
    np.testing.assert_allclose(_walk(doc, Xt), getattr(model, method)(Xt), rtol=1e-12, atol=1e-12)


def test_dump_names_features_categories_and_classes(tmp_path):
    X, y, _ = _data()
    model = tb.DecisionTreeClassifier(max_depth=3).fit(X, np.where(y, "yes", "no"))
    path = tmp_path / "trees.json"
    dump_json(model, path, indent=1)
    doc = json.loads(path.read_text())
    assert doc == dump_model(model)
    kinds = [f["kind"] for f in doc["features"]]
    assert kinds == ["numeric", "numeric", "categorical", "categorical"]
    assert doc["features"][2]["categories"] == ["w", "x", "y", "z"]
    assert doc["classes"] == ["no", "yes"]


def test_not_a_sum_of_trees_is_refused():
    X, _, y3 = _data()
    with pytest.raises((TypeError, ValueError)):
        dump_model(tb.AdaBoostRegressor(n_estimators=2).fit(X, y3.astype(float)))
