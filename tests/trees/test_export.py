import numpy as np
import pytest

from treeboost import DecisionTreeClassifier, DecisionTreeRegressor
from treeboost.trees.export import export_rules, export_text, extract_rules


def _fires(rule, Xe, categories):
    """Does each encoded row satisfy the rule (evaluated independently of the tree)?"""
    ok = np.ones(Xe.shape[0], bool)
    for c in rule.conditions:
        x = Xe[:, c.feature]
        miss = np.isnan(x)
        if c.categories is not None:
            codes = [list(categories[c.feature]).index(v) for v in c.categories]
            inside = np.isin(np.nan_to_num(x, nan=-1), codes)
        else:
            inside = (x > c.low) & (x <= c.high)
        ok &= np.where(miss, c.missing, inside)
    return ok


def test_exactly_one_rule_fires_per_row_and_agrees_with_the_tree():
    pytest.importorskip("pandas")
    from treeboost.datasets import load_titanic
    data = load_titanic()
    X = data.data[["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]]
    y = data.target
    clf = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y)
    rules = extract_rules(clf)
    assert len(rules) == clf.get_n_leaves()
    Xe = clf._encoder.transform(X)
    fired = np.array([_fires(r, Xe, clf.categories_) for r in rules])
    np.testing.assert_array_equal(fired.sum(axis=0), 1)
    predicted = np.array([rules[i].prediction for i in fired.argmax(axis=0)]).astype(int)
    np.testing.assert_array_equal(predicted, clf.predict(X))
    # rule text names real thresholds and categories
    text = "\n".join(export_rules(clf))
    assert "Sex = male" in text or "Sex = female" in text
    assert "Age" in text and "(or missing)" in text


def test_export_text_regressor_and_feature_names():
    X = np.arange(20.0)[:, None]
    y = (X[:, 0] > 9.5) * 3.0
    reg = DecisionTreeRegressor(max_depth=1).fit(X, y)
    text = export_text(reg, feature_names=["size"])
    assert "size <= 9.5" in text and "value: 3" in text
    with pytest.raises(ValueError, match="feature_names"):
        export_text(reg, feature_names=["a", "b"])
