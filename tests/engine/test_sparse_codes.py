"""Sparse codes (engine.binning.sparse_codes): the codes of a sparse X kept as its entries, the
node's entries of a feature from each of their sources, the compressed histogram with
the zero bin by subtraction, and every estimator grown on them as on dense codes, in
memory that follows the entries, not n_samples x n_features."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from sklearn.base import clone, is_classifier

import treeboost as tb
from treeboost.engine.binning import mapper as binning
from treeboost.engine.binning.mapper import BinMapper
from treeboost.engine.split.histogram import gather_bitmap, gather_entries
from treeboost.engine.records import RowBuffers
from treeboost.engine.binning.sparse_codes import (
    SparseCodes,
    bucket_entries,
    fill_buckets,
    node_entries,
    row_code,
)
from treeboost.engine.records import BinnedData

from ..test_sparse import ESTIMATORS


def _sparse_x(n, d, density, seed, nan=0.0):
    """Values rounded to one decimal (ties, explicit zeros among them), some NaN."""
    rng = np.random.default_rng(seed)
    X = sp.random(
        n,
        d,
        density=density,
        format="csr",
        random_state=seed,
        data_rvs=lambda k: np.round(rng.normal(size=k), 1),
    )
    if nan:
        X.data[rng.random(X.data.size) < nan] = np.nan
    return X


def _codes(X, **params):
    bm = BinMapper(**params).fit(X)
    return bm, bm.transform(X)


@pytest.fixture
def sparse_always(monkeypatch):
    """Every sparse X binned into SparseCodes, whatever its density."""
    monkeypatch.setattr(binning, "SPARSE_CODES_MAX_DENSITY", 1.0)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 60),
    d=st.integers(1, 8),
    density=st.floats(0.0, 1.0),
    seed=st.integers(0, 1000),
    max_bins=st.integers(2, 255),
)
def test_sparse_codes_are_the_dense_codes(n, d, density, seed, max_bins):
    X = _sparse_x(n, d, density, seed, nan=0.1)
    bm = BinMapper(max_bins=max_bins).fit(X)
    dense = bm.transform(X.toarray())
    binning_max = binning.SPARSE_CODES_MAX_DENSITY
    try:
        binning.SPARSE_CODES_MAX_DENSITY = 1.0
        codes = bm.transform(X)
    finally:
        binning.SPARSE_CODES_MAX_DENSITY = binning_max
    assert isinstance(codes, SparseCodes) and codes.shape == dense.shape
    np.testing.assert_array_equal(codes.toarray(), dense)
    # the zero codes are never stored, and a row's lookup finds every code
    assert not np.any(codes.col_codes == np.repeat(codes.zero_code, np.diff(codes.col_ptr)))
    rows = codes.rows
    for r in range(n):
        for f in range(d):
            assert row_code(rows, r, f) == dense[f, r]


def test_dense_x_or_dense_enough_sparse_x_keep_dense_codes(monkeypatch):
    X = _sparse_x(200, 10, 0.3, 0)
    bm = BinMapper().fit(X)
    assert isinstance(bm.transform(X), np.ndarray)
    assert isinstance(bm.transform(X.toarray()), np.ndarray)
    X = _sparse_x(2000, 100, 0.01, 0)
    assert isinstance(BinMapper().fit(X).transform(X), SparseCodes)
    # codes wider than a byte stay dense, however sparse X is
    monkeypatch.setattr(binning, "SPARSE_CODES_MAX_DENSITY", 1.0)
    X = sp.random(2000, 2, density=0.3, format="csr", random_state=0)
    bm = BinMapper(max_bins=None).fit(X)
    assert bm.dtype_ == np.uint16 and isinstance(bm.transform(X), np.ndarray)


def test_inconsistent_sparse_codes_are_refused():
    X = _sparse_x(50, 4, 0.2, 1)
    good = SparseCodes.from_csc(X.tocsc(), *_mapper_args(BinMapper().fit(X)))
    bad_rows = good.col_rows.copy()
    bad_rows[0] = 50
    with pytest.raises(ValueError, match="Inconsistent"):
        SparseCodes(
            good.shape,
            good.zero_code,
            good.col_ptr,
            bad_rows,
            good.col_codes,
            good.row_ptr,
            good.row_features,
            good.row_codes,
        )
    with pytest.raises(ValueError, match="Inconsistent"):
        SparseCodes(
            good.shape,
            good.zero_code[:-1],
            good.col_ptr,
            good.col_rows,
            good.col_codes,
            good.row_ptr,
            good.row_features,
            good.row_codes,
        )


def _mapper_args(bm):
    from treeboost.engine.binning.codes import edge_table

    edges, n_edges = edge_table(bm.bin_thresholds_)
    return (edges, n_edges, bm.is_categorical_, bm.n_bins_, bm.missing_values_code_)


def _binned_data(bm, codes):
    n_features = codes.shape[0]
    return BinnedData(
        np.empty((n_features, 0), np.uint8),
        bm.n_bins_,
        bm.is_categorical_,
        bm.missing_values_code_,
        np.zeros((1, 1)),
        np.empty((0, n_features), np.uint8),
        True,
        codes.zero_code,
        codes.col_ptr,
        codes.col_rows,
        codes.col_codes,
        codes.row_ptr,
        codes.row_features,
        codes.row_codes,
    )


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 80),
    d=st.integers(1, 6),
    density=st.floats(0.0, 0.6),
    seed=st.integers(0, 1000),
)
def test_node_entries_from_every_source_are_the_nodes_non_zero_codes(n, d, density, seed):
    rng = np.random.default_rng(seed)
    X = _sparse_x(n, d, density, seed, nan=0.1)
    bm = BinMapper().fit(X)
    codes = SparseCodes.from_csc(X.tocsc(), *_mapper_args(bm))
    dense = codes.toarray()
    data = _binned_data(bm, codes)
    # a tree of some rows in some order; a node is a range of them
    tree_rows = rng.permutation(n)[: rng.integers(1, n + 1)].astype(np.int32)
    position = np.full(n, -1, np.int32)
    position[tree_rows] = np.arange(tree_rows.size)
    start = int(rng.integers(0, tree_rows.size))
    end = int(rng.integers(start, tree_rows.size + 1))
    width = max(codes.max_column_entries, 1)
    feats = np.arange(d, dtype=np.int64)
    rows = RowBuffers(
        tree_rows,
        np.empty_like(tree_rows),
        np.empty((tree_rows.size, 3)),
        position,
        np.full(d, -1, np.int64),
        np.zeros(d + 1, np.int64),
        np.empty(codes.nnz, np.int32),
        np.empty(codes.nnz, np.uint8),
    )
    fill_buckets(feats, data, tree_rows, start, end, rows)
    for f in range(d):
        want = {
            (i - start, dense[f, tree_rows[i]])
            for i in range(start, end)
            if dense[f, tree_rows[i]] != codes.zero_code[f]
        }
        pos = np.empty(width, np.int32)
        code = np.empty(width, np.uint8)
        m = node_entries(f, data, tree_rows, start, end, position, pos, code)
        assert set(zip(pos[:m].tolist(), code[:m].tolist())) == want
        a, b = rows.bucket_start[f], rows.bucket_start[f + 1]
        got = list(zip(rows.entry_pos[a:b].tolist(), rows.entry_code[a:b].tolist()))
        assert got == sorted(want)  # in node order
    bucket_entries(feats, data, tree_rows, start, end, rows, True)
    assert np.all(rows.slot_of == -1)
    # bucketed only when a pass over the rows is the cheaper source
    per_feature = sum(
        min(codes.col_ptr[f + 1] - codes.col_ptr[f], 4 * (end - start)) for f in range(d)
    )
    in_rows = d + sum(codes.row_ptr[r + 1] - codes.row_ptr[r] for r in tree_rows[start:end])
    assert bucket_entries(feats, data, tree_rows, start, end, rows, False) == (
        in_rows < per_feature
    )
    bucket_entries(feats, data, tree_rows, start, end, rows, True)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 60), density=st.floats(0.0, 1.0), seed=st.integers(0, 1000))
def test_histogram_of_entries_is_the_histogram_of_the_node(n, density, seed):
    """The zero bin by subtraction: the compressed histogram of the node's entries and
    its total equals the one gathered from every sample's code."""
    rng = np.random.default_rng(seed)
    X = _sparse_x(n, 1, density, seed, nan=0.1)
    bm = BinMapper().fit(X)
    codes = SparseCodes.from_csc(X.tocsc(), *_mapper_args(bm))
    col = codes.toarray()[0]
    ostats = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 3, n), np.ones(n)]).astype(
        float
    )
    idx = np.arange(n, dtype=np.int32)
    mc = bm.missing_values_code_
    want = _empty_hist(n)
    m_want = gather_bitmap(
        col,
        idx,
        0,
        n,
        ostats,
        mc,
        np.zeros((256, 3)),
        np.zeros(4, np.uint64),
        np.zeros(257, np.int64),
        *want,
    )
    pos = codes.col_rows.astype(np.int32)
    got = _empty_hist(n)
    m_got = gather_entries(
        pos,
        codes.col_codes,
        pos.size,
        ostats,
        ostats.sum(axis=0),
        codes.zero_code[0],
        mc,
        np.zeros((256, 3)),
        np.zeros(4, np.uint64),
        *got,
    )
    assert m_got == m_want
    np.testing.assert_array_equal(got[0][:m_got], want[0][:m_want])
    np.testing.assert_allclose(got[1][:m_got], want[1][:m_want], atol=1e-12)
    np.testing.assert_allclose(got[2], want[2])


