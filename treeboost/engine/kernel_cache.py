"""Where the engine's compiled kernels are kept: a cache folder of the user's, outside the
installed package, with a layer of kernels compiled when treeboost was installed.

numba compiles a kernel the first time it is called with a new signature and can keep
the machine code on disk.  Its own cache writes into a ``__pycache__`` folder beside the
source, which for an installed package is inside ``site-packages``: ``pip uninstall``
then leaves those files behind, and the folder they keep alive is a namespace package
that shadows any later (editable) install of treeboost.  :class:`KernelCache`, the cache
of every engine kernel (:mod:`._jit` attaches it), therefore keeps numba's files in
:func:`cache_dir` instead::

    $XDG_CACHE_HOME/treeboost/<version>-<source>-<cpu>-<settings>/   (~/.cache on Linux)
    $NUMBA_CACHE_DIR/treeboost/<...>/                                 (when it is set)

(``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows).  The folder's name says
what its kernels were compiled from: the package's version, a digest of the source of
every module that holds kernels (:func:`package_digest`; a kernel holds the code of the
kernels it calls, from other files, which numba's own key does not follow), the CPU, and
a digest of numba's version, Python's and numba's code-generation settings
(:func:`code_generation`).  A kernel compiled from other source or for another machine
is thus never loaded, and two installs of the same source (a regular and an editable
one, a second virtual environment) share one cache.  Only the most recently used
:data:`KEEP_CACHES` folders are kept.

In front of it sit the layers of kernels compiled ahead of time (by
:mod:`treeboost._prebuild`): :data:`PREBUILT_DIR`, a folder of the package that a wheel
carries as package data (listed in the wheel's ``RECORD``, so ``pip uninstall`` removes
it), and ``prebuilt/`` in :func:`cache_dir`, which ``treeboost compile`` and every build
of the package write (a second build of the same source copies it instead of compiling):

* **load**: a prebuilt kernel when a layer has one for the signature, else the cache's;
* **save**: the cache's, as for any cached function; a layer is only written while it
  is being built (environment variable :data:`PREBUILD_ENV`).  A save that fails (a
  read-only home, a folder removed meanwhile) is skipped: the kernel is compiled again
  by the next process, nothing else changes.

A layer is left out when its manifest says it was compiled from other source or under
other settings, and when :data:`DISABLE_ENV` is ``"0"`` (to measure a cold start:
``benchmarks/compile_time.py``).
"""

import functools
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import numba
from numba.core import config
from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    IndexDataCacheFile,
    _CacheLocator,
    _SourceFileBackedLocatorMixin,
)
from numba.misc.appdirs import AppDirs

#: the package's folder of kernels compiled at installation
PREBUILT_DIR = Path(__file__).resolve().parent / "_prebuilt"
#: the package whose source the prebuilt kernels were compiled from
PACKAGE_DIR = Path(__file__).resolve().parents[1]
#: the file that says how the prebuilt kernels were compiled
MANIFEST = "manifest.json"
#: set while a layer of prebuilt kernels is built, to the folder of this process's part
#: of it (a path, or a name in :data:`PREBUILT_DIR`): every engine kernel compiled in
#: the process is saved there, and loaded only from that layer's parts, never from the
#: cache (each building process writes a part of its own: numba's index files are not
#: safe to update from two processes at once)
PREBUILD_ENV = "TREEBOOST_PREBUILD"
#: ``"0"`` leaves the prebuilt kernels out (every kernel then comes from the cache or is
#: compiled)
DISABLE_ENV = "TREEBOOST_PREBUILT"
#: the cache folders (of other versions, sources, machines) kept besides the one in use;
#: older ones are removed when a process first uses its own
KEEP_CACHES = 8
#: the package's folders whose every module counts in :func:`package_digest` (outside
#: them, a module counts when it compiles kernels: see :func:`kernel_sources`)
ENGINE_DIRS = ("engine",)


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


def _host():
    """numba's description of the machine it compiles for: (target triple, CPU name, CPU
    features), the part of every cache key that says where a kernel runs."""
    from numba.core.registry import cpu_target

    return tuple(cpu_target.target_context.codegen().magic_tuple())


#: a kernel decorated by the engine's decorators imported through its surface
#: (``from ..engine import kernel``), whose module need not name numba or ``_jit``
_DECORATED = re.compile(r"^\s*@(kernel|parallel_kernel|internal|inlined|compiled)\b", re.M)


