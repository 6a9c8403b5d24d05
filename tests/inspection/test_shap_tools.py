"""shap's TreeExplainer on treeboost's trees, and treeboost's SHAP values as a
shap.Explanation drawn by shap's plots."""

import numpy as np
import pytest

import treeboost as tb
from treeboost.inspection import shap_values
from treeboost.inspection.shap_tools import shap_explainer, shap_explanation

shap = pytest.importorskip("shap")
pd = pytest.importorskip("pandas")


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "a": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
            "b": rng.normal(size=n),
            "c": pd.Categorical(rng.choice(list("xyzw"), n)),
        }
    )
    y = ((X["b"] > 0) ^ X["c"].isin(["x", "z"])).to_numpy().astype(int)
    y3 = y + (X["a"] > 0.5).to_numpy()
    return X, y, y3


MODELS = [
    (lambda: tb.HistGradientBoostingClassifier(max_iter=10), "y"),
    (lambda: tb.HistGradientBoostingClassifier(max_iter=5), "y3"),
    (lambda: tb.HistGradientBoostingRegressor(max_iter=5, loss="poisson"), "y3"),
    (lambda: tb.GradientBoostingClassifier(n_estimators=5), "y3"),
    (lambda: tb.RandomForestClassifier(n_estimators=4, random_state=0), "y"),
    (lambda: tb.ExtraTreesRegressor(n_estimators=4, random_state=0), "y3"),
    (lambda: tb.DecisionTreeRegressor(), "y3"),
    (lambda: tb.AdaBoostClassifier(n_estimators=4), "y3"),
]


@pytest.mark.parametrize("make,target", MODELS)
def test_shap_explainer_equals_treeboost(make, target):
    X, y, y3 = _data()
    model = make().fit(X, {"y": y, "y3": y3}[target])
    explainer = shap_explainer(model)
    values = np.asarray(explainer.shap_values(X))
    ours, expected = shap_values(model, X)
    np.testing.assert_allclose(values, ours, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.ravel(explainer.expected_value), np.ravel(expected))
    explanation = explainer(X)
    assert explanation.feature_names == ["a", "b", "c"]
    np.testing.assert_allclose(explanation.values, ours, atol=1e-12)


def test_wide_categories_are_refused_with_the_alternative():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"c": pd.Categorical(rng.integers(0, 40, 300))})
    model = tb.DecisionTreeRegressor().fit(X, rng.normal(size=300))
    with pytest.raises(ValueError, match="shap_explanation"):
        shap_explainer(model)
    assert shap_explanation(model, X).values.shape == (300, 1)


def test_explanation_is_drawn_by_shap_plots():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y, _ = _data()
    model = tb.HistGradientBoostingClassifier(max_iter=10).fit(X, y)
    ex = shap_explanation(model, X)
    ours, expected = shap_values(model, X)
    np.testing.assert_array_equal(ex.values, ours)
    np.testing.assert_array_equal(ex.base_values, np.full(len(X), expected))
    assert ex.feature_names == ["a", "b", "c"]
    for draw in (
        lambda: shap.plots.waterfall(ex[0], show=False),
        lambda: shap.plots.beeswarm(ex, show=False),
        lambda: shap.plots.bar(ex, show=False),
        lambda: shap.plots.scatter(ex[:, "b"], show=False),
        lambda: shap.plots.heatmap(ex[:50], show=False),
    ):
        draw()
        assert plt.gcf().axes
        plt.close("all")
