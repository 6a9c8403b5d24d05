"""Named records of the grower's state, shared by the numba kernels.

Each record is a :func:`~collections.namedtuple`: numba compiles attribute access to a
field into a plain load, so a kernel takes one record instead of a dozen positional
arrays, and every array has one name everywhere.

=====================  ==================================================================
record                 what it holds
=====================  ==================================================================
:class:`BinnedData`    the feature-major codes and what the binning says of each feature
:class:`GrowthParams`  the stopping rules and the criterion, fixed for one tree
:class:`NodeArrays`    one row per node of the tree being grown
:class:`NodeView`      the node whose split is being searched
:class:`SplitCandidates`  the best split of each feature at the node being examined
:class:`RowBuffers`    the tree's samples in partition order, and their statistics
:class:`Scratch`       the work arrays of one thread's split search
:class:`HistogramPool`  dense histogram buffers and their free list
:class:`RandomCuts`    Extra-Trees' cuts of a batch of features at one node
:class:`Pending`       the (at most two) nodes created and not yet examined
:class:`Workspace`     everything above that consecutive trees reuse
=====================  ==================================================================

"""

from collections import namedtuple

import numpy as np

BinnedData = namedtuple(
    "BinnedData",
    [
        "codes_T",  # (n_features, n_samples) uint8/uint16 codes, feature-major
        "n_bins",  # (n_features,) codes below this are values; see missing_code
        "is_categorical",  # (n_features,) bool
        "missing_code",  # int: the code of a missing value (the last histogram row)
        "bin_centers",  # (n_features, n_hist_bins) middle value of each bin (Extra-Trees'
        # random cuts; (1, 1) when the tree draws none)
        "codes_rows",  # (n_samples, n_features) the same codes sample-major, for the
        # random cuts (no rows when the tree draws none)
        # sparse codes (sparse_codes.SparseCodes); codes_T then has no column, and without
        # them these arrays are empty
        "sparse",  # bool: the codes are the entries below
        "zero_code",  # (n_features,) each feature's code of 0
        "col_ptr",
        "col_rows",
        "col_codes",  # the entries by feature
        "row_ptr",
        "row_features",
        "row_codes",  # the same entries by row
    ],
)

GrowthParams = namedtuple(
    "GrowthParams",
    [
        "criterion",  # a code of engine.split.criteria
        "n_stats",  # statistic columns before the count column
        "l2",  # lambda of the second-order gain and leaf value
        "max_depth",  # -1: unlimited
        "min_samples_split",
        "min_samples_leaf",
        "min_weight_leaf",  # hessian sum for newton (min_child_weight)
        "min_decrease",  # scikit-learn's min_impurity_decrease (gain for newton)
        "max_features",  # features sampled per node (n_features: all)
        "max_leaf_nodes",  # -1: depth-first growth; else best-first up to this many
        "dense_min_samples",  # nodes with at least this many samples get dense histograms
        "random_split",  # bool: one random cut per numeric feature (Extra-Trees)
        "monotonic",  # bool: some feature has a monotonic constraint
        "monotonic_cst",  # (n_features,) int8: -1, 0 or 1 (engine.split.constraints)
        "interaction",  # (n_features, n_words) uint64: the interaction sets holding
        # each feature, as bits (n_words = 0: no constraint)
        "random_ties",  # bool: a tie between the best features' scores goes to one of
        # them drawn at random (scikit-learn's trees, which permute the
        # features at each split); False: to the lowest feature index
        # (histogram gradient boosting, as scikit-learn's and LightGBM's)
        "root_weight",  # the weight min_decrease is scaled by (scikit-learn's root
        # weight): below 0, the weight of this tree's root; a subtree grown on its own
        # (engine.grow.subtrees) is given its whole tree's
        "root_lower",
        "root_upper",  # the interval of the root's value (monotonic constraints):
        # unbounded, but a subtree's is its node's in the whole tree
        "packed_counts",  # bool: two classes of integer weights (statistics.packable):
        # a node read from its samples gathers its rows packed in one int64 each
        # (statistics.gather_rows_packed, over rows.ostats' memory)
        "feature_cost",  # (n_features,) float64 the cost of measuring each feature
        # (Mitchell 3.7.5), read only with a cost_measure
        "cost_measure",  # a code of grow.acceptance: NO_COST, TAN_SCHLIMMER or NUNEZ
        "cost_weight",  # Nunez's w
        "l1",  # alpha of the second-order gain and leaf value: the L1 threshold of the
        # gradient sums (criteria.l1_threshold)
        "fixed_features",  # bool: the interaction sets leave every node of the tree the
        # same features (one set: a tree's drawn features), whose histograms a child
        # may subtract
        "cat_smooth",  # the smoothing of the categories' order (splitting.category_key)
        "min_samples_per_category",  # rows a category needs in a node to be searched
        # (splitting.category_searched); both read only at nodes with more than
        # splitting.MAX_CAT_EXACT categories present.  Defaults: boosting's (LightGBM's)
    ],
    defaults=(
        True,
        -1.0,
        -float("inf"),
        float("inf"),
        False,
        np.ones(0),
        0,
        1.0,
        0.0,
        False,
        10.0,
        10,
    ),
)

