"""Looking inside fitted models: explanations, the trees as text, rules, tables and pictures.

* :func:`shap_values` -- exact path-dependent TreeSHAP values (Lundberg et al., 2020) of any
  binary-tree model, with the expected value they add up from.
* :func:`trees_to_dataframe` -- one row per node of every tree of a model, as LightGBM's
  ``Booster.trees_to_dataframe`` gives it.
* :func:`export_text` -- an indented text picture of one tree.
* :func:`extract_rules`, :func:`export_rules`, :func:`rule_coverage` -- one IF-THEN
  :class:`Rule` (of :class:`Condition`\\ s) per leaf, and the rows each rule fires on.
* :func:`export_graphviz`, :func:`plot_tree` -- Graphviz DOT text and a matplotlib drawing.
* :func:`dtreeviz_model` -- dtreeviz's drawings of one tree (``pip install dtreeviz``).

Each works on any treeboost tree (CART, ID3, C4.5) and on one tree of any ensemble
(``tree_index``, and ``class_index`` for K-class boosting).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # what __getattr__ gives, named for type checkers
    from ._dataframe import trees_to_dataframe
    from ._shap import shap_values
    from .json_dump import dump_json, dump_model
    from ._partial_dependence import partial_dependence
    from .shap_tools import shap_explainer, shap_explanation
    from .drawing import export_graphviz, plot_tree
    from ._dtreeviz import dtreeviz_model
    from .export import export_text
    from .rules import Condition, Rule, export_rules, extract_rules, rule_coverage

_WHERE = {
    "shap_values": "._shap",
    "shap_explainer": ".shap_tools",
    "shap_explanation": ".shap_tools",
    "dump_model": ".json_dump",
    "dump_json": ".json_dump",
    "partial_dependence": "._partial_dependence",
    "trees_to_dataframe": "._dataframe",
    "export_text": ".export",
    "Condition": ".rules",
    "Rule": ".rules",
    "extract_rules": ".rules",
    "export_rules": ".rules",
    "rule_coverage": ".rules",
    "export_graphviz": ".drawing",
    "plot_tree": ".drawing",
    "dtreeviz_model": "._dtreeviz",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    # each function lives in its own module; import it on first use so that
    # ``import treeboost`` does not pay for pandas or the SHAP kernel
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
