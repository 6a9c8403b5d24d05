"""Nothing half-updated: a fitted model (refits swap their state in, readers snapshot it)
and a written file (:func:`atomic_write`).

An estimator's fitted state is its instance ``__dict__``.  :class:`AtomicRefitMixin` makes

* every ``fit`` build the new state on a private copy of the estimator and install it at
  the end with one assignment of ``__dict__``: another thread sees the old state or the new
  one, and a fit that raises leaves the old model as it was;
* every public method and property (``predict``, ``predict_proba``, ``apply``,
  ``staged_predict``, ``feature_importances_`` ...) run on a *view*: an instance that
  shares the ``__dict__`` read once at the call.  A refit during the call replaces the
  estimator's ``__dict__``, not the view's, so the whole call (a generator's whole
  iteration too) reads one state.  A cache that a method stores (packed trees, say) goes
  into the dict of the state it was built from, and is dropped with it.

Without this, a predict running while another thread refits could read the new number of
outputs with the old packed trees (and write past its output buffer), or the new encoder
with the old trees.
"""

import contextlib
import copy
import functools
import inspect
import os
import re
import stat
import tempfile

import numpy as np

#: Key marking a private copy while its ``fit`` runs: a nested ``fit`` (``super().fit``,
#: a subclass calling its base) works on that copy directly.
_FITTING = "_treeboost_fitting_copy"


def _working_copy(model):
    """A new instance of ``model``'s class with a private copy of its state.

    The containers (lists, dicts, sets) are copied one level down, so that a warm start
    appending trees or scores leaves the installed model's lists alone; with
    ``warm_start`` the arrays and random states, which a warm start may update in place,
    are copied as well.
    """
    # one copy of the dict first: a predict in another thread may add a cache to it
    # meanwhile, which would break an iteration over the live dict
    current = model.__dict__.copy()
    warm = bool(current.get("warm_start", False))
    state = {}
    for key, value in current.items():
        if isinstance(value, (list, dict, set)):
            value = value.copy()
        elif warm and isinstance(value, (np.ndarray, np.random.RandomState, np.random.Generator)):
            value = copy.deepcopy(value)
        state[key] = value
    work = object.__new__(type(model))
    work.__dict__.update(state)
    work.__dict__[_FITTING] = True
    return work


def _atomic_fit(fit):
    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        if _FITTING in self.__dict__:
            return fit(self, *args, **kwargs)
        work = _working_copy(self)
        try:
            result = fit(work, *args, **kwargs)
        finally:
            work.__dict__.pop(_FITTING, None)
        # one assignment: a reader sees the old dict or the new one, never a mixture
        self.__dict__ = work.__dict__
        return self if result is work else result

    wrapper._treeboost_atomic = True
    return wrapper


def _view(model):
    """An instance sharing the state ``model`` has now (the ``__dict__`` is read once)."""
    view = object.__new__(type(model))
    view.__dict__ = model.__dict__
    return view


def _on_snapshot(method):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        view = _view(self)
        result = method(view, *args, **kwargs)
        return self if result is view else result

    wrapper._treeboost_atomic = True
    return wrapper


#: Public methods that change the estimator (or only read its parameters): not wrapped.
_NOT_READERS = ("fit", "partial_fit", "set_", "get_params", "get_metadata_routing")


