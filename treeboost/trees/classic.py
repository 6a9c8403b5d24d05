"""The classic multiway decision trees: ID3 (Quinlan, 1986) and C4.5 (Quinlan, 1993).

Both grow one branch per value of a categorical attribute (an attribute is used at most
once on a path).  With ``D`` the samples of a node, ``p_k`` the (weighted) fraction of class
``k`` in ``D`` and ``D^v`` the samples taking value ``a^v`` of attribute ``a``:

* entropy          ``Ent(D) = -sum_k p_k log2 p_k``
* information gain ``Gain(D, a) = Ent(D) - sum_v |D^v|/|D| Ent(D^v)``
* split information (intrinsic value) ``IV(a) = -sum_v |D^v|/|D| log2(|D^v|/|D|)``
* gain ratio       ``Gain_ratio(D, a) = Gain(D, a) / IV(a)``

ID3 splits on the attribute of largest gain.  C4.5 takes, among the attributes whose gain
is at least the average gain of the candidates, the one of largest gain ratio (Quinlan's
heuristic, which stops the ratio from favouring attributes of tiny split information).
C4.5 also splits a continuous attribute in two at the midpoint of two adjacent distinct
values (``x <= t`` / ``x > t``, the cut of largest gain; such an attribute may be tested again
further down) and handles missing values with fractional weights (below).

Missing values (both estimators; C4.5's scheme).  With ``D~`` the samples whose value of
``a`` is known and ``rho = |D~| / |D|`` (weights), ``Gain(D, a) = rho * Gain(D~, a)``; the
split information counts "missing" as one more branch, as Quinlan's C4.5 code does.  A
sample whose value of the chosen attribute is missing goes down **every** branch with its
weight multiplied by the branch's share ``r_v = |D~^v| / |D~|`` of the known weight; at
prediction a row with a missing (or never seen) value is sent down every branch the same
way and the leaves' class distributions are averaged with those weights.

The tie-break rule.  Scores within ``1e-12`` of the best count as equal; the first attribute
in *priority order* wins.  The priority order is the column order, unless ``tie_break``
lists column names (or indices): those come first, in the given order, then the rest in
column order.  Between two classes of equal weight a leaf predicts the first of
``classes_`` (sorted labels).

A node becomes a leaf when its samples are all of one class, when no attribute has two
non-empty branches (no attribute left, or every remaining attribute takes one value), at
``max_depth``, below ``min_samples_split`` samples, or when the best gain is below
``min_gain``.  A branch of a categorical split that no training sample takes (an empty
branch) becomes a leaf labelled with the parent's class distribution.

The tree is a :class:`MultiwayTree`: flat per-node arrays plus a list of children per node.
All counting is vectorised: per node, one :func:`numpy.bincount` over the integer codes of
every categorical attribute at once, and one sort per continuous attribute.
"""
from numbers import Integral, Real

import numpy as np
from scipy.sparse import csr_matrix
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .encoding import EncoderMixin, check_weights
from .targets import encode_classification_target

TIE_TOL = 1e-12

__all__ = ["ID3Classifier", "C45Classifier", "MultiwayTree", "entropy"]


