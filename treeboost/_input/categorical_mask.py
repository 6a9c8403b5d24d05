"""Which columns of X are categorical: ``categorical_features`` read as scikit-learn
reads it (None / ``"auto"`` / ``"from_dtype"``: by the DataFrame's dtypes; a boolean mask,
column indices or column names), with its rules and error messages."""

import numpy as np

from . import polars_frames
from .columns import frame_is_categorical, is_frame

__all__ = ["from_dtypes", "categorical_mask"]


def from_dtypes(categorical_features):
    """Whether ``categorical_features`` leaves the choice to the columns' dtypes: None,
    ``"auto"`` or ``"from_dtype"`` (scikit-learn's HistGradientBoosting name of
    ``"auto"``)."""
    cf = categorical_features
    return cf is None or (isinstance(cf, str) and cf in ("auto", "from_dtype"))


def categorical_mask(cf, X, n_features, names):
    """The categorical columns of ``X`` by ``categorical_features``.

    Parameters
    ----------
    cf : None, str, array-like of bool, of int or of str
        ``categorical_features``.
    X : array-like, pandas or polars DataFrame
        Its dtypes decide when ``cf`` is None, ``"auto"`` or ``"from_dtype"``.
    n_features : int
    names : list of str or None
        The DataFrame's column names (needed for ``cf`` given as names).

    Returns
    -------
    ndarray of bool, shape (n_features,)

    Raises
    ------
    ValueError
        Naming ``categorical_features``: a string other than the three above, a dtype
        other than bool, int or str, a mask of another shape, an index out of range, a
        name that is not a column (or names without a DataFrame).
    """
    if from_dtypes(cf):
        if polars_frames.is_polars_frame(X):
            return polars_frames.categorical_mask(X)
        if is_frame(X):
            return np.array([frame_is_categorical(dt) for dt in X.dtypes], bool)
        return np.zeros(n_features, bool)
    if isinstance(cf, str):
        raise ValueError(
            f"categorical_features must be None, 'auto' or an array-like of bool, int or "
            f"str, got {cf!r}."
        )
    cf = np.asarray(cf)
    if cf.size == 0:
        return np.zeros(n_features, bool)
    # scikit-learn's rules and words (sklearn.utils.validation, HistGradientBoosting)
    if cf.dtype.kind not in "biuUO":
        raise ValueError(
            f"categorical_features must be an array-like of bool, int or str, got: {cf.dtype.name}."
        )
    if cf.dtype.kind == "O" and {type(v) for v in cf.ravel()} != {str}:
        kinds = sorted({type(v).__name__ for v in cf.ravel()})
        raise ValueError(
            f"categorical_features must be an array-like of bool, int or "
            f"str, got: {', '.join(kinds)}."
        )
    if cf.dtype.kind == "b":
        if cf.shape != (n_features,):
            raise ValueError(
                f"categorical_features set as a boolean mask must have shape "
                f"(n_features,), got: {cf.shape} (n_features = {n_features})."
            )
        return cf.copy()
    mask = np.zeros(n_features, bool)
    if cf.dtype.kind in "iu":
        if cf.min() < 0 or cf.max() >= n_features:
            raise ValueError(
                f"categorical_features set as integer indices must be in "
                f"[0, n_features - 1] = [0, {n_features - 1}], got {cf.tolist()}."
            )
        mask[cf] = True
        return mask
    if names is None:
        raise ValueError(
            "categorical_features should be passed as an array of integers or as a "
            "boolean mask when the model is fitted on data without feature names. "
            "(Names need X as a pandas or polars DataFrame.)"
        )
    lookup = {n: i for i, n in enumerate(names)}
    for name in cf:
        if name not in lookup:
            raise ValueError(
                f"categorical_features has an item value {str(name)!r} which is not a "
                f"valid feature name of the training data. Observed feature names: "
                f"{list(names)}"
            )
        mask[lookup[name]] = True
    return mask
