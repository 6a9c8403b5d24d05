"""TreeGrower: grows one tree on binned data from per-sample statistics.

:class:`TreeGrower` checks its inputs, packs the growth parameters into one record
(:class:`~.layout.GrowthParams`), chooses the compiled grower that fits the tree and
turns the grown nodes into a :class:`~.tree.Tree`.  The compiled growers are in
:mod:`.grow`: the general one (:mod:`.grow.loop`, in a serial, a parallel and an exact
copy, each on dense or sparse codes) and the lean one of Extra-Trees' usual trees
(:mod:`.grow.random_tree`).
"""

from collections import namedtuple

import numpy as np

from ..parallel.thread_pools import THREAD_MIN_WORK, region_threads
from ..split.constraints import LOWER, UPPER, Constraints, clip_node_values, growth_constraints
from ..split.criteria import ABSOLUTE_ERROR, NEWTON, POISSON, REGRESSION_CRITERIA
from ..split.gap_thresholds import NO_ROWS, center_thresholds
from . import random_tree
from .loop import (
    grow_tree_exact,
    grow_tree_exact_sparse,
    grow_tree_parallel,
    grow_tree_parallel_sparse,
    grow_tree_serial,
    grow_tree_serial_sparse,
)
from .workspace import GrowerWorkspace, WorkspacePool, node_capacity
from .acceptance import COST_MEASURE_CODES
from ..records import BinnedData, growth_params
from .leaf_ranges import LeafRanges, copied_ids
from .node_targets import node_target_values
from ..binning.sparse_codes import SparseCodes
from ..split.categorical import CAT_SMOOTH
from ..statistics.samples import SOURCE_REGRESSION, SampleStatistics, packable
from .subtrees import grow_in_subtrees, splits_into_subtrees, subtree_rows
from ..predict.tree import Tree
from .tree_arrays import VALUES_CLASSES, VALUES_MEANS, VALUES_NEWTON, tree_arrays

__all__ = [
    "TreeGrower",
    "StoppingRules",
    "GrowerWorkspace",
    "WorkspacePool",
    "PARALLEL_GROWER_MIN_WORK",
    "REGRESSION_CODES",
]

#: rows x features of a tree from which :class:`TreeGrower` uses the parallel grower:
#: smaller trees take milliseconds, which thread start-ups would only add to, and they
#: then never pay for compiling the parallel copy.  Two threads' least work
#: (:data:`~._threads.THREAD_MIN_WORK` each): a larger tree takes a thread more for each
#: such share (:meth:`TreeGrower._n_threads`)
PARALLEL_GROWER_MIN_WORK = 2 * THREAD_MIN_WORK


#: when a node stops splitting: scikit-learn's stopping rules, in one record
StoppingRules = namedtuple(
    "StoppingRules",
    [
        "max_depth",  # int or None
        "min_samples_split",  # int
        "min_samples_leaf",  # int
        "min_weight_leaf",  # float: a child's weight (hessian sum for newton)
        "min_impurity_decrease",  # float: times the root weight (the gain for newton)
        "max_leaf_nodes",  # int or None: best-first growth up to this many leaves
    ],
    defaults=(None, 2, 1, 0.0, 0.0, None),
)


#: the guard of categorical splits (:func:`~.splitting.category_key`,
#: :func:`~.splitting.category_searched`), at nodes with more than
#: :data:`~.splitting.MAX_CAT_EXACT` categories present: categories ordered by their mean
#: smoothed with ``cat_smooth`` rows of the node's mean, those of fewer than
#: ``min_samples_per_category`` rows left out of the search
CategoryGuard = namedtuple(
    "CategoryGuard",
    ["min_samples_per_category", "cat_smooth"],
)

#: no guard: every category searched by its own mean (scikit-learn's trees)
NO_CATEGORY_GUARD = CategoryGuard(0, 0.0)


