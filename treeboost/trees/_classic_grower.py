"""The classic trees' grower: the input columns encoded as the tree tests them
(:class:`_Column`) and the recursive split search of ID3 and C4.5 (:class:`_Grower`), with
the options of :mod:`.attribute_costs`, :mod:`.missing_values`, :mod:`.chi_square` and
:mod:`.class_ties`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..persistence._checks import (
    check_array,
    check_labels,
)
from .attribute_costs import cost_sensitive_score
from .chi_square import chi_square
from .missing_values import fill_node, most_common

if TYPE_CHECKING:
    from .._typing import (
        Float64Array,
    )


from .multiway_tree import TIE_TOL, MultiwayTree, entropy


class _Column:
    """How one input column is turned into the codes the tree tests."""

    def __init__(self, kind, categories=None, edges=None):
        self.kind = kind  # "cat" (encoder codes), "int" (values), "bin", "num"
        self.categories = categories
        self.edges = edges

    _persist_attributes = ("kind", "categories", "edges")
    _KINDS = ("cat", "int", "bin", "num")

    def _validate_state(self, where="column", allow_continuous=True, categories=None):
        """``"cat"`` columns hold the encoder's categories (``categories``: the codes it
        emits index the branches), ``"int"`` columns sorted distinct values (found by
        binary search), ``"bin"`` columns sorted finite cut points and one label per
        interval, ``"num"`` columns (C4.5 only) nothing."""
        if set(vars(self)) != set(self._persist_attributes):
            raise ValueError(f"{where}: not a column description.")
        if self.kind not in self._KINDS:
            raise ValueError(
                f"{where}.kind: unknown column kind {self.kind!r:.40} (expected "
                f"one of {', '.join(self._KINDS)})."
            )
        if self.kind == "num":
            if not allow_continuous:
                raise ValueError(f"{where}: ID3 has no continuous columns.")
            if self.categories is not None or self.edges is not None:
                raise ValueError(f"{where}: a continuous column has no categories or edges.")
            return
        cats = check_labels(self.categories, f"{where}.categories")
        if self.kind == "int":
            check_array(cats, f"{where}.categories", ("int64", "float64"), finite=True)
            if self.edges is not None or np.any(np.diff(cats) <= 0):
                raise ValueError(f"{where}: integer values must be sorted and distinct.")
        elif self.kind == "bin":
            edges = check_array(self.edges, f"{where}.edges", "float64", ndim=1, finite=True)
            if np.any(np.diff(edges) <= 0) or len(cats) != edges.size + 1:
                raise ValueError(
                    f"{where}: bin edges must be sorted and distinct, with one label per interval."
                )
        elif self.edges is not None:
            raise ValueError(f"{where}: a categorical column has no edges.")
        else:
            if categories is None or len(categories) != len(cats) or list(categories) != list(cats):
                raise ValueError(f"{where}: the column does not match the input encoder.")


def _interval_labels(edges, decimals=4):
    bounds = np.concatenate([[-np.inf], edges, [np.inf]])
    f = lambda v: f"{v:.{decimals}g}"  # noqa: E731
    return np.array(
        [
            f"({f(a)}, {f(b)}]" if np.isfinite(b) else f"> {f(a)}"
            for a, b in zip(bounds[:-1], bounds[1:])
        ],
        dtype=object,
    )


# -- growth ----------------------------------------------------------------------------
@dataclass(frozen=True)
class _GrowOptions:
    """Mitchell's options of a grower (see the estimators' parameters)."""

    #: the cost of each attribute (None: no costs) and the cost-sensitive measure
    costs: Float64Array | None = None
    cost_measure: str = "tan_schlimmer"
    cost_weight: float = 1.0
    #: one of missing_values.MISSING_RULES
    missing: str = "fractional"
    #: split a node only if the chosen attribute's chi-square p-value is below this
    chi2_alpha: float | None = None


class _Grower:
    """Grows a :class:`MultiwayTree` depth first from codes/values and class labels.

    Each row of a node carries its sample weight ``sw`` and its fraction ``f`` (the product
    of the shares ``r_v`` of the branches it was sent down with a missing value): its
    weight in the node is ``sw * f`` and it counts as ``f`` samples (Quinlan's fractional
    cases) for ``min_samples_split`` and ``min_samples_leaf``.
    """

    def __init__(
        self,
        X,
        kinds,
        n_categories,
        y,
        sw,
        n_classes,
        criterion,
        priority,
        max_depth,
        min_samples_split,
        min_samples_leaf,
        min_gain,
        options=None,
    ):
        self.X = X
        # Mitchell's options (attribute costs, filled missing values, the chi-square
        # test) and the class tie-break rule: see _GrowOptions
        self.options = options if options is not None else _GrowOptions()
        self.cat = np.asarray(kinds) == "cat"
        self.n_categories = np.asarray(n_categories, dtype=np.int64)
        self.y = y
        self.sw = sw
        self.K = n_classes
        self.criterion = criterion
        self.rank = np.empty(len(priority), np.int64)
        self.rank[np.asarray(priority)] = np.arange(len(priority))
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_gain = min_gain
        self.cat_idx = np.flatnonzero(self.cat)
        self.num_idx = np.flatnonzero(~self.cat)
        # every categorical attribute gets a block of Vmax * K cells in one bincount
        self.vmax = int(self.n_categories[self.cat_idx].max()) if self.cat_idx.size else 0
        self.cat_offset = np.arange(self.cat_idx.size, dtype=np.int64) * self.vmax * self.K

    # per-attribute statistics (vectorised) ----------------------------------------------
    def _scores(self, counts, W, n_counts):
        """Gain (times rho), IV (missing as a branch) of partitions given as class counts
        of shape (n_attributes, n_branches, K); ``n_counts`` the same in sample counts."""
        nv = counts.sum(axis=2)
        Wk = nv.sum(axis=1)
        safe = np.where(Wk > 0, Wk, 1.0)
        ent_known = entropy(counts.sum(axis=1))
        cond = (nv * entropy(counts)).sum(axis=1) / safe
        gain = np.where(Wk > 0, Wk / W * (ent_known - cond), 0.0)
        missing = np.maximum(W - Wk, 0.0)
        missing[missing <= 1e-12 * W] = 0.0
        iv = entropy(np.concatenate([nv, missing[:, None]], axis=1))
        # Quinlan's admissibility: two branches with at least min_samples_leaf samples
        big = (n_counts >= self.min_samples_leaf - 1e-9) & (nv > 0)
        return gain, iv, nv, big.sum(axis=1) >= 2

    def _categorical(self, codes, w, f_rows, y, allowed):
        p = self.cat_idx.size
        if not p or not allowed[self.cat_idx].any():
            return None
        known = codes >= 0
        cells = (codes * self.K + y[:, None] + self.cat_offset[None, :])[known]
        size = p * self.vmax * self.K
        shape = (p, self.vmax, self.K)
        wk = np.broadcast_to(w[:, None], codes.shape)[known]
        counts = np.bincount(cells, weights=wk, minlength=size).reshape(shape)
        fk = np.broadcast_to(f_rows[:, None], codes.shape)[known]
        n_counts = np.bincount(cells, weights=fk, minlength=size).reshape(shape).sum(axis=2)
        gain, iv, nv, ok = self._scores(counts, w.sum(), n_counts)
        ok &= allowed[self.cat_idx]
        return gain, iv, nv, ok, counts

    def _numeric(self, x, w, f_rows, y):
        """Best bi-partition ``x <= t`` of a continuous attribute (largest gain)."""
        known = ~np.isnan(x)
        xk = x[known]
        if xk.size < 2:
            return None
        order = np.argsort(xk, kind="stable")
        xs = xk[order]
        cut = np.flatnonzero(xs[1:] > xs[:-1])  # last position of each left part
        if not cut.size:
            return None
        onehot = np.zeros((xs.size, self.K))
        onehot[np.arange(xs.size), y[known][order]] = w[known][order]
        cum = np.cumsum(onehot, axis=0)
        left = cum[cut]
        right = cum[-1] - left
        nleft = np.cumsum(f_rows[known][order])[cut]
        nright = f_rows[known].sum() - nleft
        counts = np.stack([left, right], axis=1)  # (n_cuts, 2, K)
        gain, iv, nv, ok = self._scores(counts, w.sum(), np.stack([nleft, nright], 1))
        if not ok.any():
            return None
        gain = np.where(ok, gain, -np.inf)
        b = int(np.argmax(gain >= gain.max() - TIE_TOL))  # smallest cut among ties
        cut_b = _midpoint(xs[cut[b]], xs[cut[b] + 1])
        return gain[b], iv[b], nv[b], cut_b, counts[b]

    def _stats(self, Xr, w, f_rows, y, allowed):
        """Arrays over all attributes: gain, IV, admissible, threshold, chi-square p-value;
        branch weights.  ``Xr``: the node's rows of X."""
        p = self.X.shape[1]
        gain = np.full(p, np.nan)
        iv = np.full(p, np.nan)
        ok = np.zeros(p, bool)
        thr = np.full(p, np.nan)
        tables = np.zeros((p, max(self.vmax, 2), self.K))
        branch = {}
        codes = np.nan_to_num(Xr[:, self.cat_idx], nan=-1).astype(np.int64)
        cat = self._categorical(codes, w, f_rows, y, allowed)
        if cat is not None:
            gain[self.cat_idx], iv[self.cat_idx], nv, ok[self.cat_idx], counts = cat
            tables[self.cat_idx, : self.vmax] = counts
            for j in np.flatnonzero(cat[3]):
                f = self.cat_idx[j]
                branch[int(f)] = nv[j, : self.n_categories[f]]
        for f in self.num_idx:
            res = self._numeric(Xr[:, f], w, f_rows, y)
            if res is not None:
                gain[f], iv[f], branch[int(f)], thr[f], tables[f, :2] = res
                ok[f] = True
        # an attribute already used on the path is no candidate (its report line goes)
        gain[~allowed] = np.nan
        iv[~allowed] = np.nan
        p_value = np.where(ok, chi_square(tables).p_value, np.nan)
        return gain, iv, ok, thr, p_value, branch

    # choice ----------------------------------------------------------------------------
    def _scores_of(self, gain, iv, ok):
        """The selection score of every attribute (NaN where not a candidate): the gain
        (ID3) or the gain ratio among the above-average gains (C4.5, ``-inf`` below the
        average), passed through the cost-sensitive measure when costs are given."""
        cands = np.flatnonzero(ok)
        out = np.full(gain.shape[0], np.nan)
        if not cands.size:
            return out
        g = gain[cands]
        if self.criterion == "gain":
            scores = g
        else:
            v = iv[cands]
            with np.errstate(divide="ignore", invalid="ignore"):
                scores = np.where(v > 0, g / np.where(v > 0, v, 1.0), 0.0)
        opt = self.options
        if opt.costs is not None:
            scores = cost_sensitive_score(
                scores, opt.costs[cands], opt.cost_measure, opt.cost_weight
            )
        if self.criterion != "gain":
            scores = np.where(g >= g.mean() - TIE_TOL, scores, -np.inf)
        out[cands] = scores
        return out

    def _best(self, scores, ok):
        """The chosen attribute (see the module's tie-break rule), or None."""
        cands = np.flatnonzero(ok)
        if not cands.size:
            return None
        cands = cands[np.argsort(self.rank[cands], kind="stable")]
        s = scores[cands]
        return int(cands[int(np.argmax(s >= s.max() - TIE_TOL))])

    # growth ----------------------------------------------------------------------------
    def grow(self):
        n = self.X.shape[0]
        nodes: list[dict[str, Any]] = []  # in creation order (parents first, depth first)
        stack = [(np.arange(n), np.ones(n), -1, 0, np.ones(self.X.shape[1], bool), None)]
        while stack:
            rows, frac, parent, depth, allowed, inherited = stack.pop()
            node = len(nodes)
            y = self.y[rows]
            w = self.sw[rows] * frac
            counts = np.bincount(y, weights=w, minlength=self.K).astype(np.float64)
            W = counts.sum()
            value = counts / W if W > 0 else inherited
            Xr = self.X[rows]
            if self.options.missing != "fractional":
                Xr = fill_node(Xr, y, w, self.options.missing == "most_common_class")
            rec = dict(
                feature=-1,
                is_cat=False,
                threshold=np.nan,
                children=[],
                fraction=[],
                value=value,
                weight=W,
                n=float(frac.sum()),
                impurity=float(entropy(counts)),
                depth=depth,
                parent=parent,
                report=None,
            )
            nodes.append(rec)
            if parent >= 0:
                nodes[parent]["children"].append(node)
            split = self._split(Xr, w, frac, y, counts, depth, allowed)
            if split is None:
                continue
            f, threshold, nv, report = split
            share = nv / nv.sum()
            if self.options.missing != "fractional":
                # a missing value at prediction takes the branch of the node's most
                # common value (see missing_values)
                share = self._fill_branch(f, self.X[rows, f], w, threshold, share.shape[0])
            rec.update(
                feature=f,
                is_cat=bool(self.cat[f]),
                threshold=threshold,
                report=report,
                fraction=share,
            )
            child_allowed = allowed
            if self.cat[f]:  # a categorical attribute is used once per path
                child_allowed = allowed.copy()
                child_allowed[f] = False
            branches = self._partition(f, Xr[:, f], rows, frac, threshold, share)
            # pushed in reverse so that the children get ids in branch order
            for r, fr in reversed(branches):
                stack.append((r, fr, node, depth + 1, child_allowed, value))
        return self._build(nodes)

    def _fill_branch(self, f, x, w, threshold, n_branches):
        """One-hot branch shares: the branch of the most common value of ``x``."""
        value = most_common(x, w)
        share = np.zeros(n_branches)
        share[int(value) if self.cat[f] else int(value > threshold)] = 1.0
        return share

    def _split(self, Xr, w, frac, y, counts, depth, allowed):
        """(attribute, threshold, branch weights, report) or None for a leaf."""
        W = counts.sum()
        if (
            np.count_nonzero(counts > 1e-12 * W) <= 1
            or frac.sum() < self.min_samples_split - 1e-9
            or (self.max_depth is not None and depth >= self.max_depth)
        ):
            return None
        gain, iv, ok, thr, p_value, branch = self._stats(Xr, w, frac, y, allowed)
        scores = self._scores_of(gain, iv, ok)
        f = self._best(scores, ok)
        if f is None or gain[f] < self.min_gain:
            return None
        alpha = self.options.chi2_alpha
        if alpha is not None and not p_value[f] < alpha:
            return None
        # the report keeps raw arrays; BaseClassicTree.split_report formats them
        report = dict(
            entropy=float(entropy(counts)),
            gain=gain,
            split_info=iv,
            admissible=ok,
            threshold=thr,
            chosen=f,
            rank=self.rank,
            score=scores,
            p_value=p_value,
        )
        return f, thr[f], branch[f], report

    def _partition(self, f, x, rows, frac, threshold, share):
        """(rows, fractions) of each branch; missing values go down every branch."""
        missing = np.isnan(x)
        if self.cat[f]:
            code = np.where(missing, -1, np.nan_to_num(x, nan=-1)).astype(np.int64)
        else:
            code = np.where(missing, -1, np.where(x <= threshold, 0, 1))
        n_branches = share.shape[0]
        known = ~missing
        order = np.argsort(code[known], kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(code[known], minlength=n_branches))])
        kr, kf = rows[known][order], frac[known][order]
        mr, mf = rows[missing], frac[missing]
        out = []
        for v in range(n_branches):
            r, fr = kr[bounds[v] : bounds[v + 1]], kf[bounds[v] : bounds[v + 1]]
            if mr.size and share[v] > 0:
                r, fr = np.concatenate([r, mr]), np.concatenate([fr, mf * share[v]])
            out.append((r, fr))
        return out

    def _build(self, nodes):
        get = lambda k: [r[k] for r in nodes]  # noqa: E731
        return MultiwayTree(
            self.X.shape[1],
            get("feature"),
            get("is_cat"),
            get("threshold"),
            get("children"),
            get("fraction"),
            np.vstack(get("value")),
            get("weight"),
            get("n"),
            get("impurity"),
            get("depth"),
            get("parent"),
            get("report"),
        )


def _midpoint(a, b):
    """The threshold of the cut between adjacent distinct values ``a < b``: their midpoint,
    or ``a`` where the midpoint is not strictly below ``b``.

    ``x <= t`` must send ``a`` left and ``b`` right, or the node's rows would all go to
    one branch and the same split be chosen again without end.  ``(a + b) / 2``
    overflows to infinity for values near the largest float, and rounds onto ``b`` for
    values one unit in the last place apart or subnormal; ``a / 2 + b / 2`` cannot
    overflow, and is the same number as ``(a + b) / 2`` wherever the halves are normal
    and the sum finite."""
    a, b = float(a), float(b)
    t = a / 2.0 + b / 2.0
    return t if a <= t < b else a
