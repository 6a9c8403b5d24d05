"""The files the command writes: checked to be writable (and not one of the inputs) before
a long fit starts, then written atomically."""

from __future__ import annotations

import os
import tempfile

from ._messages import UserError


# -- output files -----------------------------------------------------------------------------
def _same_file(a, b):
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links
    except OSError:
        return False


def _probe_directory(directory, what):
    """Refuse ``directory`` unless a file can be created in it (tried, not guessed: the
    permission bits say nothing for root or on a read-only file system)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".treeboost-probe.")
    except OSError as exc:
        raise UserError(f"cannot write {what}: {exc.strerror or exc} ({directory})") from None
    os.close(fd)
    os.unlink(tmp)


def _check_output(path, inputs=()):
    """Refuse an output that is a directory, one of ``inputs``, or not writable.

    Returns how it will be written (:func:`treeboost._atomic.output_kind`): ``"replace"``
    for a new path or a regular file (a symbolic link's target), ``"through"`` for a
    device, a FIFO or ``/dev/stdout``, which are written in place, never replaced.
    """
    from .._atomic import output_kind

    try:
        kind, target = output_kind(path)
    except IsADirectoryError:
        raise UserError(f"the output {path} is a directory; give a file name") from None
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    for inp in inputs:
        if _same_file(path, inp):
            raise UserError(
                f"the output {path} is the input {inp}; writing it would destroy "
                f"the input: choose another output file"
            )
    if kind == "through":
        if not os.access(path, os.W_OK):
            raise UserError(f"cannot write {path}: permission denied")
        return kind
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        why = "is not a directory" if os.path.exists(directory) else "does not exist"
        raise UserError(f"cannot write {path}: {directory} {why}")
    _probe_directory(directory, path)
    return kind


def _check_output_directory(path):
    """Refuse a folder for pictures that cannot be created or written."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UserError(f"--out {path} exists and is not a directory")
    parent = os.path.abspath(path)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise UserError(f"cannot create --out {path}: {parent} is not a directory")
    _probe_directory(parent, f"--out {path}")


def _write_file(path, write, encoding=None):
    """``write(fh)`` into ``path`` atomically (or through, for a device or FIFO), as
    ``encoding`` text; any failure of the write (a full disk, ``/dev/full``) is the user's
    error line."""
    from .._atomic import atomic_write

    try:
        with atomic_write(path, "w", newline="", encoding=encoding) as fh:
            write(fh)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
