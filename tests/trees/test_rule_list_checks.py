"""scikit-learn's estimator checks for RuleListClassifier (ID3 / C4.5: test_classic.py)."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from treeboost import DecisionTreeClassifier, ID3Classifier, RuleListClassifier


def _expected_failures(est):
    if isinstance(est.estimator, ID3Classifier):
        # as for ID3Classifier itself: its n_bins quantile edges are unweighted
        return {"check_sample_weight_equivalence_on_dense_data": "n_bins quantiles are unweighted"}
    return {}


# the default tree (C4.5), the CART tree and ID3 (with n_bins: the checks' data is
# continuous) under the rule list (the CART tree seeded: it draws among tied splits, and
# the checks compare two fits)
@parametrize_with_checks(
    [
        RuleListClassifier(),
        RuleListClassifier(DecisionTreeClassifier(max_depth=4, random_state=0)),
        RuleListClassifier(ID3Classifier(n_bins=4), generalize=False),
    ],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_predict_agrees_with_predict_proba_on_a_generalised_tie():
    """A one-row leaf of class 1 generalises to ``IF TRUE`` over rows split 50/50: the rule
    then predicts the first class, as its distribution (and a tree leaf) does."""
    import numpy as np
    from sklearn.datasets import make_blobs
    from sklearn.preprocessing import StandardScaler

    X, y = make_blobs(n_samples=300, random_state=0)
    X = StandardScaler().fit_transform(X)
    X, y = X[y != 2], y[y != 2]
    model = RuleListClassifier(DecisionTreeClassifier(max_depth=4)).fit(X, y)
    assert any(not r.conditions for r in model.rules_)  # the generalised rule is there
    for r in model.rules_:
        assert r.prediction == model.classes_[np.argmax(r.extra["distribution"])]
    np.testing.assert_array_equal(
        model.predict(X), model.classes_[np.argmax(model.predict_proba(X), axis=1)]
    )
