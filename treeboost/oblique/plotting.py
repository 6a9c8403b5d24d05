"""The decision regions of a classifier of two attributes, drawn with matplotlib."""

from __future__ import annotations

import numpy as np


def plot_decision_boundary(model, X, y=None, ax=None, resolution=300, title=None):
    """Colour the plane by ``model.predict`` and scatter ``X`` (coloured by ``y``).

    Parameters
    ----------
    model : fitted classifier of two numeric attributes
    X : array-like of shape (n_samples, 2)
    y : array-like of shape (n_samples,), default=None
    ax : matplotlib Axes, default=None (a new figure)
    resolution : int, default=300
        Grid points along each axis.
    title : str, default=None

    Returns
    -------
    matplotlib Axes
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # an optional extra
        raise ImportError(
            "plot_decision_boundary needs matplotlib: pip install matplotlib"
        ) from exc
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have exactly 2 columns to be drawn, got shape {X.shape}.")
    if ax is None:
        _, ax = plt.subplots(figsize=(4, 4))
    lo, hi = np.nanmin(X, axis=0), np.nanmax(X, axis=0)
    pad = 0.05 * (hi - lo)
    g0, g1 = (np.linspace(lo[i] - pad[i], hi[i] + pad[i], resolution) for i in range(2))
    G0, G1 = np.meshgrid(g0, g1)
    pred = model.predict(np.column_stack([G0.ravel(), G1.ravel()]))
    _, codes = np.unique(pred, return_inverse=True)
    ax.contourf(G0, G1, codes.reshape(G0.shape), alpha=0.3, cmap="coolwarm")
    ax.contour(G0, G1, codes.reshape(G0.shape), colors="k", linewidths=0.8)
    if y is not None:
        ax.scatter(
            X[:, 0],
            X[:, 1],
            c=np.unique(y, return_inverse=True)[1],
            s=8,
            cmap="coolwarm",
            edgecolors="none",
        )
    if title:
        ax.set_title(title)
    return ax
