"""Moved: the tree pictures live in :mod:`treeboost.inspection`; this module keeps old
imports working, with a FutureWarning, until treeboost 0.3."""

import importlib
import warnings

_NEW = {
    "export_graphviz": "treeboost.inspection.drawing",
    "plot_tree": "treeboost.inspection.drawing",
}


def __getattr__(name):
    module = _NEW.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"{__name__}.{name} moved to treeboost.inspection.{name}; "
        f"the old name will be removed in treeboost 0.3.",
        FutureWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(module), name)
