"""The build's compilation of the kernels (treeboost/_prebuild.py) and the build backend
that runs it (tools/prebuild_backend.py), without compiling: what they decide."""

import os
import sys
from pathlib import Path

import pytest

from treeboost import _prebuild

# the backend wraps setuptools' (a new venv of Python 3.12+ has no setuptools)
pytest.importorskip("setuptools.build_meta")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import prebuild_backend  # noqa: E402


def test_a_failing_case_is_reported_and_the_others_run(monkeypatch, capsys):
    ran = []

    def broken():
        raise RuntimeError("no such kernel")

    monkeypatch.setattr(
        _prebuild,
        "CASES",
        {"a": lambda: ran.append("a"), "b": broken, "c": lambda: ran.append("c")},
    )
    assert _prebuild.run_cases(["a", "b", "c"]) == ["b"]
    assert ran == ["a", "c"]
    assert "case 'b' failed: RuntimeError('no such kernel')" in capsys.readouterr().err


@pytest.mark.parametrize(
    "jobs, shares",
    [
        (1, [["trees", "large", "boosting", "forests", "structured", "inputs"]]),
        (2, [["trees", "boosting", "structured"], ["large", "forests", "inputs"]]),
        (8, [["trees"], ["large"], ["boosting"], ["forests"], ["structured"], ["inputs"]]),
    ],
)
def test_cases_are_dealt_to_the_processes(jobs, shares):
    assert _prebuild._split(list(_prebuild.CASES), jobs) == shares


def test_every_case_is_a_function_of_no_argument():
    assert all(callable(case) for case in _prebuild.CASES.values())


@pytest.mark.parametrize(
    "settings, env, wanted",
    [
        (None, {}, True),
        ({"prebuild": "false"}, {}, False),
        ({"prebuild": "0"}, {}, False),
        ({"prebuild": "true"}, {}, True),
        (None, {"TREEBOOST_SKIP_PREBUILD": "1"}, False),
    ],
)
def test_the_build_compiles_unless_told_not_to(settings, env, wanted, monkeypatch):
    monkeypatch.delenv("TREEBOOST_SKIP_PREBUILD", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert prebuild_backend._wanted(settings) is wanted


def test_setuptools_gets_the_other_settings():
    assert prebuild_backend._for_setuptools({"prebuild": "0", "x": "1"}) == {"x": "1"}
    assert prebuild_backend._for_setuptools({"prebuild": "0"}) is None
    assert prebuild_backend._for_setuptools(None) is None


@pytest.mark.parametrize("given, wanted", [(None, None), ("1", "2"), ("", None), ("8", "8")])
def test_each_worker_has_two_threads_at_least(given, wanted, monkeypatch):
    """A large tree grows with the parallel grower, which the build then compiles, only
    with two threads or more (numba's default is the cores, one on a one-core machine)."""
    from treeboost.engine import kernel_cache

    if given is None:
        monkeypatch.delenv("NUMBA_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("NUMBA_NUM_THREADS", given)
    monkeypatch.setenv(kernel_cache.DISABLE_ENV, "0")
    env = _prebuild.worker_env(1)
    expected = wanted or str(max(2, os.cpu_count() or 1))
    assert env["NUMBA_NUM_THREADS"] == expected
    assert env[kernel_cache.PREBUILD_ENV] == "part1"
    assert kernel_cache.DISABLE_ENV not in env
