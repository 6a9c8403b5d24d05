import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from treeboost.engine.binning.mapper import BinMapper


def test_exact_bins_are_midpoints_of_adjacent_values():
    X = np.array([[3.0], [1.0], [2.0], [2.0], [10.0]])
    bm = BinMapper(max_bins=None).fit(X)
    np.testing.assert_allclose(bm.bin_thresholds_[0], [1.5, 2.5, 6.5])
    codes = bm.transform(X)
    assert codes.shape == (1, 5)
    np.testing.assert_array_equal(codes[0], [2, 0, 1, 1, 3])


def test_missing_values_get_the_reserved_code():
    X = np.array([[1.0, np.nan], [np.nan, 2.0], [3.0, 4.0]])
    bm = BinMapper().fit(X)
    codes = bm.transform(X)
    assert codes[0, 1] == bm.missing_values_code_
    assert codes[1, 0] == bm.missing_values_code_
    assert bm.missing_values_code_ == bm.n_bins_.max()


def test_quantile_bins_respect_max_bins_and_cut_between_distinct_values():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(5000, 3))
    bm = BinMapper(max_bins=16).fit(X)
    assert (bm.n_bins_ <= 16).all()
    for f in range(3):
        distinct = np.unique(X[:, f])
        edges = bm.bin_thresholds_[f]
        pos = np.searchsorted(distinct, edges)
        # every edge lies strictly between two adjacent distinct training values
        assert np.all(distinct[pos - 1] < edges) and np.all(edges < distinct[pos])
        np.testing.assert_allclose(edges, (distinct[pos - 1] + distinct[pos]) / 2)
    codes = bm.transform(X)
    counts = np.bincount(codes[0], minlength=16)
    assert counts.min() > 5000 / 16 / 2  # roughly equal-frequency bins


@pytest.mark.parametrize("max_bins, dtype", [(255, np.uint8), (256, np.uint16), (1000, np.uint16)])
def test_code_dtype(max_bins, dtype):
    X = np.arange(2000, dtype=float)[:, None]
    bm = BinMapper(max_bins=max_bins).fit(X)
    assert bm.transform(X).dtype == dtype


def test_adjacent_floats_keep_a_separating_threshold():
    a = 1.0
    b = np.nextafter(a, 2.0)
    bm = BinMapper(max_bins=None).fit(np.array([[a], [b]]))
    t = bm.bin_thresholds_[0][0]
    assert a <= t < b


@pytest.mark.parametrize("bad", [1, 0, 65536, 2.5, "many"])
def test_bad_max_bins(bad):
    with pytest.raises(ValueError, match="max_bins"):
        BinMapper(max_bins=bad).fit(np.zeros((3, 1)))


def _awkward_column(rng, n, kind):
    """Values that stress a sort of float bits: both signs of zero and NaN, infinities,
    subnormals, magnitudes across the exponent range, ties."""
    if kind == "spread":
        return rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
    a = rng.standard_normal(n)
    if kind == "ties":
        return np.round(a * 2)
    if n < 9:
        return a
    a[::7] = np.nan
    a[1::11] = -np.nan
    a[2::13] = 0.0
    a[3::13] = -0.0
    a[4], a[5], a[6], a[8] = np.inf, -np.inf, 5e-324, -5e-324
    return a


@pytest.mark.parametrize("n", [0, 1, 2, 5, 3000, 20000])
@pytest.mark.parametrize("kind", ["spread", "ties", "special"])
def test_radix_sort_orders_as_numpy(n, kind):
    from treeboost.engine.binning.mapper import _radix_sort

    a = _awkward_column(np.random.default_rng(n), n, kind)
    got = _radix_sort(a.copy(), np.empty_like(a))
    np.testing.assert_array_equal(got, np.sort(a))  # (NaN equal to NaN, -0.0 to 0.0)
    negative_zero = np.signbit(got[got == 0])
    assert (np.diff(negative_zero.astype(int)) <= 0).all()  # -0.0 before 0.0


@pytest.mark.parametrize("max_bins", [255, None])
def test_radix_sorted_bins_are_those_of_numpy_sort(monkeypatch, max_bins):
    # columns long enough for the radix sort get the edges, centers and missing flags that
    # numpy's sort gives
    from treeboost.engine.binning import mapper as binning

    rng = np.random.default_rng(3)
    n = 3 * binning.RADIX_SORT_MIN_ROWS
    # the sort's path, not the selection's (test_selected_bins_are_those_of_the_sort)
    monkeypatch.setattr(binning, "SELECT_MIN_ROWS", 10 * n)
    X = np.column_stack(
        [_awkward_column(rng, n, kind) for kind in ("spread", "ties", "special")]
        + [rng.standard_normal(n)]
    )
    got = BinMapper(max_bins=max_bins).fit(X)

    def numpy_sort(col):
        col.sort()
        return col

    monkeypatch.setattr(binning, "_sort_column", numpy_sort)
    ref = BinMapper(max_bins=max_bins).fit(X)
    for f in range(X.shape[1]):
        np.testing.assert_array_equal(got.bin_thresholds_[f], ref.bin_thresholds_[f])
    np.testing.assert_array_equal(got.bin_centers(), ref.bin_centers())
    np.testing.assert_array_equal(got.has_missing_, ref.has_missing_)
    np.testing.assert_array_equal(got.transform(X), ref.transform(X))