class AtomicRefitMixin:
    """Refits install their new state at once; public readers see one consistent state.

    Applied by subclassing: every subclass's ``fit`` / ``partial_fit`` is wrapped to fit a
    private copy and swap its state in, and its other public functions and properties to
    run on a snapshot of the state (see the module docstring).
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in dir(cls):
            if name.startswith("_"):
                continue
            owner = next((k for k in cls.__mro__ if name in vars(k)), None)
            # treeboost's own functions only, those of a plain mixin base (the forests'
            # predict) included; scikit-learn's (score ...) call the wrapped predict
            if owner is None or not owner.__module__.startswith("treeboost"):
                continue
            attr = vars(owner)[name]
            if getattr(attr, "_treeboost_atomic", False):
                continue
            if name in ("fit", "partial_fit") and inspect.isfunction(attr):
                setattr(cls, name, _atomic_fit(attr))
            elif name.startswith(_NOT_READERS):
                continue
            elif inspect.isfunction(attr):
                setattr(cls, name, _on_snapshot(attr))
            elif (
                isinstance(attr, property)
                and attr.fget is not None
                and not getattr(attr.fget, "_treeboost_atomic", False)
            ):
                setattr(
                    cls, name, property(_on_snapshot(attr.fget), attr.fset, attr.fdel, attr.__doc__)
                )


# -- files ------------------------------------------------------------------------------------
#: A link into a process's open files (``/dev/stdout`` -> ``/proc/self/fd/1``): it names an
#: open file descriptor, not a place in a directory, so it is written through, never replaced.
_FD_LINK = re.compile(r"^/(proc/[^/]+/fd|dev/fd)(/|$)")
#: Most symbolic links followed before giving up (the kernel's own limit).
_MAX_LINKS = 40


def _names_open_file(path):
    """Whether ``path``, or a link on the way to its target, names an open file descriptor."""
    current = os.path.abspath(path)
    for _ in range(_MAX_LINKS):
        if _FD_LINK.match(current) or current in ("/dev/stdin", "/dev/stdout", "/dev/stderr"):
            return True
        if not os.path.islink(current):
            return False
        current = os.path.normpath(os.path.join(os.path.dirname(current), os.readlink(current)))
    return False


def output_kind(path):
    """How :func:`atomic_write` writes ``path``.

    Returns
    -------
    kind : {"replace", "through"}
        ``"replace"``: a new path or a regular file, written to a temporary file beside it
        and renamed over it; ``"through"``: anything else that can be opened for writing (a
        device such as ``/dev/null``, a FIFO, a terminal, ``/dev/stdout``), opened and
        written in place, never replaced.
    target : str
        The path written: for ``"replace"``, a symbolic link's final target (the link
        stays a link), else ``path`` itself.

    Raises
    ------
    IsADirectoryError
        ``path`` is a directory (or a link to one).
    """
    path = os.fspath(path)
    if _names_open_file(path):
        return "through", path
    try:
        mode = os.stat(path).st_mode  # follows links
    except (FileNotFoundError, NotADirectoryError):
        # a new file, or a link to a file yet to be created: create the link's target (a
        # missing folder is found when the temporary file is created)
        return "replace", os.path.realpath(path)
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(21, "Is a directory", path)
    if stat.S_ISREG(mode):
        return "replace", os.path.realpath(path)
    return "through", path


@contextlib.contextmanager
def atomic_write(path, mode="wb", **open_kwargs):
    """Open ``path`` for writing so that a failure midway leaves its old content.

    A new path or a regular file is written to a temporary file in the same directory,
    which is flushed, synced and renamed over it with :func:`os.replace` (atomic on POSIX
    and Windows): readers see the old file or the new one, never a part, and if the block
    raises (disk full, a failing serialiser) the temporary file is removed and the path is
    untouched.  A regular file keeps its permission bits; a new one gets the usual umask
    mode.  A symbolic link stays a link: its target is what is rewritten.

    Anything else (a device such as ``/dev/null`` or ``/dev/full``, a FIFO, a terminal,
    ``/dev/stdout``) cannot be replaced without destroying it: it is opened and written
    in place, and an error of the write (``ENOSPC`` on ``/dev/full``) is raised as
    :class:`OSError` when the block ends.

    Parameters
    ----------
    path : str or path-like
        The file to (re)write.
    mode : {"wb", "w"}, default="wb"
        Binary or text.
    **open_kwargs
        Passed to :func:`open` (``encoding``, ``newline`` ...).

    Yields
    ------
    file object
        The open file (a temporary one for a regular file).

    Examples
    --------
    >>> with atomic_write("predictions.csv", "w", newline="") as f:  # doctest: +SKIP
    ...     f.write("id,label\\n")
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write: mode must be 'w' or 'wb', got {mode!r}.")
    kind, target = output_kind(path)
    if kind == "through":
        # no fsync: a device or a pipe may refuse it (EINVAL), and it has no file to keep
        with open(target, mode, **open_kwargs) as f:
            yield f
        return
    try:
        keep = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        keep = 0o666 & ~umask
    directory = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(
        prefix="." + os.path.basename(target) + ".", suffix=".tmp", dir=directory
    )
    try:
        with open(fd, mode, **open_kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        # mkstemp creates the file 0600: a model or CSV gets the mode the old file had
        with contextlib.suppress(OSError):
            os.chmod(tmp, keep)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
