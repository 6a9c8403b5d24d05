"""Reading an oblique tree: its tests as text and rules, and explanations made of the
weights of the tests a row passes (no SHAP: a linear test explains itself)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.base import is_classifier

from ._base import fitted_X
from .oblique_tree import LEAF


class PathTest(NamedTuple):
    """One test on a row's path: ``sum_f weight_f x_f <= threshold`` at ``node``."""

    node: int
    features: list
    weights: np.ndarray
    standardised_weights: np.ndarray
    threshold: float
    value: float
    went_left: bool
    contributions: np.ndarray


def _names(est, feature_names):
    if feature_names is not None:
        return [str(f) for f in feature_names]
    names = getattr(est, "feature_names_in_", None)
    if names is not None:
        return [str(f) for f in names]
    return [f"x{f}" for f in range(est.n_features_in_)]


def format_test(tree, node, names, decimals=3):
    """``"0.5 * x0 - 1.2 * x3 <= 4.1"``: a node's test in the units of X."""
    feats, weights, _, thr = tree.test(node)
    terms = []
    for i, (f, a) in enumerate(zip(feats, weights)):
        mag = f"{abs(a):.{decimals}g}"
        sign = ("- " if a < 0 else "") if i == 0 else ("- " if a < 0 else "+ ")
        terms.append(f"{sign}{'' if mag == '1' else mag + ' * '}{names[f]}")
    return f"{' '.join(terms)} <= {thr:.{decimals}g}"


def _leaf_text(est, node, decimals):
    value = est.tree_.value[node]
    if is_classifier(est):
        k = int(np.argmax(value))
        return f"class: {est.classes_[k]} ({value[k]:.{decimals}g})"
    return f"value: {value[0]:.{decimals}g}"


class ExplainMixin:
    """Text, rules and path explanations of an estimator holding an ``ObliqueTree``."""

    def export_text(self, feature_names=None, decimals=3):
        """The tree as indented text, each internal node printing its linear test.

        Parameters
        ----------
        feature_names : list of str, default=None
            By default the fitted names, or ``x0, x1, ...``.
        decimals : int, default=3
            Significant digits of the weights and thresholds.

        Returns
        -------
        str
        """
        tree = self.tree_
        names = _names(self, feature_names)
        lines = []
        stack = [(0, 0, "")]
        while stack:
            node, depth, prefix = stack.pop()
            pad = "|   " * depth
            if prefix:
                lines.append(f"{pad[:-4]}|--- {prefix}")
            if tree.children_left[node] == LEAF:
                lines.append(f"{pad}|--- {_leaf_text(self, node, decimals)}")
                continue
            test = format_test(tree, node, names, decimals)
            stack.append((int(tree.children_right[node]), depth + 1, f"NOT ({test})"))
            stack.append((int(tree.children_left[node]), depth + 1, test))
        return "\n".join(lines)

    def rules(self, feature_names=None, decimals=3):
        """One IF-THEN rule per leaf: the conjunction of the linear tests on its path.

        Returns
        -------
        list of str
        """
        tree = self.tree_
        names = _names(self, feature_names)
        out = []
        stack = [(0, [])]
        while stack:
            node, conds = stack.pop()
            if tree.children_left[node] == LEAF:
                body = " AND ".join(conds) if conds else "TRUE"
                out.append(f"IF {body} THEN {_leaf_text(self, node, decimals)}")
                continue
            test = format_test(tree, node, names, decimals)
            stack.append((int(tree.children_right[node]), conds + [f"NOT ({test})"]))
            stack.append((int(tree.children_left[node]), conds + [test]))
        return out

    def explain(self, X):
        """The tests each row passes, with their weights and each attribute's part
        ``a_f x_f`` of the row's value ``w . x``.

        Returns
        -------
        list (one per row) of list of :class:`PathTest`
        """
        Xc = fitted_X(self, X)
        tree = self.tree_
        paths = tree.paths(Xc)
        out = []
        for r in range(Xc.shape[0]):
            steps = []
            for node in paths[r][paths[r] >= 0]:
                if tree.children_left[node] == LEAF:
                    continue
                feats, weights, fills, thr = tree.test(node)
                x = np.where(np.isnan(Xc[r, feats]), fills, Xc[r, feats])
                contrib = weights * x
                steps.append(
                    PathTest(
                        int(node),
                        [str(n) for n in np.asarray(_names(self, None))[feats]],
                        weights.copy(),
                        weights * self.scale_[feats],
                        thr,
                        float(contrib.sum()),
                        bool(contrib.sum() <= thr),
                        contrib,
                    )
                )
            out.append(steps)
        return out

    def decision_path_weights(self, X):
        """Per row and attribute, the signed weights of the tests on the row's path.

        ``W[r, f] = sum_{tests n on the path of r} s_n w~_{n,f}``, with ``w~_n`` the
        test's weights on standardised attributes scaled to ``sum_f |w~_{n,f}| = 1``
        and ``s_n = -1`` when the row went left (``w . x <= t``), ``+1`` when it went
        right: a positive entry says that a larger value of attribute ``f`` pushed
        the row the way it went.

        Returns
        -------
        ndarray of shape (n_samples, n_features)
        """
        Xc = fitted_X(self, X)
        tree = self.tree_
        paths = tree.paths(Xc)
        out = np.zeros(Xc.shape)
        internal = np.flatnonzero(tree.children_left != LEAF)
        for node in internal:
            feats, weights, _, _ = tree.test(node)
            std = weights * self.scale_[feats]
            std = std / np.abs(std).sum()
            visits = np.flatnonzero((paths == node).any(axis=1))
            if visits.size == 0:
                continue
            went_right = (paths[visits] == tree.children_right[node]).any(axis=1)
            sign = np.where(went_right, 1.0, -1.0)
            out[np.ix_(visits, feats)] += sign[:, None] * std[None, :]
        return out

    @property
    def feature_importances_(self):
        """Each attribute's share of the impurity decrease, a test's decrease divided
        among its attributes by ``|w~_f|`` (weights on standardised attributes, summing
        to 1 in absolute value); normalised to sum to 1."""
        tree = self.tree_
        imp = np.zeros(self.n_features_in_)
        W = tree.weighted_n_node_samples
        R = tree.impurity * W
        for node in np.flatnonzero(tree.children_left != LEAF):
            le, ri = tree.children_left[node], tree.children_right[node]
            dec = R[node] - R[le] - R[ri]
            feats, weights, _, _ = tree.test(node)
            std = np.abs(weights * self.scale_[feats])
            imp[feats] += dec * std / std.sum()
        total = imp.sum()
        return imp / total if total > 0 else imp
