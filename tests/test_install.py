"""Installing treeboost with pip, in a virtual environment of its own: what the review of
issue 57 found broken.  numba's cache files were written into ``site-packages`` at run
time, ``pip uninstall`` left them, and the folder they kept alive shadowed a later
editable install (``ImportError: cannot import name '__version__' from 'treeboost'
(unknown location)``); a folder named ``treeboost`` in the working directory (the clone,
seen from the folder that holds it) did the same to an editable install; a second
install of the same source compiled every kernel again.

Each test builds a fresh venv whose dependencies are the running interpreter's (a folder
of links to its ``site-packages``, treeboost left out), and installs a copy of this
source tree with ``--no-deps --no-build-isolation``.  The compile itself is not the
point: the first install skips it (``TREEBOOST_SKIP_PREBUILD=1``) or finds a layer of
kernels already in the user's cache folder, and one small kernel is compiled at run time.
"""

import json
import os
import shutil
import subprocess
import sysconfig
import textwrap
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not (ROOT / "pyproject.toml").is_file(), reason="needs the source tree (pyproject.toml)"
    ),
]

#: one small engine kernel compiled in the installed package (a second or two)
COMPILE_ONE = textwrap.dedent("""
    import numpy as np
    from treeboost.engine.statistics.samples import _integer_weights_below
    assert _integer_weights_below(np.ones(3), np.arange(3), 10.0)
    from treeboost import __version__
    print("OK", __version__)
""")


def _source_copy(target):
    """The source tree as git tracks it (or, without git, as it is), without build
    outputs: the test never builds in the clone itself."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout.split(b"\0")
        files = [name.decode() for name in listed if name]
    except (OSError, subprocess.CalledProcessError):
        files = [
            str(p.relative_to(ROOT))
            for p in ROOT.rglob("*")
            if p.is_file() and not {"build", "dist", ".git", "__pycache__"} & set(p.parts)
        ]
    for name in files:
        src = ROOT / name
        if src.is_file() and "_prebuilt" not in Path(name).parts:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target / name)
    return target


def _dependency_links(folder):
    """A folder of links to the running interpreter's installed packages, treeboost's own
    files left out (a new venv then imports numpy, numba and scikit-learn from there,
    and pip sees no treeboost)."""
    folder.mkdir()
    for key in ("purelib", "platlib"):
        site = Path(sysconfig.get_paths()[key])
        for entry in site.iterdir():
            name = entry.name.lower()
            if name.startswith(("treeboost", "__editable__")) or name.endswith(".pth"):
                continue
            if not (folder / entry.name).exists():
                (folder / entry.name).symlink_to(entry)
    return folder


@pytest.fixture
def env(tmp_path):
    """A fresh venv, the source copy, and the environment of every command (a cache
    folder of the test's own; no NUMBA_CACHE_DIR)."""
    source = _source_copy(tmp_path / "src" / "treeboost")
    # no pip of its own: the running interpreter's, through the links below
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(tmp_path / "venv")
    python = tmp_path / "venv" / ("Scripts" if os.name == "nt" else "bin") / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    links = _dependency_links(tmp_path / "deps")
    # after the venv's own site-packages: the installed treeboost comes first
    (Path(site) / "zz_test_dependencies.pth").write_text(str(links) + "\n")
    environ = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("NUMBA_", "TREEBOOST_", "PYTHON", "PIP_"))
    }
    environ.update(
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_INPUT="1",
    )
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    made = {
        "python": str(python),
        "site": Path(site),
        "source": source,
        "environ": environ,
        "outside": outside,
        "cache": tmp_path / "cache" / "treeboost",
    }
    if not _builds_wheels():
        # the build's requirements, which --no-build-isolation does not install
        got = _run(made, "-m", "pip", "install", "-q", "setuptools>=70.1", check=False)
        if got.returncode != 0:
            pytest.skip("no setuptools that builds wheels (>= 70.1, or wheel) to install")
    return made


def _builds_wheels():
    """Whether the running interpreter's setuptools builds wheels by itself (from 70.1)
    or with the wheel package."""
    import importlib.util

    import setuptools

    version = tuple(int(x) for x in setuptools.__version__.split(".")[:2] if x.isdigit())
    return version >= (70, 1) or importlib.util.find_spec("wheel") is not None