def entropy(counts):
    """``Ent = -sum_k p_k log2 p_k`` of each row of a (weighted) class-count array, in bits.

    Rows that sum to zero have entropy 0.
    """
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(total > 0, counts / np.where(total > 0, total, 1.0), 0.0)
        logp = np.where(p > 0, np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return -(p * logp).sum(axis=-1)


class MultiwayTree:
    """A fitted multiway tree as per-node arrays (node 0 is the root).

    Attributes
    ----------
    feature : ndarray of int
        Attribute tested at each internal node, ``-1`` at leaves.
    is_categorical : ndarray of bool
        Multiway test on category codes (True) or ``x <= threshold`` (False).
    threshold : ndarray of float
        Cut of a continuous test (NaN otherwise).
    children : list of ndarray of int
        Child ids of each node (empty at leaves): one per category code for a categorical
        test, ``[left (x <= t), right (x > t)]`` for a continuous one.
    branch_fraction : list of ndarray of float
        Share ``r_v`` of the known training weight in each branch; a missing value is
        sent down every branch with these weights.
    value : ndarray of shape (n_nodes, n_classes)
        Class distribution of each node (an empty branch keeps its parent's).
    weighted_n_node_samples, n_node_samples : ndarray
        Training weight and number of (fractional copies of) rows reaching each node.
    impurity : ndarray
        ``Ent(D)`` of each node, in bits.
    depth, parent : ndarray of int
    report : list
        For each internal node, the split report of every candidate attribute (see
        :meth:`BaseClassicTree.split_report`); ``None`` at leaves.
    """

    def __init__(self, n_features, feature, is_categorical, threshold, children,
                 branch_fraction, value, weighted_n_node_samples, n_node_samples, impurity,
                 depth, parent, report):
        self.n_features = n_features
        self.feature = np.asarray(feature, dtype=np.int64)
        self.is_categorical = np.asarray(is_categorical, dtype=bool)
        self.threshold = np.asarray(threshold, dtype=np.float64)
        self.children = [np.asarray(c, dtype=np.int64) for c in children]
        self.branch_fraction = [np.asarray(b, dtype=np.float64) for b in branch_fraction]
        self.value = np.asarray(value, dtype=np.float64)
        self.weighted_n_node_samples = np.asarray(weighted_n_node_samples, dtype=np.float64)
        self.n_node_samples = np.asarray(n_node_samples, dtype=np.float64)
        self.impurity = np.asarray(impurity, dtype=np.float64)
        self.depth = np.asarray(depth, dtype=np.int64)
        self.parent = np.asarray(parent, dtype=np.int64)
        self.report = list(report)

    @property
    def node_count(self):
        return self.feature.shape[0]

    @property
    def is_leaf(self):
        return self.feature < 0

    @property
    def n_leaves(self):
        return int(self.is_leaf.sum())

    @property
    def max_depth(self):
        return int(self.depth.max()) if self.node_count else 0

    def node_weights(self, X):
        """Weight with which each row of the encoded matrix X reaches each node.

        Returns a CSR matrix of shape (n_samples, node_count): 1 along the path of a row
        with no missing value; fractions ``r_v`` below a test whose value is missing.
        The loop is over nodes, each node routing its rows with numpy.
        """
        n = X.shape[0]
        rows_of = {0: (np.arange(n), np.ones(n))}
        out_r, out_c, out_w = [], [], []
        for node in range(self.node_count):      # parents always precede children
            rows, w = rows_of.pop(node, (np.empty(0, np.int64), np.empty(0)))
            out_r.append(rows)
            out_c.append(np.full(rows.shape[0], node))
            out_w.append(w)
            if self.feature[node] < 0:
                continue
            for child, (r, cw) in zip(self.children[node], self._route(node, X, rows, w)):
                rows_of[int(child)] = (r, cw)
        return csr_matrix((np.concatenate(out_w), (np.concatenate(out_r),
                                                    np.concatenate(out_c))),
                          shape=(n, self.node_count))

    def _route(self, node, X, rows, w):
        """Rows (and weights) going down each branch of ``node``."""
        x = X[rows, self.feature[node]]
        missing = np.isnan(x)
        kids = self.children[node]
        if self.is_categorical[node]:
            code = np.where(missing, -1, np.nan_to_num(x, nan=-1)).astype(np.int64)
            missing |= code >= len(kids)
        else:
            code = np.where(x <= self.threshold[node], 0, 1)
        miss_rows, miss_w = rows[missing], w[missing]
        frac = self.branch_fraction[node]
        out = []
        for v in range(len(kids)):
            sel = (code == v) & ~missing
            r = np.concatenate([rows[sel], miss_rows]) if miss_rows.size else rows[sel]
            cw = np.concatenate([w[sel], miss_w * frac[v]]) if miss_rows.size else w[sel]
            out.append((r, cw))
        return out

    def predict_proba(self, X):
        """Weighted average of the class distributions of the leaves each row reaches."""
        W = self.node_weights(X)
        leaves = np.flatnonzero(self.is_leaf)
        proba = np.asarray(W[:, leaves] @ self.value[leaves])
        s = proba.sum(axis=1, keepdims=True)
        return proba / np.where(s > 0, s, 1.0)

    def subtree(self, leaves):
        """A copy in which every node of ``leaves`` becomes a leaf (its descendants go).

        Node ids are renumbered compactly in the original order; ``node_map_`` holds the
        original id of each new node.
        """
        leaves = set(int(v) for v in leaves)
        keep, stack = [], [0]
        while stack:
            node = stack.pop()
            keep.append(node)
            if self.feature[node] >= 0 and node not in leaves:
                stack.extend(int(c) for c in self.children[node])
        keep = np.sort(np.asarray(keep, dtype=np.int64))
        new_id = {int(o): i for i, o in enumerate(keep)}
        cut = lambda o: o in leaves or self.feature[o] < 0  # noqa: E731
        feature = [(-1 if cut(o) else self.feature[o]) for o in keep]
        tree = MultiwayTree(
            self.n_features, feature,
            [self.is_categorical[o] and not cut(o) for o in keep],
            [np.nan if cut(o) else self.threshold[o] for o in keep],
            [[] if cut(o) else [new_id[int(c)] for c in self.children[o]] for o in keep],
            [[] if cut(o) else self.branch_fraction[o] for o in keep],
            self.value[keep], self.weighted_n_node_samples[keep], self.n_node_samples[keep],
            self.impurity[keep], self.depth[keep],
            [new_id.get(int(self.parent[o]), -1) for o in keep],
            [None if cut(o) else self.report[o] for o in keep])
        tree.node_map_ = keep
        return tree


# -- input encoding --------------------------------------------------------------------
class _Column:
    """How one input column is turned into the codes the tree tests."""

    def __init__(self, kind, categories=None, edges=None):
        self.kind = kind                 # "cat" (encoder codes), "int" (values), "bin", "num"
        self.categories = categories
        self.edges = edges


def _interval_labels(edges, decimals=4):
    bounds = np.concatenate([[-np.inf], edges, [np.inf]])
    f = lambda v: f"{v:.{decimals}g}"  # noqa: E731
    return np.array([f"({f(a)}, {f(b)}]" if np.isfinite(b) else f"> {f(a)}"
                     for a, b in zip(bounds[:-1], bounds[1:])], dtype=object)


# -- growth ----------------------------------------------------------------------------
class _Grower:
    """Grows a :class:`MultiwayTree` depth first from codes/values and class labels."""

    def __init__(self, X, kinds, n_categories, y, w, n_classes, criterion, priority,
                 max_depth, min_samples_split, min_gain, feature_names):
        self.X = X
        self.cat = np.asarray(kinds) == "cat"
        self.n_categories = np.asarray(n_categories, dtype=np.int64)
        self.y = y
        self.w = w
        self.K = n_classes
        self.criterion = criterion
        self.rank = np.empty(len(priority), np.int64)
        self.rank[np.asarray(priority)] = np.arange(len(priority))
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_gain = min_gain
        self.names = feature_names
        cat_idx = np.flatnonzero(self.cat)
        self.cat_idx = cat_idx
        # offsets of each categorical attribute's (code, class) cells in one bincount
        sizes = self.n_categories[cat_idx] * n_classes
        self.cat_offset = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.cat_cells = int(sizes.sum())
        self.codes = (np.nan_to_num(X[:, cat_idx], nan=-1).astype(np.int64)
                      if cat_idx.size else np.empty((X.shape[0], 0), np.int64))

    # per-attribute statistics ------------------------------------------------------------
    def _categorical_stats(self, rows, w, y, allowed):
        """Per categorical attribute: (gain, IV, branch weights, n non-empty)."""
        out = {}
        if not self.cat_idx.size:
            return out
        codes = self.codes[rows]
        known = codes >= 0
        cells = codes * self.K + y[:, None] + self.cat_offset[None, :]
        counts = np.bincount(cells[known], weights=np.broadcast_to(w[:, None], codes.shape)
                             [known], minlength=self.cat_cells)
        W = w.sum()
        for j, f in enumerate(self.cat_idx):
            if not allowed[f]:
                continue
            V = self.n_categories[f]
            c = counts[self.cat_offset[j]:self.cat_offset[j] + V * self.K].reshape(V, self.K)
            out[int(f)] = self._score(c, W)
        return out

    def _score(self, branch_counts, W):
        """Gain (times rho), IV (missing as a branch) and branch weights of a partition."""
        nv = branch_counts.sum(axis=1)
        Wk = nv.sum()
        if Wk <= 0:
            return 0.0, 0.0, nv, 0
        ent_known = entropy(branch_counts.sum(axis=0))
        cond = float((nv / Wk) @ entropy(branch_counts))
        gain = (Wk / W) * (float(ent_known) - cond)
        parts = nv if W - Wk <= 1e-12 * W else np.append(nv, W - Wk)
        iv = float(entropy(parts))
        return gain, iv, nv, int((nv > 0).sum())

    def _numeric_stats(self, f, rows, w, y):
        """Best bi-partition ``x <= t`` of a continuous attribute (largest gain)."""
        x = self.X[rows, f]
        known = ~np.isnan(x)
        xk, wk, yk = x[known], w[known], y[known]
        if xk.size < 2:
            return None
        order = np.argsort(xk, kind="stable")
        xs = xk[order]
        cut = np.flatnonzero(xs[1:] > xs[:-1])         # last position of each left part
        if not cut.size:
            return None
        onehot = np.zeros((xs.size, self.K))
        onehot[np.arange(xs.size), yk[order]] = wk[order]
        left = np.cumsum(onehot, axis=0)[cut]
        total = left[-1] + onehot[cut[-1] + 1:].sum(axis=0)
        right = total - left
        WL, WR = left.sum(axis=1), right.sum(axis=1)
        Wk = total.sum()
        cond = (WL * entropy(left) + WR * entropy(right)) / Wk
        gains = entropy(total) - cond
        b = int(np.argmax(gains >= gains.max() - TIE_TOL))  # smallest cut among ties
        t = (xs[cut[b]] + xs[cut[b] + 1]) / 2.0
        counts = np.vstack([left[b], right[b]])
        gain, iv, nv, nz = self._score(counts, w.sum())
        return gain, iv, nv, nz, t

    # choice ----------------------------------------------------------------------------
    def _best(self, stats):
        """The chosen attribute among ``stats`` (see the module's tie-break rule)."""
        cands = [f for f, s in stats.items() if s[3] >= 2]
        if not cands:
            return None
        cands.sort(key=lambda f: self.rank[f])
        gains = np.array([stats[f][0] for f in cands])
        if self.criterion == "gain":
            scores = gains
        else:
            ivs = np.array([stats[f][1] for f in cands])
            eligible = gains >= gains.mean() - TIE_TOL
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(ivs > 0, gains / np.where(ivs > 0, ivs, 1.0), 0.0)
            scores = np.where(eligible, ratio, -np.inf)
        best = scores.max()
        return cands[int(np.argmax(scores >= best - TIE_TOL))]

    # growth ----------------------------------------------------------------------------
    def grow(self):
        n = self.X.shape[0]
        nodes = []            # dicts, in creation order (parents first)
        allowed0 = np.ones(self.X.shape[1], bool)
        stack = [(np.arange(n), self.w, -1, 0, allowed0, None)]
        while stack:
            rows, w, parent, depth, allowed, inherited = stack.pop()
            node = len(nodes)
            y = self.y[rows]
            counts = np.bincount(y, weights=w, minlength=self.K).astype(np.float64)
            W = counts.sum()
            value = counts / W if W > 0 else inherited
            rec = dict(feature=-1, is_cat=False, threshold=np.nan, children=[],
                       fraction=[], value=value, weight=W, n=float(rows.size),
                       impurity=float(entropy(counts)), depth=depth, parent=parent,
                       report=None)
            nodes.append(rec)
            if parent >= 0:
                nodes[parent]["children"].append(node)
            split = self._split(rows, w, y, counts, depth, allowed)
            if split is None:
                continue
            f, stats, report = split
            rec.update(feature=f, is_cat=bool(self.cat[f]), report=report)
            branches = self._partition(f, rows, w, stats)
            rec["fraction"] = stats[2] / stats[2].sum()
            child_allowed = allowed.copy()
            if self.cat[f]:
                child_allowed[f] = False
            else:
                rec["threshold"] = stats[4]
            # push in reverse so that the children get consecutive ids in branch order
            for r, cw in reversed(branches):
                stack.append((r, cw, node, depth + 1, child_allowed, value))
        return self._build(nodes)

    def _split(self, rows, w, y, counts, depth, allowed):
        """(attribute, its stats, the report) or None when the node stays a leaf."""
        W = counts.sum()
        if (np.count_nonzero(counts > 1e-12 * W) <= 1 or rows.size < self.min_samples_split
                or (self.max_depth is not None and depth >= self.max_depth)):
            return None
        stats = self._categorical_stats(rows, w, y, allowed)
        for f in np.flatnonzero(~self.cat & allowed):
            s = self._numeric_stats(int(f), rows, w, y)
            if s is not None:
                stats[int(f)] = s
        f = self._best(stats)
        if f is None or stats[f][0] < self.min_gain:
            return None
        return f, stats[f], self._report(stats, f, counts)

    def _report(self, stats, chosen, counts):
        gains = [s[0] for s in stats.values() if s[3] >= 2]
        avg = float(np.mean(gains)) if gains else 0.0
        rows = []
        for f in sorted(stats, key=lambda f: self.rank[f]):
            gain, iv, nv, nz = stats[f][:4]
            rows.append(dict(
                feature=self.names[f], gain=gain, split_info=iv,
                gain_ratio=gain / iv if iv > 0 else np.nan,
                threshold=stats[f][4] if len(stats[f]) > 4 else np.nan,
                above_average_gain=bool(gain >= avg - TIE_TOL),
                chosen=bool(f == chosen)))
        return dict(entropy=float(entropy(counts)), average_gain=avg, attributes=rows)

    def _partition(self, f, rows, w, stats):
        x = self.X[rows, f]
        missing = np.isnan(x)
        if self.cat[f]:
            code = np.where(missing, -1, np.nan_to_num(x, nan=-1)).astype(np.int64)
            n_branches = int(self.n_categories[f])
        else:
            code = np.where(x <= stats[4], 0, 1)
            n_branches = 2
        frac = stats[2] / stats[2].sum()
        mr, mw = rows[missing], w[missing]
        out = []
        for v in range(n_branches):
            sel = (code == v) & ~missing
            if mr.size and frac[v] > 0:
                out.append((np.concatenate([rows[sel], mr]),
                            np.concatenate([w[sel], mw * frac[v]])))
            else:
                out.append((rows[sel], w[sel]))
        return out

    def _build(self, nodes):
        get = lambda k: [r[k] for r in nodes]  # noqa: E731
        return MultiwayTree(self.X.shape[1], get("feature"), get("is_cat"), get("threshold"),
                            get("children"), get("fraction"), np.vstack(get("value")),
                            get("weight"), get("n"), get("impurity"), get("depth"),
                            get("parent"), get("report"))


# -- estimators ------------------------------------------------------------------------
class BaseClassicTree(EncoderMixin, ClassifierMixin, BaseEstimator):
    """Shared fitting, prediction and reports of :class:`ID3Classifier` and
    :class:`C45Classifier`."""

    _criterion = "gain"
    _allow_continuous = False

    _parameter_constraints = {
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_samples_split": [Interval(Integral, 2, None, closed="left")],
        "min_gain": [Interval(Real, 0.0, None, closed="left")],
        "tie_break": ["array-like", None],
        "categorical_features": ["array-like", StrOptions({"auto"}), None],
        "pruning": [StrOptions({"pre", "post", "pessimistic"}), None],
        "validation_fraction": [Interval(Real, 0.0, 1.0, closed="neither")],
        "confidence_factor": [Interval(Real, 0.0, 0.5, closed="right")],
        "random_state": ["random_state"],
    }

    # -- encoding ------------------------------------------------------------------------
    def _encode(self, X, reset):
        Xe = self._encode_X(X, reset=reset).astype(np.float64, copy=True)
        enc = self._encoder
        names = getattr(self, "feature_names_in_", None)
        if reset:
            self._columns = [self._learn_column(Xe[:, f], f, enc, names)
                             for f in range(Xe.shape[1])]
        for f, col in enumerate(self._columns):
            x = Xe[:, f]
            if col.kind == "int":
                Xe[:, f] = _lookup(col.categories, x)
            elif col.kind == "bin":
                Xe[:, f] = np.where(np.isnan(x), np.nan,
                                    np.searchsorted(col.edges, x, side="left"))
        return Xe

    def _learn_column(self, x, f, enc, names):
        if enc.is_categorical_[f]:
            return _Column("cat", categories=enc.categories_[f])
        known = x[~np.isnan(x)]
        if self._allow_continuous:
            return _Column("num")
        if np.all(known == np.round(known)):
            return _Column("int", categories=np.unique(known))
        name = names[f] if names is not None else f"x{f}"
        if self.n_bins is None:
            raise ValueError(
                f"ID3 handles categorical attributes only, and column {name!r} is "
                f"continuous (non-integer numbers). Use C45Classifier, discretise the "
                f"column, or pass n_bins=k to cut it at its k-quantiles.")
        edges = np.unique(np.quantile(known, np.linspace(0, 1, self.n_bins + 1)[1:-1])) \
            if known.size else np.empty(0)
        return _Column("bin", categories=_interval_labels(edges), edges=edges)

    @property
    def categories_(self):
        """Values of each attribute, in code order (None for continuous ones)."""
        check_is_fitted(self, "tree_")
        return [c.categories for c in self._columns]

    def _priority(self, n_features):
        """Column order with the ``tie_break`` columns first (see the module docs)."""
        if self.tie_break is None:
            return np.arange(n_features)
        names = list(getattr(self, "feature_names_in_", []))
        first = []
        for item in self.tie_break:
            if isinstance(item, (Integral, np.integer)):
                idx = int(item)
            elif item in names:
                idx = names.index(item)
            else:
                raise ValueError(f"tie_break names an unknown column {item!r}.")
            if not 0 <= idx < n_features:
                raise ValueError(f"tie_break index {idx} out of range.")
            if idx not in first:
                first.append(idx)
        return np.array(first + [f for f in range(n_features) if f not in first])

    # -- fit -----------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None, X_val=None, y_val=None):
        """Grow the tree (then prune it if ``pruning`` is set).

        Parameters
        ----------
        X : array-like or pandas DataFrame of shape (n_samples, n_features)
            Categorical columns (pandas category/object/string, or named in
            ``categorical_features``) branch once per category; NaN is a missing value.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
        X_val, y_val : validation set for ``pruning="pre"`` / ``"post"``; when not given,
            a ``validation_fraction`` of (X, y) is held out (stratified) instead.

        Returns
        -------
        self
        """
        self._validate_params()
        if self.pruning in ("pre", "post") and X_val is None:
            X, y, sample_weight, X_val, y_val = self._hold_out(X, y, sample_weight)
        Xe = self._encode(X, reset=True)
        self.classes_, y_enc = encode_classification_target(y, Xe.shape[0])
        self.n_classes_ = self.classes_.shape[0]
        w = check_weights(sample_weight, Xe)
        keep = w > 0
        names = (list(self.feature_names_in_) if hasattr(self, "feature_names_in_")
                 else [f"x{i}" for i in range(Xe.shape[1])])
        kinds = ["num" if c.kind == "num" else "cat" for c in self._columns]
        n_cat = [0 if c.kind == "num" else len(c.categories) for c in self._columns]
        grower = _Grower(Xe[keep], kinds, n_cat, y_enc[keep], w[keep], self.n_classes_,
                         self._criterion, self._priority(Xe.shape[1]), self.max_depth,
                         self.min_samples_split, self.min_gain, names)
        self.tree_ = grower.grow()
        self.pruning_report_ = []
        if self.pruning is not None:
            from . import pruning as _pruning
            if self.pruning == "pessimistic":
                pruned, report = _pruning.pessimistic_pruning(
                    self, confidence_factor=self.confidence_factor, return_report=True)
            else:
                fn = (_pruning.pre_pruning if self.pruning == "pre"
                      else _pruning.reduced_error_pruning)
                pruned, report = fn(self, X_val, y_val, return_report=True)
            self.unpruned_tree_ = self.tree_
            self.tree_ = pruned.tree_
            self.pruning_report_ = report
        return self

    def _hold_out(self, X, y, sample_weight):
        from sklearn.model_selection import train_test_split
        y_arr = np.asarray(y)
        _, counts = np.unique(y_arr, return_counts=True)
        strat = y_arr if counts.min() >= 2 else None
        parts = train_test_split(*(a for a in (X, y, sample_weight) if a is not None),
                                 test_size=self.validation_fraction, stratify=strat,
                                 random_state=self.random_state)
        if sample_weight is None:
            X_tr, X_val, y_tr, y_val = parts
            return X_tr, y_tr, None, X_val, y_val
        X_tr, X_val, y_tr, y_val, sw_tr, _ = parts
        return X_tr, y_tr, sw_tr, X_val, y_val

    # -- prediction ------------------------------------------------------------------------
    def _transform(self, X):
        check_is_fitted(self, "tree_")
        return self._encode(X, reset=False)

    def predict_proba(self, X):
        """Class probabilities: the leaves' class distributions, averaged with the
        fractional weights of the branches a missing value goes down."""
        return self.tree_.predict_proba(self._transform(X))

    def predict(self, X):
        """Most probable class (ties: the first of ``classes_``)."""
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def apply(self, X):
        """Leaf reached by each row (for a row split over several leaves by missing
        values: the leaf of largest weight)."""
        W = self.tree_.node_weights(self._transform(X)).toarray()
        W[:, ~self.tree_.is_leaf] = -1
        return np.argmax(W, axis=1)

    def get_depth(self):
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self):
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    # -- reports ---------------------------------------------------------------------------
    @property
    def gains_(self):
        """For each node, the split report (see :meth:`split_report`), None at leaves."""
        check_is_fitted(self, "tree_")
        return self.tree_.report

    def split_report(self, node=0, as_frame=True):
        """Each candidate attribute's Gain, IV and Gain_ratio at ``node``.

        Columns: ``feature``, ``gain`` (``rho * Gain(D~, a)``), ``split_info`` (``IV(a)``),
        ``gain_ratio``, ``threshold`` (continuous attributes: the best cut),
        ``above_average_gain`` (C4.5's eligibility) and ``chosen``.  Returns a pandas
        DataFrame (or a list of dicts with ``as_frame=False``); its ``attrs`` hold the
        node's ``entropy`` and ``average_gain``.
        """
        check_is_fitted(self, "tree_")
        rep = self.tree_.report[node]
        if rep is None:
            raise ValueError(f"Node {node} is a leaf: it has no split report.")
        if not as_frame:
            return rep["attributes"]
        import pandas as pd
        df = pd.DataFrame(rep["attributes"])
        df.attrs.update(entropy=rep["entropy"], average_gain=rep["average_gain"])
        return df

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def _lookup(values, x):
    """Index of each x in the sorted ``values`` (NaN when absent or missing)."""
    out = np.full(x.shape[0], np.nan)
    if not len(values):
        return out
    pos = np.clip(np.searchsorted(values, x), 0, len(values) - 1)
    found = ~np.isnan(x) & (values[pos] == x)
    out[found] = pos[found]
    return out


