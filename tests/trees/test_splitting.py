"""The split the engine chooses equals a brute-force search over every threshold."""

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st, HealthCheck

from treeboost import DecisionTreeClassifier, DecisionTreeRegressor

from tests._helpers import search_params

LOG2 = np.log(2)


def term(stats, criterion):
    """T(s) with s = per-class weights (classification) or (w, w*y) (regression)."""
    if criterion == "squared_error":
        w, s = stats
        return 0.0 if w <= 0 else -s * s / w
    w = stats.sum()
    if w <= 0:
        return 0.0
    if criterion == "gini":
        return w - (stats**2).sum() / w
    p = stats[stats > 0]
    return (w * np.log(w) - (p * np.log(p)).sum()) / LOG2


def score(left_mask, y, w, criterion, n_classes):
    """(score, decrease) of sending the rows of left_mask left."""

    def stats(mask):
        if criterion == "squared_error":
            return np.array([w[mask].sum(), (w * y)[mask].sum()])
        return np.bincount(y[mask], weights=w[mask], minlength=n_classes)

    P, L, R = stats(np.ones_like(left_mask)), stats(left_mask), stats(~left_mask)
    dec = term(P, criterion) - term(L, criterion) - term(R, criterion)
    if criterion != "gain_ratio":
        return dec, dec
    wl, wr = w[left_mask].sum(), w[~left_mask].sum()
    p, q = wl / (wl + wr), wr / (wl + wr)
    iv = -(p * np.log2(p) + q * np.log2(q))
    return dec / (wl + wr) / iv, dec


def candidate_partitions(x, categorical):
    """Every partition the engine may choose for one feature (NaN = missing)."""
    miss = np.isnan(x)
    vals = np.unique(x[~miss])
    if categorical:
        for r in range(1, len(vals)):
            for subset in itertools.combinations(vals, r):
                inside = np.isin(x, subset)
                yield inside
                if miss.any():
                    yield inside | miss
        if miss.any() and len(vals):
            yield ~miss
        return
    for t in (vals[:-1] + vals[1:]) / 2:
        left = x <= t
        yield left
        if miss.any():
            yield left | miss
    if miss.any() and len(vals):
        yield ~miss


def brute_force_best(X, y, w, criterion, n_classes, categorical):
    best = -np.inf
    for f in range(X.shape[1]):
        for left in candidate_partitions(X[:, f], categorical):
            if left.all() or not left.any():
                continue
            if w[left].sum() <= 0 or w[~left].sum() <= 0:
                continue
            best = max(best, score(left, y, w, criterion, n_classes)[0])
    return best


@st.composite
def small_problem(draw, regression=False):
    n = draw(st.integers(4, 25))
    d = draw(st.integers(1, 3))
    values = (
        st.one_of(st.integers(0, 6).map(float), st.just(np.nan))
        if draw(st.booleans())
        else st.integers(0, 6).map(float)
    )
    X = np.array(draw(st.lists(st.lists(values, min_size=d, max_size=d), min_size=n, max_size=n)))
    if regression:
        y = np.array(draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)), float)
    else:
        y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)), float)
    return X, y, w


def _check_root(est, X, y, w, criterion, categorical):
    est.fit(X, y, sample_weight=w)
    tree = est.tree_
    n_classes = len(np.unique(y))
    y_enc = np.unique(y, return_inverse=True)[1] if criterion != "squared_error" else y
    best = brute_force_best(X, y_enc, w, criterion, n_classes, categorical)
    if tree.node_count == 1:
        # no split: only possible when no partition improves on a pure/constant node
        assert best == -np.inf or np.isclose(
            term_total(y_enc, w, criterion, n_classes), 0, atol=1e-9
        )
        return
    left_leaf = tree.apply(est._encoder.transform(X)) == tree.children_left[0]
    chosen, dec = score(left_leaf, y_enc, w, criterion, n_classes)
    assert chosen == pytest.approx(best, rel=1e-9, abs=1e-9)
    assert tree.gain[0] == pytest.approx(dec, rel=1e-9, abs=1e-9)


def term_total(y, w, criterion, n_classes):
    if criterion == "squared_error":
        return np.average((y - np.average(y, weights=w)) ** 2, weights=w)
    p = np.bincount(y, weights=w, minlength=n_classes) / w.sum()
    return 1 - (p**2).sum()


@pytest.mark.parametrize("criterion", ["gini", "entropy", "gain_ratio"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=small_problem())
def test_classification_root_split_is_the_brute_force_best(criterion, problem):
    X, y, w = problem
    est = DecisionTreeClassifier(criterion=criterion, max_depth=1, max_bins=None)
    _check_root(est, X, y, w, criterion, categorical=False)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=small_problem(regression=True))
