"""A safe, portable model file: JSON for the structure, ``.npz`` for the arrays.

``save(model, path)`` writes a ZIP archive with ``model.json`` (the estimator's
parameters and fitted attributes, with type tags) and ``arrays.npz`` (every numeric
array), atomically (:func:`atomic_write`).  ``load(path)`` reads it back:

1. the container is checked before anything is read (:mod:`._container`): the two ZIP
   entries and nothing else, no encryption, stored or deflated only, ``model.json`` at
   most :data:`MAX_JSON_BYTES` and :data:`MAX_JSON_DEPTH` levels deep, the arrays at
   most :data:`MAX_EXPANSION` times the file's size (or :data:`MIN_ARRAY_BUDGET`), each
   ``.npy`` header of an allowed dtype and of the size of its entry, every array used by
   the document, and the arrays of the classes that declare their layout (``Tree``) of
   exactly that dtype and of consistent shapes;
2. the document is decoded into data and instances of registered classes only
   (:mod:`._registry`), with only the attributes each class declares it saves; nothing
   named in the file is imported or called;
3. the model checks itself: each class's ``_validate_state`` checks its own state and
   passes what it knows (number of features, bins, classes ...) to the parts it holds;
   any registered part no owner reached is checked on its own.

Any failure is a ``ValueError`` naming the file and the part.  This package imports no
estimator: the estimator modules register themselves and their parts.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import numpy as np

from ._checks import (
    check_array,
    check_attributes,
    check_classes,
    check_fitted,
    check_instance,
    check_int,
    check_labels,
    check_real,
    is_hashable,
    is_int,
    is_real,
    labels_ok,
)
from ._codec import Decoder, Encoder, check_array_headers
from ._migrations import migrate_added_parameters, migrate_gradient_boosting
from ._container import (
    ALLOWED_DTYPES,
    MAX_EXPANSION,
    MAX_JSON_BYTES,
    MAX_JSON_DEPTH,
    MIN_ARRAY_BUDGET,
    atomic_write,
    read_container,
    write_container,
)
from ._registry import (
    _MOVED_MODULES,
    _validated,
    lookup,
    persisted_attributes,
    register,
    registered_classes,
    transient_attributes,
    validate_part,
    validate_parts,
)
from ._skops import skops_trusted_types
from ._walk import json_objects

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "PersistenceMixin",
    "atomic_write",
    "load",
    "save",
    "register",
    "registered_classes",
    "skops_trusted_types",
    "validate_part",
    "validate_parts",
    "check_array",
    "check_int",
    "check_real",
    "check_instance",
    "check_labels",
    "check_attributes",
    "check_classes",
    "check_fitted",
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_EXPANSION",
    "MIN_ARRAY_BUDGET",
]

#: a file name, returned as given
PathT = TypeVar("PathT", bound="str | os.PathLike[str]")

FORMAT = "treeboost-model"
_ENCODER = "treeboost._input.encoding.FeatureEncoder"
#: 2: Bagging keeps its draw counts as ``_draw_counts`` (``estimators_samples_`` became a
#: property) and forests ``_bootstrap_draws``; version-1 files are migrated on load
FORMAT_VERSION = 2


def save(model: PersistenceMixin, path: PathT) -> PathT:
    """Write ``model`` to ``path`` in the safe format.

    The file is written to a temporary file beside ``path`` and renamed over it at the
    end: a failing save (a part that cannot be saved, a full disk) leaves an existing
    ``path`` as it was.

    Parameters
    ----------
    model : treeboost estimator
    path : str or path-like

    Returns
    -------
    path
    """
    from .. import __version__

    enc = Encoder()
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "treeboost_version": __version__,
        "model": enc(model),
    }
    write_container(path, doc, enc.arrays)
    return path


def _check_document(path: str | os.PathLike[str]) -> Callable[[Any, Any], None]:
    def check(doc: Any, headers: Any) -> None:
        if not isinstance(doc, dict) or doc.get("format") != FORMAT or "model" not in doc:
            raise ValueError(
                f"{path} is not a treeboost model file (model.json has no treeboost-model header)."
            )
        version = doc.get("format_version")
        if (
            not isinstance(version, int)
            or isinstance(version, bool)
            or not 1 <= version <= FORMAT_VERSION
        ):
            raise ValueError(
                f"{path} has model format version {version!r:.20}; this "
                f"treeboost reads versions 1 to {FORMAT_VERSION}: upgrade "
                f"treeboost."
            )
        try:
            check_array_headers(doc, headers)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None

    return check


def load(path: str | os.PathLike[str]) -> Any:
    """Read a model written by :func:`save`; refuse anything else with a ``ValueError``.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    model : treeboost estimator

    Raises
    ------
    ValueError
        The file is not a treeboost model, or a part of it is malformed or inconsistent
        (the message names the file, the part and the value).
    """
    doc, arrays = read_container(path, _check_document(path))
    seen: set[int] = set()
    token = _validated.set(seen)
    try:
        if doc["format_version"] < 2:
            _migrate_v1(doc["model"])
        migrate_gradient_boosting(doc["model"], arrays)
        migrate_added_parameters(doc["model"])
        decoder = Decoder(arrays)
        model = decoder(doc["model"])
        if not hasattr(model, "_validate_state") or not hasattr(model, "get_params"):
            raise ValueError("model: the file holds no estimator.")
        validate_part(model, "model")
        for inst, where in decoder.instances:
            if id(inst) not in seen:
                validate_part(inst, where)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    except (
        TypeError,
        KeyError,
        IndexError,
        AttributeError,
        OverflowError,
        RecursionError,
        ZeroDivisionError,
        FloatingPointError,
        MemoryError,
    ) as exc:
        # a value of the wrong type or shape somewhere in a hand-edited file that a check
        # did not name: nothing was run (the decoder only builds data), so this is one more
        # malformed file
        raise ValueError(
            f"{path}: malformed model file ({type(exc).__name__}: {str(exc)[:200]})."
        ) from None
    finally:
        _validated.reset(token)
    return model


def _migrate_v1(obj: Any) -> None:
    """Version 1 stored a bagging ensemble's draw counts as ``estimators_samples_``, now a
    property (renamed to ``_draw_counts``).  Its forests lack ``_bootstrap_draws``: they
    load and predict, only their ``estimators_samples_`` is unknown."""
    for obj in json_objects(obj):
        state = obj.get("state")
        if (
            isinstance(state, dict)
            and str(obj.get("__object__", "")).startswith("treeboost.ensembles.bagging.")
            and "estimators_samples_" in state
        ):
            state["_draw_counts"] = state.pop("estimators_samples_")


class PersistenceMixin:
    """``save(path)`` on every treeboost estimator (see :func:`treeboost.load`), and the
    checks every loaded estimator shares.

    Subclasses list their fitted attributes in ``_persist_attributes`` (the constructor
    parameters are saved too) and extend :meth:`_validate_state`.
    """

    #: ``treeboost_cli_``: what the ``treeboost`` command records of the training data
    #: (target column, task, feature columns) in the models it saves
    _persist_attributes: tuple[str, ...] = (
        "n_features_in_",
        "feature_names_in_",
        "_encoder",
        "treeboost_cli_",
    )
    #: scikit-learn's routing and output configuration (``set_fit_request``,
    #: ``set_output``): settings of the calling code, not of the model
    _persist_transient: tuple[str, ...] = ("_metadata_request", "_sklearn_output_config")

    if TYPE_CHECKING:
        # scikit-learn's BaseEstimator gives them to every estimator that mixes this in
        @classmethod
        def _get_param_names(cls) -> list[str]: ...

        def _validate_params(self) -> None: ...

    def save(self, path: PathT) -> PathT:
        """Write the fitted model to ``path`` in treeboost's safe format (no pickle).

        Parameters
        ----------
        path : str or path-like
            Written atomically: a failing save leaves an existing file intact.

        Returns
        -------
        path
        """
        return save(self, path)

    def _validate_state(self, where: str = "model", **context: Any) -> None:
        """Check the state shared by every estimator read from a file.

        The hyperparameters are checked as ``fit`` checks them (a bad value would be
        read by predict, or refused only at the next warm-start fit), nested estimators
        (``estimator``) on their own, ``n_features_in_`` against the input encoder and
        ``feature_names_in_``.

        Parameters
        ----------
        where : str
            Where the estimator sits in the model, for messages.
        **context
            What the owner knows (``n_features`` for a member of an ensemble).

        Raises
        ------
        ValueError
        """
        from sklearn.utils._param_validation import InvalidParameterError

        state = vars(self)
        for name in self._get_param_names():
            if name not in state:
                raise ValueError(f"{where}: the parameter {name!r} is missing.")
            value = state[name]
            if hasattr(value, "_validate_state") and hasattr(value, "get_params"):
                validate_part(value, f"{where}.{name}")
        if hasattr(type(self), "_parameter_constraints"):
            try:
                self._validate_params()
            except InvalidParameterError as exc:
                raise ValueError(f"{where}: {exc}") from None
        n = state.get("n_features_in_")
        if "n_features_in_" in state:
            check_int(n, f"{where}.n_features_in_", low=1)
        if "feature_names_in_" in state:
            names = state["feature_names_in_"]
            if (
                not isinstance(names, np.ndarray)
                or names.shape != (n,)
                or not all(isinstance(v, str) for v in names.tolist())
            ):
                raise ValueError(
                    f"{where}.feature_names_in_: must hold one name (a string) per feature ({n})."
                )
        if "treeboost_cli_" in state:
            _check_cli_record(state["treeboost_cli_"], f"{where}.treeboost_cli_", n)
        if "_encoder" in state:
            if n is None:
                raise ValueError(f"{where}: an input encoder without n_features_in_.")
            validate_part(state["_encoder"], f"{where}._encoder", expect=_ENCODER, n_features=n)


def _check_cli_record(info: Any, where: str, n_features: int | None) -> None:
    """The command line's record: a dict of the target name, the task, the feature
    columns (one name per feature) and the date columns' formats, all strings."""
    if not isinstance(info, dict) or not set(info) <= {"target", "task", "columns", "date_formats"}:
        raise ValueError(f"{where}: must be a dict of target, task, columns and date_formats.")
    formats = info.get("date_formats")
    if formats is not None and (
        not isinstance(formats, dict)
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in formats.items())
    ):
        raise ValueError(f"{where}['date_formats']: must map column names to format strings.")
    for key in ("target", "task"):
        if info.get(key) is not None and not isinstance(info[key], str):
            raise ValueError(f"{where}['{key}']: must be a string, got {type(info[key]).__name__}.")
    cols = info.get("columns")
    if cols is not None and (
        not isinstance(cols, list)
        or not all(isinstance(c, str) for c in cols)
        or (n_features is not None and len(cols) != n_features)
    ):
        raise ValueError(f"{where}['columns']: must be a list of {n_features} column names.")
