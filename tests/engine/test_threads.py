"""numba's OpenMP workers wait passively unless the user chose (engine/_threads.py)."""
import os
import subprocess
import sys

import pytest

SHOW = "import treeboost, os; print(os.environ.get('OMP_WAIT_POLICY'))"


@pytest.mark.parametrize("preset, expected", [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_wait_policy_is_passive_unless_set(preset, expected):
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    if preset:
        env["OMP_WAIT_POLICY"] = preset
    out = subprocess.run([sys.executable, "-c", SHOW], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out[-1] == expected


FIT_ALL = """
import warnings
import numpy as np
import treeboost as tb
from sklearn.datasets import make_classification
X, y = make_classification(n_samples=3000, n_features=20, random_state=0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for est in (tb.DecisionTreeClassifier(), tb.GradientBoostingClassifier(n_estimators=2),
                tb.RandomForestClassifier(n_estimators=2), tb.ExtraTreesClassifier(n_estimators=2)):
        est.fit(X, y).predict(X)
print([str(w.message) for w in caught if "Cannot cache" in str(w.message)])
"""


def test_every_kernel_is_cached():
    # a kernel numba cannot cache (a dynamic global such as numba.set_parallel_chunksize)
    # would be compiled again in every new process; each fit here runs the parallel and
    # the serial grower (3000 x 20 rows reach PARALLEL_GROWER_MIN_WORK)
    out = subprocess.run([sys.executable, "-c", FIT_ALL], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[-2] == "[]"
