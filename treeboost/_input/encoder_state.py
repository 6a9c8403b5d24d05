"""The state of a :class:`~treeboost._input.encoding.FeatureEncoder` read from a model file,
checked before it encodes anything: what :meth:`FeatureEncoder._validate_state` runs.

One flag per feature (``n_features`` of the owner), and per categorical feature a
1-dimensional array of at most ``MAX_CATEGORIES`` distinct labels (their positions are the
codes the trees' 256-bit category sets are indexed with), None for the others.  A grouped
column (``rare_categories_[f]`` not None) has a non-empty array of rare categories,
distinct and none of them a label of its own code, and a string as its last label (the
shared code's); the codes are positions, so they are in range by construction, and the
rare categories, looked up by binary search only, are bounded by the size of the file.  A
column grouped by target (``rare_codes_[f]`` not None) has only string labels, one per
code, and one code per rare category, each a position in its labels: these codes reach
the trees' category sets, so they are checked.  ``datetime_zones_`` marks numeric columns
only, with ``"naive"`` or ``"UTC"``.  A file written before grouped or datetime columns
lacks the last two attributes: no column is grouped, and datetime columns are read as
their integer representation, as that model learned them.
"""

import numpy as np

from ..engine import MAX_CATEGORIES
from ..persistence._checks import check_array as check_saved_array, check_labels
from ..persistence._spec import check_state
from .datetimes import NAIVE, UTC

__all__ = ["check_encoder_state"]


def check_encoder_state(encoder, where, n_features):
    """Raise ValueError unless ``encoder``'s learned columns can encode X for the model.

    Parameters
    ----------
    encoder : FeatureEncoder
        As read from a file (its ``__dict__`` restored, nothing run).
    where : str
        The encoder's place in the model, for the error messages.
    n_features : int or None
        The owner's number of features; None: not checked.

    Raises
    ------
    ValueError
        Naming the attribute (and column) that is wrong.
    """
    _check_params(encoder, where)
    state = vars(encoder)
    if "is_categorical_" not in state:
        return
    flags = check_state(encoder, where, encoder._state_spec)["is_categorical_"].tolist()
    p = len(flags)
    if n_features is not None and p != n_features:
        raise ValueError(
            f"{where}.is_categorical_: {p} columns, the model has {n_features} features."
        )
    cats = _per_column(state, where, "categories_", p, required=True)
    rares = _per_column(state, where, "rare_categories_", p)
    rare_codes = _per_column(state, where, "rare_codes_", p)
    for f, (flag, c, rare, rc) in enumerate(zip(flags, cats, rares, rare_codes)):
        _check_column(where, f, flag, c, rare, rc)
    if "datetime_zones_" in state:
        _check_zones(state["datetime_zones_"], where, flags)


def _check_params(encoder, where):
    cf = encoder.categorical_features
    if not (
        cf is None
        or isinstance(cf, str)
        or (
            isinstance(cf, (list, tuple, np.ndarray))
            and all(isinstance(v, (bool, int, str, np.generic)) for v in np.ravel(cf))
        )
    ):
        raise ValueError(
            f"{where}.categorical_features: must be None, 'auto' or a list "
            f"of column flags, indices or names, got {cf!r:.60}."
        )
    if not isinstance(getattr(encoder, "allow_infinite", False), bool):
        raise ValueError(
            f"{where}.allow_infinite: must be a bool, got {encoder.allow_infinite!r:.40}."
        )


def _per_column(state, where, name, p, required=False):
    """``state[name]``, a list of one entry per column (absent and not ``required``: a
    file from before the attribute, read as ``[None] * p``)."""
    entries = state.get(name) if required else state.get(name, [None] * p)
    if not isinstance(entries, list) or len(entries) != p:
        raise ValueError(f"{where}.{name}: must be a list of {p} entries.")
    return entries


def _check_column(where, f, flag, c, rare, rc):
    """One column's labels ``c``, rare categories and their codes ``rc``."""
    w = f"{where}.categories_[{f}]"
    if not flag:
        if c is not None or rare is not None or rc is not None:
            raise ValueError(f"{w}: a numeric column has no categories.")
        return
    check_labels(c, w)
    if c.shape[0] > MAX_CATEGORIES:
        raise ValueError(f"{w}: {c.shape[0]} categories, at most {MAX_CATEGORIES}.")
    if rare is None:
        if rc is not None:
            raise ValueError(
                f"{where}.rare_codes_[{f}]: a column without rare categories has no codes for them."
            )
        return
    wr = f"{where}.rare_categories_[{f}]"
    check_labels(rare, wr, at_least=1)
    if rc is not None:
        if not all(isinstance(v, str) for v in c.tolist()) or c.shape[0] == 0:
            raise ValueError(f"{w}: a column grouped by target has one string label per code.")
        check_saved_array(
            rc,
            f"{where}.rare_codes_[{f}]",
            "int64",
            shape=(rare.shape[0],),
            low=0,
            high=c.shape[0] - 1,
        )
        if not _distinct(rare.tolist()):
            raise ValueError(f"{wr}: the categories must be distinct.")
        return
    if c.shape[0] == 0 or not isinstance(c[-1], str):
        raise ValueError(
            f"{w}: a grouped column ends with the label of its shared code (a string)."
        )
    if not _distinct(c[:-1].tolist() + rare.tolist()):
        raise ValueError(
            f"{wr}: the rare categories must be distinct and differ "
            f"from the categories with a code of their own."
        )


def _check_zones(zones, where, flags):
    p = len(flags)
    if (
        not isinstance(zones, list)
        or len(zones) != p
        or not all(z is None or z in (NAIVE, UTC) for z in zones)
    ):
        raise ValueError(
            f"{where}.datetime_zones_: must be a list of {p} entries, each "
            f"None, {NAIVE!r} or {UTC!r}."
        )
    if any(z is not None and flag for z, flag in zip(zones, flags)):
        raise ValueError(f"{where}.datetime_zones_: a categorical column is not a datetime column.")


def _distinct(labels):
    """Whether no two labels are equal (as a Python set sees them)."""
    try:
        return len(set(labels)) == len(labels)
    except TypeError:  # an unhashable label is not a category label
        return False
