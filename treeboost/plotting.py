"""Pictures of fitted models (needs matplotlib: ``pip install matplotlib``).

``plot_importance`` (bar chart of ``feature_importances_``), ``plot_learning_curve``
(the boosting trace, or staged scores of any ensemble on given data), ``plot_tree``
(a drawing of one tree) and ``plot_shap_summary`` (every row's SHAP value of every
feature, coloured by the feature's value).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .inspection.drawing import plot_tree

if TYPE_CHECKING:
    from collections.abc import Sequence

    from matplotlib.axes import Axes
    from sklearn.base import BaseEstimator

    from ._typing import ArrayLike, MatrixLike, NDArray

__all__ = ["plot_importance", "plot_learning_curve", "plot_shap_summary", "plot_tree"]


def _plt():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("treeboost.plotting needs matplotlib: pip install matplotlib") from None
    return plt


def plot_importance(
    model: BaseEstimator,
    feature_names: Sequence[str] | NDArray[Any] | None = None,
    max_features: int = 20,
    ax: Axes | None = None,
    title: str | None = None,
) -> Axes:
    """Horizontal bar chart of ``model.feature_importances_``, largest on top.

    Returns the matplotlib Axes.
    """
    plt = _plt()
    imp = np.asarray(model.feature_importances_)
    if feature_names is None:
        feature_names = getattr(model, "feature_names_in_", None)
    if feature_names is None:
        feature_names = [f"x{i}" for i in range(imp.size)]
    if len(feature_names) != imp.size:
        raise ValueError(
            f"feature_names has {len(feature_names)} names, the model has {imp.size} features."
        )
    order = np.argsort(imp)[::-1][:max_features][::-1]
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 0.35 * len(order) + 1.2))
    ax.barh(np.arange(len(order)), imp[order], color="tab:blue")
    ax.set_yticks(np.arange(len(order)))
    ax.set_yticklabels([str(feature_names[i]) for i in order])
    ax.set_xlabel("importance (normalised impurity decrease)")
    ax.set_title(title or f"{type(model).__name__}: feature importances")
    _tight_layout(ax)
    return ax


def plot_learning_curve(
    model: BaseEstimator,
    X: MatrixLike | None = None,
    y: ArrayLike | None = None,
    scoring: Callable[[Any, Any], float] | None = None,
    ax: Axes | None = None,
    title: str | None = None,
) -> Axes:
    """Score against the number of trees.

    Without data: a boosting model's ``train_score_`` (and ``validation_score_``) loss per
    iteration.  With ``X, y``: the staged predictions of the model (``staged_predict`` of
    boosting, or the running average of the trees of a forest/bagging ensemble) scored by
    ``scoring(y, prediction)`` (accuracy for classifiers, R² for regressors by default).
    Returns the matplotlib Axes.
    """
    plt = _plt()
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 4))
    if X is None:
        if not hasattr(model, "train_score_"):
            raise ValueError(
                "plot_learning_curve without X, y needs a boosting model "
                "(train_score_); pass X and y for other ensembles."
            )
        # HistGradientBoosting's scores start with the one before the first iteration
        # (and are scores, higher is better); GradientBoosting's are losses per iteration
        first = 0 if len(model.train_score_) == getattr(model, "n_estimators_", -1) + 1 else 1
        what = "score" if first == 0 else "loss"
        it = np.arange(first, first + len(model.train_score_))
        ax.plot(it, model.train_score_, label=f"training {what}")
        if len(getattr(model, "validation_score_", [])):
            ax.plot(it, model.validation_score_, label=f"validation {what}")
        ax.set_ylabel(what)
    else:
        from sklearn.metrics import accuracy_score, r2_score

        classifier = hasattr(model, "classes_")
        scoring = scoring or (accuracy_score if classifier else r2_score)
        stages = _staged(model, X, classifier)
        if stages is None:
            raise ValueError(f"{type(model).__name__} has no staged predictions.")
        ax.plot(
            np.arange(1, len(stages) + 1),
            [scoring(y, p) for p in stages],
            label=type(model).__name__,
        )
        ax.set_ylabel(getattr(scoring, "__name__", "score"))
    ax.set_xlabel("number of trees")
    ax.set_title(title or f"{type(model).__name__}: learning curve")
    ax.legend()
    _tight_layout(ax)
    return ax


def _tight_layout(ax: Axes) -> None:
    # a subfigure has no layout step of its own: the figure that holds it is laid out by
    # whoever made it, so only an Axes of a plain Figure is tightened here
    figure: Any = ax.figure
    if callable(getattr(figure, "tight_layout", None)):
        figure.tight_layout()


def _staged(model, X, classifier):
    if hasattr(model, "staged_predict"):
        return list(model.staged_predict(X))
    estimators = getattr(model, "estimators_", None)
    if not estimators:
        return None
    features = getattr(model, "estimators_features_", None)
    out, total = [], None
    for i, est in enumerate(estimators):
        Xi = (
            X
            if features is None
            else (X.iloc[:, features[i]] if hasattr(X, "iloc") else np.asarray(X)[:, features[i]])
        )
        p = est.predict_proba(Xi) if classifier else est.predict(Xi)
        total = p if total is None else total + p
        avg = total / (i + 1)
        out.append(model.classes_[np.argmax(avg, axis=1)] if classifier else avg)
    return out


def plot_shap_summary(
    values: ArrayLike,
    X: ArrayLike,
    feature_names: Sequence[str] | NDArray[Any] | None = None,
    max_display: int = 20,
    ax: Axes | None = None,
) -> Axes:
    """SHAP summary plot: one dot per row and feature at its SHAP value.

    Features are ranked by their mean absolute SHAP value ``mean_i |phi_ij|`` (largest on
    top, the first ``max_display`` shown); each feature's row of dots is spread
    vertically so that dense regions show, and each dot is coloured by the row's value of
    the feature, from low to high (scaled between the feature's 5th and 95th
    percentiles; a colour bar gives the scale).  Values of categorical or other
    non-numeric features, and missing values, are grey.

    Parameters
    ----------
    values : array-like of shape (n_samples, n_features)
        SHAP values, e.g. the first result of :func:`treeboost.inspection.shap_values`
        (for a model with several outputs pick one: ``values[:, :, k]``).
    X : array-like or pandas DataFrame of shape (n_samples, n_features)
        The rows explained, as given to ``shap_values``.
    feature_names : sequence of str, default=None
        Defaults to the columns of a DataFrame, else ``x0, x1, ...``.
    max_display : int, default=20
        Number of features shown.
    ax : matplotlib Axes, default=None
        Drawn into a new figure when None.

    Returns
    -------
    ax : matplotlib Axes
    """
    plt = _plt()
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(
            f"values must have shape (n_samples, n_features), got "
            f"{values.shape}; for several outputs pass one: values[:, :, k]."
        )
    n, p = values.shape
    columns, names = _columns_of(X)
    if len(columns) != p or any(c.shape[0] != n for c in columns):
        raise ValueError(
            f"X must have the shape of values {values.shape}, got "
            f"({len(columns[0]) if columns else 0}, {len(columns)})."
        )
    if feature_names is None:
        feature_names = names if names is not None else [f"x{j}" for j in range(p)]
    if len(feature_names) != p:
        raise ValueError(f"feature_names has {len(feature_names)} names, values has {p} features.")
    if (
        isinstance(max_display, bool)
        or not isinstance(max_display, (int, np.integer))
        or max_display < 1
    ):
        raise ValueError(f"max_display must be an int >= 1, got {max_display!r}.")
    order = np.argsort(-np.abs(values).mean(axis=0), kind="stable")[:max_display]
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.4 * len(order) + 1.5))
    cmap = plt.get_cmap("coolwarm")
    rng = np.random.default_rng(0)
    for rank, j in enumerate(order):
        y = len(order) - 1 - rank + rng.uniform(-0.3, 0.3, (n,))
        shade = _shade(columns[j])
        grey = np.isnan(shade)
        ax.scatter(values[grey, j], y[grey], s=8, c="0.6", alpha=0.8, linewidths=0)
        ax.scatter(
            values[~grey, j],
            y[~grey],
            s=8,
            c=shade[~grey],
            cmap=cmap,
            vmin=0.0,
            vmax=1.0,
            alpha=0.8,
            linewidths=0,
        )
    ax.axvline(0.0, color="0.4", linewidth=0.8, zorder=0)
    ax.set_yticks(np.arange(len(order)))
    ax.set_yticklabels([str(feature_names[j]) for j in order[::-1]])
    ax.set_ylim(-0.6, len(order) - 0.4)
    ax.set_xlabel("SHAP value (effect on the model's output)")
    bar = ax.figure.colorbar(
        ScalarMappable(norm=Normalize(0.0, 1.0), cmap=cmap),
        ax=ax,
        ticks=[0.0, 1.0],
        aspect=40,
        pad=0.02,
    )
    bar.ax.set_yticklabels(["low", "high"])
    bar.set_label("feature value")
    _tight_layout(ax)
    return ax


def _columns_of(X):
    """The columns of X as 1-d arrays, and their names (a DataFrame's) or None; a frame's
    non-numeric columns (category, text) come as ``None`` values, which are grey."""
    if hasattr(X, "columns") and hasattr(X, "iloc"):
        from pandas.api.types import is_numeric_dtype

        columns = []
        for j in range(X.shape[1]):
            col = X.iloc[:, j]
            columns.append(
                col.to_numpy(dtype=np.float64, na_value=np.nan)
                if is_numeric_dtype(col.dtype)
                else np.full(len(col), None, dtype=object)
            )
        return columns, [str(c) for c in X.columns]
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {X.shape}.")
    return [X[:, j] for j in range(X.shape[1])], None


def _shade(column):
    """Colour positions in [0, 1] of a column's values between its 5th and 95th
    percentiles; NaN where the value is missing or not a number."""
    try:
        x = np.asarray(column, dtype=np.float64)
    except (TypeError, ValueError):
        return np.full(column.shape[0], np.nan)
    finite = np.isfinite(x)
    if not finite.any():
        return np.full(x.shape[0], np.nan)
    lo, hi = np.percentile(x[finite], [5, 95])
    if hi <= lo:
        lo, hi = x[finite].min(), x[finite].max()
    out = np.full(x.shape[0], np.nan)
    out[finite] = 0.5 if hi <= lo else np.clip((x[finite] - lo) / (hi - lo), 0.0, 1.0)
    return out
