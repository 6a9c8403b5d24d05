"""Model files of gradient boosting written before it took scikit-learn's parameters
(an ``early_stopping`` flag; no ``min_samples_split``, ``min_weight_fraction_leaf``,
``min_impurity_decrease``, ``init``; ``train_score_`` at half scikit-learn's scale for
squared error and the binary log-loss) load with the values they were fitted with."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression

import treeboost
from tests._model_files import read_parts, write_parts

#: the former defaults, which former files store explicitly
FORMER = dict(
    max_depth=None, max_leaf_nodes=31, min_samples_leaf=20, split_gain="hessian", tol=1e-7
)
NEW = (
    "min_samples_split",
    "min_weight_fraction_leaf",
    "min_impurity_decrease",
    "init",
    "criterion",
)


def _as_former_file(path, early_stopping):
    """Rewrite a saved booster into the former layout."""
    doc, arrays = read_parts(path)
    state = doc["model"]["state"]
    for name in NEW:
        del state[name]
    state["early_stopping"] = early_stopping
    state["n_iter_no_change"] = 10
    for name in ("train_score_", "validation_score_"):
        key = state[name]["__array__"]
        arrays[key] = arrays[key] / 2.0
    write_parts(path, doc, arrays)


@pytest.mark.parametrize("early_stopping", [False, True])
@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_a_former_file_loads_and_predicts_identically(tmp_path, kind, early_stopping):
    if kind == "classifier":
        X, y = make_classification(300, random_state=0)
        cls, method = treeboost.GradientBoostingClassifier, "predict_proba"
    else:
        X, y = make_regression(300, n_features=5, noise=1, random_state=0)
        cls, method = treeboost.GradientBoostingRegressor, "predict"
    fitted = cls(
        n_estimators=30, random_state=0, n_iter_no_change=10 if early_stopping else None, **FORMER
    ).fit(X, y)
    path = tmp_path / "former.tbm"
    fitted.save(path)
    _as_former_file(path, early_stopping)
    loaded = treeboost.load(path)
    assert loaded.get_params() == fitted.get_params()
    np.testing.assert_array_equal(getattr(loaded, method)(X), getattr(fitted, method)(X))
    np.testing.assert_array_equal(loaded.train_score_, fitted.train_score_)
    # the loaded parameters fit the same model again
    refit = clone(loaded).fit(X, y)
    np.testing.assert_array_equal(getattr(refit, method)(X), getattr(fitted, method)(X))
