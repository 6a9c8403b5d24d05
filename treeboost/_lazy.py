"""A package's public names loaded on first use (PEP 562), written once.

The engine's surface and the exporters name the module of each public name; the module
is imported when the name is first read, and the name kept in the package's namespace so
that later reads skip the lookup.  Importing a package so made imports none of its
modules.
"""

import importlib
import sys

__all__ = ["lazy_names"]


def lazy_names(package, homes):
    """The ``__getattr__`` and ``__dir__`` of a package whose names load on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    homes : dict of str to str
        Each public name -> the module, relative to ``package``, that defines it.

    Returns
    -------
    getattr, dir : callable
        To be bound as the package's ``__getattr__`` and ``__dir__``.
    """

    def __getattr__(name):
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        vars(sys.modules[package])[name] = value  # later reads find it without this function
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(homes))

    return __getattr__, __dir__
