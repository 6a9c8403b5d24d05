"""Where the engine's compiled kernels are kept: numba's on-disk cache, with a layer of
kernels compiled when treeboost was installed.

numba compiles a kernel the first time it is called with a new signature and keeps the
machine code in its on-disk cache (``NUMBA_CACHE_DIR``, a ``__pycache__`` folder beside
the source, or the user's cache folder).  On a machine whose cache is empty (a fresh
install, a CI run, a new container or Dask worker) the first fit therefore waits for the
whole engine to compile.  To spare users that wait, installing treeboost compiles the
kernels of its common fits once (:mod:`treeboost._prebuild`, run by the build backend
in ``tools/prebuild_backend.py``) into :data:`PREBUILT_DIR`, a folder of the package.

:class:`KernelCache` is the cache of every engine kernel (:mod:`._jit` attaches it).  It
is numba's :class:`~numba.core.caching.FunctionCache` with that layer in front:

* **load**: the prebuilt kernel when there is one for the signature, the machine and this
  numba, else numba's own cache; a kernel compiled for another CPU, another numba or
  another source is not found (numba's index keys carry the CPU and the bytecode; the
  index carries numba's version; the layer's stamp is a digest of the package's source,
  since a kernel holds the code of the kernels it calls, from other files, which
  numba's own cache does not follow);
* **save**: numba's own cache, as for any cached function: the prebuilt layer is only
  written while the package is being built (environment variable :data:`PREBUILD_ENV`).

The layer is left out when numba's code generation is configured otherwise than it was
at the build (``NUMBA_OPT``, ``NUMBA_BOUNDSCHECK``, debug information: none of them is
in numba's index key), and when :data:`DISABLE_ENV` is ``"0"`` (to measure a cold
start: ``benchmarks/compile_time.py``).
"""

import functools
import hashlib
import json
import os
import sys
from pathlib import Path

import numba
from numba.core import config
from numba.core.caching import FunctionCache, IndexDataCacheFile

#: the package's folder of kernels compiled at installation
PREBUILT_DIR = Path(__file__).resolve().parent / "_prebuilt"
#: the package whose source the prebuilt kernels were compiled from
PACKAGE_DIR = Path(__file__).resolve().parents[1]
#: the file that says how the prebuilt kernels were compiled
MANIFEST = "manifest.json"
#: set while the package is built, to the name of this process's part of
#: :data:`PREBUILT_DIR`: every engine kernel compiled in the process is saved there, and
#: loaded only from the prebuilt parts, never from numba's cache (each building process
#: writes a part of its own: numba's index files are not safe to update from two
#: processes at once)
PREBUILD_ENV = "TREEBOOST_PREBUILD"
#: ``"0"`` leaves the prebuilt kernels out (every kernel then comes from numba's cache
#: or is compiled)
DISABLE_ENV = "TREEBOOST_PREBUILT"


def code_generation():
    """numba's settings that change a kernel's machine code but not numba's cache key
    (a prebuilt kernel is used only under the settings it was compiled with)."""
    return {
        "numba": numba.__version__,
        "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
        "opt": int(config.OPT),
        "boundscheck": bool(config.BOUNDSCHECK),
        "debuginfo": bool(config.DEBUGINFO_DEFAULT),
        "fastmath": bool(getattr(config, "FASTMATH", False)),
    }


def building():
    """The part of :data:`PREBUILT_DIR` this process compiles kernels into (the package's
    build), or None."""
    part = os.environ.get(PREBUILD_ENV)
    return PREBUILT_DIR / part if part else None


