"""``max_bins="auto"``, the default of the trees, forests and bagging: exact thresholds for
a feature of at most ``AUTO_EXACT_MAX_VALUES`` distinct values, 255 quantile bins above.

The thresholds are compared with scikit-learn's exact trees, which find them by sorting
the node's values: on data of float32 values (scikit-learn's trees cut float32 copies of
X) both take the midpoint ``a / 2 + b / 2`` of the same two adjacent values."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier as SkTreeClassifier
from sklearn.tree import DecisionTreeRegressor as SkTreeRegressor

import treeboost as tb
from treeboost.engine import BinMapper
from treeboost.engine.binning.mapper import AUTO_EXACT_MAX_VALUES, AUTO_MAX_BINS, resolve_auto_bins


def _continuous(n, n_features=3, seed=0):
    """``n`` rows of distinct float32 values (as float64) and a noisy two-class target."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features)).astype(np.float32).astype(np.float64)
    y = (X[:, 0] + 0.7 * X[:, 1] + 0.5 * rng.normal(size=n) > 0.4).astype(int)
    return X, y


def _preorder(tree):
    """(feature, threshold) of each split in preorder, leaves as (-1, 0.0)."""
    out = []

    def walk(node):
        left, right = tree.children_left[node], tree.children_right[node]
        if left == -1:
            out.append((-1, 0.0))
            return
        out.append((int(tree.feature[node]), float(tree.threshold[node])))
        walk(left)
        walk(right)

    walk(0)
    return out


def test_default_tree_takes_the_exact_root_threshold():
    X, y = _continuous(5000)
    assert all(np.unique(X[:, j]).size == 5000 for j in range(X.shape[1]))
    sk = SkTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    ours = tb.DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    assert ours.tree_.feature[0] == sk.tree_.feature[0]
    assert ours.tree_.threshold[0] == sk.tree_.threshold[0]
    # 255 quantile bins cut elsewhere: the test can fail
    binned = tb.DecisionTreeClassifier(max_depth=1, max_bins=255).fit(X, y)
    assert binned.tree_.threshold[0] != sk.tree_.threshold[0]


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_default_tree_makes_the_exact_tree(kind):
    """Every split of a depth-4 tree, feature and threshold, is scikit-learn's."""
    X, y = _continuous(3000, n_features=4, seed=1)
    if kind == "regressor":
        y = X[:, 0] ** 2 + X[:, 2] + 0.3 * np.random.default_rng(2).normal(size=X.shape[0])
        sk = SkTreeRegressor(max_depth=4, random_state=0).fit(X, y)
        ours = tb.DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    else:
        sk = SkTreeClassifier(max_depth=4, random_state=0).fit(X, y)
        ours = tb.DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    assert _preorder(ours.tree_) == _preorder(sk.tree_)


@pytest.mark.parametrize(
    "make",
    [
        lambda: tb.RandomForestClassifier(n_estimators=3, random_state=0),
        lambda: tb.ExtraTreesClassifier(n_estimators=3, random_state=0),
        lambda: tb.BaggingClassifier(n_estimators=3, random_state=0),
        lambda: tb.ExtraTreeClassifier(random_state=0),
    ],
    ids=["random-forest", "extra-trees", "bagging", "extra-tree"],
)
def test_default_ensembles_bin_every_distinct_value(make):
    """The forests, bagging and the Extra-Tree keep one bin per distinct value by
    default (the bins of max_bins=None), where max_bins=255 would cut 255."""
    X, y = _continuous(2000, seed=3)
    model = make().fit(X, y)
    assert model.bin_mapper_.n_bins_.tolist() == [2000] * X.shape[1]
    for f in range(X.shape[1]):
        np.testing.assert_array_equal(
            model.bin_mapper_.bin_thresholds_[f], BinMapper(None).fit(X).bin_thresholds_[f]
        )
    assert make().set_params(max_bins=255).fit(X, y).bin_mapper_.n_bins_.max() == 255


def test_auto_per_feature():
    """A feature of more than AUTO_EXACT_MAX_VALUES distinct values gets 255 quantile
    bins (the bins of max_bins=255), one of fewer one bin per value."""
    rng = np.random.default_rng(4)
    n = AUTO_EXACT_MAX_VALUES + 500
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 3000, size=n).astype(float)])
    auto = BinMapper("auto").fit(X)
    assert auto.n_bins_.tolist() == [AUTO_MAX_BINS, np.unique(X[:, 1]).size]
    np.testing.assert_array_equal(
        auto.bin_thresholds_[0], BinMapper(AUTO_MAX_BINS).fit(X).bin_thresholds_[0]
    )
    np.testing.assert_array_equal(
        auto.bin_thresholds_[1], BinMapper(None).fit(X).bin_thresholds_[1]
    )
    assert resolve_auto_bins("auto", AUTO_EXACT_MAX_VALUES) is None
    assert resolve_auto_bins("auto", AUTO_EXACT_MAX_VALUES + 1) == AUTO_MAX_BINS
    assert resolve_auto_bins(63, 10**6) == 63


def test_auto_at_the_limit_is_exact():
    """AUTO_EXACT_MAX_VALUES distinct values in more rows than that: still exact."""
    rng = np.random.default_rng(5)
    values = rng.permutation(AUTO_EXACT_MAX_VALUES).astype(float)
    X = np.concatenate([values, values[:1000]])[:, None]
    assert BinMapper("auto").fit(X).n_bins_.tolist() == [AUTO_EXACT_MAX_VALUES]


@pytest.mark.parametrize("bad", ["exact", 1, 65536])
def test_bad_max_bins(bad):
    X, y = _continuous(50)
    with pytest.raises(ValueError, match="max_bins"):
        tb.RandomForestClassifier(n_estimators=2, max_bins=bad).fit(X, y)
    with pytest.raises(ValueError, match="max_bins"):
        BinMapper(bad).fit(X)


@pytest.mark.parametrize(
    "make", [tb.DecisionTreeClassifier, tb.RandomForestClassifier, tb.ExtraTreesClassifier]
)
def test_a_model_with_auto_bins_saves_and_loads(make, tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(int)
    model = make(
        random_state=0, **({} if make is tb.DecisionTreeClassifier else {"n_estimators": 5})
    )
    model.fit(X, y)
    assert model.bin_mapper_.max_bins == "auto"
    tb.save(model, tmp_path / "m.tbm")
    back = tb.load(tmp_path / "m.tbm")
    np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X))


def test_a_file_with_another_word_for_max_bins_is_refused(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 2))
    model = tb.DecisionTreeClassifier(random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    model.bin_mapper_.max_bins = "many"
    tb.save(model, tmp_path / "m.tbm")
    with pytest.raises(ValueError, match="max_bins"):
        tb.load(tmp_path / "m.tbm")
