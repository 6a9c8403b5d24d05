"""Bagging draws rows and columns as scikit-learn's bagging does: the same members' samples
for the same random_state, rows drawn in proportion to sample_weight, the member seeing
its draw counts as weights, and scikit-learn's checks of max_samples."""

import numpy as np
import pytest
from sklearn import ensemble as sk
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.neighbors import KNeighborsClassifier

import treeboost as tb


def _data(n=60, p=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    return X, (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"max_samples": 0.5},
        {"max_samples": 17},
        {"bootstrap": False, "max_samples": 0.3},
        {"max_features": 0.6},
        {"bootstrap_features": True, "max_features": 3},
    ],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_same_draws_as_scikit_learn(params, weighted):
    X, y = _data()
    w = np.random.default_rng(1).integers(0, 4, X.shape[0]).astype(float) if weighted else None
    ours = tb.BaggingClassifier(KNeighborsClassifier(3), n_estimators=4, random_state=3, **params)
    theirs = sk.BaggingClassifier(KNeighborsClassifier(3), n_estimators=4, random_state=3, **params)
    with (
        pytest.warns(UserWarning)
        if weighted and params.get("bootstrap") is False
        else _no_warning()
    ):
        ours.fit(X, y, sample_weight=w)
    if weighted:
        # KNeighbors takes no weights: scikit-learn refuses the weights, we draw by them
        theirs.estimator = LogisticRegression()
        ours_w = tb.BaggingClassifier(
            LogisticRegression(), n_estimators=4, random_state=3, **params
        )
        with pytest.warns(UserWarning) if params.get("bootstrap") is False else _no_warning():
            ours_w.fit(X, y, sample_weight=w)
            theirs.fit(X, y, sample_weight=w)
        ours = ours_w
    else:
        theirs.fit(X, y)
    assert ours._max_samples == theirs._max_samples
    for a, b in zip(ours.estimators_samples_, theirs.estimators_samples_):
        np.testing.assert_array_equal(np.bincount(a, minlength=60), np.bincount(b, minlength=60))
    for a, b in zip(ours.estimators_features_, theirs.estimators_features_):
        if params.get("max_features", 1.0) == 1.0 and not params.get("bootstrap_features"):
            np.testing.assert_array_equal(a, np.arange(X.shape[1]))
        else:
            np.testing.assert_array_equal(a, b)
    if weighted:
        for rows in ours.estimators_samples_:
            assert (w[rows] > 0).all()  # a row of weight 0 is never drawn


class _no_warning:
    def __enter__(self):
        import warnings

        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        self._catch.__exit__(*exc)


class _RecordsWeights(LinearRegression):
    def fit(self, X, y, sample_weight=None):
        self.seen_ = (X.shape[0], None if sample_weight is None else sample_weight.copy())
        return super().fit(X, y, sample_weight=sample_weight)


def test_members_see_draw_counts_as_weights():
    X, y = _data(n=40)
    w = np.zeros(40)
    w[[4, 5]] = [1.0, 2.0]
    bag = tb.BaggingRegressor(
        _RecordsWeights(), n_estimators=3, max_samples=10, random_state=0
    ).fit(X, y.astype(float), sample_weight=w)
    for est, rows in zip(bag.estimators_, bag.estimators_samples_):
        n_seen, weights = est.seen_
        counts = np.bincount(rows, minlength=40)
        assert n_seen == 40 and counts.sum() == 10
        np.testing.assert_array_equal(weights, counts)
        assert set(np.flatnonzero(counts)) <= {4, 5}
    # the treeboost trees on shared bins see the counts too: the same draws
    tree_bag = tb.BaggingRegressor(n_estimators=3, max_samples=10, random_state=0).fit(
        X, y.astype(float), sample_weight=w
    )
    for a, b in zip(tree_bag.estimators_samples_, bag.estimators_samples_):
        np.testing.assert_array_equal(a, b)


