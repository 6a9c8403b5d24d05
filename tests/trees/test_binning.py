import numpy as np
import pytest

from treeboost.engine.binning import BinMapper


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
    assert counts.min() > 5000 / 16 / 2   # roughly equal-frequency bins


@pytest.mark.parametrize("max_bins, dtype", [(255, np.uint8), (256, np.uint16),
                                              (1000, np.uint16)])
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
