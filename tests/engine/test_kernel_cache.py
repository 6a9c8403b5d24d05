"""The prebuilt kernels (engine/kernel_cache.py): what the build compiles is loaded, not
compiled again, in a process whose numba cache is empty; it is left out when the source,
the code-generation settings or the user say so; a signature it lacks is compiled and
cached by numba as usual.  Each step runs in a fresh process (numba keeps what it
compiled in memory)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from treeboost.engine import kernel_cache

KERNEL_MODULE = textwrap.dedent("""
    import numpy as np
    from treeboost.engine._numba.jit import kernel

    @kernel
    def total(values):
        s = 0.0
        for v in values:
            s += v
        return s
""")

RUN = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    import numpy as np
    import treeboost.engine.kernel_cache as kc
    kc.PREBUILT_DIR = Path(sys.argv[1])
    import kmod
    arg = np.arange(4.0) if sys.argv[2] == "float" else np.arange(4)
    assert kmod.total(arg) == 6
    if sys.argv[3] == "build":
        kc.write_manifest()
    stats = kmod.total.stats
    print("RESULT " + json.dumps({"hits": sum(stats.cache_hits.values()),
                                  "misses": sum(stats.cache_misses.values())}))
""")


@pytest.fixture
def place(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kmod.py").write_text(KERNEL_MODULE)
    (tmp_path / "numba_cache").mkdir()
    return tmp_path


def _run(place, arg="float", build=False, **env):
    # numba's settings only as each step gives them (a bounds-checked test run must not
    # make the build and the use agree)
    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in (kernel_cache.PREBUILD_ENV, kernel_cache.DISABLE_ENV)
        and not k.startswith("NUMBA_")
    }
    environ.update(
        PYTHONPATH=os.pathsep.join([str(place / "src"), os.environ.get("PYTHONPATH", "")]),
        NUMBA_CACHE_DIR=str(place / "numba_cache"),
        **env,
    )
    if build:
        environ[kernel_cache.PREBUILD_ENV] = "part0"
    out = subprocess.run(
        [sys.executable, "-c", RUN, str(place / "prebuilt"), arg, "build" if build else "use"],
        env=environ,
        capture_output=True,
        text=True,
        check=True,
    )
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT ") :])


def _numba_cache_files(place):
    return [name for _, _, names in os.walk(place / "numba_cache") for name in names]


def test_build_then_load_without_compiling(place):
    built = _run(place, build=True)
    assert built == {"hits": 0, "misses": 1}
    assert sorted(p.suffix for p in (place / "prebuilt" / "part0").iterdir()) == [".nbc", ".nbi"]
    assert _numba_cache_files(place) == []  # the build writes only its part
    assert _run(place) == {"hits": 1, "misses": 0}
    assert _numba_cache_files(place) == []  # nothing compiled, nothing cached


def test_a_signature_the_build_lacks_is_compiled_and_cached_by_numba(place):
    _run(place, build=True)
    assert _run(place, arg="int") == {"hits": 0, "misses": 1}
    assert _numba_cache_files(place)
    assert _run(place, arg="int") == {"hits": 1, "misses": 0}  # numba's own cache


def test_left_out_when_the_user_turns_it_off(place):
    _run(place, build=True)
    assert _run(place, **{kernel_cache.DISABLE_ENV: "0"}) == {"hits": 0, "misses": 1}


def test_left_out_under_other_code_generation(place):
    _run(place, build=True)
    # bounds checks are not in numba's cache key: a prebuilt kernel has none
    assert _run(place, NUMBA_BOUNDSCHECK="1") == {"hits": 0, "misses": 1}


def test_a_changed_source_is_compiled_again(place):
    _run(place, build=True)
    with open(place / "src" / "kmod.py", "a") as f:
        f.write("\n# edited after the build\n")
    assert _run(place) == {"hits": 0, "misses": 1}