def _empty_hist(n):
    return np.empty(257, np.int64), np.empty((257, 3)), np.empty(3)


def _data(n=300, d=12, seed=0):
    X = _sparse_x(n, d, 0.3, seed, nan=0.05)
    Z = np.nan_to_num(X.toarray())
    rng = np.random.default_rng(seed)
    y_class = (Z[:, 0] + Z[:, 1] > 0).astype(int) + (Z[:, 2] > 0.5)
    # integer targets: the sums of a node are exact whatever their order (see below)
    y_real = np.round(10 * (2 * Z[:, 0] - Z[:, 3]) + rng.normal(size=n))
    return X, y_class, y_real


#: learners whose later trees grow on float statistics (gradients, reweighted samples)
BOOSTING = (
    tb.AdaBoostClassifier,
    tb.AdaBoostRegressor,
    tb.GradientBoostingClassifier,
    tb.GradientBoostingRegressor,
    tb.HistGradientBoostingClassifier,
    tb.HistGradientBoostingRegressor,
)


@pytest.mark.parametrize(
    "est",
    ESTIMATORS
    + [
        tb.DecisionTreeRegressor(criterion="absolute_error", max_depth=6, random_state=0),
        tb.RandomForestRegressor(3, criterion="absolute_error", max_depth=4, random_state=0),
        tb.ExtraTreeRegressor(criterion="absolute_error", max_depth=6, random_state=0),
    ],
    ids=lambda e: type(e).__name__ + getattr(e, "criterion", ""),
)
def test_every_estimator_grows_on_sparse_codes_as_on_dense_codes(est, sparse_always):
    X, y_class, y_real = _data()
    y = y_class if is_classifier(est) else y_real
    model = clone(est).fit(X, y)
    binning.SPARSE_CODES_MAX_DENSITY = 0.0
    dense = clone(est).fit(X, y)
    # the zero bin is summed by subtraction: with exact sums (integer statistics) the
    # same trees; with the gradients of boosting, two features that cut a node's rows
    # alike may tie either way, and the models are as good
    if isinstance(est, BOOSTING):
        assert abs(model.score(X, y) - dense.score(X, y)) < 0.05
        return
    np.testing.assert_array_equal(model.apply(X), dense.apply(X))
    np.testing.assert_allclose(model.predict(X), dense.predict(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "est",
    [
        tb.DecisionTreeClassifier(max_depth=6, random_state=0),
        tb.RandomForestRegressor(3, max_depth=6, random_state=0),
        tb.ExtraTreesClassifier(3, max_depth=8, random_state=0),
        tb.GradientBoostingClassifier(n_estimators=3, subsample=0.7, random_state=0),
        tb.HistGradientBoostingRegressor(
            max_iter=3, early_stopping=True, validation_fraction=0.2, random_state=0
        ),
    ],
    ids=lambda e: type(e).__name__,
)
def test_memory_follows_the_entries(est):
    """A matrix whose dense codes would take 400 MB fits in a fraction of that."""
    n, d = 40_000, 10_000
    rng = np.random.default_rng(3)
    nnz = 200_000
    X = sp.csr_matrix(
        (rng.normal(size=nnz), (rng.integers(0, n, nnz), rng.integers(0, d, nnz))), shape=(n, d)
    )
    Z = X[:, :5].toarray()
    y = (Z.sum(axis=1) > 0).astype(int) if is_classifier(est) else Z.sum(axis=1)
    # compiled before the measure: on more rows than max_bins="auto" keeps exact without
    # counting each column's distinct values, so that the measured fit takes its path
    clone(est).fit(X[:20000], y[:20000])
    tracemalloc.start()
    try:
        clone(est).fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.2 * n * d, peak
