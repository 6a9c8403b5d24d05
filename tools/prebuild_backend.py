"""treeboost's build backend: setuptools', and the engine's kernels compiled once.

``pyproject.toml`` names this module as the build backend (``backend-path``).  Building
a wheel, or installing in editable mode, first runs ``python -m treeboost._prebuild
--package`` on the source tree, which puts the numba kernels of the first hour's fits (the Quick
start's, ``treeboost demo``'s; ``--config-settings prebuild=all``: of every common fit) into
``treeboost/engine/_prebuilt`` (see :mod:`treeboost.engine.kernel_cache`); setuptools
then builds as usual, and the folder goes into the wheel as package data (listed in its
``RECORD``: ``pip uninstall`` removes it).

The kernels are compiled once per source, machine and numba: the build keeps a copy in
the user's cache folder (``~/.cache/treeboost/<version>-<source>-<cpu>-<settings>/``),
and a later build of the same source (an editable install after a regular one, another
virtual environment) copies it instead of compiling; a build whose source tree holds
them already does nothing.  Compiling prints a line per group of fits on stderr, which
pip shows with ``pip install -v`` (pip 23 to 26 show a build backend's output only with
``-v``, or when the build fails).

The kernels are for the machine that builds: a wheel built here and installed on a
machine with another CPU, or beside another numba, loads none of them and compiles
as it would without them.  The build does not fail when compiling fails: it says so
and builds without the kernels.  It skips them when the environment variable
``TREEBOOST_SKIP_PREBUILD`` is set, or with ``--config-settings prebuild=false``.
An sdist never carries them.
"""

import os
import subprocess
import sys

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (
    build_sdist,
    get_requires_for_build_editable,  # noqa: F401
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)


#: seconds after which the build gives up compiling (it takes a few minutes at most on a
#: slow machine) and builds without the kernels
PREBUILD_TIMEOUT = 1800


def _wanted(config_settings):
    """The group of kernels to compile (``treeboost._prebuild.GROUPS``), or None."""
    if os.environ.get("TREEBOOST_SKIP_PREBUILD"):
        return None
    setting = str((config_settings or {}).get("prebuild", "first")).lower()
    if setting in ("0", "false", "no", "off"):
        return None
    return "all" if setting == "all" else "first"


def _prebuild(config_settings):
    group = _wanted(config_settings)
    if group is None:
        print("treeboost: building without the compiled kernels", file=sys.stderr, flush=True)
        return
    # the source tree first on the path, the build environment's packages after it
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.getcwd()] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    try:
        subprocess.run(
            [sys.executable, "-m", "treeboost._prebuild", "--package", "--group", group],
            env=env,
            check=True,
            timeout=PREBUILD_TIMEOUT,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        print(
            f"treeboost: the kernels were not compiled ({exc}); the first fit will compile them",
            file=sys.stderr,
            flush=True,
        )


def _for_setuptools(config_settings):
    """The settings without this backend's own."""
    if not config_settings:
        return config_settings
    return {k: v for k, v in config_settings.items() if k != "prebuild"} or None


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _prebuild(config_settings)
    return _setuptools.build_wheel(
        wheel_directory, _for_setuptools(config_settings), metadata_directory
    )


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _prebuild(config_settings)
    return _setuptools.build_editable(
        wheel_directory, _for_setuptools(config_settings), metadata_directory
    )
