"""Old import paths of names that moved, kept working with a FutureWarning for a while."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

#: the version that removes the old paths
REMOVED_IN = "0.3"


def moved_names(old_module: str, new_homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``old_module`` that gives each name of ``new_homes``
    from its new module (``name -> module``), with a FutureWarning naming where it is now;
    any other name is an AttributeError, as for a module without it."""

    def __getattr__(name: str) -> Any:
        module = new_homes.get(name)
        if module is None:
            raise AttributeError(f"module {old_module!r} has no attribute {name!r}")
        warnings.warn(
            f"{old_module}.{name} moved to {module}.{name}; the old name will be removed "
            f"in treeboost {REMOVED_IN}.",
            FutureWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(module), name)

    return __getattr__
