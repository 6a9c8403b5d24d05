"""Trees walked over CSR rows (engine/predict/csr_rows.py) give the results of the dense X:
duplicates summed, explicit NaN missing, unsorted indices, CSC input, empty rows; a
malformed matrix is refused before any kernel reads it."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

import treeboost as tb
from treeboost.engine.predict.csr_rows import prepared_csr


def _data(seed, n=300, p=12):
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=0.3, format="csr", random_state=seed)
    y = np.asarray(X[:, :3].sum(axis=1)).ravel() + 0.2 * rng.normal(size=n) > 0.4
    return X, y.astype(int)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_sparse_walk_equals_the_dense_walk(seed):
    X, y = _data(seed)
    tree = tb.DecisionTreeClassifier(random_state=0).fit(X, y)
    forest = tb.RandomForestClassifier(5, random_state=0, n_jobs=2).fit(X, y)
    rng = np.random.default_rng(seed)
    # a matrix of test rows with what CSR allows: duplicates, explicit NaN and zeros,
    # unsorted column indices, empty rows
    rows, cols = rng.integers(0, 40, 200), rng.integers(0, 12, 200)
    vals = rng.choice([0.0, np.nan, 0.3, 0.7, 1.5, -0.2], 200)
    T = sp.coo_matrix((vals, (rows, cols)), shape=(40, 12)).tocsr()
    T.has_sorted_indices = False
    order = rng.permutation(T.indices.size)  # unsorted within rows is still valid CSR
    for i in range(T.shape[0]):
        a, b = T.indptr[i], T.indptr[i + 1]
        seg = np.arange(a, b)
        perm = seg[np.argsort(order[a:b])]
        T.indices[a:b], T.data[a:b] = T.indices[perm].copy(), T.data[perm].copy()
    dense = T.toarray()
    np.testing.assert_array_equal(tree.apply(T), tree.apply(dense))
    np.testing.assert_array_equal(tree.predict_proba(T.tocsc()), tree.predict_proba(dense))
    np.testing.assert_array_equal(forest.predict_proba(T), forest.predict_proba(dense))


def test_a_malformed_matrix_is_refused():
    X, y = _data(0)
    forest = tb.RandomForestClassifier(3, random_state=0).fit(X, y)
    bad = sp.csr_matrix(X[:5], copy=True)
    bad.indices[0] = 50  # a column beyond the matrix
    with pytest.raises(ValueError):
        prepared_csr(bad)
    with pytest.raises(ValueError):
        forest.predict_proba(bad)


def test_prepared_rows_serve_many_trees_and_out_is_checked():
    """One CSRRows serves every tree (the forest's path), and a wrong ``out`` is refused
    before the kernel writes into it, as for a dense X."""
    X, y = _data(1)
    forest = tb.RandomForestClassifier(4, random_state=0).fit(X, y)
    csr = prepared_csr(X)
    assert csr.shape == X.shape
    total = np.zeros((X.shape[0], 2))
    for est in forest.estimators_:
        est.tree_.add_predictions(csr, total)
    dense = np.zeros((X.shape[0], 2))
    for est in forest.estimators_:
        est.tree_.add_predictions(X.toarray(), dense)
    np.testing.assert_array_equal(total, dense)
    with pytest.raises(ValueError, match="out must be"):
        forest.estimators_[0].tree_.add_predictions(csr, np.zeros((X.shape[0], 3)))
