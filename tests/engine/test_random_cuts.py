"""Extra-Trees' random cuts (engine/random_cuts.py): drawn uniformly in value between the
node's extremes, constant features not counted, the same sums as brute force."""
import numpy as np
import pytest

from treeboost import ExtraTreesClassifier, ExtraTreesRegressor
from treeboost.engine.binning import BinMapper


def _root_thresholds(X, y, n_seeds, **kw):
    thr = []
    for seed in range(n_seeds):
        tree = ExtraTreesRegressor(n_estimators=1, max_depth=1, random_state=seed,
                                   **kw).fit(X, y).estimators_[0].tree_
        thr.append((int(tree.feature[0]), float(tree.threshold[0])))
    return thr


def test_cut_is_uniform_in_value_not_over_bins():
    # values 0, 1 and 100: a cut uniform in value separates {0} from {1, 100} with
    # probability 1/100; one uniform over the three bins would do it half of the time
    X = np.repeat([[0.0], [1.0], [100.0]], 20, axis=0)
    y = np.arange(60, dtype=float)
    thr = [t for _, t in _root_thresholds(X, y, 400)]
    low = np.mean(np.isclose(thr, 0.5))
    assert set(np.round(thr, 6)) <= {0.5, 50.5}
    assert low < 0.05


def test_cut_frequencies_follow_the_gaps():
    # gaps of width 1, 3 and 6 between four values: each cut with its gap's share
    X = np.repeat([[0.0], [1.0], [4.0], [10.0]], 5, axis=0)
    y = np.arange(20, dtype=float)
    thr = np.array([t for _, t in _root_thresholds(X, y, 2000)])
    freq = [np.mean(np.isclose(thr, m)) for m in (0.5, 2.5, 7.0)]
    np.testing.assert_allclose(freq, [0.1, 0.3, 0.6], atol=0.04)


def test_constant_features_do_not_count():
    # nine constant columns and one that varies: with max_features=1 the root must still
    # split on the varying one (the constant ones are skipped, as in scikit-learn)
    rng = np.random.RandomState(0)
    X = np.zeros((50, 10))
    X[:, 7] = rng.rand(50)
    y = (X[:, 7] > 0.5).astype(float)
    for f, _ in _root_thresholds(X, y, 30, max_features=1):
        assert f == 7


def test_left_sums_match_brute_force():
    # every node's statistics equal the sums over the samples that reach it
    rng = np.random.RandomState(3)
    X = rng.rand(300, 5)
    X[rng.rand(300, 5) < 0.1] = np.nan
    y = rng.randint(0, 3, 300)
    est = ExtraTreesClassifier(n_estimators=3, random_state=0, bootstrap=False,
                               min_samples_leaf=2).fit(X, y)
    for member in est.estimators_:
        tree = member.tree_
        path = tree.decision_path(X).toarray().astype(bool)
        counts = path.sum(axis=0)
        np.testing.assert_array_equal(counts, tree.n_node_samples)
        for node in range(tree.node_count):
            frac = np.bincount(y[path[:, node]], minlength=3) / counts[node]
            np.testing.assert_allclose(tree.value[node], frac, atol=1e-12)
        leaves = tree.children_left == -1
        assert tree.n_node_samples[leaves].min() >= 2


@pytest.mark.parametrize("max_bins", [255, 8])
def test_bin_centers(max_bins):
    rng = np.random.RandomState(1)
    x = np.round(rng.rand(500) * 50) / 2          # 101 distinct values
    bm = BinMapper(max_bins).fit(x[:, None])
    centers = bm.bin_centers()[0, :bm.n_bins_[0]]
    codes = bm.transform(x[:, None])[0]
    for b in range(bm.n_bins_[0]):
        vals = x[codes == b]
        assert centers[b] == pytest.approx((vals.min() + vals.max()) / 2)


def test_categorical_features_keep_their_best_subset():
    # y is decided by the category (a, c vs b, d); the numeric columns are noise: the
    # random-cut trees still split the root on the category set {a, c}
    import pandas as pd
    rng = np.random.RandomState(0)
    cat = rng.choice(list("abcd"), 400)
    frame = pd.DataFrame({"noise1": rng.rand(400), "cat": pd.Categorical(cat),
                          "noise2": rng.rand(400)})
    y = np.isin(cat, ["a", "c"]).astype(int)
    est = ExtraTreesClassifier(n_estimators=5, max_features=None, random_state=0).fit(frame, y)
    for member in est.estimators_:
        tree = member.tree_
        assert tree.feature[0] == 1 and tree.is_categorical[0]
    assert est.score(frame, y) == 1.0