_DOC_PARAMS = """
    max_depth : int or None, default=None
        Maximum depth (the root has depth 0).
    min_samples_split : int, default=2
        A node with fewer rows (fractional copies included) stays a leaf.
    min_gain : float, default=0.0
        A node whose chosen attribute gains less than this stays a leaf.
    tie_break : list of str or int, or None, default=None
        Priority order for exact ties (within 1e-12): these columns first, in the given
        order, then the others in column order.  ``None``: column order.
    categorical_features : None, "auto" or array-like, default=None
        As in :class:`~treeboost.DecisionTreeClassifier`.
    pruning : {None, "pre", "post", "pessimistic"}, default=None
        ``"pre"``: the book's pre-pruning, ``"post"``: reduced-error post-pruning (both on
        the validation set passed to ``fit`` or held out), ``"pessimistic"``: C4.5's
        error-based pruning with ``confidence_factor``.  See :mod:`treeboost.trees.pruning`.
    validation_fraction : float, default=0.3
        Share of the training rows held out (stratified) for ``"pre"`` / ``"post"`` when
        ``fit`` receives no ``X_val``.
    confidence_factor : float in (0, 0.5], default=0.25
        CF of ``"pessimistic"`` pruning.
    random_state : int or None, default=None
        Seeds the hold-out split.
"""


