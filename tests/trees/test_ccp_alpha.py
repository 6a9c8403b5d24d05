"""ccp_alpha on the CART trees and forests: scikit-learn's minimal cost-complexity pruning
after growth, its pruning path, and model files written before the parameter existed."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn import tree as sk

import treeboost as tb

from .._model_files import read_parts, used_only, write_parts


@pytest.mark.parametrize(
    "ours, theirs, data",
    [
        (tb.DecisionTreeClassifier, sk.DecisionTreeClassifier, load_breast_cancer),
        (tb.DecisionTreeRegressor, sk.DecisionTreeRegressor, load_diabetes),
    ],
)
def test_same_path_and_subtrees_as_scikit_learn(ours, theirs, data):
    X, y = data(return_X_y=True)
    X, y = X[:300], y[:300]
    path = ours(max_bins=None).cost_complexity_pruning_path(X, y)
    ref = theirs(random_state=0).cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(path.ccp_alphas, ref.ccp_alphas, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(path.impurities, ref.impurities, rtol=1e-9, atol=1e-12)
    # between two alphas of the path (at an alpha itself, links of equal alpha computed
    # in another order of float operations may fall either side)
    middles = (path.ccp_alphas[1:] + path.ccp_alphas[:-1]) / 2
    for alpha in middles[:: max(1, len(middles) // 6)]:
        a = ours(max_bins=None, ccp_alpha=alpha).fit(X, y)
        b = theirs(ccp_alpha=alpha, random_state=0).fit(X, y)
        assert a.tree_.node_count == b.tree_.node_count
        # splits of equal gain may be broken differently: nearly every row agrees
        assert np.mean(np.isclose(a.predict(X), b.predict(X))) >= 0.98
    # the largest alpha leaves the root alone
    assert ours(ccp_alpha=path.ccp_alphas[-1]).fit(X, y).tree_.node_count == 1


def test_forest_members_are_pruned_and_refused_values():
    X, y = load_breast_cancer(return_X_y=True)
    full = tb.RandomForestClassifier(8, random_state=0).fit(X, y)
    pruned = tb.ExtraTreesClassifier(8, random_state=0, ccp_alpha=0.01).fit(X, y)
    assert max(e.tree_.node_count for e in pruned.estimators_) < min(
        e.tree_.node_count for e in full.estimators_
    )
    assert all(e.ccp_alpha == 0.01 for e in pruned.estimators_)
    with pytest.raises(ValueError, match="ccp_alpha"):
        tb.DecisionTreeClassifier(ccp_alpha=-1.0).fit(X, y)


def test_a_file_without_ccp_alpha_loads_as_unpruned(tmp_path):
    X, y = load_breast_cancer(return_X_y=True)
    model = tb.RandomForestClassifier(3, random_state=0).fit(X, y)
    path = model.save(tmp_path / "new.tbm")
    doc, arrays = read_parts(path)
    stack = [doc["model"]]
    dropped = 0
    while stack:
        obj = stack.pop()
        if isinstance(obj, dict):
            if isinstance(obj.get("state"), dict) and "ccp_alpha" in obj["state"]:
                del obj["state"]["ccp_alpha"]
                dropped += 1
            stack.extend(obj.values())
        elif isinstance(obj, list):
            stack.extend(obj)
    assert dropped == 4  # the forest and its three trees
    write_parts(tmp_path / "old.tbm", doc, used_only(doc, arrays))
    old = tb.load(tmp_path / "old.tbm")
    assert old.ccp_alpha == 0.0 and old.estimators_[0].ccp_alpha == 0.0
    np.testing.assert_array_equal(old.predict_proba(X), model.predict_proba(X))
