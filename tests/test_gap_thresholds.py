"""A split's threshold in the middle of its node's gap (engine/split/gap_thresholds.py), as
scikit-learn's trees put it; histogram gradient boosting keeps the bin edge right above
the left side, as scikit-learn's HistGradientBoosting and LightGBM."""

import numpy as np
import pytest

import treeboost as tb


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.permutation(n).astype(float), rng.normal(size=n)])
    y = np.sin(X[:, 0] / 6.0) + 0.1 * X[:, 1]
    return X, y


def _node_gap(Xin, tree, node, rows):
    """The largest value that goes left and the smallest that goes right among ``rows``
    (the samples of ``node``)."""
    x = Xin[rows, tree.feature[node]]
    left = x <= tree.threshold[node]
    return x[left].max(), x[~left].min(), left


def _check_centered(tree, Xin):
    stack = [(0, np.arange(len(Xin)))]
    checked = 0
    while stack:
        node, rows = stack.pop()
        if tree.children_left[node] < 0:
            continue
        a, b, left = _node_gap(Xin, tree, node, rows)
        assert tree.threshold[node] == pytest.approx((a + b) / 2, rel=1e-12, abs=1e-12)
        checked += 1
        stack.append((tree.children_left[node], rows[left]))
        stack.append((tree.children_right[node], rows[~left]))
    return checked


def test_forest_thresholds_are_in_the_middle_of_the_bootstrap_gap():
    X, y = _data()
    forest = tb.RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    for est, rows in zip(forest.estimators_, forest.estimators_samples_):
        assert _check_centered(est.tree_, X[np.unique(rows)]) > 3


def test_gradient_boosting_subsample_thresholds_are_centered():
    X, y = _data()
    gb = tb.GradientBoostingRegressor(
        n_estimators=5, subsample=0.5, max_depth=2, random_state=0
    ).fit(X, y)
    edges = gb.bin_mapper_.edge_table()
    off_edge = 0
    for trees in gb.trees_:
        t = trees[0]
        inner = t.children_left >= 0
        off_edge += sum(t.threshold[i] not in edges[t.feature[i]] for i in np.flatnonzero(inner))
    assert off_edge > 0


def test_binned_and_raw_sides_agree_on_every_training_value():
    # the rows a tree did not see (out of bag) too: boosting's subsample updates their
    # raw scores from their codes
    X, y = _data()
    forest = tb.RandomForestRegressor(n_estimators=5, random_state=1).fit(X, y)
    codes = forest.bin_mapper_.transform(X)
    mc = forest.bin_mapper_.missing_values_code_
    for est in forest.estimators_:
        np.testing.assert_array_equal(est.tree_.apply(X), est.tree_.apply_binned(codes, mc))


def test_hist_gradient_boosting_keeps_bin_edges():
    X, y = _data()
    model = tb.HistGradientBoostingRegressor(max_iter=5, min_samples_leaf=3).fit(X, y)
    edges = model.bin_mapper_.edge_table()
    for trees in model.trees_:
        t = trees[0]
        for i in np.flatnonzero(t.children_left >= 0):
            assert t.threshold[i] in edges[t.feature[i]]


def test_extra_trees_thresholds_fall_anywhere_in_the_gap_as_scikit_learns():
    # a random cut falls uniformly in [min, max]: the gap (1, 10) takes 9/10 of the cuts,
    # and within it the threshold is uniform, as scikit-learn's real-valued cut is (a bin
    # edge would put every one at 5.5)
    import treeboost as tb

    X = np.array([[0.0], [1.0], [10.0]])
    y = np.array([0.0, 1.0, 2.0])
    th = np.array(
        [
            tb.ExtraTreeRegressor(max_depth=1, random_state=s).fit(X, y).tree_.threshold[0]
            for s in range(300)
        ]
    )
    wide = th[th > 1.0]
    assert 0.8 < wide.size / th.size < 0.97
    assert np.all((wide > 1.0) & (wide < 10.0))
    assert np.quantile(wide, 0.25) < 4.0 and np.quantile(wide, 0.75) > 7.0
    # each training row keeps its side, in a fit and after a save and load
    for s in range(20):
        m = tb.ExtraTreesRegressor(n_estimators=3, random_state=s).fit(X, y)
        np.testing.assert_array_equal(m.predict(X), m.predict(X.copy()))
        for est in m.estimators_:
            np.testing.assert_allclose(est.predict(X), y)