class ID3Classifier(BaseClassicTree):
    __doc__ = """ID3: a multiway tree on categorical attributes, split by information gain.

    ``Gain(D, a) = Ent(D) - sum_v |D^v|/|D| Ent(D^v)`` with ``Ent(D) = -sum_k p_k log2 p_k``;
    the attribute of largest gain is chosen (ties: see ``tie_break``) and gets one branch
    per category.  See :mod:`treeboost.trees.classic` for missing values and stopping.

    Parameters
    ----------
    n_bins : int or None, default=None
        A numeric column whose values are all integers is taken as categorical (one branch
        per distinct value).  A column with other numbers is continuous, which ID3 cannot
        split: with ``n_bins=None`` fitting raises a ``ValueError`` naming the column; with
        ``n_bins=k`` the column is cut at its ``k``-quantiles (learned at fit) and each
        interval is one category.""" + _DOC_PARAMS + """
    Attributes
    ----------
    classes_, n_classes_, n_features_in_, feature_names_in_
    tree_ : MultiwayTree
    gains_ : list
        The split report of each node (see :meth:`split_report`).
    categories_ : list
    pruning_report_ : list of dict
        The steps of the pruning done by ``fit`` (empty without ``pruning``).

    Examples
    --------
    >>> from treeboost.datasets import load_watermelon
    >>> from treeboost.trees.classic import ID3Classifier
    >>> melons = load_watermelon()
    >>> clf = ID3Classifier().fit(melons.data, melons.target)
    >>> clf.split_report(0).round(3).set_index("feature")["gain"].to_dict()
    {'色泽': 0.109, '根蒂': 0.143, '敲声': 0.141, '纹理': 0.381, '脐部': 0.289, '触感': 0.006}
    """

    _criterion = "gain"
    _allow_continuous = False
    _parameter_constraints = {**BaseClassicTree._parameter_constraints,
                              "n_bins": [Interval(Integral, 2, None, closed="left"), None]}

    def __init__(self, *, max_depth=None, min_samples_split=2, min_gain=0.0, tie_break=None,
                 n_bins=None, categorical_features=None, pruning=None,
                 validation_fraction=0.3, confidence_factor=0.25, random_state=None):
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_gain = min_gain
        self.tie_break = tie_break
        self.n_bins = n_bins
        self.categorical_features = categorical_features
        self.pruning = pruning
        self.validation_fraction = validation_fraction
        self.confidence_factor = confidence_factor
        self.random_state = random_state


