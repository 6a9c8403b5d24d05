"""rows_total: a node's summed statistics, added in its rows' order."""

import numpy as np

from treeboost.engine import rows_total


def test_rows_total_adds_the_rows_in_their_order():
    rng = np.random.default_rng(0)
    stats = rng.standard_normal((1000, 3)) * np.array([1e8, 1.0, 1e-8])
    idx = rng.permutation(1000).astype(np.int32)
    out = np.full(3, np.nan)
    rows_total(stats, idx, 100, 900, out)
    # the sequential sums, bit for bit (cumsum adds in order)
    np.testing.assert_array_equal(out, np.cumsum(stats[idx[100:900]], axis=0)[-1])
    rows_total(stats, idx, 5, 5, out)
    np.testing.assert_array_equal(out, np.zeros(3))
