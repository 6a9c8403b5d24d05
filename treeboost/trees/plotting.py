"""Moved: the tree pictures live in :mod:`treeboost.inspection`; this module keeps old
imports working, with a FutureWarning, until treeboost 0.3."""

from .._moved import moved_names

__getattr__ = moved_names(
    __name__, dict.fromkeys(["export_graphviz", "plot_tree"], "treeboost.inspection")
)