#: the one type of each GrowthParams field: every caller's values are cast to it, so
#: that one compiled grower serves every estimator (a literal or a numpy scalar where
#: another caller passes a Python number would compile the grower again)
_GROWTH_TYPES = {
    "criterion": int,
    "n_stats": int,
    "l2": float,
    "max_depth": int,
    "min_samples_split": int,
    "min_samples_leaf": int,
    "min_weight_leaf": float,
    "min_decrease": float,
    "max_features": int,
    "max_leaf_nodes": int,
    "dense_min_samples": int,
    "random_split": bool,
    "monotonic": bool,
    "monotonic_cst": np.int8,
    "interaction": np.uint64,
    "random_ties": bool,
    "root_weight": float,
    "root_lower": float,
    "root_upper": float,
    "packed_counts": bool,
    "feature_cost": np.float64,
    "cost_measure": int,
    "cost_weight": float,
    "l1": float,
    "fixed_features": bool,
    "cat_smooth": float,
    "min_samples_per_category": int,
}


def growth_params(**fields):
    """The :class:`GrowthParams` of one tree from named fields, each cast to its one
    type (numbers to Python ``int``/``float``/``bool``, arrays to C-contiguous arrays of
    their dtype); a field not given takes its default.  Every grower builds its
    parameters here.

    Raises
    ------
    TypeError
        On a field that GrowthParams does not have, or a required one missing.
    """
    unknown = set(fields) - set(GrowthParams._fields)
    if unknown:
        raise TypeError(f"GrowthParams has no field {sorted(unknown)[0]!r}.")
    defaults = GrowthParams._field_defaults
    values = {}
    for name in GrowthParams._fields:
        if name in fields:
            value = fields[name]
        elif name in defaults:
            value = defaults[name]
        else:
            raise TypeError(f"growth_params() needs the field {name!r}.")
        kind = _GROWTH_TYPES[name]
        if isinstance(kind, type) and issubclass(kind, np.generic):
            values[name] = np.ascontiguousarray(value, dtype=kind)
        else:
            values[name] = kind(value)
    return GrowthParams(**values)


NodeArrays = namedtuple(
    "NodeArrays",
    [
        "start",
        "end",  # the node's samples are rows.idx[start:end]
        "depth",
        "children_left",
        "children_right",  # -1 at leaves
        "feature",  # -1 at leaves
        "bin_threshold",  # codes <= bin_threshold go left (numeric splits)
        "missing_go_left",
        "categories",  # (n, 4) uint64 bitset of the codes that go left (categorical)
        "stats",  # (n, n_cols) summed statistics of the node
        "sq_sum",  # summed w * y^2 (squared error's variance)
        "impurity",
        "gain",  # weighted impurity decrease of the node's split
        "left_stats",  # (n, n_cols) the left child's sums from the split search
        "hist_slot",  # the pool buffer holding the node's histogram, -1: none
        "hist_complete",  # whether that histogram covers every feature
        "interval",  # (n, 3): the lower and upper bound of the node's value and
        # where its children's meet (constraints.LOWER, UPPER, MIDDLE)
        "allowed",  # (n, n_words) uint64: the interaction sets still open
        "gap",  # (n, 2) int32: the largest code (not missing) that went left at the
        # node's split and the smallest that went right, recorded by the lean
        # Extra-Trees grower's partition or the split's scan
        # (gap_thresholds.center_thresholds); GAP_UNKNOWN where none was recorded
    ],
)

#: ``NodeArrays.gap[node, 0]`` of a node whose partition recorded no gap
GAP_UNKNOWN = -2

