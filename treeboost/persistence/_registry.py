"""The registry of classes a model file may name, and what each of them saves.

A class is persistable when it is registered here (:func:`register`) and defines
``_validate_state(self, where, **context)``, which raises ``ValueError`` unless the
instance's state, as read from a file, is one that the class's methods can use safely.
The class also says which attributes it saves: the names listed in ``_persist_attributes``
along its MRO (plus, for scikit-learn estimators, their constructor parameters).  Caches
named in ``_persist_transient`` are dropped on save.

This module imports nothing from the rest of treeboost: the estimator modules register
themselves and their parts, so the package stays free of import cycles.
"""

from __future__ import annotations

import contextvars
from typing import Any, TypeVar

_C = TypeVar("_C", bound=type)

__all__ = [
    "register",
    "registered_classes",
    "lookup",
    "class_name",
    "persisted_attributes",
    "transient_attributes",
    "validate_part",
    "validate_parts",
]

_REGISTRY: dict[str, type[Any]] = {}

#: the engine's modules that moved into its stage folders, old -> new (under treeboost.engine)
ENGINE_MOVES = {
    "_jit": "_numba.jit",
    "_compilation": "_numba.compilation",
    "_numba_flags": "_numba.flags",
    "_numba_inline": "_numba.inline",
    "_numba_markup": "_numba.markup",
    "_numba_passes": "_numba.passes",
    "_bits": "_numba.bits",
    "_pairs": "_numba.pairs",
    "_rows": "_numba.rows",
    "_borrow": "_numba.borrowed_views",
    "_threads": "parallel.thread_pools",
    "core_share": "parallel.free_cores",
    "_fork": "parallel.fork",
    "binning": "binning.mapper",
    "bin_codes": "binning.codes",
    "quantile_edges": "binning.quantile_edges",
    "sparse_binning": "binning.sparse_columns",
    "sparse_codes": "binning.sparse_codes",
    "statistics": "statistics.samples",
    "quantile": "statistics.quantile",
    "node_targets": "grow.node_targets",
    "criteria": "split.criteria",
    "histogram": "split.histogram",
    "splitting": "split.search",
    "median_split": "split.absolute_error",
    "random_cuts": "split.random_cuts",
    "gap_thresholds": "split.gap_thresholds",
    "constraints": "split.constraints",
    "grower": "grow.grower",
    "layout": "records",
    "partition": "grow.partition",
    "steps": "grow.stepped",
    "subtrees": "grow.subtrees",
    "tree_arrays": "grow.tree_arrays",
    "leaf_ranges": "grow.leaf_ranges",
    "tree": "predict.tree",
    "raw_split": "predict.routing",
    "lane_walk": "predict.eight_rows",
    "csr_walk": "predict.csr_rows",
    "row_blocks": "predict.sparse_blocks",
    "packed_forest": "predict.packed_forest",
    "tree_stack": "predict.tree_stack",
    "shap": "predict.tree_shap",
}

#: modules that moved, old name -> new name (files written before the move name the old one)
_MOVED_MODULES = {
    **{
        f"treeboost.trees.{m}": f"treeboost.engine.{ENGINE_MOVES[m]}"
        for m in ("binning", "tree", "grower", "statistics")
    },
    # the engine's modules moved into its stage folders (binning/, split/, grow/, ...)
    **{f"treeboost.engine.{old}": f"treeboost.engine.{new}" for old, new in ENGINE_MOVES.items()},
    "treeboost.trees.encoding": "treeboost._input.encoding",
    "treeboost.trees.export": "treeboost.inspection.rules",
}
#: classes that moved out of a module that still exists: the old name -> the new one
_MOVED_CLASSES = {
    "treeboost.trees.classic.MultiwayTree": "treeboost.trees.multiway_tree.MultiwayTree",
    "treeboost.trees.classic._Column": "treeboost.trees._classic_grower._Column",
}


def class_name(cls: type) -> str:
    """The name a file gives ``cls``: ``module.qualname``."""
    return f"{cls.__module__}.{cls.__qualname__}"


def register(*classes: _C) -> _C | None:
    """Declare ``classes`` loadable from a model file; usable as a class decorator.

    Each class must define ``_validate_state``.  Returns the first class.
    """
    for cls in classes:
        if not callable(getattr(cls, "_validate_state", None)):
            raise TypeError(
                f"{class_name(cls)} has no _validate_state method: a class whose "
                f"state is not checked on load cannot be registered."
            )
        _REGISTRY[class_name(cls)] = cls
    return classes[0] if classes else None


