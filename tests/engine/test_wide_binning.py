"""Wide X of few rows (issue 59): the short columns are sorted and cut many at a time by
one kernel, with the edges, centers and codes of the cut column by column."""

import numpy as np
import pytest

from treeboost.engine.binning import mapper as binning
from treeboost.engine.binning.mapper import (
    BinMapper,
    _bin_centers,
    _distinct_counts,
    _edges,
    _midpoints,
)


def _wide(n_rows, n_cols, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_cols))
    X[rng.random(X.shape) < 0.15] = np.nan
    X[:, 0] = 1.0  # constant
    X[:, 1] = np.nan  # all missing
    X[:, 2] = np.where(rng.random(n_rows) < 0.5, -0.0, 0.0)  # zeros of both signs
    X[:, 3] = rng.integers(0, 4, n_rows)  # few distinct values
    X[:, 4] = np.round(X[:, 4] * 2)  # ties
    X[:, 5] = rng.integers(0, 3 * n_rows, n_rows)  # more distinct values than bins
    X[:, 6] = np.where(rng.random(n_rows) < 0.5, -np.inf, 5e-324)  # extremes
    return X


def _reference(col, max_bins):
    """One column cut as BinMapper cuts a sorted column."""
    col = np.sort(col)
    has_nan = bool(col.size and np.isnan(col[-1]))
    distinct, counts = _distinct_counts(col)
    edges = _edges(distinct, counts, max_bins)
    return has_nan, edges, _bin_centers(distinct, edges)


@pytest.mark.parametrize("max_bins", [255, 16, 3, None])
@pytest.mark.parametrize("n_rows", [1, 10, 300])
def test_batched_cut_matches_the_column_cut(n_rows, max_bins):
    X = _wide(n_rows, 400, seed=n_rows)
    cols = np.sort(X.T.copy(), axis=1)
    has_nan, cuts = binning._cut_sorted_rows(cols, max_bins)
    for f in range(X.shape[1]):
        ref_nan, ref_edges, ref_centers = _reference(X[:, f], max_bins)
        assert has_nan[f] == ref_nan
        np.testing.assert_array_equal(cuts[f][1], ref_edges)
        np.testing.assert_array_equal(cuts[f][2], ref_centers)
        # bit for bit: the sign of a zero too
        assert cuts[f][1].tobytes() == ref_edges.tobytes()
        assert cuts[f][2].tobytes() == ref_centers.tobytes()


def test_wide_fit_takes_the_batched_path(monkeypatch):
    """A wide X of 10 rows is cut by the kernel, a few calls for 20,000 columns, never
    column by column, with the edges of the column-by-column cut."""
    X = _wide(10, 20_000, seed=0)
    calls = []
    original = binning._cut_sorted_rows

    def spy(cols, max_bins):
        calls.append(cols.shape[0])
        return original(cols, max_bins)

    monkeypatch.setattr(binning, "_cut_sorted_rows", spy)
    mapper = BinMapper().fit(X)
    assert sum(calls) == X.shape[1]
    assert len(calls) <= 16
    for f in range(X.shape[1]):
        ref_nan, ref_edges, _ = _reference(X[:, f], 255)
        assert mapper.has_missing_[f] == ref_nan
        assert mapper.bin_thresholds_[f].tobytes() == ref_edges.tobytes()
    single = mapper.single_value_bins()
    assert single[0] and single[3] and not single[1]


def test_wide_codes_need_no_grids():
    """Coding 10 rows lays no grid of 2,048 cells over each feature (800 MB for 100,000
    features); the codes are the searched ones."""
    X = _wide(10, 3000, seed=1)
    mapper = BinMapper().fit(X)
    edges, n_edges = binning.edge_table(mapper.bin_thresholds_)
    grids = binning._edge_grids(edges, n_edges, mapper.is_categorical_, X.shape[0])
    assert grids[3].size == X.shape[1]
    codes = mapper.transform(X)
    for f in range(X.shape[1]):
        e = mapper.bin_thresholds_[f]
        want = np.where(np.isnan(X[:, f]), mapper.missing_values_code_, np.searchsorted(e, X[:, f]))
        np.testing.assert_array_equal(codes[f], want)


def test_grids_match_the_numpy_grids():
    """The compiled grids are the cells numpy computed (the float operations of the
    coding), on edges of awkward spans."""
    rng = np.random.default_rng(3)
    thresholds = [
        np.sort(rng.normal(size=200)),
        np.array([-1e308, 1e308]),
        np.array([0.0, 5e-324]),
        np.array([1.0]),
        np.empty(0),
        np.cumsum(rng.exponential(size=1000)),
    ]
    edges, n_edges = binning.edge_table(thresholds)
    is_cat = np.zeros(len(thresholds), bool)
    lo, scale, steps, before = binning._edge_grids(edges, n_edges, is_cat, 10**6)
    cells = binning.GRID_CELLS
    for f, e in enumerate(thresholds):
        if not e.size:
            assert steps[f] == 0 and not before[f].any()
            continue
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            span = e[-1] - e[0]
            s = cells / span if span > 0.0 else 0.0
            s = s if np.isfinite(s) else 0.0
            t = (e - e[0]) * s
        cell = np.zeros(e.size, np.int64)
        inside = t >= 0.0
        cell[inside] = np.where(t[inside] < cells, t[inside], cells - 1)
        in_cell = np.bincount(cell, minlength=cells)
        assert lo[f] == e[0] and scale[f] == s
        np.testing.assert_array_equal(before[f, 1:], np.cumsum(in_cell)[:-1])
        most = in_cell.max()
        assert steps[f] == (most if most <= binning.GRID_MAX_STEPS else 0)


def test_midpoints_kernel_matches_numpy():
    a = np.array([-np.inf, 1.0, -0.0, 1e308, 5e-324, -5e-324])
    b = np.array([-1.0, np.nextafter(1.0, 2.0), 1e-300, np.inf, 1e-323, 5e-324])
    cols = np.sort(np.stack([a, b], axis=1), axis=1)
    _, cuts = binning._cut_sorted_rows(cols, None)
    for t in range(a.size):
        assert cuts[t][1].tobytes() == _midpoints(cols[t, :1], cols[t, 1:]).tobytes()