NodeView = namedtuple(
    "NodeView",
    [
        "start",
        "end",  # the node's samples are rows.idx[start:end]
        "total",  # (n_cols,) its summed statistics
        "mode",  # how its histograms are obtained (splitting.MODE_*)
        "hist",  # (n_features, n_hist_bins, n_cols) its dense histograms
        "sibling_hist",  # its sibling's, subtracted from the parent's (MODE_SUBTRACT)
        "lower",
        "upper",  # the interval of its value (monotonic constraints)
    ],
)

SplitCandidates = namedtuple(
    "SplitCandidates",
    [
        "score",  # -inf: no valid split of the feature
        "decrease",
        "bin_threshold",
        "missing_go_left",
        "categories",  # (n_features, 4) uint64
        "left_stats",  # (n_features, n_cols)
        "mid",  # the middle of the children's values (monotonic constraints)
        "gap",  # (n_features, 2) int32: the largest code present left of the split
        # and the smallest right (the missing code for none), where the scan knew them
        # (NodeArrays.gap), else GAP_UNKNOWN
    ],
)

RowBuffers = namedtuple(
    "RowBuffers",
    [
        "idx",  # int32 sample ids in partition order
        "buf",  # int32 partition buffer
        "ostats",  # (n, n_cols) statistics of idx[start + i], in node order
        # sparse codes only (empty otherwise), see sparse_codes
        "position",  # (n_samples,) each row's place in idx, -1 outside the tree
        "slot_of",  # (n_features,) a feature's bucket at the node, -1: none
        "bucket_start",  # (n_features + 1,) where each bucket starts
        "entry_pos",
        "entry_code",  # the node's entries, bucketed by feature
    ],
)

Scratch = namedtuple(
    "Scratch",
    [
        "codes",  # the codes present in a node's compressed histogram
        "cstats",  # their summed statistics
        "missing",  # the node's missing values' statistics
        "keys",  # category sort keys
        "rank",  # categories in the order of their keys; the bins a large
        # node's bitmap gather touched (histogram.gather_bitmap)
        "tmp_codes",  # node codes for the sorting gather (wide codes only)
        "order",  # their sorted order (wide codes only)
        "radix",  # the order after the low byte (wide codes only)
        "sparse_hist",  # (256, n_cols) all zeros between calls (bitmap gather)
        "bits",  # 256-bit set of the codes present (bitmap gather)
        "left",
        "right",
        "tmp",  # (n_cols,) running sums of the scans
        "entry_pos",
        "entry_code",  # a feature's entries in a node (sparse codes)
    ],
)

HistogramPool = namedtuple(
    "HistogramPool",
    [
        "buffers",  # (n_slots, n_features, n_hist_bins, n_cols), never reallocated
        "free",  # ids of the free buffers in free[:n_free[0]]
        "n_free",  # (1,) int64
    ],
)

Pending = namedtuple(
    "Pending",
    [
        "node",
        "mode",
        "slot",
        "sibling_slot",  # (2,) int64 each
    ],
)

RandomCuts = namedtuple(
    "RandomCuts",
    [
        "feature",  # the batch's features, in the order they were drawn
        "nan_left",  # 1: the feature's missing values go left (drawn with its cut)
        "n_missing",  # the node's samples with a missing value
        "cut",  # codes <= cut go left
        "left",  # (n_features, n_cols) statistics of the left side
        "missing",  # (n_features, n_cols) statistics of the missing values
    ],
)

Workspace = namedtuple(
    "Workspace",
    [
        "rows",
        "nodes",
        "candidates",
        "scratch",
        "buffers",  # the histogram pool's buffers (see HistogramPool)
        "free_slots",
        "n_free",  # its free list
        "sampler",  # a FeatureSampler
        "open_nodes",  # the nodes that have a split and wait for it
        "used",  # (2,) nodes the previous tree wrote (reset lazily), and nodes given
        # their initial values since the arrays were made (.grow.nodes.ready_nodes)
        "random_cuts",  # a RandomCuts
        "pending",  # a Pending
        "block_sums",  # (blocks of statistics.SUM_BLOCK rows, n_cols) the root's sums
        # (blocks, n_features, n_hist_bins, n_cols): the partial histograms of
        # histogram.build_histograms_blocked
        "hist_partials",
    ],
)

FeatureSampler = namedtuple(
    "FeatureSampler",
    [
        "perm",  # a permutation of the features, drawn in place
        "all_features",  # 0 .. n_features - 1
        "no_features",  # empty
        "state",  # (1,) uint64 generator state
        "drawn",  # (n_features,) bool, all False between draws
        "sorted_draw",  # (n_features,) the drawn features in ascending order
        "allowed",  # (n_features,) the features the interaction sets allow
    ],
)
