"""class_weight names classes by their labels and equals the matching sample weights."""

import numpy as np
import pytest
from sklearn.utils.class_weight import compute_sample_weight

import treeboost as tb


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    X = rng.rand(400, 4)
    # string labels, unbalanced: codes 0..2 differ from the labels
    y = np.where(X[:, 0] + 0.3 * rng.rand(400) > 0.9, "rare", np.where(X[:, 1] > 0.5, "b", "a"))
    return X, y


ESTIMATORS = [
    lambda **kw: tb.DecisionTreeClassifier(max_depth=2, random_state=0, **kw),
    lambda **kw: tb.RandomForestClassifier(n_estimators=8, max_depth=2, random_state=0, **kw),
    lambda **kw: tb.ExtraTreesClassifier(n_estimators=8, max_depth=2, random_state=0, **kw),
]


@pytest.mark.parametrize("make", ESTIMATORS)
@pytest.mark.parametrize(
    "class_weight", [{"a": 1.0, "b": 2.0, "rare": 7.0}, {"rare": 3.0}, "balanced"]
)
def test_class_weight_equals_sample_weight(data, make, class_weight):
    X, y = data
    weighted = make(class_weight=class_weight).fit(X, y)
    explicit = make().fit(X, y, sample_weight=compute_sample_weight(class_weight, y))
    np.testing.assert_array_equal(weighted.predict_proba(X), explicit.predict_proba(X))
    # and it changes the model: the rare class gains weight
    plain = make().fit(X, y)
    assert not np.array_equal(weighted.predict_proba(X), plain.predict_proba(X))


def test_class_weight_label_missing_from_y_is_refused(data):
    X, y = data
    with pytest.raises(ValueError, match="class_weight"):
        tb.RandomForestClassifier(n_estimators=2, class_weight={"zzz": 2.0}).fit(X, y)


@pytest.mark.parametrize("cls", [tb.RandomForestClassifier, tb.ExtraTreesClassifier])
def test_balanced_subsample_without_bootstrap_is_balanced(data, cls):
    X, y = data
    a = cls(n_estimators=4, bootstrap=False, class_weight="balanced_subsample", random_state=0).fit(
        X, y
    )
    b = cls(n_estimators=4, bootstrap=False, class_weight="balanced", random_state=0).fit(X, y)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))


def test_balanced_subsample_balances_each_bootstrap(data):
    X, y = data
    sub = tb.RandomForestClassifier(
        n_estimators=8, class_weight="balanced_subsample", random_state=0
    ).fit(X, y)
    for tree in sub.estimators_:
        # the root's class weights are balanced over the rows drawn: equal per class
        root = tree.tree_.value[0] * tree.tree_.weighted_n_node_samples[0]
        np.testing.assert_allclose(root, root.mean(), rtol=1e-9)


@pytest.mark.parametrize(
    "class_weight", ["balanced", "balanced_subsample", {0: 2.0, 1: 1.0, 2: 3.0}]
)
@pytest.mark.parametrize("bootstrap", [True, False])
def test_forest_class_weights_are_scikit_learn_19s(class_weight, bootstrap):
    """ "balanced" weighs the classes by their sample weight (scikit-learn 1.9's forests),
    and a fit with it equals a fit with those weights given as sample_weight."""
    from sklearn.datasets import load_iris
    from sklearn.ensemble import RandomForestClassifier as SkRF

    X, y = load_iris(return_X_y=True)
    X, y = X[20:], y[20:]
    sw = np.random.RandomState(0).randint(1, 5, len(y)).astype(float)
    ours = tb.RandomForestClassifier(
        5, class_weight=class_weight, bootstrap=bootstrap, random_state=0
    )
    _, expanded = ours._validate_y_class_weight(y.reshape(-1, 1), sw)
    ref = SkRF(5, class_weight=class_weight, bootstrap=bootstrap, random_state=0)
    ref._n_samples, ref.n_outputs_ = len(y), 1
    _, ref_expanded = ref._validate_y_class_weight(y.reshape(-1, 1), sw)
    if ref_expanded is None:
        assert expanded is None
        return
    np.testing.assert_allclose(expanded, ref_expanded)
    a = ours.fit(X, y, sample_weight=sw)
    b = tb.RandomForestClassifier(5, bootstrap=bootstrap, random_state=0).fit(
        X, y, sample_weight=sw * expanded
    )
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))
