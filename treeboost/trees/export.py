"""Moved: the text and rule exports live in :mod:`treeboost.inspection`; this module keeps
old imports working, with a FutureWarning, until treeboost 0.3."""

import importlib
import warnings

_NEW = {
    "Condition": "treeboost.inspection.rules",
    "Rule": "treeboost.inspection.rules",
    "extract_rules": "treeboost.inspection.rules",
    "export_rules": "treeboost.inspection.rules",
    "export_text": "treeboost.inspection.export",
    "MAX_TEXT_INDENT": "treeboost.inspection.export",
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