def _run(env, *args, cwd=None, check=True, **extra):
    out = subprocess.run(
        [env["python"], *args],
        cwd=cwd or env["outside"],
        env=dict(env["environ"], **extra),
        capture_output=True,
        text=True,
    )
    if check and out.returncode != 0:
        raise AssertionError(f"{args} failed:\n{out.stdout}\n{out.stderr}")
    return out


def _pip(env, *args, **extra):
    return _run(
        env, "-m", "pip", "install", "-v", "--no-deps", "--no-build-isolation", *args, **extra
    )


def _files_in_package(env):
    package = env["site"] / "treeboost"
    return sorted(str(p.relative_to(package)) for p in package.rglob("*") if p.is_file())


def test_uninstall_leaves_nothing_and_an_editable_install_imports_from_anywhere(env):
    _pip(env, str(env["source"]), TREEBOOST_SKIP_PREBUILD="1")
    assert "OK" in _run(env, "-c", COMPILE_ONE).stdout
    # the kernel went to the user's cache folder, nothing into the package
    numba_files = [f for f in _files_in_package(env) if f.endswith((".nbi", ".nbc"))]
    assert numba_files == []
    assert list(env["cache"].rglob("*.nbi"))
    _run(env, "-m", "pip", "uninstall", "-y", "treeboost")
    assert not (env["site"] / "treeboost").exists()
    _pip(env, "-e", str(env["source"]), TREEBOOST_SKIP_PREBUILD="1")
    # from a folder elsewhere, and from the folder that holds the clone (where the
    # clone's own folder, named treeboost, is a namespace package to Python)
    assert "OK 0.1.0" in _run(env, "-c", COMPILE_ONE).stdout
    holder = env["source"].parent
    assert "OK 0.1.0" in _run(env, "-c", COMPILE_ONE, cwd=holder).stdout


FAKE_LAYER = textwrap.dedent("""
    import sys
    from treeboost import _prebuild
    from treeboost.engine import kernel_cache
    layer = kernel_cache.user_prebuilt_dir()
    (layer / "part0").mkdir(parents=True)
    # a stand-in for a kernel's files: the layer is what the build copies, whole
    (layer / "part0" / "stand_in-1.py311.nbi").write_bytes(b"")
    (layer / "part0" / "stand_in-1.py311.1.nbc").write_bytes(b"")
    kernel_cache.write_manifest(
        {"parts": {"part0": {"cases": list(_prebuild.CASES)}}, "failed_processes": 0},
        folder=layer,
    )
    print(layer)
""")


def test_a_second_build_of_the_same_source_compiles_nothing(env):
    """The build copies the kernels of its source and machine from the user's cache
    folder (what a first build, or ``treeboost compile``, left there), into the wheel;
    an editable install afterwards finds them in the source tree."""
    layer = Path(_run(env, "-c", FAKE_LAYER, cwd=env["source"]).stdout.strip())
    regular = _pip(env, str(env["source"]))
    log = regular.stdout + regular.stderr
    assert "copied from" in log and "compiling the numba kernels" not in log
    installed = _files_in_package(env)
    assert "engine/_prebuilt/manifest.json" in installed
    assert "engine/_prebuilt/part0/stand_in-1.py311.nbi" in installed
    record = next(env["site"].glob("treeboost-*.dist-info")) / "RECORD"
    assert "treeboost/engine/_prebuilt/part0/stand_in-1.py311.1.nbc" in record.read_text()
    manifest = json.loads((env["site"] / "treeboost/engine/_prebuilt/manifest.json").read_text())
    assert manifest["source"] == json.loads((layer / "manifest.json").read_text())["source"]
    _run(env, "-m", "pip", "uninstall", "-y", "treeboost")
    assert not (env["site"] / "treeboost").exists()
    editable = _pip(env, "-e", str(env["source"]))
    log = editable.stdout + editable.stderr
    assert "already compiled" in log and "compiling the numba kernels" not in log
    assert "OK 0.1.0" in _run(env, "-c", COMPILE_ONE).stdout