def _selection_columns(rng, n):
    """Columns for the selection's buckets: awkward ones, heavy tails, few distinct values
    around ``max_bins``, zeros of both signs, subnormals, constants."""
    return np.column_stack(
        [_awkward_column(rng, n, kind) for kind in ("spread", "ties", "special")]
        + [
            rng.standard_normal(n),
            rng.exponential(size=n),
            rng.lognormal(0, 5, n),
            rng.integers(0, 300, n).astype(float),
            rng.integers(0, 255, n).astype(float),
            np.round(rng.standard_normal(n) * 50) / 7,
            np.where(rng.random(n) < 0.5, 0.0, -0.0) + np.round(rng.standard_normal(n) * 100),
            rng.standard_normal(n) * 1e-310,
            np.full(n, 3.0),
            np.r_[np.full(n - 1, 1.0), 2.0],
            np.r_[rng.standard_normal(n - 1), 1e300],
        ]
    )


def _same_bits(a, b):
    return a.shape == b.shape and np.array_equal(
        np.ascontiguousarray(a).view(np.uint64), np.ascontiguousarray(b).view(np.uint64)
    )


@pytest.mark.parametrize("max_bins", [2, 16, 255, 1000])
@pytest.mark.parametrize("n, subsample", [(2048, None), (9000, None), (30_000, 20_000)])
def test_selected_bins_are_those_of_the_sort(monkeypatch, max_bins, n, subsample):
    # the edges and centers that selection finds (quantile_edges.select_cut) are those
    # of the sorted column, to the bit (the sign of a zero included)
    from treeboost.engine.binning import mapper as binning

    X = _selection_columns(np.random.default_rng(n + max_bins), n)
    got = BinMapper(max_bins=max_bins, subsample=subsample, random_state=0).fit(X)
    monkeypatch.setattr(binning, "SELECT_MIN_ROWS", 10 * n)
    ref = BinMapper(max_bins=max_bins, subsample=subsample, random_state=0).fit(X)
    for f in range(X.shape[1]):
        assert _same_bits(got.bin_thresholds_[f], ref.bin_thresholds_[f]), f
    assert _same_bits(got.bin_centers(), ref.bin_centers())
    np.testing.assert_array_equal(got.has_missing_, ref.has_missing_)
    np.testing.assert_array_equal(got.single_value_bins(), ref.single_value_bins())


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(-4, 4).map(float),
            st.floats(-1e3, 1e3),
            st.floats(allow_nan=True, allow_infinity=False, width=64),
            st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1e300, np.nan]),
        ),
        min_size=1,
        max_size=60,
    ),
    st.integers(1, 40),
    st.integers(2, 20),
)
def test_select_cut_against_the_sort(values, repeat, max_bins):
    # brute force: the selection's cut of any column (ties, zeros, subnormals, huge
    # values, NaN) is the one the sorted column gives, or left to the sort
    from treeboost.engine.binning import mapper as binning
    from treeboost.engine.binning.quantile_edges import UNSUITED, ColumnCut, select_cut

    col = np.tile(np.array(values, dtype=np.float64), repeat)

    def cut(distinct, counts):
        edges = binning._edges(distinct, counts, max_bins)
        return ColumnCut(distinct, edges, binning._bin_centers(distinct, edges))

    got, n_valid = select_cut(col.copy(), max_bins, cut, binning._midpoints)
    # (the radix sort, which the columns long enough for selection take: -0.0 sorts
    # before 0.0, and a value 0 is written -0.0 when there is one)
    ref = cut(*binning._distinct_counts(binning._radix_sort(col.copy(), np.empty_like(col))))
    assert n_valid == np.count_nonzero(~np.isnan(col))
    if got is UNSUITED:
        return
    assert _same_bits(got.edges, ref.edges)
    assert _same_bits(got.centers, ref.centers)
    if got.distinct is not None:
        assert _same_bits(got.distinct, ref.distinct)


