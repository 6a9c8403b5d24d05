"""Partial dependence by recursion equals brute force on the training grid."""

import numpy as np
import pytest

import treeboost as tb
from treeboost.inspection import partial_dependence

pd = pytest.importorskip("pandas")


def _data(seed=0):
    """Every combination of the features' values once: within any node the features
    stay independent, where recursion and brute force are the same average (on other
    data the recursion assumes that independence, and the two differ)."""
    rng = np.random.default_rng(seed)
    a, b, c = np.meshgrid(np.linspace(-1, 1, 6), np.arange(5.0), np.arange(4), indexing="ij")
    X = pd.DataFrame(
        {
            "a": a.ravel(),
            "b": b.ravel(),
            "c": pd.Categorical(np.array(list("xyzw"))[c.ravel()]),
        }
    )
    y = X["a"] * X["b"] + (X["c"] == "x").to_numpy() * 2 + rng.normal(size=len(X)) * 0.1
    return X, y.to_numpy()


def _brute(model, X, targets, grids, method):
    Xe = np.asarray(model._encode_X(X, reset=False), np.float64)
    mesh = np.meshgrid(*grids, indexing="ij")
    out = []
    for point in zip(*(m.ravel() for m in mesh)):
        Z = X.copy()
        for f, v in zip(targets, point):
            col = X.columns[f]
            if isinstance(X[col].dtype, pd.CategoricalDtype):
                Z[col] = pd.Categorical(
                    [model._encoder.categories_[f][int(v)]] * len(X),
                    categories=X[col].cat.categories,
                )
            else:
                Z[col] = v
        out.append(np.mean(getattr(model, method)(Z), axis=0))
    assert Xe.shape[0] == len(X)
    return np.asarray(out)


MODELS = [
    (lambda: tb.DecisionTreeRegressor(max_depth=6), "predict"),
    (lambda: tb.GradientBoostingRegressor(n_estimators=10), "predict"),
    (lambda: tb.HistGradientBoostingRegressor(max_iter=10), "predict"),
]


@pytest.mark.parametrize("make,method", MODELS)
@pytest.mark.parametrize("features", [["a"], ["c"], ["a", "c"], [1]])
def test_recursion_equals_brute_force_on_training_grid(make, method, features):
    X, y = _data()
    model = make().fit(X, y)
    pdp = partial_dependence(model, X, features)
    targets = [list(X.columns).index(f) if isinstance(f, str) else f for f in features]
    brute = _brute(model, X, targets, pdp.grid_values, method)
    np.testing.assert_allclose(pdp.average[0].ravel(), np.ravel(brute), rtol=1e-10, atol=1e-10)


def test_classifier_tree_gives_every_class():
    X, y = _data()
    model = tb.DecisionTreeClassifier(max_depth=4).fit(X, (y > 1).astype(int))
    pdp = partial_dependence(model, X, "b")
    brute = _brute(model, X, [1], pdp.grid_values, "predict_proba")
    np.testing.assert_allclose(pdp.average.T, brute, atol=1e-12)


def test_bad_feature_is_named():
    X, y = _data()
    model = tb.DecisionTreeRegressor().fit(X, y)
    with pytest.raises(ValueError, match="'nope'"):
        partial_dependence(model, X, "nope")
    with pytest.raises(ValueError, match="7"):
        partial_dependence(model, X, [7])