def test_manifest(tmp_path, monkeypatch):
    # (whatever the switch of the process running the tests says)
    monkeypatch.delenv(kernel_cache.DISABLE_ENV, raising=False)
    assert kernel_cache.read_manifest(tmp_path) is None
    assert not kernel_cache.prebuilt_usable(tmp_path)
    kernel_cache.write_manifest({"cases": ["trees"]}, folder=tmp_path)
    manifest = kernel_cache.read_manifest(tmp_path)
    assert manifest["cases"] == ["trees"]
    assert manifest["code_generation"] == kernel_cache.code_generation()
    assert kernel_cache.prebuilt_usable(tmp_path)
    # compiled from another source of the package: a kernel there may hold the old code
    # of a kernel it calls, in another file, which numba's key does not see
    manifest["source"] = "0" * 64
    (tmp_path / kernel_cache.MANIFEST).write_text(json.dumps(manifest))
    assert not kernel_cache.prebuilt_usable(tmp_path)
    (tmp_path / kernel_cache.MANIFEST).write_text("[1, 2]")
    assert kernel_cache.read_manifest(tmp_path) is None


def test_package_digest_follows_every_source_file_of_kernels(tmp_path, monkeypatch):
    """Every module that compiles kernels counts, and every module of the engine; editing
    another module (the command line, the model files) keeps the compiled kernels."""
    for name, text in (
        ("a.py", "import numba\nx = 1\n"),
        ("sub/b.py", "from ..engine._jit import kernel\nx = 1\n"),
        ("engine/c.py", "x = 1\n"),
        ("cli.py", "x = 1\n"),
    ):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.setattr(kernel_cache, "PACKAGE_DIR", tmp_path)
    kernel_cache.package_digest.cache_clear()
    try:
        digests = [kernel_cache.package_digest()]
        for name in ("sub/b.py", "engine/c.py", "cli.py"):
            with open(tmp_path / name, "a") as f:
                f.write("y = 2\n")
            kernel_cache.package_digest.cache_clear()
            digests.append(kernel_cache.package_digest())
        assert digests[0] != digests[1] != digests[2] == digests[3]
    finally:
        kernel_cache.package_digest.cache_clear()


FIRST_FITS = textwrap.dedent("""
    import json
    import numpy as np
    from numba.core import event
    compiled = []

    class Listener(event.Listener):
        def on_start(self, ev):
            compiled.append(getattr(ev.data["dispatcher"].py_func, "__qualname__", "?"))
        def on_end(self, ev):
            pass

    event.register("numba:compile", Listener())
    import treeboost as tb
    from treeboost.datasets import load_titanic
    data = load_titanic()
    X = data.data[["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]]
    y = np.asarray(data.target)
    for model in (tb.DecisionTreeClassifier(max_depth=3),
                  tb.GradientBoostingClassifier(n_estimators=10),
                  tb.RandomForestClassifier(n_estimators=10),
                  tb.ExtraTreesClassifier(n_estimators=10),
                  tb.BaggingClassifier(n_estimators=10),
                  tb.AdaBoostClassifier(n_estimators=10)):
        model.fit(X, y).predict_proba(X)
    print("RESULT " + json.dumps(compiled))
""")


@pytest.mark.skipif(
    not kernel_cache.prebuilt_usable(),
    reason="treeboost was installed without its prebuilt kernels",
)
def test_installed_kernels_cover_the_first_fits(tmp_path):
    """The fits of the Quick start and the demo compile nothing on a fresh machine."""
    environ = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    environ.pop(kernel_cache.DISABLE_ENV, None)
    out = subprocess.run(
        [sys.executable, "-c", FIRST_FITS], env=environ, capture_output=True, text=True, check=True
    )
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    assert json.loads(line[len("RESULT ") :]) == []


def test_every_module_with_kernels_counts_in_the_digest():
    """A module whose kernels take the engine's decorators through its surface
    (``from ..engine import kernel``) names neither numba nor ``_jit``; it still counts,
    so that editing a kernel it holds invalidates the kernels that inline it."""
    import re
    from pathlib import Path

    import treeboost
    from treeboost.engine.kernel_cache import kernel_sources

    root = Path(treeboost.__file__).parent
    decorated = re.compile(r"^\s*@(kernel|parallel_kernel|internal|inlined|compiled)\b", re.M)
    with_kernels = {
        p for p in root.rglob("*.py") if decorated.search(p.read_text(encoding="utf-8"))
    }
    assert root / "oblique" / "_search.py" in with_kernels
    assert with_kernels <= set(kernel_sources())
