"""Hardening: C4.5's cut between adjacent values that a midpoint cannot separate, and
model files that would cost far more to load or use than they store (nested archives,
JSON object counts, bagging draw plans, deep trees, inconsistent parts)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest


def _run(code, timeout=120):
    """Run ``code`` in a child Python; return (returncode, stdout + stderr)."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout + proc.stderr


# -- C4.5: a cut between two adjacent values always separates them -----------------------

_ADJACENT = {
    # (1 + eps) and (1 + 2 eps): the midpoint rounds (to even) onto the larger one
    "one_ulp": (1.0 + 2.0 ** -52, 1.0 + 2.0 ** -51),
    # the sum overflows to inf: every row goes left
    "huge": (1e308, 1.7e308),
    "huge_negative": (-1.7e308, -1e308),
    "opposite_huge": (-1.7e308, 1.7e308),
    # subnormals: 1.5 units of the least subnormal round onto 2 units
    "subnormal": (5e-324, 1e-323),
}


def test_c45_cut_between_adjacent_values_ends():
    # one child for every case (an import of treeboost each would be slow); it reports
    # each case as it ends, so a hang names the cases that did not
    code = f"""
        import numpy as np
        from treeboost import C45Classifier, RuleListClassifier
        y = np.array([0, 1] * 3)
        for case, (a, b) in {_ADJACENT!r}.items():
            X = np.array([[a], [b]] * 3)
            for model in (C45Classifier, RuleListClassifier):
                m = model().fit(X, y)
                assert (m.predict(X) == y).all(), (case, model.__name__, m.predict(X))
                print(case, model.__name__, "ok", flush=True)
    """
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = proc.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        pytest.fail(f"C4.5 did not end; cases that did:\n{out}")
    assert proc.returncode == 0, out
    assert out.count(" ok") == 2 * len(_ADJACENT), out


def test_c45_threshold_lies_between_the_values():
    from treeboost.trees.classic import _midpoint
    for a, b in _ADJACENT.values():
        t = _midpoint(a, b)
        assert a <= t < b, (a, b, t)
    assert _midpoint(1.0, 3.0) == 2.0
    assert _midpoint(0.25, 0.5) == (0.25 + 0.5) / 2
