"""Importing treeboost leaves the process as it was: no environment variable (such as
OpenMP's wait policy, which GNU OpenMP reads once for every library in the process) and
no numba setting changed."""

import os
import subprocess
import sys

import pytest

# scikit-learn sets two variables of Intel's OpenMP when it is imported: imported first.
# numba defines its error messages' colour scheme only where colorama is installed
SHOW = """
import os, numba, sklearn.ensemble
from numba.core import codegen, errors, inline_closurecall, targetconfig
def state():
    scheme = getattr(errors, "HighlightColorScheme", None)
    return (dict(os.environ), numba.config.THREADING_LAYER, numba.config.NUMBA_NUM_THREADS,
            targetconfig.TargetConfig.__eq__, targetconfig.TargetConfig.__hash__,
            getattr(scheme, "_markup", None), codegen.CPUCodeLibrary._optimize_functions,
            codegen.CPUCodeLibrary._optimize_final_module,
            vars(inline_closurecall).copy())
before = state()
import treeboost
treeboost.DecisionTreeClassifier().fit([[0.0], [1.0]], [0, 1])
after = state()
print(before == after, os.environ.get('OMP_WAIT_POLICY'))
"""


@pytest.mark.parametrize("preset", [None, "ACTIVE", "PASSIVE"])
def test_import_changes_no_environment_variable_nor_numba(preset):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    if preset:
        env["OMP_WAIT_POLICY"] = preset
    out = subprocess.run(
        [sys.executable, "-c", SHOW], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[-2:] == ["True", str(preset)]


FIT_ALL = """
import warnings
import numpy as np
import treeboost as tb
from sklearn.datasets import make_classification
X, y = make_classification(n_samples=3000, n_features=20, random_state=0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for est in (tb.DecisionTreeClassifier(), tb.GradientBoostingClassifier(n_estimators=2),
                tb.RandomForestClassifier(n_estimators=2), tb.ExtraTreesClassifier(n_estimators=2),
                tb.HistGradientBoostingRegressor(loss="absolute_error", max_iter=2)):
        est.fit(X, y).predict(X)
    tb.engine.BinMapper(subsample=1000, random_state=0).fit(X)
print([str(w.message) for w in caught if "Cannot cache" in str(w.message)])
"""


def test_every_kernel_is_cached():
    # a kernel numba cannot cache (a dynamic global such as numba.set_parallel_chunksize
    # or numba.get_num_threads) would be compiled again in every new process; each fit
    # here runs the parallel and the serial grower (3000 x 20 rows reach
    # PARALLEL_GROWER_MIN_WORK), the leaves' quantiles and a subsampled binning
    out = subprocess.run(
        [sys.executable, "-c", FIT_ALL], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[-2] == "[]"