def kernel_sources():
    """The package's source files a compiled kernel can hold code or constants of: every
    module of :data:`ENGINE_DIRS`, and every other module that compiles kernels (its
    source names numba or ``_jit``, or decorates a function with the engine's
    decorators).  A kernel inlines the kernels it calls from other modules: each of
    them must count, or a kernel cached before an edit of its callee would run the old
    callee.  Editing any other file (the command line, the model files, the docs'
    examples) leaves every compiled kernel valid."""
    found = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        rel = path.relative_to(PACKAGE_DIR)
        if rel.parts[0] in ENGINE_DIRS:
            found.append(path)
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if "numba" in text or "_jit" in text or _DECORATED.search(text):
            found.append(path)
    return found


@functools.lru_cache(maxsize=None)
def package_digest():
    """A digest of the source of every module that holds kernels (:func:`kernel_sources`).
    A kernel's machine code holds the code of the kernels it calls, which may live in
    other files, and numba's cache key knows only the kernel's own bytecode: after any
    change to that source, no cached or prebuilt kernel is loaded until they are compiled
    again."""
    digest = hashlib.sha256()
    for path in kernel_sources():
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def cache_root():
    """The folder of treeboost's kernel caches: ``$NUMBA_CACHE_DIR/treeboost`` when the
    user set numba's cache folder, else treeboost's folder in the user's cache folder
    (``$XDG_CACHE_HOME``, by default ``~/.cache``, on Linux)."""
    if config.CACHE_DIR:
        return Path(config.CACHE_DIR) / "treeboost"
    return Path(AppDirs(appname="treeboost", appauthor=False).user_cache_dir)


@functools.lru_cache(maxsize=None)
def cache_tag():
    """The name of this process's cache folder in :func:`cache_root`: what its kernels
    were compiled from and for (see the module docstring)."""
    from treeboost import __version__

    triple, cpu, features = _host()
    settings = json.dumps([code_generation(), triple, features], sort_keys=True)
    cpu = re.sub(r"[^A-Za-z0-9_.]+", "_", cpu) or "cpu"
    return "-".join(
        [__version__, package_digest()[:12], cpu, hashlib.sha256(settings.encode()).hexdigest()[:8]]
    )


@functools.lru_cache(maxsize=None)
def cache_dir():
    """This process's cache folder (:func:`cache_root` / :func:`cache_tag`), marked as used
    now; the least recently used folders beyond :data:`KEEP_CACHES` are removed."""
    root = cache_root()
    folder = root / cache_tag()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)  # its modification time says when it was last used
        _prune(root, folder)
    except OSError:
        pass  # an unwritable cache: each process compiles what it needs (see KernelCache)
    return folder


def _prune(root, keep):
    """Remove the folders of :func:`cache_root` beyond the :data:`KEEP_CACHES` most
    recently used ones (another source of the package, another numba: their kernels are
    never loaded here again)."""
    others = []
    for path in root.iterdir():
        if path != keep and path.is_dir() and path.name.count("-") >= 3:
            try:
                others.append((path.stat().st_mtime, path))
            except OSError:
                continue
    others.sort(reverse=True)
    for _, path in others[KEEP_CACHES:]:
        shutil.rmtree(path, ignore_errors=True)


def user_prebuilt_dir():
    """The layer of prebuilt kernels in this process's cache folder (``treeboost compile``
    and every build of the package write it)."""
    return cache_dir() / "prebuilt"


def building():
    """The part of a layer this process compiles kernels into (while a layer is built),
    or None."""
    part = os.environ.get(PREBUILD_ENV)
    if not part:
        return None
    part = Path(part)
    return part if part.is_absolute() else PREBUILT_DIR / part


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


def prebuilt_matches(folder=None):
    """Whether the kernels in ``folder`` (default :data:`PREBUILT_DIR`) were compiled from
    this source under this process's code-generation settings (whatever the user's
    switch, :data:`DISABLE_ENV`, says)."""
    manifest = read_manifest(folder)
    return (
        manifest is not None
        and manifest.get("code_generation") == code_generation()
        and manifest.get("source") == package_digest()
    )


def prebuilt_usable(folder=None):
    """Whether the kernels in ``folder`` (default :data:`PREBUILT_DIR`) may be loaded in
    this process: they exist, they were compiled with this process's code-generation
    settings, and the user did not turn them off."""
    if os.environ.get(DISABLE_ENV, "1") == "0":
        return False
    return prebuilt_matches(folder)


def write_manifest(extra=None, folder=None):
    """Record how the kernels in ``folder`` (default :data:`PREBUILT_DIR`) were compiled
    (the build calls it once they are)."""
    folder = PREBUILT_DIR if folder is None else folder
    manifest = {"code_generation": code_generation(), "source": package_digest(), **(extra or {})}
    with open(Path(folder) / MANIFEST, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)


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


def _layer_parts(layer):
    return sorted(path for path in layer.iterdir() if path.is_dir()) if layer.is_dir() else []