def read_manifest(folder=None):
    """The manifest of the prebuilt kernels in ``folder`` (default
    :data:`PREBUILT_DIR`), or None when there is none (or it cannot be read)."""
    folder = PREBUILT_DIR if folder is None else folder
    try:
        with open(Path(folder) / MANIFEST, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def prebuilt_usable(folder=None):
    """Whether the kernels in ``folder`` (default :data:`PREBUILT_DIR`) may be loaded in
    this process: they exist, they were compiled with this process's code-generation
    settings, and the user did not turn them off."""
    folder = PREBUILT_DIR if folder is None else folder
    if os.environ.get(DISABLE_ENV, "1") == "0":
        return False
    manifest = read_manifest(folder)
    return (
        manifest is not None
        and manifest.get("code_generation") == code_generation()
        and manifest.get("source") == package_digest()
    )


def write_manifest(extra=None, folder=None):
    """Record how the kernels in ``folder`` (default :data:`PREBUILT_DIR`) were compiled
    (the build calls it once they are)."""
    folder = PREBUILT_DIR if folder is None else folder
    manifest = {"code_generation": code_generation(), "source": package_digest(), **(extra or {})}
    with open(Path(folder) / MANIFEST, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)


@functools.lru_cache(maxsize=None)
def package_digest():
    """A digest of every Python source file of treeboost.  A kernel's machine code holds
    the code of the kernels it calls, which may live in other files, and numba's cache
    key knows only the kernel's own bytecode: after any change to the package's source,
    no prebuilt kernel is loaded until they are compiled again."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


@functools.lru_cache(maxsize=None)
def _module_digest(path):
    """A digest of one module's source (read once per process, whatever the number of
    its kernels)."""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _source_stamp(py_func):
    """The stamp of a kernel's prebuilt entries: the package's digest and its module's
    (numba's own stamp is the file's modification time in older versions, which an
    installation changes)."""
    return package_digest(), _module_digest(py_func.__code__.co_filename)


#: the prebuilt parts each process loads from, by folder, decided once per process (the
#: manifest is read and the folder listed once, not once per kernel)
_parts_in_use = {}


def _parts():
    """The folders of prebuilt kernels this process loads from, none when the layer is
    not in use: while building, its own part first (the one it saves into), then the
    others, whose kernels the other building processes may already have compiled (the
    build makes every part before it starts them; numba writes each file whole, under a
    temporary name, so a part being written is safe to read)."""
    if PREBUILT_DIR not in _parts_in_use:
        own = building()
        if own is None and not prebuilt_usable():
            parts = []
        else:
            found = PREBUILT_DIR.iterdir() if PREBUILT_DIR.is_dir() else ()
            others = sorted(path for path in found if path.is_dir() and path != own)
            parts = others if own is None else [own] + others
        _parts_in_use[PREBUILT_DIR] = parts
    return _parts_in_use[PREBUILT_DIR]


class KernelCache(FunctionCache):
    """numba's on-disk cache of one kernel, with the prebuilt layer in front (see the
    module docstring).

    Parameters
    ----------
    py_func : function
        The kernel's Python function.
    """

    def __init__(self, py_func):
        super().__init__(py_func)
        parts = _parts()
        stamp = _source_stamp(py_func) if parts else None
        self._prebuilt = [
            IndexDataCacheFile(
                cache_path=str(part), filename_base=self._impl.filename_base, source_stamp=stamp
            )
            for part in parts
        ]

    def _load_overload(self, sig, target_context):
        if not self._enabled:
            return None
        if self._prebuilt:
            key = self._index_key(sig, target_context.codegen())
            for part in self._prebuilt:
                data = part.load(key)
                if data is not None:
                    return self._impl.rebuild(target_context, data)
        if building() is not None:
            # the build compiles every kernel its fits call, whatever the user's cache holds
            return None
        return super()._load_overload(sig, target_context)

    def _save_overload(self, sig, data):
        part = building()
        if part is None:
            return super()._save_overload(sig, data)
        if not self._enabled or not self._impl.check_cachable(data):
            return None
        part.mkdir(parents=True, exist_ok=True)
        self._prebuilt[0].save(self._index_key(sig, data.codegen), self._impl.reduce(data))
        return None
