"""skops files of every family loaded with treeboost's trusted-type list, and the mlflow
recipe (mlflow's default skops format) that rests on it."""

import numpy as np
import pytest

import treeboost as tb
from treeboost.persistence import skops_trusted_types

sio = pytest.importorskip("skops.io")
pd = pytest.importorskip("pandas")


def _data(n=160, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "a": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
            "b": rng.normal(size=n),
            "c": pd.Categorical(rng.choice(list("xyz"), n)),
        }
    )
    y2 = (X["b"] > 0).to_numpy().astype(int)
    y3 = np.digitize(X["b"], [-0.5, 0.5])
    yr = 2 * X["b"].to_numpy() + (X["c"] == "x").to_numpy()
    return X, y2, y3, yr


FAMILIES = [
    (tb.DecisionTreeClassifier, {}, "y3"),
    (tb.DecisionTreeRegressor, {}, "yr"),
    (tb.ExtraTreeClassifier, {}, "y2"),
    (tb.RandomForestClassifier, {"n_estimators": 3}, "y3"),
    (tb.RandomForestRegressor, {"n_estimators": 3}, "yr"),
    (tb.ExtraTreesRegressor, {"n_estimators": 3}, "yr"),
    (tb.BaggingClassifier, {"n_estimators": 3}, "y2"),
    (tb.AdaBoostClassifier, {"n_estimators": 3}, "y3"),
    (tb.AdaBoostRegressor, {"n_estimators": 3}, "yr"),
    (tb.GradientBoostingClassifier, {"n_estimators": 3}, "y3"),
    (tb.GradientBoostingRegressor, {"n_estimators": 3, "loss": "huber"}, "yr"),
    (tb.HistGradientBoostingClassifier, {"max_iter": 3}, "y2"),
    (tb.HistGradientBoostingRegressor, {"max_iter": 3, "loss": "poisson"}, "yr"),
    (tb.C45Classifier, {}, "y3"),
]


def _fitted(cls, params, target):
    X, y2, y3, yr = _data()
    y = {"y2": y2, "y3": y3, "yr": yr}[target]
    if target == "yr" and params.get("loss") == "poisson":
        y = np.exp(y / 4)
    return cls(**params).fit(X, y), X


@pytest.mark.parametrize("cls,params,target", FAMILIES, ids=lambda v: getattr(v, "__name__", ""))
def test_skops_round_trip_with_the_trusted_list(cls, params, target):
    model, X = _fitted(cls, params, target)
    blob = sio.dumps(model)
    assert set(sio.get_untrusted_types(data=blob)) <= set(skops_trusted_types())
    back = sio.loads(blob, trusted=skops_trusted_types())
    method = "predict_proba" if hasattr(model, "predict_proba") else "predict"
    np.testing.assert_array_equal(getattr(back, method)(X), getattr(model, method)(X))


def test_trusted_list_is_needed_and_names_only_treeboost_and_numpy():
    model, _ = _fitted(tb.HistGradientBoostingClassifier, {"max_iter": 2}, "y2")
    with pytest.raises(Exception, match="[Uu]ntrusted"):
        sio.loads(sio.dumps(model))
    assert all(n.startswith(("treeboost.", "numpy.")) for n in skops_trusted_types())


def test_mlflow_recipe(tmp_path):
    mlflow_sklearn = pytest.importorskip("mlflow.sklearn")
    import mlflow.pyfunc

    model, X = _fitted(tb.HistGradientBoostingClassifier, {"max_iter": 3}, "y2")
    path = str(tmp_path / "model")
    # mlflow's default serialization format is skops: it refuses untrusted types
    with pytest.raises(Exception, match="untrusted"):
        mlflow_sklearn.save_model(model, str(tmp_path / "refused"))
    mlflow_sklearn.save_model(model, path, skops_trusted_types=skops_trusted_types())
    back = mlflow_sklearn.load_model(path)
    np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X))
    served = mlflow.pyfunc.load_model(path)
    np.testing.assert_array_equal(np.asarray(served.predict(X)), model.predict(X))