@pytest.mark.parametrize(
    "make",
    [
        lambda: tb.ExtraTreesClassifier(n_estimators=3, random_state=0),  # counted rows
        lambda: tb.ExtraTreesRegressor(n_estimators=3, random_state=0),  # rows of sums
        lambda: tb.ExtraTreesClassifier(n_estimators=2, bootstrap=True, random_state=1),
    ],
)
def test_gaps_the_partition_records_are_those_of_the_childrens_samples(monkeypatch, make):
    """The lean Extra-Trees grower records each split's gap in its partition; the
    thresholds centered from them are those centered from the children's samples."""
    import treeboost.engine.grow.grower as grower_module

    kernel = grower_module.center_thresholds
    calls = []

    def both(*args):
        *rest, position, threshold, gap = args
        recorded = (gap[: rest[-1], 0] != -2).sum()
        scanned_threshold = threshold.copy()
        scanned_codes = rest[3].copy()
        kernel(
            *rest[:3], scanned_codes, *rest[4:], position, scanned_threshold, np.full_like(gap, -2)
        )
        kernel(*args)
        np.testing.assert_array_equal(rest[3][: rest[-1]], scanned_codes[: rest[-1]])
        np.testing.assert_array_equal(threshold, scanned_threshold)
        calls.append(recorded)

    monkeypatch.setattr(grower_module, "center_thresholds", both)
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(3000, 5)), 1)  # ties: gaps between repeated values
    X[rng.random(3000) < 0.1, 2] = np.nan
    y = (np.nan_to_num(X[:, 0]) + X[:, 1] > 0).astype(int)
    model = make()
    model.fit(X, y if hasattr(model, "predict_proba") else X[:, 0] + X[:, 1])
    assert calls and all(n > 0 for n in calls)  # the gaps came from the partition


def test_a_bin_of_several_values_keeps_the_edges():
    # more distinct values than bins: a bin's center is no sample's value, and a random
    # threshold stays between the edges around the gap (the rows keep their sides)
    import treeboost as tb

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    y = X[:, 0] + 0.1 * rng.normal(size=400)
    m = tb.ExtraTreesRegressor(n_estimators=5, max_bins=8, random_state=0, min_samples_leaf=1).fit(
        X, y
    )
    bm = m.bin_mapper_
    assert not bm.single_value_bins().any()
    codes = bm.transform(X)
    mc = bm.missing_values_code_
    for est in m.estimators_:
        np.testing.assert_array_equal(est.tree_.apply(X), est.tree_.apply_binned(codes, mc))


def test_single_value_bins_of_small_data_and_not_of_a_subsample():
    from treeboost.engine.binning.mapper import BinMapper

    X = np.array([[0.0, 1.0], [1.0, 1.0], [10.0, 2.0], [5e-324, 3.0]])
    np.testing.assert_array_equal(BinMapper().fit(X).single_value_bins(), [False, True])
    X = np.random.default_rng(0).normal(size=(50, 1))
    assert BinMapper().fit(X).single_value_bins().all()
    assert not BinMapper(subsample=10, random_state=0).fit(X).single_value_bins().any()


@pytest.mark.parametrize(
    "make",
    [
        lambda: tb.RandomForestClassifier(n_estimators=4, random_state=0),
        lambda: tb.RandomForestClassifier(n_estimators=4, max_features=None, random_state=0),
        lambda: tb.RandomForestRegressor(n_estimators=4, max_features=0.5, random_state=0),
        lambda: tb.ExtraTreesClassifier(n_estimators=4, random_state=0),
        lambda: tb.DecisionTreeClassifier(max_features=3, random_state=0),
    ],
)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_recorded_gaps_are_those_of_the_samples(monkeypatch, make, n_classes):
    # the gap a split's scan records (the codes present on either side of its cut) puts
    # every threshold where reading the children's samples puts it: missing values on
    # either side, ties of codes, nodes of every size
    from treeboost.engine.grow import grower
    from treeboost.engine.records import GAP_UNKNOWN

    rng = np.random.default_rng(n_classes)
    n = 3000
    X = rng.normal(size=(n, 6))
    X[:, 1] = np.round(X[:, 1], 1)
    X[rng.random((n, 6)) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int)
    if n_classes == 3:
        y = y + (np.nan_to_num(X[:, 2]) > 1)
    got = make().fit(X, y)
    center = grower.center_thresholds

    def from_samples(*args):
        args = list(args)
        args[-1] = np.full_like(args[-1], GAP_UNKNOWN)
        return center(*args)

    monkeypatch.setattr(grower, "center_thresholds", from_samples)
    ref = make().fit(X, y)
    for a, b in zip(getattr(got, "estimators_", [got]), getattr(ref, "estimators_", [ref])):
        np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
        assert a.tree_.node_count > 50