def test_max_samples_checks():
    X, y = _data(n=50)
    with pytest.warns(UserWarning, match=r"low number \(1\) of bootstrap samples"):
        tb.BaggingClassifier(max_samples=1.0).fit(X, y, sample_weight=np.full(50, 0.01))
    w = np.ones(50)
    w[-1] = 2.0
    with pytest.raises(ValueError, match=r"max_samples=51 must be <= n_samples=50"):
        with pytest.warns(UserWarning, match="recommended to use bootstrap=True"):
            tb.BaggingClassifier(bootstrap=False, max_samples=1.0).fit(X, y, sample_weight=w)
    # an integer above n_samples draws with replacement
    bag = tb.BaggingClassifier(max_samples=80, n_estimators=2, random_state=0).fit(X, y)
    assert bag._max_samples == 80 and len(bag.estimators_samples_[0]) == 80
    assert tb.BaggingClassifier().max_samples is None


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"max_samples": 0.5, "max_features": 0.6},
        {"bootstrap": False, "max_samples": 0.3},
        {"bootstrap_features": True, "max_features": 3},
    ],
)
def test_rows_are_drawn_again_from_the_seeds(params, tmp_path):
    """Unweighted draws keep only their seeds and sizes (scikit-learn's way): the rows
    drawn again are those the members were fitted on (KNeighbors members see their rows,
    so a different draw would predict differently), in memory and after a model file."""
    X, y = _data()
    bag = tb.BaggingClassifier(
        KNeighborsClassifier(1),
        n_estimators=4,
        random_state=3,
        oob_score=params.get("bootstrap", True),
        **params,
    ).fit(X, y)
    assert all(c is None for c in bag._draw_counts)
    for est, rows, feats in zip(bag.estimators_, bag.estimators_samples_, bag.estimators_features_):
        refit = KNeighborsClassifier(1).fit(X[rows][:, feats], y[rows])
        np.testing.assert_array_equal(refit.predict(X[:, feats]), est.predict(X[:, feats]))
    # a model file (of treeboost's trees: the safe format saves no KNeighbors) draws the
    # same rows again
    trees = tb.BaggingClassifier(n_estimators=4, random_state=3, **params).fit(X, y)
    loaded = tb.load(trees.save(tmp_path / "bag.tbm"))
    for a, b in zip(loaded.estimators_samples_, trees.estimators_samples_):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(loaded.predict_proba(X), trees.predict_proba(X))
    # scikit-learn draws the same rows from the same random_state
    theirs = sk.BaggingClassifier(
        KNeighborsClassifier(1), n_estimators=4, random_state=3, **params
    ).fit(X, y)
    for a, b in zip(bag.estimators_samples_, theirs.estimators_samples_):
        np.testing.assert_array_equal(np.sort(a), np.sort(np.asarray(b)))


def test_weighted_draws_keep_their_counts():
    X, y = _data()
    w = np.random.default_rng(1).integers(1, 4, X.shape[0]).astype(float)
    bag = tb.BaggingClassifier(LogisticRegression(), n_estimators=3, random_state=0)
    bag.fit(X, y, sample_weight=w)
    assert all(isinstance(c, np.ndarray) for c in bag._draw_counts)
    # a warm start without weights adds members drawn again from their seeds
    bag.set_params(warm_start=True, n_estimators=5).fit(X, y)
    assert [c is None for c in bag._draw_counts] == [False] * 3 + [True] * 2
    assert len(bag.estimators_samples_) == 5


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda bag: bag._draw_plans.__setitem__((0, 2), 2), r"_draw_plans\[0\]"),
        (lambda bag: bag._draw_plans.__setitem__((1, 1), 10**6), r"_draw_plans\[1\]"),
        (lambda bag: bag._draw_plans.__setitem__((1, 0), 61), "one training set"),
        (lambda bag: setattr(bag, "_draw_seeds", bag._draw_seeds[:2]), "_draw_seeds"),
        (lambda bag: setattr(bag, "_draw_seeds", -bag._draw_seeds - 1), "_draw_seeds"),
    ],
)
def test_a_bad_draw_plan_in_a_file_is_refused(edit, match, tmp_path):
    X, y = _data()
    bag = tb.BaggingClassifier(
        n_estimators=3, bootstrap=False, max_samples=0.5, random_state=0
    ).fit(X, y)
    edit(bag)
    with pytest.raises(ValueError, match=match):
        tb.load(bag.save(tmp_path / "bad.tbm"))
