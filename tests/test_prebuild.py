"""The build's compilation of the kernels (treeboost/_prebuild.py) and the build backend
that runs it (tools/prebuild_backend.py), without compiling: what they decide."""

import json
import os
import re
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
        (1, [["first", "trees", "large", "boosting", "forests", "structured", "inputs"]]),
        (2, [["first", "large", "forests", "inputs"], ["trees", "boosting", "structured"]]),
        (
            8,
            [
                ["first"],
                ["trees"],
                ["large"],
                ["boosting"],
                ["forests"],
                ["structured"],
                ["inputs"],
            ],
        ),
    ],
)
def test_cases_are_dealt_to_the_processes(jobs, shares):
    assert _prebuild._split(list(_prebuild.CASES), jobs) == shares


def test_every_case_is_a_function_of_no_argument():
    assert all(callable(case) for case in _prebuild.CASES.values())


@pytest.mark.parametrize(
    "settings, env, wanted",
    [
        (None, {}, "first"),
        ({"prebuild": "false"}, {}, None),
        ({"prebuild": "0"}, {}, None),
        ({"prebuild": "true"}, {}, "first"),
        ({"prebuild": "all"}, {}, "all"),
        ({"prebuild": "all"}, {"TREEBOOST_SKIP_PREBUILD": "1"}, None),
        (None, {"TREEBOOST_SKIP_PREBUILD": "1"}, None),
    ],
)
def test_the_build_compiles_unless_told_not_to(settings, env, wanted, monkeypatch):
    monkeypatch.delenv("TREEBOOST_SKIP_PREBUILD", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert prebuild_backend._wanted(settings) == wanted
    if wanted:
        assert wanted in _prebuild.GROUPS


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
    # a layer elsewhere than the package's: the part's whole path
    assert _prebuild.worker_env(0, "/x/layer")[kernel_cache.PREBUILD_ENV] == str(
        Path("/x/layer").resolve() / "part0"
    )


class _FakeWorker:
    """A worker process that prints its case lines and compiles nothing."""

    def __init__(self, cmd, env, stdout, text):
        cases = cmd[cmd.index("--cases") + 1].split(",")
        self.stdout = iter(
            [f"{_prebuild.CASE_LINE} {name} 1.5 {i + 3}\n" for i, name in enumerate(cases)]
        )
        self.returncode = 0

    def poll(self):
        return 0


@pytest.fixture
def layers(tmp_path, monkeypatch):
    """The package's layer and the user's cache folder in tmp_path; workers faked."""
    from treeboost.engine import kernel_cache

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(kernel_cache.config, "CACHE_DIR", str(tmp_path / "cache"))
    kernel_cache.cache_dir.cache_clear()
    monkeypatch.setattr(_prebuild.subprocess, "Popen", _FakeWorker)
    monkeypatch.setattr(_prebuild, "POLL_SECONDS", 0.0)
    yield tmp_path / "package" / "_prebuilt", kernel_cache.user_prebuilt_dir()
    kernel_cache.cache_dir.cache_clear()


def test_the_build_says_what_it_compiles_and_keeps_a_copy(layers, capsys):
    package, cached = layers
    report = _prebuild.prebuild(jobs=2, cases=["trees", "large", "boosting"], folder=package)
    err = capsys.readouterr().err
    # one line per case, numbered as they finish, and the count of kernels compiled
    assert re.search(r"kernels \[[12]/3\] trees: 3 compiled in 2 s", err)
    assert re.search(r"kernels \[[23]/3\] boosting: 4 compiled", err)
    assert "kernels [3/3]" in err
    assert report.compiled == 3 + 4 + 3 and report.reused is None
    manifest = json.loads((package / "manifest.json").read_text())
    assert manifest["compiled"] == 10 and manifest["failed_processes"] == 0
    # kept for the next build of this source on this machine
    assert json.loads((cached / "manifest.json").read_text()) == manifest


def test_a_second_build_copies_or_keeps_the_kernels(layers, capsys, monkeypatch):
    package, cached = layers
    _prebuild.prebuild(jobs=1, cases=["trees"], folder=package)
    monkeypatch.setattr(
        _prebuild.subprocess, "Popen", lambda *a, **k: pytest.fail("compiled again")
    )
    # the same folder: nothing to do
    assert _prebuild.prebuild(cases=["trees"], folder=package).reused == str(package)
    # another source tree of the same source (an editable install, another venv)
    other = package.parent.parent / "other" / "_prebuilt"
    report = _prebuild.prebuild(cases=["trees"], folder=other)
    assert report.reused == str(cached) and report.compiled == 0
    assert (other / "manifest.json").read_text() == (cached / "manifest.json").read_text()
    assert "copied from" in capsys.readouterr().err


def test_a_layer_of_fewer_cases_or_a_failed_one_is_compiled_again(layers, monkeypatch):
    from treeboost.engine import kernel_cache

    package, cached = layers
    _prebuild.prebuild(jobs=1, cases=["trees"], folder=package)
    assert not _prebuild.complete(package, ["trees", "large"])
    assert _prebuild.complete(package, ["trees"])
    manifest = kernel_cache.read_manifest(package)
    kernel_cache.write_manifest({**manifest, "failed_processes": 1}, folder=package)
    assert not _prebuild.complete(package, ["trees"])
    manifest["source"] = "0" * 64  # (write_manifest stamps this source's digest)
    (package / "manifest.json").write_text(json.dumps(manifest))
    assert not _prebuild.complete(package, ["trees"])


def test_unknown_cases_are_refused(layers):
    with pytest.raises(ValueError, match="no such case \\['tres'\\]"):
        _prebuild.prebuild(cases=["tres"])
