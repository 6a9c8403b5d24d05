"""The numba engine under every estimator: binning, per-sample statistics, histograms,
split search, partition, tree growth, tree arrays and prediction.

This layer imports no estimator and nothing from scikit-learn; the estimators in
:mod:`treeboost.trees` and :mod:`treeboost.ensembles` sit on it.  The names below are
its public surface: other packages import them from here (``from treeboost.engine
import BinMapper``), never from the engine's modules, which may move.  Each name is
loaded on first use (PEP 562), so importing the package imports neither numba nor any
kernel: a name costs the import of the module that defines it.

* binning: :class:`BinMapper`, :func:`fit_transform_weighted`, :data:`MAX_CATEGORIES`,
  :func:`subsample_rows` (the rows its edges are learned from);
* growing: :class:`TreeGrower`, :class:`StoppingRules`, :class:`GrowerWorkspace`,
  :class:`WorkspacePool`, :data:`PARALLEL_GROWER_MIN_WORK`, :class:`CoreShare` (the threads left by
  other busy processes), :func:`region_threads` (the threads of a region of
  :data:`THREAD_MIN_WORK` units a thread), the kept threads of a fit's trees (:func:`lend_pool`,
  :func:`in_pool`), :class:`SampleStatistics`,
  :func:`boosting_rows`, :class:`LeafRanges` (:data:`ADD_PARALLEL_MIN_SAMPLES`,
  :data:`COPY_PARALLEL_MIN_SAMPLES`), the
  criteria's codes
  (:data:`CLASSIFICATION_CRITERIA`, :data:`REGRESSION_CRITERIA`, :data:`NEWTON`,
  :data:`SQUARED_ERROR`), :class:`Constraints`, :func:`monotone_leaf_values`,
  :func:`clip_node_values`, :func:`growth_constraints`, :data:`CAT_SMOOTH`,
  :class:`CategoryGuard` (the category guard of the trees' categorical splits),
  :func:`stopping_allows` (the stopping rules, for every loop that grows a tree);
* the grower stepped from outside (a data-parallel trainer): :func:`feature_pairs`,
  :func:`node_histograms`, :func:`best_node_split`, :func:`partition_nodes`,
  :func:`sum_rows`, :func:`sum_rows_blocked` (the root's sums, :data:`SUM_BLOCK`), and
  the records they take (:class:`GrowthParams`, :class:`SplitCandidates`,
  :func:`make_scratch`, :func:`make_candidates`,
  :func:`default_dense_min_samples`, :data:`VALUES_NEWTON`);
* trees: :class:`Tree`, :class:`PackedTrees`, :class:`PackedForest`, :func:`add_leaf_values`,
  :data:`TREE_LEAF`, :func:`prepared_csr`, :class:`ShapTrees`;
* blocks of rows: :func:`block_rows`, :func:`into_row_blocks`, :data:`CACHE_BLOCK_VALUES`;
* leaf values of the losses: :func:`weighted_quantile`,
  :func:`grouped_weighted_quantile`, :func:`huber_leaf_values`, :func:`newton_leaf_values`
  (the Newton step of a leaf); the same quantiles
  selected across workers, digit by digit: :func:`order_keys`, :func:`first_digit_weights`,
  :func:`key_digit_weights`, :func:`next_digits`, :func:`key_values`
  (:data:`KEY_ROUNDS` rounds of :data:`KEY_DIGIT_BITS` bits);
* kernels of other packages (the losses' and the ensembles' own): the decorators
  :func:`compiled`, :data:`kernel`, :data:`parallel_kernel`, :data:`internal`,
  :data:`inlined`, which compile as the engine's kernels do (:mod:`._jit`);
* the install's compiled kernels: :data:`PREBUILT_DIR`, :func:`prebuilt_usable`,
  :func:`speed_up_compilation`, and the module :mod:`.kernel_cache` itself (the kernel
  build, :mod:`treeboost._prebuild`, reads and writes through it).

Importing it changes nothing of numba: the compile-time shortcuts of
:func:`speed_up_compilation` are applied only by the install's kernel build
(:mod:`treeboost._prebuild`), in processes of its own.
"""