def default_dense_min_samples(missing_code):
    """Samples from which a node reads dense histograms (fewer: its rows, with exact
    counts) when ``dense_min_samples`` is not given: half the histogram's bins, at
    least 32 (``missing_code`` is the last bin's)."""
    return max(32, (int(missing_code) + 1) // 2)


class TreeGrower:
    """Grow a :class:`~treeboost.engine.predict.tree.Tree` from binned data and statistics.

    Parameters
    ----------
    bin_mapper : BinMapper
        The fitted mapper that produced the binned data (gives real thresholds).
    criterion : int
        One of the codes of :mod:`treeboost.engine.split.criteria`.
    n_stats : int
        Number of statistic columns before the count column: the number of classes,
        2 for ``(w, w*y)`` and ``(g, h)``, ``1 + K`` for ``K`` regression outputs.
    stopping : StoppingRules, default=StoppingRules()
        ``max_depth``; ``min_samples_split``, ``min_samples_leaf``; ``min_weight_leaf``,
        the minimum weight of a child (hessian sum for ``newton``, i.e.
        ``min_child_weight``); ``min_impurity_decrease``, by which a split must decrease
        the weighted impurity times the root weight (scikit-learn's definition; for
        ``newton``, the gain itself); ``max_leaf_nodes``, best-first growth up to this
        many leaves (depth-first when None).
    max_features : int or None
        Number of features sampled at each node (all when None).
    l2_regularization : float
        The ``lambda`` of the second-order gain and leaf value.
    l1_regularization : float, default=0.0
        The ``alpha`` of the second-order gain and leaf value: the gradient sums are
        soft-thresholded, ``T(G) = sign(G) max(|G| - alpha, 0)``, in the gain
        ``T(G)^2 / (H + lambda)`` and the value ``-T(G) / (H + lambda)``
        (:func:`~.criteria.l1_threshold`).
    tree_features : array-like of int or None, default=None
        The only features the tree may split on (boosting's ``colsample_bytree``, drawn
        per tree by the booster); None: every feature.  They restrict the interaction
        sets (:func:`~.constraints.growth_constraints`).
    random_state : int
        Seed of the per-node feature sampling and of the draws between tied features.
    parallel : bool
        Evaluate the features of large nodes on several threads (False inside a forest,
        which is parallel over trees instead; ``absolute_error`` trees grow serially).
    in_parts : bool, default=True
        With ``parallel``, grow a large fully grown tree's small nodes as subtrees on the
        threads (:mod:`.subtrees`), whose random draws come from generators of their
        own: the tree does not depend on the number of threads, but differs from the
        one grown whole.  False: grown whole, node by node, on the threads, the same
        tree as ``parallel=False`` grows (a forest's last trees on several threads,
        which must be the trees its other workers would have grown).
    dense_min_samples : int or None
        Nodes with at least this many samples use dense histograms (default: half the
        number of histogram bins, at least 32).
    splitter : {"best", "random"}
        "random" draws one cut per numeric feature and node (Extra-Trees, Geurts et al.
        2006) instead of searching every cut.
    constraints : Constraints, optional
        Monotonic constraints (one of -1, 0, 1 per feature; regression, binary
        classification on the positive class's rate, boosting) and interaction
        constraints (sets of feature indices that cover every feature), as
        :mod:`.constraints` describes; validated by the estimators.
    random_ties : bool, default=True
        Break a tie between features whose best splits score the same (within rounding)
        by a draw from the tree's generator (seeded with ``random_state``), as
        scikit-learn's trees do by permuting the features at each split; the generator
        draws only at a tie, so a tree without ties is the same either way.  False: the
        lowest feature index wins (histogram gradient boosting, as scikit-learn's and
        LightGBM's).  Either way the tree does not depend on the number of threads.
    centered_thresholds : bool, default=True
        Put each numeric split's threshold in the middle of the gap between the node's
        largest value that goes left and smallest that goes right, as scikit-learn's
        trees do (:mod:`.gap_thresholds`); False: at the bin edge right above the largest
        value that goes left (histogram gradient boosting, as scikit-learn's and
        LightGBM's).  Extra-Trees' random cuts (``splitter="random"``) go to a uniform
        position in the gap, drawn with ``random_state``, as scikit-learn's real-valued
        cuts fall.  The tree's samples are on the same sides either way.
    attribute_costs : AttributeCosts or None, default=None
        The cost of measuring each feature and the cost-sensitive measure that compares
        the features' best splits (Mitchell, 3.7.5; :mod:`.grow.acceptance`); None:
        the features' scores are compared as they are.  Not with ``splitter="random"``.
    category_guard : CategoryGuard, optional
        The guard of categorical splits at nodes with more than
        :data:`~.splitting.MAX_CAT_EXACT` categories present
        (:func:`~.splitting.scan_feature`); by default boosting's
        (``CAT_SMOOTH`` for both, :func:`~.splitting.scan_categories_newton`) with the
        ``"newton"`` criterion, else none (:data:`NO_CATEGORY_GUARD`).
    """

    def __init__(
        self,
        bin_mapper,
        criterion,
        n_stats,
        stopping=None,
        *,
        max_features=None,
        l2_regularization=0.0,
        l1_regularization=0.0,
        tree_features=None,
        random_state=0,
        parallel=True,
        dense_min_samples=None,
        splitter="best",
        constraints=None,
        random_ties=True,
        centered_thresholds=True,
        in_parts=True,
        attribute_costs=None,
        category_guard=None,
    ):
        self.bin_mapper = bin_mapper
        self.criterion = criterion
        self.n_stats = n_stats
        self.stopping = StoppingRules() if stopping is None else StoppingRules(*stopping)
        self.max_features = max_features
        self.l2_regularization = l2_regularization
        self.l1_regularization = l1_regularization
        self.tree_features = tree_features
        self.random_state = random_state
        self.parallel = parallel
        self.dense_min_samples = dense_min_samples
        self.splitter = splitter
        self.constraints = Constraints(None, None) if constraints is None else constraints
        self.random_ties = random_ties
        self.centered_thresholds = centered_thresholds
        self.in_parts = in_parts
        self.attribute_costs = attribute_costs
        if category_guard is None:
            category_guard = (
                CategoryGuard(int(CAT_SMOOTH), CAT_SMOOTH)
                if criterion == NEWTON
                else NO_CATEGORY_GUARD
            )
        self.category_guard = CategoryGuard(*category_guard)

    #: a part of a larger tree (.subtrees), never split into parts again
    _part = False
    #: GrowthParams.root_weight: below 0, the tree's own root's
    _root_weight = -1.0
    #: GrowthParams.root_lower and root_upper
    _root_interval = (-np.inf, np.inf)

    def _cost_fields(self, n_features):
        """The GrowthParams fields of :attr:`attribute_costs` (none: the defaults)."""
        costs = self.attribute_costs
        if costs is None:
            return {}
        if self.splitter == "random" or costs.cost.shape != (n_features,):
            raise ValueError("attribute_costs need splitter='best' and one cost per feature.")
        return {
            "feature_cost": costs.cost,
            "cost_measure": COST_MEASURE_CODES[costs.measure],
            "cost_weight": costs.weight,
        }

    # the stopping rules by name, as grow() reads them
    max_depth = property(lambda self: self.stopping.max_depth)
    min_samples_split = property(lambda self: self.stopping.min_samples_split)
    min_samples_leaf = property(lambda self: self.stopping.min_samples_leaf)
    min_weight_leaf = property(lambda self: self.stopping.min_weight_leaf)
    min_impurity_decrease = property(lambda self: self.stopping.min_impurity_decrease)
    max_leaf_nodes = property(lambda self: self.stopping.max_leaf_nodes)

    def grow(
        self, X_binned_T, stats, sq=None, sample_indices=None, workspace=None, return_leaves=True
    ):
        """Grow the tree.

        Parameters
        ----------
        X_binned_T : ndarray of shape (n_features, n_samples)
            Feature-major codes from :meth:`BinMapper.transform`.
        stats : SampleStatistics or ndarray of shape (n_samples, n_stats + 1)
            Per-sample statistics (:mod:`.statistics`); an array is taken as given rows,
            whose last column is 1 for every sample that counts towards
            ``n_node_samples`` (the count column).
        sq : ndarray of shape (n_samples,), optional
            ``w * y**2`` for the variance a regression tree reports, with given rows
            (zeros when missing).
        sample_indices : ndarray of int, optional
            The rows the tree sees (all rows by default).
        workspace : GrowerWorkspace, optional
            Work arrays to reuse from the previous tree (fresh ones by default).
        return_leaves : bool, default=True
            Whether to map the rows to their leaves (boosting needs it; a forest does not,
            and saves an array of n_samples integers per worker).

        Returns
        -------
        tree : Tree
        leaves : LeafRanges or None
            The samples of each leaf; indexed by rows, their leaf ids, ``-1`` for rows
            not in ``sample_indices`` (None without ``return_leaves``).
        """
        bm = self.bin_mapper
        n_features, n_samples = X_binned_T.shape
        if n_samples > _MAX_ROWS:
            raise ValueError(
                f"X has {n_samples} samples; a tree takes at most {_MAX_ROWS} "
                f"(its row indices are int32)."
            )
        if sample_indices is None:
            sample_indices = np.arange(n_samples, dtype=np.int64)
        if not isinstance(stats, SampleStatistics):
            # without sq, the reported variance reads w * y^2 as 0 (sum_sq)
            stats = SampleStatistics.given(stats, sq)
        elif sq is not None:
            raise TypeError("sq goes with stats given as an array, not with SampleStatistics.")
        if stats.n_samples != n_samples:
            raise ValueError(
                f"stats describe {stats.n_samples} samples, X_binned_T has {n_samples}."
            )
        by_samples = self.criterion in _SAMPLE_CRITERIA
        if by_samples and stats.source != SOURCE_REGRESSION:
            raise ValueError(
                "The poisson and absolute_error criteria read the targets: "
                "stats must be SampleStatistics.regression."
            )
        max_features = n_features if self.max_features is None else int(self.max_features)
        dense_min = self.dense_min_samples
        if dense_min is None:
            dense_min = default_dense_min_samples(bm.missing_values_code_)
        max_depth = -1 if self.max_depth is None else int(self.max_depth)
        max_leaf_nodes = -1 if self.max_leaf_nodes is None else int(self.max_leaf_nodes)
        min_leaf = int(self.min_samples_leaf)
        cst = growth_constraints(self.constraints, n_features, self.tree_features)
        monotonic, interaction = cst.monotonic, cst.interaction
        params = growth_params(
            criterion=self.criterion,
            n_stats=self.n_stats,
            l2=self.l2_regularization,
            max_depth=max_depth,
            min_samples_split=self.min_samples_split,
            min_samples_leaf=min_leaf,
            min_weight_leaf=self.min_weight_leaf,
            min_decrease=self.min_impurity_decrease,
            max_features=max_features,
            max_leaf_nodes=max_leaf_nodes,
            dense_min_samples=dense_min,
            random_split=self.splitter == "random",
            monotonic=monotonic,
            monotonic_cst=cst.monotonic_cst,
            interaction=interaction,
            random_ties=self.random_ties,
            root_weight=self._root_weight,
            root_lower=self._root_interval[0],
            root_upper=self._root_interval[1],
            l1=self.l1_regularization,
            fixed_features=cst.fixed_features,
            cat_smooth=self.category_guard.cat_smooth,
            min_samples_per_category=self.category_guard.min_samples_per_category,
            **self._cost_fields(n_features),
        )
        exact = self.criterion == ABSOLUTE_ERROR
        sparse = isinstance(X_binned_T, SparseCodes)
        workspace = workspace or GrowerWorkspace()
        n_rows = len(sample_indices)
        if splits_into_subtrees(self, n_rows, params, sparse, return_leaves):
            # the small nodes as subtrees on the threads (.subtrees)
            tree = grow_in_subtrees(
                self,
                subtree_rows(n_rows),
                X_binned_T,
                stats,
                sample_indices,
                workspace,
                self._n_threads(n_rows, n_features),
            )
            return tree, None
        if sparse:
            codes = X_binned_T
            X_binned_T = np.empty((n_features, 0), codes.dtype)
            entries = (
                True,
                codes.zero_code,
                codes.col_ptr,
                codes.col_rows,
                codes.col_codes,
                codes.row_ptr,
                codes.row_features,
                codes.row_codes,
            )
            sparse_dims = (n_samples, codes.nnz, codes.max_column_entries)
        else:
            X_binned_T = np.ascontiguousarray(X_binned_T)
            entries = _NO_ENTRIES
            sparse_dims = (0, 0, 0)
        if params.random_split:
            centers = bm.bin_centers()
            codes_rows = workspace.codes_rows(X_binned_T)
        else:
            centers = _NO_CENTERS
            codes_rows = np.empty((0, n_features), X_binned_T.dtype)
        data = BinnedData(
            X_binned_T,
            bm.n_bins_,
            bm.is_categorical_,
            int(bm.missing_values_code_),
            centers,
            codes_rows,
            *entries,
        )
        n_hist_bins = bm.missing_values_code_ + 1
        n_cols = stats.n_cols
        # histogram buffers for the usual number of open nodes, within a memory bound
        # (sparse codes use none: make_workspace makes them of one feature)
        slot_bytes = (1 if sparse else n_features) * n_hist_bins * n_cols * 8
        want = max_leaf_nodes + 1 if max_leaf_nodes > 0 else _DEPTH_FIRST_SLOTS
        n_slots = max(1, min(want, _POOL_BYTES // max(slot_bytes, 1)))
        sample_indices = np.ascontiguousarray(sample_indices, dtype=np.int64)
        n = len(sample_indices)
        if not (sparse or exact or params.random_split) and n_hist_bins <= 256:
            # the 8-bit codes' gathers from the samples sum two classes' integer weights
            # (a forest's bootstrap counts, unit weights) packed one integer a row
            params = params._replace(packed_counts=packable(stats, sample_indices))
        choice = self._choose_grower(
            n, n_features, n_slots, exact, sparse, params, interaction, workspace, stats, data
        )
        max_nodes = node_capacity(n, self.criterion, min_leaf, max_leaf_nodes, max_depth)
        # the worst case, 2n + 1 nodes (a fully grown regression tree reaches it), when
        # it is at most _MAX_FIRST_CAPACITY; beyond, what the workspace holds (at least
        # _FIRST_CAPACITY nodes, or n / 2), and a tree that outgrows it is grown again in
        # twice the room
        cap = (
            max_nodes
            if max_nodes <= _MAX_FIRST_CAPACITY
            else max(workspace.capacity, _FIRST_CAPACITY, min(n // 2, _MAX_FIRST_CAPACITY))
        )
        while True:
            ws = workspace.get(
                n,
                cap,
                n_features,
                n_cols,
                n_hist_bins,
                choice.n_slots,
                bool(bm.is_categorical_.any()),
                self.criterion == NEWTON,
                choice.n_threads,
                interaction.shape[1],
                sparse_dims,
                params.packed_counts,
            )
            seed = int(self.random_state) & 0x7FFFFFFFFFFFFFFF
            if choice.lean_buffers is None:
                truncated, node_count = choice.kernel(
                    data, stats.arrays, sample_indices, params, seed, cap, ws, choice.n_threads
                )
            else:
                truncated, node_count = choice.kernel(
                    data, stats.arrays, sample_indices, params, seed, cap, ws, choice.lean_buffers
                )
            if not truncated or cap >= max_nodes:
                break
            cap = min(max_nodes, 2 * cap + 1)
        nodes = ws.nodes
        idx = ws.rows.idx[:n]
        # the tree is in the workspace's arrays, which the next tree reuses: the tree keeps
        # copies of what it uses (.tree_arrays)
        kind = (
            VALUES_NEWTON
            if self.criterion == NEWTON
            else VALUES_MEANS
            if self.criterion in REGRESSION_CODES
            else VALUES_CLASSES
        )
        out = tree_arrays(
            nodes,
            node_count,
            bm.is_categorical_,
            bm.edge_table(),
            kind,
            int(self.n_stats),
            float(self.l1_regularization),
            float(self.l2_regularization),
        )
        if self.centered_thresholds:
            if params.random_split:
                position = np.random.default_rng(
                    [int(self.random_state) & 0x7FFFFFFFFFFFFFFF, 1]
                ).random(node_count)
            else:
                position = np.full(node_count, 0.5)
            # into the tree's copies: its codes and thresholds where a split moves
            center_thresholds(
                nodes.children_left,
                nodes.children_right,
                nodes.feature,
                out.bin_threshold,
                nodes.start,
                nodes.end,
                idx,
                X_binned_T,
                codes.rows if sparse else NO_ROWS,
                sparse,
                bm.is_categorical_,
                int(bm.missing_values_code_),
                bm.bin_centers(),
                bm.edge_table(),
                bm.single_value_bins(),
                node_count,
                position,
                out.threshold,
                nodes.gap,
            )
        leaf = out.children_left == -1
        is_cat = out.is_categorical
        bitset = (
            np.where(is_cat[:, None], nodes.categories[:node_count], np.uint64(0))
            if is_cat.any()
            else np.zeros((0, 4), np.uint64)
        )
        value, impurity = out.value, out.impurity
        if by_samples:
            # the median and the impurity of these criteria need each node's samples
            # (node i holds idx[start[i]:end[i]])
            node_target_values(
                self.criterion,
                stats.arrays.targets,
                stats.arrays.weights,
                idx,
                nodes.start[:node_count],
                nodes.end[:node_count],
                value,
                impurity,
            )
        if monotonic:
            clip_node_values(
                value,
                nodes.interval[:node_count, LOWER],
                nodes.interval[:node_count, UPPER],
                self.criterion not in REGRESSION_CODES and self.criterion != NEWTON,
            )
        tree = Tree(
            n_features,
            value.shape[1],
            children_left=out.children_left,
            children_right=out.children_right,
            feature=out.feature,
            threshold=out.threshold,
            is_categorical=is_cat,
            categories_left=bitset,
            missing_go_left=out.missing_go_left,
            bin_threshold=out.bin_threshold,
            value=value,
            impurity=impurity,
            n_node_samples=out.n_node_samples,
            weighted_n_node_samples=out.weight,
            gain=out.gain,
            depth=out.depth,
        )
        if not return_leaves:
            return tree, None
        leaves = np.flatnonzero(leaf)
        return tree, LeafRanges(
            copied_ids(idx, choice.n_threads),
            leaves,
            nodes.start[leaves],
            nodes.end[leaves],
            n_samples,
        )

    def _choose_grower(
        self, n, n_features, n_slots, exact, sparse, params, interaction, workspace, stats, data
    ):
        """The compiled grower of a tree of ``n`` samples, as a :class:`GrowerChoice`:
        the lean one of Extra-Trees' usual trees (:func:`.grow.random_tree.lean_tree`),
        else the general one's copy for ``exact`` (``absolute_error``), ``sparse`` codes
        and the thread count; ``n_slots`` is the histogram buffers the general one
        would use."""
        if (
            params.random_split
            and not sparse
            and random_tree.lean_tree(
                True,
                exact,
                self.criterion == NEWTON,
                params.max_leaf_nodes > 0,
                params.monotonic,
                interaction,
                bool(self.bin_mapper.is_categorical_.any()),
            )
        ):
            return GrowerChoice(
                random_tree.grow_random_tree,
                1,
                1,
                random_tree.lean_buffers(workspace, n, stats.n_cols, data, stats.arrays.labels),
            )
        if exact:
            # serial, and it builds no histogram
            kernel = grow_tree_exact_sparse if sparse else grow_tree_exact
            return GrowerChoice(kernel, 1, 1, None)
        n_threads = self._n_threads(n, n_features)
        if sparse:
            kernel = grow_tree_parallel_sparse if n_threads > 1 else grow_tree_serial_sparse
        else:
            kernel = grow_tree_parallel if n_threads > 1 else grow_tree_serial
        return GrowerChoice(kernel, n_threads, n_slots, None)

    def _n_threads(self, n_rows, n_features):
        """Threads for the tree (``parallel=True``): :func:`~._threads.region_threads` of
        its rows x features, a thread for each half of :data:`PARALLEL_GROWER_MIN_WORK`
        (read at each call), numba's thread count at most; 1 is the serial grower."""
        if not self.parallel:
            return 1
        return region_threads(n_rows * n_features, PARALLEL_GROWER_MIN_WORK // 2)


#: the compiled grower a tree grows with (:meth:`TreeGrower._choose_grower`) and what it
#: takes besides the tree's inputs and workspace: a general grower (:mod:`.grow.loop`)
#: its number of threads, the lean one (:mod:`.grow.random_tree`) its work arrays
GrowerChoice = namedtuple(
    "GrowerChoice",
    [
        "kernel",  # the numba dispatcher
        "n_threads",  # threads the workspace is sized for (the parallel copy's count)
        "n_slots",  # dense histogram buffers of the workspace
        "lean_buffers",  # random_tree.LeanBuffers of the lean grower, else None
    ],
)

#: the codes of the regression criteria (statistics ``(w, w*y)``)
REGRESSION_CODES = frozenset(REGRESSION_CRITERIA.values())

#: the criteria whose leaf values or impurities need each node's samples
_SAMPLE_CRITERIA = (POISSON, ABSOLUTE_ERROR)

#: BinnedData.bin_centers of a tree that draws no random cut
_NO_CENTERS = np.zeros((1, 1))

#: BinnedData's sparse fields with dense codes (no entries)
_NO_ENTRIES = (
    False,
    np.empty(0, np.int64),
    np.zeros(1, np.int64),
    np.empty(0, np.int32),
    np.empty(0, np.uint8),
    np.zeros(1, np.int64),
    np.empty(0, np.int32),
    np.empty(0, np.uint8),
)

#: Most samples a tree takes: the workspace indexes rows with int32.
_MAX_ROWS = 2**31 - 1

#: Node capacity of a new workspace: the trees of the usual forests and depth-limited
#: trees fit, the odd larger tree costs one regrowth per doubling.
_FIRST_CAPACITY = 16383
#: ... and the room for any tree that can hold at most this many nodes (2n + 1 for n
#: rows, fully grown): a tree that outgrows its room is grown again from its root
_MAX_FIRST_CAPACITY = 262143

#: Histogram buffers of a depth-first grower: one per open node that keeps its histogram
#: for its children, which is about one per level of the open path; the nodes of a
#: deeper path gather compressed histograms instead (within _POOL_BYTES)
_DEPTH_FIRST_SLOTS = 32

#: Memory the initial histogram buffers may take
_POOL_BYTES = 64 << 20
