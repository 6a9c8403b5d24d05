"""The numba engine under every estimator: binning, per-sample statistics, histograms,
split search, partition, tree growth, tree arrays and prediction.

This layer imports no estimator and nothing from scikit-learn; the estimators in
:mod:`treeboost.trees` and :mod:`treeboost.ensembles` sit on it.
"""
from ._numba_flags import compare_flags_cheaply
from ._numba_inline import copy_inlined_ir_once
from ._numba_markup import mark_up_without_colorama_init
from ._numba_passes import lighten_engine_passes

# before any kernel compiles: numba's typing compares its compiler flags some hundred
# thousand times during a first fit (see _numba_flags) and marks up a message for every
# candidate it rejects (see _numba_markup); its inliner copies each inlined step's IR
# block by block (see _numba_inline); its LLVM passes optimize the engine's code twice
# (see _numba_passes)
compare_flags_cheaply()
copy_inlined_ir_once()
mark_up_without_colorama_init()
lighten_engine_passes()