def registered_classes() -> dict[str, type[Any]]:
    """A copy of the registry: file name of the class -> class."""
    _register_estimators()
    return dict(_REGISTRY)


def _register_estimators() -> None:
    """Import the estimator packages, which register their classes: ``import treeboost``
    loads them on first use only, and a file may be loaded before any estimator is."""
    import importlib

    for module in ("treeboost.trees", "treeboost.ensembles", "treeboost.oblique"):
        importlib.import_module(module)


def lookup(name: object) -> type[Any] | None:
    """The registered class a file names (the old module of a moved class included)."""
    if not isinstance(name, str):
        return None
    cls = _REGISTRY.get(name)
    if cls is None and name.startswith("treeboost."):
        _register_estimators()
        cls = _REGISTRY.get(name)
    if cls is None and name in _MOVED_CLASSES:
        cls = _REGISTRY.get(_MOVED_CLASSES[name])
    if cls is None:
        for old, new in _MOVED_MODULES.items():
            if name.startswith(old + "."):
                cls = _REGISTRY.get(new + name[len(old) :])
                break
    return cls


def _along_mro(cls: type, attribute: str) -> list[str]:
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        names.extend(klass.__dict__.get(attribute, ()))
    return names


def persisted_attributes(cls: type) -> set[str]:
    """The attribute names an instance of ``cls`` may carry in a file."""
    names = set(_along_mro(cls, "_persist_attributes"))
    get_params = getattr(cls, "_get_param_names", None)
    if callable(get_params):
        names.update(get_params())
    return names


def transient_attributes(cls: type) -> set[str]:
    """Caches that are rebuilt on demand, never saved."""
    return set(_along_mro(cls, "_persist_transient"))


#: ids of the objects checked during the current load (a part shared by several owners is
#: checked by each, with each owner's context; the loader checks the rest on their own)
_validated: contextvars.ContextVar[set[int] | None] = contextvars.ContextVar(
    "treeboost_validated", default=None
)


#: the classes a part may be of: a class, a registered name, a tuple of those, or None (any)
_Expect = type | str | tuple[type | str, ...] | None


def validate_part(obj: Any, where: str, expect: _Expect = None, **context: Any) -> None:
    """Check a part of a model as its owner sees it: ``obj._validate_state(where, **context)``.

    Owners call this for each part they hold, passing what they know of it (the number
    of features, the bin mapper ...).

    Parameters
    ----------
    obj : object
    where : str
        Where the part sits in the model, for messages.
    expect : class, str, tuple of those, or None
        The classes the part may be of (a str is a registered name, so that this package
        need not import the class); ``None``: any registered class.
    **context
        Passed to ``_validate_state``.

    Raises
    ------
    ValueError
        ``obj`` is not of a registered (expected) class, or its state is inconsistent.
    """
    cls = type(obj)
    if lookup(class_name(cls)) is not cls:
        raise ValueError(
            f"{where}: a {cls.__module__}.{cls.__qualname__} is not a part of a treeboost model."
        )
    if expect is not None:
        options = expect if isinstance(expect, tuple) else (expect,)
        classes = [lookup(e) if isinstance(e, str) else e for e in options]
        if cls not in classes:
            names = " or ".join(
                e.rsplit(".", 1)[-1] if isinstance(e, str) else e.__name__ for e in options
            )
            raise ValueError(f"{where}: must be a {names}, got a {cls.__qualname__}.")
    seen = _validated.get()
    if seen is not None:
        seen.add(id(obj))
    obj._validate_state(where, **context)


def validate_parts(
    objs: Any, where: str, expect: _Expect = None, *, what: str | None = None, **context: Any
) -> None:
    """:func:`validate_part` on each part of the list ``objs`` (at ``where[j]``), with the
    same ``expect`` and ``context``; a ValueError naming ``where`` (and ``what`` the list
    holds, if given) when ``objs`` is not a list."""
    if not isinstance(objs, list):
        raise ValueError(f"{where}: must be a list{' of ' + what if what else ''}.")
    for j, obj in enumerate(objs):
        validate_part(obj, f"{where}[{j}]", expect, **context)
