"""RandomForest and ExtraTrees are siblings on one forest base, as in scikit-learn."""

import numpy as np
import pytest
from sklearn.base import is_classifier, is_regressor
from sklearn.datasets import make_classification, make_regression

import treeboost as tb
from treeboost.ensembles.forest import BaseForest


@pytest.mark.parametrize(
    "extra, forest",
    [
        (tb.ExtraTreesClassifier, tb.RandomForestClassifier),
        (tb.ExtraTreesRegressor, tb.RandomForestRegressor),
    ],
)
def test_extra_trees_are_siblings_of_random_forests(extra, forest):
    assert not isinstance(extra(), forest)
    assert not isinstance(forest(), extra)
    assert not issubclass(extra, forest) and not issubclass(forest, extra)
    assert isinstance(extra(), BaseForest) and isinstance(forest(), BaseForest)
    assert is_classifier(extra()) == is_classifier(forest())
    assert is_regressor(extra()) == is_regressor(forest())
    # the one difference besides the splitter: the default bootstrap
    assert extra().bootstrap is False and forest().bootstrap is True
    assert extra().estimator.splitter == "random" and forest().estimator.splitter == "best"


@pytest.mark.parametrize("cls", [tb.ExtraTreesClassifier, tb.ExtraTreesRegressor])
def test_extra_trees_save_and_load(cls, tmp_path):
    if is_classifier(cls()):
        X, y = make_classification(120, 5, random_state=0)
    else:
        X, y = make_regression(120, 5, random_state=0)
    model = cls(n_estimators=4, bootstrap=True, oob_score=True, random_state=0).fit(X, y)
    loaded = tb.load(model.save(tmp_path / "model.tbm"))
    assert type(loaded) is cls
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert loaded.oob_score_ == model.oob_score_
    for a, b in zip(loaded.estimators_samples_, model.estimators_samples_):
        np.testing.assert_array_equal(a, b)