class C45Classifier(BaseClassicTree):
    __doc__ = """C4.5: multiway categorical splits and binary continuous ones, by gain ratio.

    Among the attributes whose gain is at least the average gain of the candidates, the
    one of largest ``Gain_ratio(D, a) = Gain(D, a) / IV(a)``, with
    ``IV(a) = -sum_v |D^v|/|D| log2 |D^v|/|D|``, is chosen.  Numeric columns are continuous:
    ``x <= t`` with ``t`` the midpoint of two adjacent distinct values of largest gain.
    Missing values get fractional weights at fit and at predict (see
    :mod:`treeboost.trees.classic`).
""" + "\n    Parameters\n    ----------" + _DOC_PARAMS + """
    Attributes
    ----------
    As :class:`ID3Classifier`.

    Notes
    -----
    Unlike Quinlan's program, no MDL correction is applied to the gain of continuous
    cuts, and pruning is off by default (``pruning="pessimistic"`` gives C4.5's).
    """

    _criterion = "gain_ratio"
    _allow_continuous = True
    n_bins = None

    def __init__(self, *, max_depth=None, min_samples_split=2, min_gain=0.0, tie_break=None,
                 categorical_features=None, pruning=None, validation_fraction=0.3,
                 confidence_factor=0.25, random_state=None):
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_gain = min_gain
        self.tie_break = tie_break
        self.categorical_features = categorical_features
        self.pruning = pruning
        self.validation_fraction = validation_fraction
        self.confidence_factor = confidence_factor
        self.random_state = random_state
