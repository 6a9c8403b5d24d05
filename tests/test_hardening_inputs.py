"""Inputs that once crashed the process or were accepted silently: an all-zero sparse X,
a malformed sparse X, non-finite class weights, huge integer parameters.

The crash cases run in a subprocess with a timeout, so that a segfault fails the test
instead of ending the test run."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

import treeboost as tb


def run_isolated(code, timeout=300):
    """Run ``code`` in a fresh interpreter; assert it exits 0 and return its stdout."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-3000:])
    return proc.stdout


#: every estimator of binary trees, by family
FAMILIES = {
    "trees": ["DecisionTreeClassifier", "DecisionTreeRegressor", "ExtraTreeClassifier",
              "ExtraTreeRegressor"],
    "forests": ["RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier",
                "ExtraTreesRegressor"],
    "bagging": ["BaggingClassifier", "BaggingRegressor"],
    "adaboost": ["AdaBoostClassifier", "AdaBoostRegressor"],
    "gradient_boosting": ["GradientBoostingClassifier", "GradientBoostingRegressor"],
    "hist_gradient_boosting": ["HistGradientBoostingClassifier",
                               "HistGradientBoostingRegressor"],
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
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    return proc.returncode, proc.stdout.splitlines(), proc.stderr[-3000:]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_all_zero_sparse_X_fits_a_constant_model(family, all_zero_sparse_fits):
    # no entry of X differs from its feature's code of 0: the codes had no entry and
    # the grower indexed its empty sparse buffers (a segfault)
    rc, lines, err = all_zero_sparse_fits
    want = [f"{family} {name} {fmt} ok" for name in FAMILIES[family]
            for fmt in ("csr_matrix", "csc_matrix")]
    assert all(w in lines for w in want), (rc, lines, err)