def test_regression_root_split_is_the_brute_force_best(problem):
    X, y, w = problem
    est = DecisionTreeRegressor(max_depth=1, max_bins=None)
    _check_root(est, X, y, w, "squared_error", categorical=False)


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=small_problem(regression=True), data=st.data())
def test_categorical_subset_split_is_optimal_for_two_classes_and_regression(
    criterion, problem, data
):
    X, y, w = problem
    # the exact subset search: without the category guard (tests/trees/test_category_guard)
    exact = dict(
        max_depth=1,
        categorical_features=list(range(X.shape[1])),
        min_samples_per_category=0,
        cat_smooth=0.0,
    )
    if criterion == "squared_error":
        est = DecisionTreeRegressor(**exact)
    else:
        y = (y > 0).astype(int)
        est = DecisionTreeClassifier(criterion=criterion, **exact)
    _check_root(est, X, y, w, criterion, categorical=True)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=small_problem())
def test_fully_grown_tree_fits_consistent_training_data(problem):
    X, y, w = problem
    # make the labels a function of the rows so no identical rows disagree
    keys = np.unique(np.nan_to_num(X, nan=-1), axis=0, return_inverse=True)[1].ravel()
    y = keys % 3
    est = DecisionTreeClassifier(max_bins=None).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(est.predict(X), y)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=small_problem())
def test_raw_prediction_follows_the_binned_path(problem):
    X, y, w = problem
    est = DecisionTreeClassifier(max_bins=4).fit(X, y)
    Xe = est._encoder.transform(X)
    Xb = est.bin_mapper_.transform(Xe)
    np.testing.assert_array_equal(
        est.tree_.apply(Xe), est.tree_.apply_binned(Xb, est.bin_mapper_.missing_values_code_)
    )


@st.composite
def binary_histogram(draw):
    """A dense two-class histogram ``(w_0, w_1, count)`` over a few bins, the last row
    being the missing values; integer weights make ties likely."""
    n_bins = draw(st.integers(1, 8))
    rows = []
    for _ in range(n_bins + 1):
        count = draw(st.integers(0, 4))
        w0 = float(draw(st.integers(0, count)))
        rows.append((w0, float(count) - w0, float(count)))
    hist = np.array(rows)
    if draw(st.booleans()):
        hist[:, :2] *= draw(st.sampled_from([0.5, 1.0, 3.0]))
    # mostly the forests' defaults (min_samples_leaf=1, no weight limit), where runs of
    # one class are skipped
    return hist, draw(st.sampled_from([1, 1, 1, 2, 3])), draw(st.sampled_from([0.0, 0.0, 1.0, 2.5]))


@settings(max_examples=300, deadline=None)
@given(problem=binary_histogram())
def test_binary_gini_scan_equals_the_general_scan(problem):
    """The forests' specialised two-class Gini scan chooses exactly what the general scan
    chooses (score, cut, side of the missing values, left sums), from a dense histogram
    and from its compressed rows, at a node holding both classes.  (The grower never
    searches a pure node: there every cut scores the same, and the general scan, which
    skips the cuts inside runs of one class, finds none where the binary scan takes the
    first.)"""
    from treeboost.engine.split.criteria import GINI
    from treeboost.engine.split.histogram import compress_histogram
    from treeboost.engine.records import Scratch
    from treeboost.engine.split.search import make_scratch, scan_feature, scan_gini_binary
    from treeboost.engine.split.constraints import MonotonicCheck

    NO_CHECK = MonotonicCheck(False, np.int8(0), -np.inf, np.inf)
    hist, min_leaf, min_w = problem
    n_bins = hist.shape[0] - 1
    total = hist.sum(axis=0)
    assume(total[0] > 0 and total[1] > 0)
    codes = np.empty(n_bins + 1, np.int64)
    cstats = np.empty((n_bins + 1, 3))
    miss = np.empty(3)
    m = compress_histogram(hist, n_bins, n_bins, 2, codes, cstats, miss)
    codes_present = codes[:m].copy()
    left = np.zeros(3)
    params = search_params(
        GINI,
        min_samples_leaf=min_leaf,
        min_weight_leaf=float(min_w),
        cat_smooth=0.0,
        min_samples_per_category=0,
    )
    scratch = Scratch(*(a[0] for a in make_scratch(1, n_bins + 1, n_bins + 1, 3)))
    s, dec, b, ml, _ = scan_feature(
        codes,
        cstats,
        m,
        miss,
        total,
        False,
        n_bins,
        params,
        NO_CHECK,
        scratch,
        np.zeros(4, np.uint64),
        left,
    )
    for rows, mm, dense in ((cstats, m, False), (hist, n_bins, True)):
        out = np.zeros(3)
        s2, b2, ml2, right = scan_gini_binary(
            rows, codes, mm, dense, hist[n_bins], total, min_leaf, min_w, out
        )
        assert s2 == s
        if s > -np.inf:
            assert (b2, ml2) == (b, ml)
            # the smallest code present right of the cut; -1 for "every present code left"
            present = codes_present[codes_present > b]
            assert right == (present[0] if present.size else -1)
            np.testing.assert_array_equal(out, left)
