"""treeboost.export.to_lightgbm: LightGBM's own Booster, reading the text model,
predicts as treeboost (raw scores and probabilities), NaN on either side included."""

import numpy as np
import pytest

import treeboost as tb
from treeboost.export import graph_input, to_lightgbm

lightgbm = pytest.importorskip("lightgbm")


def _data(seed, n=1500, p=5, nan=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X[rng.random(X.shape) < nan] = np.nan
    signal = np.nan_to_num(X[:, 0], nan=1.5) - np.nan_to_num(X[:, 1], nan=-1.0)
    return X, signal, rng


def _booster(model):
    return lightgbm.Booster(model_str=to_lightgbm(model))


MODELS = {
    "hgb_binary": lambda: tb.HistGradientBoostingClassifier(max_iter=25, random_state=0),
    "hgb_regressor": lambda: tb.HistGradientBoostingRegressor(max_iter=25, random_state=0),
    "hgb_absolute": lambda: tb.HistGradientBoostingRegressor(
        loss="absolute_error", max_iter=10, random_state=0
    ),
    "gb_binary": lambda: tb.GradientBoostingClassifier(n_estimators=10, random_state=0),
    "gb_regressor": lambda: tb.GradientBoostingRegressor(n_estimators=10, random_state=0),
}


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_lightgbm_predicts_as_treeboost(name, seed):
    X, signal, rng = _data(seed)
    classifier = "binary" in name
    y = (signal + rng.normal(size=signal.shape) > 0).astype(int) if classifier else signal
    model = MODELS[name]().fit(X, y)
    booster = _booster(model)
    Xg = graph_input(model, X)
    if classifier:
        np.testing.assert_allclose(
            booster.predict(Xg, raw_score=True), model.decision_function(X), rtol=0, atol=1e-12
        )
        np.testing.assert_allclose(
            booster.predict(Xg), model.predict_proba(X)[:, 1], rtol=0, atol=1e-12
        )
    else:
        np.testing.assert_allclose(booster.predict(Xg), model.predict(X), rtol=0, atol=1e-9)
    # the NaN rows took the learned sides (not LightGBM's "NaN as 0.0")
    nan_rows = np.isnan(Xg).any(axis=1)
    assert nan_rows.sum() > 100


def test_trees_without_a_split():
    X, signal, _ = _data(0, n=200)
    model = tb.HistGradientBoostingRegressor(max_iter=3, min_samples_leaf=200).fit(X, signal)
    assert all(t[0].node_count == 1 for t in model.trees_)
    np.testing.assert_allclose(
        _booster(model).predict(graph_input(model, X)), model.predict(X), rtol=0, atol=1e-12
    )


def test_refused_models():
    X, signal, rng = _data(0, n=300)
    y3 = np.digitize(signal, [-0.5, 0.5])
    with pytest.raises(ValueError, match="one raw output"):
        to_lightgbm(tb.HistGradientBoostingClassifier(max_iter=2).fit(X, y3))
    with pytest.raises(ValueError, match="link"):
        to_lightgbm(
            tb.HistGradientBoostingRegressor(loss="poisson", max_iter=2).fit(X, np.exp(signal))
        )
    with pytest.raises(TypeError, match="gradient-boosting"):
        to_lightgbm(tb.RandomForestRegressor(n_estimators=2).fit(X, signal))
    import pandas as pd

    frame = pd.DataFrame({"a": X[:, 0], "c": pd.Categorical(rng.choice(list("uvw"), 300))})
    yc = (frame["c"] == "u").to_numpy().astype(int)
    model = tb.HistGradientBoostingClassifier(max_iter=3).fit(frame, yc)
    with pytest.raises(ValueError, match="categorical split"):
        to_lightgbm(model)


@pytest.mark.parametrize(
    "make, boosting",
    [
        (lambda: tb.DecisionTreeRegressor(max_depth=3), False),
        (lambda: tb.RandomForestRegressor(n_estimators=2, random_state=0), False),
        (lambda: tb.ExtraTreesRegressor(n_estimators=2, random_state=0), False),
        (lambda: tb.BaggingRegressor(n_estimators=2, random_state=0), False),
        (lambda: tb.GradientBoostingRegressor(n_estimators=2), True),
        (lambda: tb.HistGradientBoostingRegressor(max_iter=2), True),
    ],
)
def test_model_trees_says_which_models_boost(make, boosting):
    """The decomposition's ``boosting`` field is what to_lightgbm takes a model by."""
    from treeboost.inspection._model_trees import model_trees

    X, signal, _ = _data(0, n=300)
    model = make().fit(X, signal)
    assert model_trees(model).boosting is boosting
    if not boosting:
        with pytest.raises(TypeError, match="gradient-boosting"):
            to_lightgbm(model)
