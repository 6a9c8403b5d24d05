"""Two classes of integer weights packed one integer a sample (statistics.packable,
gather_rows_packed, histogram.gather_bitmap_packed): the same compressed histograms as
the float rows, and the same trees."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.datasets import make_classification

import treeboost as tb
import treeboost.engine.grow.grower as grower_module
from treeboost.engine.split.histogram import GATHER_MARK_ROWS, gather_bitmap, gather_bitmap_packed
from treeboost.engine.statistics.samples import (
    PACK_LIMIT,
    SampleStatistics,
    gather_rows,
    gather_rows_packed,
    packable,
)


def _both_gathers(col, idx, start, end, stats, missing_code):
    """(m, codes, cstats, miss) of the float rows' gather and of the packed one, and the
    packed one's scratch afterwards."""
    n = end - start
    src = stats.arrays
    ostats = np.empty((n, 3))
    gather_rows(ostats, src, idx, start, n)
    packed = np.full(n, -1, np.int64)
    gather_rows_packed(packed, src, idx, start, n)
    out = []
    for packed_rows in (False, True):
        bits = np.zeros(4, np.uint64)
        touched = np.full(257, 5, np.int64)  # any values on entry
        codes = np.full(257, -7, np.int64)
        cstats = np.full((257, 3), -7.0)
        miss = np.full(3, 9.0)
        gather, node_rows, scratch = (
            (gather_bitmap_packed, packed, np.zeros(256, np.int64))
            if packed_rows
            else (gather_bitmap, ostats, np.zeros((256, 3)))
        )
        m = gather(
            col,
            idx,
            start,
            end,
            node_rows,
            missing_code,
            scratch,
            bits,
            touched,
            codes,
            cstats,
            miss,
        )
        assert not scratch.any() and not bits.any()
        out.append((m, codes[:m].copy(), cstats[:m].copy(), miss.copy()))
    return out


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 3 * GATHER_MARK_ROWS),
    n_codes=st.integers(1, 256),
    max_w=st.integers(0, 5),
    missing=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
)
def test_packed_gather_is_the_float_rows_gather(n, n_codes, max_w, missing, seed):
    # small nodes (the bit set) and large ones (marks), zero weights (no count), the
    # missing code's bin apart
    rng = np.random.default_rng(seed)
    missing_code = 255
    n_all = n + 10
    col = rng.integers(0, n_codes, n_all).astype(np.uint8) % missing_code
    if missing:
        col[rng.random(n_all) < 0.2] = missing_code
    y = rng.integers(0, 2, n_all)
    w = rng.integers(0, max_w + 1, n_all).astype(float)
    stats = SampleStatistics.classes(y, w, 2)
    idx = rng.permutation(n_all).astype(np.int64)
    start = int(rng.integers(0, 10))
    floats, packed = _both_gathers(col, idx, start, start + n, stats, missing_code)
    assert floats[0] == packed[0]
    for a, b in zip(floats[1:], packed[1:]):
        np.testing.assert_array_equal(a, b)


def test_fields_do_not_carry_up_to_the_limit():
    # a node whose weights of each class sum to PACK_LIMIT - 1, as packable allows
    n = 4
    y = np.array([0, 0, 1, 1])
    half = (PACK_LIMIT - 1) // 2
    w = np.array([half, PACK_LIMIT - 1 - half, half, PACK_LIMIT - 1 - half], float)
    stats = SampleStatistics.classes(y, w, 2)
    assert not packable(stats, np.arange(n))  # both classes together reach the limit
    col = np.zeros(n, np.uint8)
    floats, packed = _both_gathers(col, np.arange(n), 0, n, stats, 255)
    np.testing.assert_array_equal(floats[2], packed[2])
    np.testing.assert_array_equal(packed[2][0], [PACK_LIMIT - 1, PACK_LIMIT - 1, 4])


def test_what_packs():
    y = np.array([0, 1, 1, 0, 1])
    rows = np.arange(5)
    ok = SampleStatistics.classes(y, np.array([1.0, 2, 0, 3, 1]), 2)
    assert packable(ok, rows)
    for w in ([1.0, 0.5, 1, 1, 1], [1.0, np.nan, 1, 1, 1], [1.0, -1, 1, 1, 1]):
        assert not packable(SampleStatistics.classes(y, np.array(w), 2), rows)
    big = SampleStatistics.classes(y, np.array([1.0, PACK_LIMIT, 1, 1, 1]), 2)
    assert not packable(big, rows)
    assert packable(big, np.array([0, 2, 3]))  # the tree's rows only
    assert not packable(SampleStatistics.classes(y, np.ones(5), 3), rows)
    assert not packable(SampleStatistics.regression(y.astype(float), np.ones(5)), rows)


def _fits(X, y, sample_weight=None):
    # 8-bit codes (at most 256 histogram rows) are what packs
    models = [
        tb.RandomForestClassifier(n_estimators=4, random_state=0, max_bins=255),
        tb.RandomForestClassifier(
            n_estimators=2, criterion="entropy", random_state=1, max_bins=255
        ),
        tb.DecisionTreeClassifier(random_state=0, min_samples_leaf=2, max_bins=255),
        tb.DecisionTreeClassifier(
            random_state=0, max_features=3, categorical_features=[0], max_bins=255
        ),
    ]
    for m in models:
        m.fit(X, y, sample_weight=sample_weight)
    return [e.tree_ for m in models for e in getattr(m, "estimators_", [m])]


@pytest.mark.parametrize("weights", ["unit", "integer"])
def test_packed_trees_are_the_float_rows_trees(weights, monkeypatch):
    X, y = make_classification(6000, 8, n_informative=5, flip_y=0.05, random_state=0)
    X[:, 0] = np.floor(np.abs(X[:, 0]) * 4)  # a categorical feature
    X[::9, 2] = np.nan
    w = None if weights == "unit" else np.random.default_rng(0).integers(0, 4, 6000) * 1.0
    seen = []
    real = grower_module.packable
    monkeypatch.setattr(grower_module, "packable", lambda *a: seen.append(real(*a)) or seen[-1])
    packed = _fits(X, y, w)
    assert seen and all(seen)
    monkeypatch.setattr(grower_module, "packable", lambda *a: False)
    floats = _fits(X, y, w)
    for a, b in zip(packed, floats):
        for name in ("feature", "threshold", "children_left", "n_node_samples", "value"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        np.testing.assert_array_equal(a.impurity, b.impurity)
