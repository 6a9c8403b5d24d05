"""The tree loop of the data-parallel trainer: the grower's rules, stepped from Python.

The shards build histograms of their own rows; :class:`StepGrower` sums them, picks
each node's split with the one-machine grower's search
(:func:`~treeboost.engine.grow.stepped.best_node_split`) and rules (stopping rules, which child
reads a dense histogram, best-first order by gain with the lowest node id among equal
gains, depth-first otherwise), and asks the shards to partition their rows.

A round trip to the workers costs far more than a node's split search, so the nodes
are expanded in rounds: the loop replays the one-machine growth over the nodes whose
children are known and, where it needs a node not yet expanded, expands it together
with other open nodes best-first growth may reach next (those of largest gain, a share
of the leaves still to grow: :attr:`StepGrower.speculation`).  The tree is the
replay's: nodes expanded but not reached stay leaves, and the node ids are the
one-machine grower's.
"""

from dataclasses import dataclass, field

import numpy as np

from ..engine import (
    NEWTON,
    growth_params,
    clip_node_values,
    growth_constraints,
    Tree,
    best_node_split,
    default_dense_min_samples,
    make_candidates,
    make_scratch,
)
from ..engine import newton_leaf_values, stopping_allows


#: which children's histograms the shards build (:meth:`StepGrower._expand`)
BUILD_LEFT, BUILD_RIGHT, BUILD_BOTH = 0, 1, 2


@dataclass
class StepNode:
    """A node of the tree being grown, in the order the rounds made it."""

    total: np.ndarray  # (G, H, n)
    depth: int
    dense: bool  # read from a dense histogram (counts estimated)
    # (n_features, n_hist_bins, 3), until it is split; (..., 2) without the count
    # column where every feature is read densely (numeric features of a large node)
    hist: np.ndarray = None
    impurity: float = 0.0
    feature: int = -1  # its best split's feature; -1: a leaf
    bin_threshold: int = 0
    missing_go_left: bool = False
    categories: np.ndarray = field(default_factory=lambda: np.zeros(4, np.uint64))
    left_stats: np.ndarray = None
    gain: float = 0.0
    children: tuple = None  # ids (in this list) once expanded
    # monotonic constraints: the interval of the values it may hold, and its best
    # split's middle (where its children's intervals meet)
    lower: float = -np.inf
    upper: float = np.inf
    mid: float = 0.0
    # interaction constraints: the sets still open (a bitmask; None without them)
    allowed: np.ndarray = None
    complete: bool = True  # it may split on every feature


@dataclass
class GrownTree:
    """A tree as the shards and the model need it."""

    tree: Tree
    leaves: np.ndarray  # the leaves' ids in the shards' numbering
    leaf_positions: np.ndarray  # their positions in ``tree``
    n_rounds: int  # round trips to the shards
    n_expanded: int  # nodes split by the shards (reached or not)