@pytest.mark.parametrize("subsample", [None, 6000])
def test_bins_do_not_depend_on_the_cores(monkeypatch, subsample):
    # the columns are shared among as many threads as the machine has cores, in groups
    # whose width follows the count: every count gives the same bins
    from treeboost.engine.binning import mapper as binning

    rng = np.random.default_rng(5)
    n = 12_000  # threaded from 10,000 rows
    X = rng.standard_normal((n, 41))
    X[rng.random(n) < 0.1, 3] = np.nan
    X[:, 7] = rng.integers(0, 4, n)
    X[-1, 40] = np.nan  # outside a subsample, most likely: still a missing value
    fits = []
    for cores in (1, 2, 3, 16, 64):
        monkeypatch.setattr(binning, "_cpu_count", lambda cores=cores: cores)
        fits.append(BinMapper(subsample=subsample, random_state=0).fit(X))
    ref = fits[0]
    assert ref.has_missing_[[3, 40]].all()
    for got in fits[1:]:
        for f in range(X.shape[1]):
            np.testing.assert_array_equal(got.bin_thresholds_[f], ref.bin_thresholds_[f])
        np.testing.assert_array_equal(got.bin_centers(), ref.bin_centers())
        np.testing.assert_array_equal(got.has_missing_, ref.has_missing_)
        np.testing.assert_array_equal(got.single_value_bins(), ref.single_value_bins())


@pytest.mark.parametrize("n_distinct", [2, 16, 17, 32, 33, 200, 256, 257, 300, 1000])
def test_codes_count_the_edges_below_each_value(n_distinct):
    # every width of the edge table: one block of 16 to sixteen (the constant-length
    # compares of bin_codes.lower_bound), and beyond (binary search)
    rng = np.random.default_rng(n_distinct)
    values = np.sort(rng.standard_normal(n_distinct))
    X = rng.choice(values, (3000, 2))
    X[::17, 1] = np.nan
    bm = BinMapper(max_bins=None if n_distinct > 255 else 255).fit(X)
    codes = bm.transform(X)
    for f in range(2):
        edges = bm.bin_thresholds_[f]
        want = np.searchsorted(edges, X[:, f], side="left")
        want[np.isnan(X[:, f])] = bm.missing_values_code_
        np.testing.assert_array_equal(codes[f], want)
    # values beyond the training range, and on the edges themselves
    Z = np.column_stack([np.r_[edges, -1e300, 1e300, np.inf, -np.inf]] * 2)
    for f in range(2):
        np.testing.assert_array_equal(
            bm.transform(Z)[f], np.searchsorted(bm.bin_thresholds_[f], Z[:, f], side="left")
        )


@pytest.mark.parametrize("max_bins", [255, 16, 2, 1000])
def test_codes_of_awkward_columns_are_the_edges_below(max_bins):
    # quantile edges of heavy-tailed, spread, tied and constant columns (some features are
    # coded through the grid of _map_to_bins, others by binary search), coding values
    # beyond the edges, infinities, zeros of both signs and subnormals
    rng = np.random.default_rng(max_bins)
    n = 6000
    X = np.column_stack(
        [
            rng.lognormal(0, 3, n),
            rng.standard_cauchy(n),
            _awkward_column(rng, n, "spread"),
            _awkward_column(rng, n, "ties"),
            _awkward_column(rng, n, "special"),
            np.full(n, 2.5),
            rng.standard_normal(n),
            np.round(rng.standard_normal(n), 1),
        ]
    )
    bm = BinMapper(max_bins=max_bins).fit(X)
    Z = np.vstack(
        [
            X,
            rng.standard_cauchy((500, X.shape[1])) * 1e6,
            np.array([[np.inf], [-np.inf], [0.0], [-0.0], [5e-324], [np.nan], [1e308], [-1e308]])
            * np.ones(X.shape[1]),
        ]
    )
    Z = np.where(np.isnan(Z), np.nan, Z)
    codes = bm.transform(Z)
    for f in range(X.shape[1]):
        want = np.searchsorted(bm.bin_thresholds_[f], Z[:, f], side="left")
        want[np.isnan(Z[:, f])] = bm.missing_values_code_
        np.testing.assert_array_equal(codes[f], want)


@pytest.mark.parametrize("column", [[-0.0, -0.0, 1.0, 2.0], [-0.0, -0.0], [-1.0, -0.0, 1.0]])
def test_centers_hold_no_negative_zero(column):
    # the random cut's search reads c < u as the sign bit of c - u, which -0.0 - 0.0
    # sets: the centers carry +0.0, from the training values or (as from a model file)
    # from the edges alone
    X = np.array(column).reshape(-1, 1)
    mapper = BinMapper().fit(X)
    centers = mapper.bin_centers()
    assert not np.signbit(centers[centers == 0]).any()
    del mapper._centers, mapper._center_table
    centers = mapper.bin_centers()
    assert not np.signbit(centers[centers == 0]).any()


@pytest.mark.parametrize("row", [0, 16383, 16384, 40_000 - 1])
def test_a_nan_outside_the_subsample_is_missing(row):
    # the NaN flags of a subsampled fit come from every row of X, read in shares of rows
    # (binning._nan_columns): a NaN in any share, in a C- or an F-ordered X
    rng = np.random.default_rng(row)
    X = rng.standard_normal((40_000, 5))
    X[row, 3] = np.nan
    for Z in (X, np.asfortranarray(X)):
        bm = BinMapper(subsample=1000, random_state=0).fit(Z)
        np.testing.assert_array_equal(bm.has_missing_, [False, False, False, True, False])