from .._lazy import lazy_names

#: each public name -> the module (of this package) that defines it
_HOMES = {
    "BinMapper": "binning.mapper",
    "fit_transform_weighted": "binning.mapper",
    "subsample_rows": "binning.mapper",
    "MAX_CATEGORIES": "binning.mapper",
    "TreeGrower": "grow.grower",
    "StoppingRules": "grow.grower",
    "GrowerWorkspace": "grow.grower",
    "WorkspacePool": "grow.grower",
    "default_dense_min_samples": "grow.grower",
    "make_candidates": "grow.workspace",
    "PARALLEL_GROWER_MIN_WORK": "grow.grower",
    "CoreShare": "parallel.free_cores",
    "lend_pool": "parallel.thread_pools",
    "region_threads": "parallel.thread_pools",
    "THREAD_MIN_WORK": "parallel.thread_pools",
    "in_pool": "parallel.thread_pools",
    "SampleStatistics": "statistics.samples",
    "boosting_rows": "statistics.samples",
    "LeafRanges": "grow.leaf_ranges",
    "ADD_PARALLEL_MIN_SAMPLES": "grow.leaf_ranges",
    "COPY_PARALLEL_MIN_SAMPLES": "grow.leaf_ranges",
    "CLASSIFICATION_CRITERIA": "split.criteria",
    "REGRESSION_CRITERIA": "split.criteria",
    "NEWTON": "split.criteria",
    "SQUARED_ERROR": "split.criteria",
    "Constraints": "split.constraints",
    "monotone_leaf_values": "split.constraints",
    "growth_constraints": "split.constraints",
    "clip_node_values": "split.constraints",
    "CAT_SMOOTH": "split.categorical",
    "make_scratch": "split.search",
    "feature_pairs": "grow.stepped",
    "node_histograms": "grow.stepped",
    "best_node_split": "grow.stepped",
    "first_digit_weights": "statistics.quantile",
    "order_keys": "statistics.quantile",
    "key_digit_weights": "statistics.quantile",
    "key_values": "statistics.quantile",
    "next_digits": "statistics.quantile",
    "KEY_ROUNDS": "statistics.quantile",
    "KEY_DIGIT_BITS": "statistics.quantile",
    "partition_nodes": "grow.stepped",
    "sum_rows": "statistics.samples",
    "sum_rows_blocked": "statistics.samples",
    "SUM_BLOCK": "statistics.samples",
    "GrowthParams": "records",
    "growth_params": "records",
    "AttributeCosts": "grow.acceptance",
    "COST_MEASURE_CODES": "grow.acceptance",
    "cost_sensitive_measure": "grow.acceptance",
    "stopping_allows": "grow.acceptance",
    "rand": "grow.sampling",
    "SplitCandidates": "records",
    "VALUES_NEWTON": "grow.tree_arrays",
    "Tree": "predict.tree",
    "PackedTrees": "predict.tree",
    "PackedForest": "predict.packed_forest",
    "add_leaf_values": "predict.tree",
    "TREE_LEAF": "predict.routing",
    "prepared_csr": "predict.csr_rows",
    "ShapTrees": "predict.tree_shap",
    "block_rows": "predict.sparse_blocks",
    "into_row_blocks": "predict.sparse_blocks",
    "CACHE_BLOCK_VALUES": "predict.sparse_blocks",
    "weighted_quantile": "statistics.quantile",
    "grouped_weighted_quantile": "statistics.quantile",
    "huber_leaf_values": "statistics.quantile",
    "newton_leaf_values": "split.criteria",
    "CategoryGuard": "grow.grower",
    "compiled": "_numba.jit",
    "kernel": "_numba.jit",
    "parallel_kernel": "_numba.jit",
    "internal": "_numba.jit",
    "inlined": "_numba.jit",
    "PREBUILT_DIR": "kernel_cache",
    "prebuilt_usable": "kernel_cache",
    "speed_up_compilation": "_numba.compilation",
}

__all__ = sorted(_HOMES)

__getattr__, __dir__ = lazy_names(__name__, _HOMES)
