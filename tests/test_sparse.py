"""Sparse X (scipy.sparse CSR / CSC, matrices and arrays): every estimator fits and
predicts on it exactly as on the dense matrix, the bins are those of the dense matrix,
and what is not supported says so."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.base import clone, is_classifier
from sklearn.linear_model import LogisticRegression
from sklearn.utils import get_tags

import treeboost as tb
from treeboost.engine.predict import sparse_blocks as row_blocks
from treeboost.engine.binning.mapper import BinMapper
from treeboost.engine.binning.sparse_codes import SparseCodes

FORMATS = [sp.csr_matrix, sp.csc_matrix, sp.csr_array, sp.csc_array]

ESTIMATORS = [
    tb.DecisionTreeClassifier(random_state=0),
    tb.DecisionTreeRegressor(random_state=0),
    tb.ExtraTreeClassifier(random_state=0),
    tb.ExtraTreeRegressor(random_state=0),
    tb.RandomForestClassifier(5, random_state=0, n_jobs=2),
    tb.RandomForestRegressor(5, random_state=0),
    tb.ExtraTreesClassifier(5, random_state=0),
    tb.ExtraTreesRegressor(5, random_state=0, n_jobs=2),
    tb.BaggingClassifier(n_estimators=4, random_state=0),
    tb.BaggingRegressor(n_estimators=4, max_features=0.5, random_state=0),
    tb.AdaBoostClassifier(n_estimators=5, random_state=0),
    tb.AdaBoostRegressor(n_estimators=5, random_state=0),
    tb.GradientBoostingClassifier(n_estimators=5, random_state=0),
    tb.GradientBoostingRegressor(n_estimators=5, subsample=0.8, n_iter_no_change=2, random_state=0),
    tb.HistGradientBoostingClassifier(max_iter=5, random_state=0),
    tb.HistGradientBoostingRegressor(max_iter=5, early_stopping=True, random_state=0),
]

METHODS = ("predict", "predict_proba", "predict_log_proba", "decision_function", "apply")
STAGED = ("staged_predict", "staged_predict_proba", "staged_decision_function")


def _data(n=150, d=6, seed=0):
    """Mostly zeros, negative values, a few NaN; three classes and a real target."""
    rng = np.random.RandomState(seed)
    X = np.round(rng.normal(size=(n, d)), 1)
    X[rng.rand(n, d) < 0.6] = 0.0
    X[rng.rand(n, d) < 0.05] = np.nan
    Z = np.nan_to_num(X)
    y_class = (Z[:, 0] + Z[:, 1] > 0).astype(int) + (Z[:, 2] > 0.5)
    y_real = 2 * Z[:, 0] - Z[:, 3] + 0.1 * rng.normal(size=n)
    return X, y_class, y_real


def _same(a, b):
    if isinstance(a, tuple):  # decision_path of an ensemble: (indicator, ptr)
        return all(_same(u, v) for u, v in zip(a, b))
    if sp.issparse(a):
        return sp.issparse(b) and (a != b).nnz == 0 and a.shape == b.shape
    return np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_sparse_fit_and_predict_equal_dense(est):
    X, y_class, y_real = _data()
    y = y_class if is_classifier(est) else y_real
    dense = clone(est).fit(X, y)
    for fmt in FORMATS:
        model = clone(est).fit(fmt(X), y)
        for name in METHODS + ("decision_path",):
            if not hasattr(dense, name):
                continue
            want = getattr(dense, name)(X)
            assert _same(want, getattr(model, name)(fmt(X))), (fmt.__name__, name)
            # a model fitted on dense X predicts a sparse X as its dense form
            assert _same(want, getattr(dense, name)(fmt(X))), (fmt.__name__, name)
        for name in STAGED:
            if hasattr(dense, name):
                for a, b in zip(getattr(dense, name)(X), getattr(model, name)(fmt(X)), strict=True):
                    assert _same(a, b), (fmt.__name__, name)
        assert dense.score(X, y) == model.score(fmt(X), y)
        if hasattr(dense, "feature_importances_"):
            np.testing.assert_array_equal(dense.feature_importances_, model.feature_importances_)


@pytest.mark.parametrize(
    "est",
    [
        tb.RandomForestClassifier(4, oob_score=True, random_state=0),
        tb.BaggingRegressor(n_estimators=6, oob_score=True, random_state=0),
    ],
    ids=lambda e: type(e).__name__,
)
def test_sparse_out_of_bag_scores_equal_dense(est):
    X, y_class, y_real = _data()
    y = y_class if is_classifier(est) else y_real
    with pytest.warns(UserWarning, match="OOB"):
        dense = clone(est).fit(X, y)
    with pytest.warns(UserWarning, match="OOB"):
        model = clone(est).fit(sp.csc_matrix(X), y)
    assert dense.oob_score_ == model.oob_score_


def test_prediction_in_many_blocks_equals_dense(monkeypatch):
    """Blocks of 7 rows: the rows are stitched back in order, for every kind of output."""
    monkeypatch.setattr(row_blocks, "BLOCK_ROWS", 7)
    X, y, _ = _data(n=60)
    forest = tb.RandomForestClassifier(3, random_state=0).fit(X, y)
    boost = tb.GradientBoostingClassifier(n_estimators=3, random_state=0).fit(X, y)
    S = sp.csr_matrix(X)
    assert row_blocks.block_rows(X.shape[1]) == 7
    np.testing.assert_array_equal(forest.predict_proba(X), forest.predict_proba(S))
    np.testing.assert_array_equal(forest.apply(X), forest.apply(S))
    assert _same(forest.decision_path(X), forest.decision_path(S))
    np.testing.assert_array_equal(boost.decision_function(X), boost.decision_function(S))


def test_wide_sparse_x_takes_fewer_rows_per_block():
    assert row_blocks.block_rows(10) == row_blocks.BLOCK_ROWS
    assert row_blocks.block_rows(1_000_000) == max(1, row_blocks.BLOCK_VALUES // 1_000_000)
    assert row_blocks.block_rows(10**9) == 1


def test_fit_never_densifies_the_float_matrix(monkeypatch):
    def refuse(self, *args, **kwargs):
        raise AssertionError("fit made the sparse X dense")

    X, y, _ = _data()
    S = sp.csr_matrix(X)
    for cls in (sp.csr_matrix, sp.csc_matrix):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    tb.RandomForestClassifier(3, random_state=0).fit(S, y)
    tb.GradientBoostingClassifier(n_estimators=3, random_state=0).fit(S, y)
    tb.DecisionTreeClassifier(random_state=0).fit(S, y)


def test_non_canonical_sparse_x_is_read_as_its_dense_form():
    """Duplicate entries (summed, as toarray sums them), unsorted indices and explicit
    zeros of a COO matrix."""
    rows = np.array([0, 3, 1, 3, 2, 4, 0, 5])
    cols = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    vals = np.array([1.0, 2.0, -1.0, 0.5, 0.0, 3.0, -2.0, 0.0])
    S = sp.coo_matrix((vals, (rows, cols)), shape=(6, 2))
    X = S.toarray()
    y = np.array([0, 1, 0, 1, 0, 1])
    dense = tb.DecisionTreeClassifier(random_state=0).fit(X, y)
    model = tb.DecisionTreeClassifier(random_state=0).fit(S, y)
    np.testing.assert_array_equal(dense.predict_proba(X), model.predict_proba(S))
    a, b = BinMapper().fit(X), BinMapper().fit(S)
    for e, f in zip(a.bin_thresholds_, b.bin_thresholds_):
        np.testing.assert_array_equal(e, f)


def _assert_same_bins(X, S, **params):
    a, b = BinMapper(**params).fit(X), BinMapper(**params).fit(S)
    assert len(a.bin_thresholds_) == len(b.bin_thresholds_)
    for e, f in zip(a.bin_thresholds_, b.bin_thresholds_):
        assert e.tobytes() == f.tobytes()  # bit-identical edges
    np.testing.assert_array_equal(a.n_bins_, b.n_bins_)
    np.testing.assert_array_equal(a.has_missing_, b.has_missing_)
    assert a.missing_values_code_ == b.missing_values_code_ and a.dtype_ == b.dtype_
    np.testing.assert_array_equal(a.bin_centers(), b.bin_centers())
    codes = a.transform(X)
    np.testing.assert_array_equal(codes, _dense_codes(b.transform(S)))
    np.testing.assert_array_equal(codes, _dense_codes(a.transform(S)))


def _dense_codes(codes):
    """Dense codes of what BinMapper.transform gives for a sparse X."""
    return codes.toarray() if isinstance(codes, SparseCodes) else codes


@settings(max_examples=60, deadline=None)
@given(
    X=hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 40), st.integers(1, 4)),
        elements=st.sampled_from(
            [0.0, 0.0, 0.0, -1.5, -0.25, 0.5, 2.0, 7.0, 1e-300, -1e300, np.nan]
        ),
    ),
    max_bins=st.sampled_from([2, 3, 255, None]),
    fmt=st.sampled_from(FORMATS),
)
def test_bin_mapper_of_sparse_x_equals_dense(X, max_bins, fmt):
    _assert_same_bins(X, fmt(X), max_bins=max_bins)


def test_bin_mapper_of_sparse_x_equals_dense_with_subsample_and_float32():
    X, _, _ = _data(n=3000, d=4)
    _assert_same_bins(X, sp.csr_matrix(X), max_bins=16, subsample=500, random_state=1)
    X32 = X.astype(np.float32)
    _assert_same_bins(X32, sp.csc_matrix(X32), max_bins=16)


def test_predict_on_another_number_of_columns_names_the_features():
    X, y, _ = _data()
    for est in (
        tb.DecisionTreeClassifier(),
        tb.RandomForestClassifier(2),
        tb.GradientBoostingClassifier(n_estimators=2),
    ):
        model = est.fit(sp.csr_matrix(X), y)
        with pytest.raises(ValueError, match=r"X has 4 features.*expecting 6 features"):
            model.predict(sp.csr_matrix(X[:, :4]))


def test_what_sparse_input_does_not_support_is_refused_clearly():
    X, y, _ = _data()
    S = sp.csr_matrix(X)
    # as in scikit-learn: a TypeError from the trees, a ValueError from the forests
    with pytest.raises(TypeError, match="Sparse data was passed for y"):
        tb.DecisionTreeClassifier().fit(S, sp.csr_matrix(y[:, None]))
    with pytest.raises(ValueError, match="sparse multilabel-indicator for y is not supported"):
        tb.RandomForestRegressor(2).fit(S, sp.csr_matrix(y[:, None]))
    with pytest.raises(TypeError, match="sparse X cannot have categorical features"):
        tb.RandomForestClassifier(2, categorical_features=[0]).fit(S, y)
    with pytest.raises(TypeError, match="does not accept a sparse X"):
        tb.C45Classifier().fit(S, y)
    with pytest.raises(TypeError, match="does not accept a sparse X"):
        tb.ID3Classifier().fit(S, y)
    # a model of categorical columns cannot be given a sparse X to predict
    cat = tb.DecisionTreeClassifier(categorical_features=[0]).fit(np.abs(np.nan_to_num(X)), y)
    with pytest.raises(TypeError, match="categorical"):
        cat.predict(S)
    bad = S.copy()
    bad.data[0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        tb.DecisionTreeClassifier().fit(bad, y)


def test_empty_categorical_spec_is_no_categorical_feature():
    X, y, _ = _data()
    dense = tb.DecisionTreeClassifier(random_state=0).fit(X, y)
    model = tb.DecisionTreeClassifier(categorical_features=[], random_state=0).fit(
        sp.csr_matrix(X), y
    )
    np.testing.assert_array_equal(dense.predict_proba(X), model.predict_proba(sp.csr_matrix(X)))


def test_bagging_gives_other_learners_the_sparse_matrix_as_passed():
    X, y, _ = _data()
    X = np.nan_to_num(X)

    class Recorder(LogisticRegression):
        def fit(self, X, y, sample_weight=None):
            self.seen_ = type(X)
            return super().fit(X, y, sample_weight=sample_weight)

    for fmt in FORMATS:
        bag = tb.BaggingClassifier(
            Recorder(), n_estimators=3, max_features=0.5, random_state=0
        ).fit(fmt(X), y)
        assert {m.seen_ for m in bag.estimators_} == {fmt}
        dense = tb.BaggingClassifier(
            Recorder(), n_estimators=3, max_features=0.5, random_state=0
        ).fit(X, y)
        np.testing.assert_allclose(bag.predict_proba(fmt(X)), dense.predict_proba(X))


def test_tags_say_sparse_is_accepted():
    for est in ESTIMATORS:
        assert get_tags(est).input_tags.sparse, type(est).__name__
    assert not get_tags(tb.C45Classifier()).input_tags.sparse

    class Dense(LogisticRegression):
        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.input_tags.sparse = False
            return tags

    assert not get_tags(tb.BaggingClassifier(Dense())).input_tags.sparse


def test_shap_values_of_sparse_x_equal_dense():
    from treeboost.inspection import shap_values

    X, y, _ = _data(n=80)
    for model in (
        tb.RandomForestClassifier(3, random_state=0),
        tb.BaggingClassifier(n_estimators=3, max_features=0.6, random_state=0),
    ):
        model.fit(sp.csr_matrix(X), y)
        dense, sparse_ = shap_values(model, X), shap_values(model, sp.csc_matrix(X))
        np.testing.assert_array_equal(dense[0], sparse_[0])
        np.testing.assert_array_equal(dense[1], sparse_[1])


def test_rule_list_of_a_cart_tree_takes_sparse_x():
    X, y, _ = _data(n=80)
    tree = tb.DecisionTreeClassifier(max_depth=3, random_state=0)
    dense = tb.RuleListClassifier(tree).fit(X, y)
    model = tb.RuleListClassifier(tree).fit(sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.predict_proba(X), model.predict_proba(sp.csc_matrix(X)))
    assert get_tags(tb.RuleListClassifier(tree)).input_tags.sparse
    assert not get_tags(tb.RuleListClassifier()).input_tags.sparse


def test_a_model_fitted_on_sparse_x_saves_as_any_model(tmp_path):
    X, y, _ = _data()
    model = tb.GradientBoostingClassifier(n_estimators=3, random_state=0).fit(sp.csr_matrix(X), y)
    tb.save(model, tmp_path / "m.tbm")
    loaded = tb.load(tmp_path / "m.tbm")
    np.testing.assert_array_equal(loaded.predict_proba(sp.csr_matrix(X)), model.predict_proba(X))
