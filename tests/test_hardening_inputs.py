"""Inputs that once crashed the process or were accepted silently: an all-zero sparse X,
a malformed sparse X, non-finite class weights, huge integer parameters.

The crash cases run in a subprocess with a timeout, so that a segfault fails the test
instead of ending the test run."""

import numbers
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

import treeboost as tb


def run_isolated(code, timeout=300):
    """Run ``code`` in a fresh interpreter; assert it exits 0 and return its stdout."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-3000:])
    return proc.stdout


#: every estimator of binary trees, by family
FAMILIES = {
    "trees": [
        "DecisionTreeClassifier",
        "DecisionTreeRegressor",
        "ExtraTreeClassifier",
        "ExtraTreeRegressor",
    ],
    "forests": [
        "RandomForestClassifier",
        "RandomForestRegressor",
        "ExtraTreesClassifier",
        "ExtraTreesRegressor",
    ],
    "bagging": ["BaggingClassifier", "BaggingRegressor"],
    "adaboost": ["AdaBoostClassifier", "AdaBoostRegressor"],
    "gradient_boosting": ["GradientBoostingClassifier", "GradientBoostingRegressor"],
    "hist_gradient_boosting": ["HistGradientBoostingClassifier", "HistGradientBoostingRegressor"],
}


@pytest.fixture(scope="module")
def all_zero_sparse_fits():
    """Fit every estimator of :data:`FAMILIES` on an all-zero CSR and CSC X in one
    subprocess (one interpreter start for all): its return code and the lines
    ``family name format ok`` it printed before it ended."""
    code = textwrap.dedent(f"""
        import numpy as np, scipy.sparse as sp
        import treeboost as tb
        y = (np.arange(60) % 3 == 0).astype(int)
        for family, names in {FAMILIES!r}.items():
            for name in names:
                for fmt in (sp.csr_matrix, sp.csc_matrix):
                    X = fmt((60, 3))
                    est = getattr(tb, name)()
                    if "n_estimators" in est.get_params():
                        est.set_params(n_estimators=3)
                    pred = est.fit(X, y).predict(X)
                    # nothing to split on: one prediction for every row
                    assert np.unique(pred).size == 1, (name, pred)
                    print(family, name, fmt.__name__, "ok", flush=True)
        """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stdout.splitlines(), proc.stderr[-3000:]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_all_zero_sparse_X_fits_a_constant_model(family, all_zero_sparse_fits):
    # no entry of X differs from its feature's code of 0: the codes had no entry and
    # the grower indexed its empty sparse buffers (a segfault)
    rc, lines, err = all_zero_sparse_fits
    want = [
        f"{family} {name} {fmt} ok"
        for name in FAMILIES[family]
        for fmt in ("csr_matrix", "csc_matrix")
    ]
    assert all(w in lines for w in want), (rc, lines, err)


#: ways to corrupt a valid sparse X of 20 rows, 3 columns (``indices`` / ``indptr`` /
#: COO ``row`` / ``col`` edited in place after construction)
MALFORMED = {
    "index_equal_to_minor_size": ("csr", "X.indices[0] = X.shape[1]"),
    "csc_index_equal_to_minor_size": ("csc", "X.indices[0] = X.shape[0]"),
    "index_far_out": ("csr", "X.indices[0] = 10 ** 6"),
    "csc_index_far_out": ("csc", "X.indices[0] = 10 ** 6"),
    "negative_index": ("csr", "X.indices[0] = -1"),
    "csc_negative_index": ("csc", "X.indices[0] = -1"),
    "indptr_past_the_entries": ("csr", "X.indptr[1] = X.indptr[-1] + 5"),
    "csc_indptr_decreasing": ("csc", "X.indptr[2] = 0"),
    "indptr_last_past_the_entries": ("csr", "X.indptr[-1] += 3"),
    "indptr_not_starting_at_zero": ("csr", "X.indptr[0] = 1"),
    "coo_row_out_of_range": ("coo", "X.row[0] = X.shape[0]"),
    "coo_negative_col": ("coo", "X.col[0] = -1"),
}


@pytest.fixture(scope="module")
def malformed_sparse_fits():
    """Fit (and predict, after a fit on the valid X) on each :data:`MALFORMED` X in one
    subprocess; the lines ``case where outcome`` it printed before it ended."""
    code = textwrap.dedent(f"""
        import numpy as np, scipy.sparse as sp
        import treeboost as tb
        y = np.arange(20) % 2
        for case, (fmt, edit) in {MALFORMED!r}.items():
            for where in ("fit", "predict"):
                for name in ("DecisionTreeClassifier", "HistGradientBoostingRegressor"):
                    X = sp.random(20, 3, density=0.5, format=fmt, random_state=0)
                    est = getattr(tb, name)()
                    if where == "predict":
                        est.fit(X, y)
                    exec(edit)
                    try:
                        est.fit(X, y) if where == "fit" else est.predict(X)
                        outcome = "accepted"
                    except ValueError as exc:
                        outcome = "ValueError:" + str(exc).replace(chr(10), " ")
                    print(case, where, name, outcome, flush=True)
        """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    return proc.returncode, proc.stdout.splitlines(), proc.stderr[-3000:]


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_sparse_X_is_refused_before_anything_reads_it(case, malformed_sparse_fits):
    rc, lines, err = malformed_sparse_fits
    mine = [line for line in lines if line.split(" ", 1)[0] == case]
    assert len(mine) == 4, (rc, lines, err)
    fmt = MALFORMED[case][0].upper()
    for line in mine:
        assert f"ValueError:X is not a valid {fmt} matrix" in line, line


def _halves_stored_twice(D, fmt):
    """D as a CSR or CSC matrix each of whose values is stored twice, as two halves in
    descending index order within each slice (duplicates, unsorted), with scipy's flags
    claiming a canonical matrix (as after an edit of a canonical one's arrays)."""
    coo = sp.coo_matrix(D)
    data = np.concatenate([coo.data / 2, coo.data / 2])
    row, col = np.concatenate([coo.row, coo.row]), np.concatenate([coo.col, coo.col])
    major, minor = (row, col) if fmt == "csr" else (col, row)
    order = np.lexsort((-minor, major))
    indptr = np.concatenate(
        [[0], np.cumsum(np.bincount(major, minlength=D.shape[0 if fmt == "csr" else 1]))]
    )
    cls = sp.csr_matrix if fmt == "csr" else sp.csc_matrix
    X = cls((data[order], minor[order], indptr), shape=D.shape)
    X._has_sorted_indices = True
    X._has_canonical_format = True
    return X


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("Est", [tb.DecisionTreeClassifier, tb.RandomForestClassifier])
def test_duplicate_and_unsorted_sparse_entries_are_summed_as_toarray_sums_them(fmt, Est):
    rng = np.random.RandomState(0)
    D = rng.rand(80, 4) * (rng.rand(80, 4) < 0.4)
    y = (D[:, 0] + D[:, 1] > 0.5).astype(int)
    X = _halves_stored_twice(D, fmt)
    nnz = X.nnz
    dense = Est(random_state=0).fit(D, y)
    model = Est(random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(D), dense.predict_proba(D))
    np.testing.assert_array_equal(model.predict_proba(X), dense.predict_proba(D))
    assert X.nnz == nnz  # the caller's matrix is left as it was


ALL_ESTIMATORS = [
    getattr(tb, name)
    for name in sorted(tb.__all__)
    if name[0].isupper() and hasattr(getattr(tb, name), "fit")
]
HUGE = [2**63, -(2**63) - 1, 10**30]
#: what a fit needs besides X and y: the ranker's query groups (three of 10 rows)
FIT_KWARGS = {"HistGradientBoostingRanker": {"group": [10, 10, 10]}}


def _int_params(Est):
    """The integer parameters of ``Est`` that ``_parameter_constraints`` bounds from below
    only (random_state has its own range)."""
    from sklearn.utils._param_validation import Interval

    out = []
    for name, rules in getattr(Est, "_parameter_constraints", {}).items():
        if name == "random_state":
            continue
        if any(
            isinstance(r, Interval) and r.type is numbers.Integral and r.right is None
            for r in rules
        ):
            out.append(name)
    return out


@pytest.mark.parametrize("Est", ALL_ESTIMATORS, ids=lambda E: E.__name__)
def test_huge_integer_parameters_are_a_value_error(Est):
    # (whole numbers: ID3 takes categorical columns only)
    X = np.random.RandomState(0).randint(0, 3, (30, 3)).astype(float)
    y = np.arange(30) % 2
    names = _int_params(Est)
    if not names:
        pytest.skip("no unbounded integer parameter")
    fit = FIT_KWARGS.get(Est.__name__, {})
    for name in names:
        for value in HUGE:
            with pytest.raises(ValueError, match=name):
                Est(**{name: value}).fit(X, y, **fit)
    # max_leaf_nodes=2**63 once grew a workspace that broke every later fit of the process
    Est().fit(X, y, **fit)


CLASS_WEIGHTED = [E for E in ALL_ESTIMATORS if "class_weight" in E().get_params()]


@pytest.mark.parametrize("Est", CLASS_WEIGHTED, ids=lambda E: E.__name__)
@pytest.mark.parametrize(
    "weights", [{0: np.nan}, {0: np.inf}, {0: 1.0, 1: -np.inf}, {0: -1.0}, {0: "heavy"}]
)
def test_a_class_weight_that_is_not_finite_is_a_value_error(Est, weights):
    X = np.random.RandomState(0).rand(30, 3)
    y = np.arange(30) % 2
    with pytest.raises(ValueError, match="class_weight"):
        Est(class_weight=weights).fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        Est(class_weight=[weights]).fit(X, y)


@pytest.fixture(scope="module")
def above_the_binning_subsample():
    """210,000 rows (above BinMapper's subsample of 200,000) of 2 continuous features."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(210_000, 2))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.5, size=X.shape[0]) > 0).astype(int)
    return X, y


@pytest.mark.parametrize(
    "make",
    [
        lambda: tb.DecisionTreeClassifier(max_depth=3, random_state=0),
        lambda: tb.RandomForestClassifier(n_estimators=2, max_depth=3, random_state=0),
        lambda: tb.BaggingClassifier(n_estimators=2, random_state=0),
    ],
    ids=["cart", "forest", "bagging"],
)
def test_the_binning_subsample_is_seeded_by_random_state(make, above_the_binning_subsample):
    X, y = above_the_binning_subsample
    a, b = make().fit(X, y), make().fit(X, y)
    for ta, tb_ in zip(a.bin_mapper_.bin_thresholds_, b.bin_mapper_.bin_thresholds_):
        np.testing.assert_array_equal(ta, tb_)
    members_a = getattr(a, "estimators_", [a])
    members_b = getattr(b, "estimators_", [b])
    for ma, mb in zip(members_a, members_b):
        np.testing.assert_array_equal(ma.tree_.threshold, mb.tree_.threshold)
        np.testing.assert_array_equal(ma.tree_.feature, mb.tree_.feature)


def _sum_by_chunks_of_trees(forest, X, n_chunks):
    """The forest's sum of its members' predictions as predict summed them before: one
    full output per chunk of trees, then those outputs summed."""
    trees = [est.tree_ for est in forest.estimators_]
    outs = []
    for chunk in np.array_split(np.arange(len(trees)), n_chunks):
        out = np.zeros((X.shape[0], forest.estimators_[0].tree_.value.shape[1]))
        for i in chunk:
            trees[i].add_predictions(X, out)
        outs.append(out)
    return np.sum(outs, axis=0)


@pytest.mark.parametrize(
    "Est", [tb.ExtraTreesRegressor, tb.ExtraTreesClassifier, tb.RandomForestRegressor]
)
def test_forest_predictions_do_not_depend_on_n_jobs(Est):
    rng = np.random.RandomState(0)
    # rows of several blocks of the walk, leaf values of many bits
    X = rng.normal(size=(40_000, 4))
    y = X[:, 0] * np.pi + rng.normal(size=X.shape[0]) / 3
    if Est is tb.ExtraTreesClassifier:
        y = (y > 0).astype(int) + (y > 1)
    forest = Est(n_estimators=12, max_depth=6, random_state=0).fit(X, y)
    predict = forest.predict if Est is not tb.ExtraTreesClassifier else forest.predict_proba
    want = predict(X)
    for n_jobs in (2, 3, 4):
        forest.set_params(n_jobs=n_jobs)
        np.testing.assert_array_equal(predict(X), want)
    # the same sums as one output per chunk of trees (up to the order of the additions)
    n_outputs = forest.estimators_[0].tree_.value.shape[1]
    old = _sum_by_chunks_of_trees(forest, X, 8) / len(forest.estimators_)
    np.testing.assert_allclose(
        want.reshape(-1, n_outputs) if want.ndim == 1 else want,
        old.reshape(want.shape[0], -1),
        rtol=1e-12,
        atol=1e-15,
    )


@pytest.mark.parametrize(
    "check_name",
    [
        "check_sample_weight_equivalence_on_dense_data",
        "check_sample_weight_equivalence_on_sparse_data",
    ],
)
@pytest.mark.parametrize("Est", [tb.ExtraTreesClassifier, tb.ExtraTreesRegressor])
def test_extra_trees_weights_act_as_repeated_rows(Est, check_name):
    # the children of a split were examined lighter-in-rows first: a row of weight 3
    # against three copies of it changed which child drew its random cuts first
    from sklearn.utils import estimator_checks

    getattr(estimator_checks, check_name)(Est.__name__, Est())
