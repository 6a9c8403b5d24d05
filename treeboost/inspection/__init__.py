"""Looking inside fitted models: SHAP values and every tree's nodes as a table.

* :func:`shap_values` -- exact path-dependent TreeSHAP values (Lundberg et al., 2020) of any
  binary-tree model, with the expected value they add up from.
* :func:`trees_to_dataframe` -- one row per node of every tree of a model, as LightGBM's
  ``Booster.trees_to_dataframe`` gives it.
"""

import importlib

__all__ = ["shap_values", "trees_to_dataframe"]

_WHERE = {"shap_values": "._shap", "trees_to_dataframe": "._dataframe"}


def __getattr__(name):
    # each function lives in its own module; import it on first use so that
    # ``import treeboost`` does not pay for pandas or the SHAP kernel
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
