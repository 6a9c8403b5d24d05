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
