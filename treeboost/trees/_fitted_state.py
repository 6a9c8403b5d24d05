"""The check every model on shared bins makes first when it is read from a file."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..engine import BinMapper
from ..persistence import check_fitted, validate_part

__all__ = ["check_binned_state"]


def check_binned_state(est: Any, where: str, required: Collection[str], classifier: bool) -> bool:
    """Whether ``est`` (a tree, a forest, a boosted model) read from a file is fitted.

    ``required`` are its fitted attributes (``classes_`` and ``n_classes_`` are added for a
    classifier): all or none must be there.  A fitted model's ``bin_mapper_``, where it has
    one, is checked against its encoder (its features and which are categorical).

    Raises
    ------
    ValueError
        If some of the fitted attributes are missing, or the bin mapper does not fit.
    """
    needed = [*required, "classes_", "n_classes_"] if classifier else list(required)
    if not check_fitted(est, where, needed):
        return False
    if "bin_mapper_" in vars(est):
        validate_part(
            est.bin_mapper_,
            f"{where}.bin_mapper_",
            expect=BinMapper,
            n_features=est.n_features_in_,
            categorical=est._encoder.is_categorical_,
        )
    return True