class StepGrower:
    """Grow second-order-gain trees from histograms summed across shards.

    Parameters
    ----------
    bin_mapper : BinMapper
        The fitted mapper of every shard's codes.
    stopping : StoppingRules
        ``max_depth``, ``min_samples_split``, ``min_samples_leaf``, ``min_weight_leaf``
        (the hessian, ``min_child_weight``), ``min_impurity_decrease`` and
        ``max_leaf_nodes`` as the one-machine grower reads them.
    l2_regularization : float
    l1_regularization : float, default=0.0
        The ``alpha`` of the L1 threshold of the gradient sums
        (:func:`~treeboost.engine.split.criteria.l1_threshold`), as the one-machine grower's.
    constraints : Constraints, default=None
        Monotonic and interaction constraints
        (:class:`~treeboost.engine.split.constraints.Constraints`), as the one-machine grower
        reads them: each node's interval and open interaction sets are carried from
        parent to children by the same rules.
    """

    #: the share of the leaves still to grow that a round expands beside the node growth
    #: needs (best-first): fewer rounds, against nodes split but never reached
    speculation = 0.25

    def __init__(
        self, bin_mapper, stopping, l2_regularization, constraints=None, l1_regularization=0.0
    ):
        bm = bin_mapper
        self.bin_mapper = bm
        self.n_features = bm.n_bins_.shape[0]
        self.mc = int(bm.missing_values_code_)
        self.dense_min_samples = default_dense_min_samples(self.mc)
        n_features = self.n_features
        cst = growth_constraints(constraints, n_features)
        self.monotonic = cst.monotonic
        self.monotonic_cst = cst.monotonic_cst
        # each feature's interaction sets (n_features, n_words); no words: unconstrained
        self.interaction = cst.interaction
        self.all_features = np.arange(n_features, dtype=np.int64)
        self.max_leaf_nodes = (
            -1 if stopping.max_leaf_nodes is None else int(stopping.max_leaf_nodes)
        )
        self.params = growth_params(
            criterion=NEWTON,
            n_stats=2,
            l2=l2_regularization,
            max_depth=-1 if stopping.max_depth is None else stopping.max_depth,
            min_samples_split=stopping.min_samples_split,
            min_samples_leaf=stopping.min_samples_leaf,
            min_weight_leaf=stopping.min_weight_leaf,
            min_decrease=stopping.min_impurity_decrease,
            max_features=n_features,
            max_leaf_nodes=self.max_leaf_nodes,
            dense_min_samples=self.dense_min_samples,
            random_split=False,
            monotonic=self.monotonic,
            monotonic_cst=self.monotonic_cst,
            interaction=self.interaction,
            random_ties=False,
            l1=l1_regularization,
        )
        self.scratch = make_scratch(1, 1, self.mc + 1, 3)
        self.cands = make_candidates(n_features, 3)
        self.n_bins = np.ascontiguousarray(bm.n_bins_, dtype=np.int32)
        self.is_categorical = np.ascontiguousarray(bm.is_categorical_, dtype=np.bool_)
        self.edges = bm.edge_table()

    # -- one node -------------------------------------------------------------------------
    def _splittable(self, node):
        n, w = node.total[2], node.total[1]
        return bool(stopping_allows(node.depth, n, w, self.params))

    def _features(self, node):
        """The features ``node`` may split on: every one, or those of its open
        interaction sets."""
        if node.allowed is None:
            return self.all_features
        return np.flatnonzero((self.interaction & node.allowed).any(axis=1)).astype(np.int64)

    def _examine(self, node):
        """The node's impurity and, when the stopping rules let it split, its best
        split."""
        c = self.cands
        features = self._features(node)
        # as the one-machine grower: a node of some features only keeps no histogram
        # its children could subtract from
        node.complete = features.size == self.n_features
        best, node.impurity = best_node_split(
            node.hist,
            node.total,
            node.dense,
            node.lower,
            node.upper,
            features,
            self.n_bins,
            self.is_categorical,
            self.mc,
            self.params,
            self.scratch,
            c,
        )
        if not self._splittable(node) or best < 0:
            node.feature = -1
            node.hist = None
            return
        node.feature = int(best)
        node.bin_threshold = int(c.bin_threshold[best])
        node.missing_go_left = bool(c.missing_go_left[best])
        node.categories = c.categories[best].copy()
        node.left_stats = c.left_stats[best].copy()
        node.gain = float(c.decrease[best])
        node.mid = float(c.mid[best])

    # -- the tree -------------------------------------------------------------------------
    def grow(self, root_hist, root_total, split_nodes):
        """Grow one tree.

        Parameters
        ----------
        root_hist, root_total : ndarray
            The root's summed histograms and statistics ``(G, H, n)``.
        split_nodes : callable
            ``split_nodes(batch) -> (hists, n_left)``: the shards split the nodes of
            ``batch`` (a dict of arrays ``nodes``, ``features``, ``bin_thresholds``,
            ``missing_left``, ``categories``, ``build``: :data:`BUILD_LEFT`,
            :data:`BUILD_RIGHT` or :data:`BUILD_BOTH`) and return the summed
            histograms of the children built, in order, and the left children's row
            counts.

        Returns
        -------
        GrownTree
        """
        n = root_total[2]
        root = StepNode(
            np.asarray(root_total, np.float64), 0, bool(n >= self.dense_min_samples), root_hist
        )
        if self.interaction.shape[1]:
            root.allowed = np.full(self.interaction.shape[1], ~np.uint64(0))
        nodes = [root]
        self._examine(nodes[0])
        n_rounds = 0
        while True:
            plan, wanted = self._replay(nodes)
            if wanted is None:
                break
            self._expand(nodes, wanted, split_nodes)
            n_rounds += 1
        tree, leaves, positions = self._tree(nodes, plan)
        return GrownTree(
            tree, leaves, positions, n_rounds, sum(nd.children is not None for nd in nodes)
        )

    def _replay(self, nodes):
        """The one-machine growth over the nodes expanded so far: returns its order
        ``(ids, committed)`` and None when it completes, else None and the nodes to
        expand next."""
        best_first = self.max_leaf_nodes > 0
        order = [0]  # one-machine id -> id here
        ext = {0: 0}
        open_ = [0] if nodes[0].feature >= 0 else []
        n_leaves = 1
        committed = set()
        while open_:
            if best_first and n_leaves >= self.max_leaf_nodes:
                break
            pos = len(open_) - 1
            if best_first:
                for j in range(len(open_)):
                    a, b = nodes[open_[j]], nodes[open_[pos]]
                    if a.gain > b.gain or (a.gain == b.gain and ext[open_[j]] < ext[open_[pos]]):
                        pos = j
            i = open_[pos]
            if nodes[i].children is None:
                return None, self._wanted(nodes, open_, i, n_leaves, best_first)
            open_[pos] = open_[-1]
            open_.pop()
            lc, rc = nodes[i].children
            ext[lc] = len(order)
            ext[rc] = len(order) + 1
            order += [lc, rc]
            n_leaves += 1
            committed.add(i)
            small, large = (lc, rc) if nodes[lc].total[2] <= nodes[rc].total[2] else (rc, lc)
            for c in (small, large):
                if nodes[c].feature >= 0:
                    open_.append(c)
        return (order, committed), None

    def _wanted(self, nodes, open_, first, n_leaves, best_first):
        """``first`` and the other unexpanded open nodes growth may still reach: best-
        first, those of largest gain, as many as leaves remain; depth-first, all."""
        rest = [i for i in open_ if i != first and nodes[i].children is None]
        if best_first:
            rest.sort(key=lambda i: -nodes[i].gain)
            budget = self.max_leaf_nodes - n_leaves - 1
            rest = rest[: max(0, int(np.ceil(self.speculation * budget)))]
        return [first] + rest

    def _expand(self, nodes, wanted, split_nodes):
        """One round: the shards split ``wanted``; their children are examined."""
        m = len(wanted)
        dmin = self.dense_min_samples
        build = np.empty(m, np.int64)
        for j, i in enumerate(wanted):
            nd = nodes[i]
            if nd.total[2] < 2 * dmin or not nd.complete:
                # a child may be read from its rows (exact counts): both are built, with
                # their counts
                build[j] = BUILD_BOTH
            else:
                # both children are read densely; the smaller side (its count as the
                # search saw it) is built, the other one is the parent's histograms
                # minus it
                build[j] = (
                    BUILD_LEFT
                    if nd.left_stats[2] <= nd.total[2] - nd.left_stats[2]
                    else BUILD_RIGHT
                )
        batch = dict(
            nodes=np.asarray(wanted, np.int64),
            features=np.array([nodes[i].feature for i in wanted], np.int64),
            bin_thresholds=np.array([nodes[i].bin_threshold for i in wanted], np.int64),
            missing_left=np.array([nodes[i].missing_go_left for i in wanted], np.bool_),
            categories=np.array([nodes[i].categories for i in wanted], np.uint64).reshape(m, 4),
            build=build,
        )
        hists, n_left = split_nodes(batch)
        at = 0
        for j, i in enumerate(wanted):
            nd = nodes[i]
            n = nd.total[2]
            nl = float(n_left[j])
            nr = n - nl
            left = np.array([nd.left_stats[0], nd.left_stats[1], nl])
            right = np.array([nd.total[0] - nd.left_stats[0], nd.total[1] - nd.left_stats[1], nr])
            if build[j] == BUILD_BOTH:
                h_left, h_right = hists[at], hists[at + 1]
                at += 2
            else:
                built = hists[at]
                at += 1
                # (a count column on one side only: the other side's is not read)
                width = min(built.shape[-1], nd.hist.shape[-1])
                other = nd.hist[..., :width] - built[..., :width]
                h_left, h_right = (built, other) if build[j] == BUILD_LEFT else (other, built)
            # as the one-machine grower: with the parent's dense histograms at hand and a
            # large child, both children are read densely; else each by its own size
            if nd.dense and nd.complete and max(nl, nr) >= dmin:
                dense_l = dense_r = True
            else:
                dense_l, dense_r = nl >= dmin, nr >= dmin
            lc = len(nodes)
            nodes.append(StepNode(left, nd.depth + 1, dense_l, h_left))
            nodes.append(StepNode(right, nd.depth + 1, dense_r, h_right))
            self._constrain_children(nd, nodes[lc], nodes[lc + 1])
            nd.children = (lc, lc + 1)
            nd.hist = None
            self._examine(nodes[lc])
            self._examine(nodes[lc + 1])

    def _constrain_children(self, nd, left, right):
        """The children's intervals and open interaction sets after ``nd`` splits, by
        the one-machine grower's rules (:mod:`treeboost.engine.split.constraints`)."""
        f = nd.feature
        cst = self.monotonic_cst[f]
        # the child that must predict less (left for +1) is bounded above by the middle
        low, high = (left, right) if cst > 0 else (right, left)
        low.lower, low.upper = nd.lower, nd.mid if cst != 0 else nd.upper
        high.lower, high.upper = nd.mid if cst != 0 else nd.lower, nd.upper
        if nd.allowed is not None:
            left.allowed = nd.allowed & self.interaction[f]
            right.allowed = left.allowed.copy()

    def _tree(self, nodes, plan):
        """The :class:`~treeboost.engine.predict.tree.Tree` of the replay ``plan``, with the
        Newton step ``-T(G) / (H + l2)`` as each node's value (before the loss's leaf
        values and the learning rate)."""
        order, committed = plan
        m = len(order)
        pos = {i: p for p, i in enumerate(order)}
        left = np.full(m, -1, np.int32)
        right = np.full(m, -1, np.int32)
        feature = np.full(m, -1, np.int32)
        bin_thr = np.zeros(m, np.int32)
        missing_left = np.zeros(m, np.bool_)
        threshold = np.full(m, np.nan)
        is_cat = np.zeros(m, np.bool_)
        bitsets = np.zeros((m, 4), np.uint64)
        gain = np.zeros(m)
        depth = np.zeros(m, np.int32)
        impurity = np.zeros(m)
        total = np.array([nodes[i].total for i in order])
        last_edge = self.edges.shape[1] - 1
        for p, i in enumerate(order):
            nd = nodes[i]
            depth[p] = nd.depth
            impurity[p] = nd.impurity
            # a leaf's missing side is the grower's: that of its best split, if any
            missing_left[p] = nd.missing_go_left
            bin_thr[p] = nd.bin_threshold
            if i in committed:
                f = nd.feature
                left[p], right[p] = pos[nd.children[0]], pos[nd.children[1]]
                feature[p] = f
                gain[p] = nd.gain
                is_cat[p] = self.is_categorical[f]
                if is_cat[p]:
                    bitsets[p] = nd.categories
                else:
                    threshold[p] = self.edges[f, min(nd.bin_threshold, last_edge)]
        p = self.params
        value = newton_leaf_values(
            np.ascontiguousarray(total[:, 0]), np.ascontiguousarray(total[:, 1]), p.l1, p.l2
        )[:, None]
        if self.monotonic:
            clip_node_values(
                value,
                np.array([nodes[i].lower for i in order]),
                np.array([nodes[i].upper for i in order]),
                False,
            )
        tree = Tree(
            self.n_features,
            1,
            children_left=left,
            children_right=right,
            feature=feature,
            threshold=threshold,
            is_categorical=is_cat,
            categories_left=bitsets if is_cat.any() else np.zeros((0, 4), np.uint64),
            missing_go_left=missing_left,
            bin_threshold=bin_thr,
            value=value,
            impurity=impurity,
            n_node_samples=np.rint(total[:, 2]).astype(np.int64),
            weighted_n_node_samples=total[:, 1].copy(),
            gain=gain,
            depth=depth,
        )
        leaf_pos = np.flatnonzero(left == -1)
        return tree, np.array([order[p] for p in leaf_pos], np.int64), leaf_pos
