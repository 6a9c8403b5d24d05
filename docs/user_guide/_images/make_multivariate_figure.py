"""Draws multivariate_boundary.png of the multivariate trees page (run from the
repository root: python docs/user_guide/_images/make_multivariate_figure.py)."""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from treeboost import DecisionTreeClassifier  # noqa: E402
from treeboost.oblique import ObliqueDecisionTreeClassifier  # noqa: E402
from treeboost.oblique.plotting import plot_decision_boundary  # noqa: E402

rng = np.random.default_rng(0)
X = rng.uniform(0, 1, (300, 2))
y = (X[:, 0] + 0.6 * X[:, 1] > 0.8).astype(int)
cart = DecisionTreeClassifier(random_state=0).fit(X, y)
oc1 = ObliqueDecisionTreeClassifier(random_state=0).fit(X, y)
fig, axes = plt.subplots(1, 2, figsize=(8, 4))
plot_decision_boundary(cart, X, y, ax=axes[0], title=f"CART: {cart.get_n_leaves()} leaves")
plot_decision_boundary(oc1, X, y, ax=axes[1], title=f"OC1: {oc1.get_n_leaves()} leaves")
fig.tight_layout()
fig.savefig(os.path.join(os.path.dirname(__file__), "multivariate_boundary.png"), dpi=90)
print(f"CART leaves: {cart.get_n_leaves()}, OC1 leaves: {oc1.get_n_leaves()}")
print(oc1.export_text(feature_names=["density", "sugar"]))