#: the prebuilt parts this process loads from, decided once per process (the manifests
#: are read and the folders listed once, not once per kernel)
_parts_in_use = {}


def _parts():
    """The folders of prebuilt kernels this process loads from, none when no layer is in
    use.  While building a layer: its own part first (the one it saves into), then the
    layer's others, whose kernels the other building processes may already have
    compiled (the build makes every part before it starts them; numba writes each file
    whole, under a temporary name, so a part being written is safe to read).  Otherwise:
    the package's layer, then the cache folder's."""
    key = (PREBUILT_DIR, os.environ.get(PREBUILD_ENV))
    if key not in _parts_in_use:
        own = building()
        if own is not None:
            parts = [own] + [path for path in _layer_parts(own.parent) if path != own]
        else:
            layers = [PREBUILT_DIR]
            if os.environ.get(DISABLE_ENV, "1") != "0":
                layers.append(user_prebuilt_dir())
            usable = [layer for layer in layers if prebuilt_usable(layer)]
            parts = [part for layer in usable for part in _layer_parts(layer)]
        _parts_in_use[key] = parts
    return _parts_in_use[key]


def _module_subpath(py_file):
    """Where a module's kernels go in the cache folder: its folder's path in the package
    (``engine/grow``), or, for a module outside treeboost, a name numba would give it."""
    path = Path(py_file).resolve()
    try:
        rel = path.parent.relative_to(PACKAGE_DIR)
    except ValueError:
        return Path("_other") / _CacheLocator.get_suitable_cache_subpath(str(path))
    return Path("treeboost", *rel.parts)


class _CacheFolderLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """numba's locator of a kernel's cache files: in :func:`cache_dir`, never beside the
    source (numba's stamp, a digest of the module's source, stays)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(cache_dir() / "kernels" / _module_subpath(py_file))

    def get_cache_path(self):
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file):
        if not os.path.exists(py_file):
            return None
        # a folder that cannot be made now is made, or not, when a kernel is saved
        return cls(py_func, py_file)


class _CacheFolderImpl(CompileResultCacheImpl):
    _locator_classes = [_CacheFolderLocator]


class KernelCache(FunctionCache):
    """The on-disk cache of one kernel: numba's, in :func:`cache_dir`, with the prebuilt
    layers in front (see the module docstring).  It is set up on the kernel's first
    compilation, not when its module is imported (``import treeboost`` reads no source
    file and asks numba nothing).

    Parameters
    ----------
    py_func : function
        The kernel's Python function.
    """

    _impl_class = _CacheFolderImpl

    def __init__(self, py_func):
        self._name = repr(py_func)
        self._py_func = py_func
        self._ready = False
        self.enable()

    def _set_up(self):
        if self._ready:
            return
        enabled = self._enabled
        super().__init__(self._py_func)
        self._enabled = enabled  # (numba's set-up enables the cache)
        parts = _parts()
        stamp = _source_stamp(self._py_func) if parts else None
        self._prebuilt = [
            IndexDataCacheFile(
                cache_path=str(part), filename_base=self._impl.filename_base, source_stamp=stamp
            )
            for part in parts
        ]
        self._ready = True

    @property
    def cache_path(self):
        self._set_up()
        return self._cache_path

    def flush(self):
        self._set_up()
        super().flush()

    def _load_overload(self, sig, target_context):
        if not self._enabled:
            return None
        self._set_up()
        try:
            if self._prebuilt:
                key = self._index_key(sig, target_context.codegen())
                for part in self._prebuilt:
                    data = part.load(key)
                    if data is not None:
                        return self._impl.rebuild(target_context, data)
            if building() is not None:
                # the build compiles every kernel its fits call, whatever the cache holds
                return None
            return super()._load_overload(sig, target_context)
        except Exception:  # noqa: BLE001
            # a damaged file (a disk that filled up, a copy cut short): compiling the
            # kernel is always right, and its save replaces the file
            return None

    def _save_overload(self, sig, data):
        if not self._enabled:
            return None
        self._set_up()
        part = building()
        try:
            if part is None:
                return super()._save_overload(sig, data)
            if not self._impl.check_cachable(data):
                return None
            part.mkdir(parents=True, exist_ok=True)
            self._prebuilt[0].save(self._index_key(sig, data.codegen), self._impl.reduce(data))
        except OSError:
            # an unwritable or vanished cache folder costs the next process a compile,
            # never this fit
            pass
        return None


def copy_layer(source, target):
    """Copy the layer of prebuilt kernels ``source`` to ``target``, replacing it whole (a
    reader never sees half a layer: the copy is made beside it, then renamed)."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        shutil.copytree(source, staging / "layer")
        old = None
        if target.exists():
            old = staging / "old"
            os.replace(target, old)
        os.replace(staging / "layer", target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
