"""Tree: a fitted tree as flat arrays, with numba prediction on raw X."""

from typing import Any, NamedTuple

import numpy as np
from scipy.sparse import csr_matrix, issparse

from .eight_rows import (
    accumulate_lanes,
    accumulate_lanes_serial,
    apply_lanes,
    apply_lanes_serial,
    lane_arrays,
    predict_packed_lanes,
    predict_packed_lanes_serial,
)
from ..binning.sparse_codes import SparseCodes, row_code
from .sparse_blocks import by_row_blocks, into_row_blocks
from .._numba.jit import inlined, kernel, serial_and_parallel
from ..parallel.thread_pools import region_threads
from .csr_rows import CSRRows, accumulate_csr, apply_csr, prepared_csr
from .routing import TREE_LEAF, Splits, child_of_row, goes_left_binned, leaf_of_row
from .tree_stack import NO_CATEGORIES as _NO_CATEGORIES, TreeStack
from ...persistence._spec import check_state, integer, layout_spec

#: rows of a tree's walk (:meth:`Tree.apply`, :meth:`Tree.add_predictions`) a thread
#: takes at least: a region of fewer than twice as many rows runs serial
WALK_ROWS_PER_THREAD = 1000


def check_sum_buffer(out, shape):
    """Raise a ValueError unless ``out`` is a C-contiguous float64 array of ``shape``:
    the buffer a walk adds leaf values into, which its kernel writes unchecked."""
    if (
        not isinstance(out, np.ndarray)
        or out.dtype != np.float64
        or not out.flags.c_contiguous
        or out.shape != shape
    ):
        raise ValueError(
            f"out must be a C-contiguous float64 array of shape "
            f"({shape[0]}, {shape[1]}), got "
            f"{getattr(out, 'dtype', type(out).__name__)} of shape "
            f"{getattr(out, 'shape', None)}."
        )


def _make_apply_raw(blocks):
    def apply_raw(X, splits, out):
        """``out[i]`` = the leaf row ``i`` of the raw matrix ``X`` reaches."""
        for i in blocks(X.shape[0]):
            out[i] = leaf_of_row(X, i, splits, 0)

    return apply_raw


def _make_accumulate_raw(blocks):
    def accumulate_raw(X, splits, value, out):
        """``out[i] += value[leaf of row i]``: a forest sums its trees' outputs without a
        leaf array and a gathered copy of the values per tree."""
        for i in blocks(X.shape[0]):
            node = leaf_of_row(X, i, splits, 0)
            for k in range(value.shape[1]):
                out[i, k] += value[node, k]

    return accumulate_raw


#: the one-row walks on the calling thread (a few rows, or one of a forest's workers)
#: and on numba's threads
_apply_raw_serial, _apply_raw = serial_and_parallel(_make_apply_raw)
_accumulate_raw_serial, _accumulate_raw = serial_and_parallel(_make_accumulate_raw)


@inlined
def _child_binned(code, node, splits, missing_code):
    """The child of ``node`` a sample of bin ``code`` goes to (``splits.threshold`` holds
    the bin thresholds)."""
    go = goes_left_binned(
        code,
        missing_code,
        splits.missing_left[node],
        splits.is_cat[node],
        splits.bitset,
        node,
        splits.threshold[node],
    )
    return splits.left[node] if go else splits.right[node]


@kernel
def _apply_binned(Xb_T, splits, missing_code, out):
    """``out[i]`` = the leaf sample ``i`` of the feature-major codes ``Xb_T`` reaches."""
    for i in range(Xb_T.shape[1]):
        node = 0
        while splits.left[node] != TREE_LEAF:
            node = _child_binned(Xb_T[splits.feature[node], i], node, splits, missing_code)
        out[i] = node


@kernel
def _apply_code_rows(rows, splits, missing_code, out):
    """:func:`_apply_binned` on sparse codes (``rows`` a
    :class:`~..binning.sparse_codes.CodeRows`), each code looked up in its row."""
    for i in range(rows.row_ptr.shape[0] - 1):
        node = 0
        while splits.left[node] != TREE_LEAF:
            code = row_code(rows, i, splits.feature[node])
            node = _child_binned(code, node, splits, missing_code)
        out[i] = node


@kernel
def _decision_path(X, splits, depth):
    """The CSR ``(indptr, indices)`` of the nodes each row visits, in two walks: the
    first finds each row's leaf, whose depth plus one is the length of its path, the
    second fills exactly that many entries (a buffer of ``n_rows * (max_depth + 1)``
    would cost gigabytes for a deep tree however short the rows' paths are)."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        leaf = leaf_of_row(X, i, splits, 0)
        indptr[i + 1] = indptr[i] + depth[leaf] + 1
    indices = np.empty(indptr[n], np.int64)
    k = 0
    for i in range(n):
        node = 0
        while True:
            indices[k] = node
            k += 1
            if splits.left[node] == TREE_LEAF:
                break
            node = child_of_row(X, i, splits, node)
    return indptr, indices


@kernel
def _first_unsafe_node(left, right, feature, is_cat, n_columns, n_bitsets, depth, with_depth):
    """The first node a walk of the tree's arrays could not take safely, -1 when there
    is none: an internal node whose children are not after it and inside the tree (a
    walk would leave the arrays, or never end), whose feature is not a column of X, that
    is categorical without its row of category sets, or (``with_depth``) whose children
    are not one level deeper (the depths size the buffer of :func:`_decision_path`)."""
    n = left.shape[0]
    if with_depth and n > 0 and depth[0] != 0:
        return 0
    for i in range(n):
        lo = left[i]
        if lo == TREE_LEAF:
            continue
        hi = right[i]
        f = feature[i]
        if lo <= i or lo >= n or hi <= i or hi >= n or f < 0 or f >= n_columns:
            return i
        if is_cat[i] and n_bitsets != n:
            return i
        if with_depth and (depth[lo] != depth[i] + 1 or depth[hi] != depth[i] + 1):
            return i
    return -1


#: the kinds of the arrays a walk reads: indices, flags and numbers
_WALK_KINDS = {
    "children_right": "iu",
    "feature": "iu",
    "threshold": "f",
    "missing_go_left": "b",
    "is_categorical": "b",
    "depth": "iu",
}


class Tree:
    """A fitted binary tree stored as parallel arrays indexed by node id (root = 0).

    Attributes
    ----------
    children_left, children_right : ndarray of int32
        Child ids, ``-1`` for a leaf.
    feature : ndarray of int32
        Feature tested at each internal node (``-1`` at leaves).
    threshold : ndarray of float64
        Numeric split: a sample goes left when ``x <= threshold``; the threshold is the
        midpoint of two adjacent distinct training values (``inf`` for "is missing").
    is_categorical : ndarray of bool
        Whether the node tests a categorical feature.
    categories_left : ndarray of uint64, shape (node_count, 4)
        Bitset of the category indices that go left at a categorical node (zeros
        elsewhere; a tree without categorical splits stores none, which saves 32 bytes
        per node, and returns zeros).
    missing_go_left : ndarray of bool
        Side taken by NaN (and by categories never seen in training).
    bin_threshold : ndarray of int32
        The split on binned codes: ``code <= bin_threshold`` goes left.
    value : ndarray of shape (node_count, n_outputs)
        Class probabilities (classification), mean (regression) or leaf output
        (boosting) of each node.
    impurity, weighted_n_node_samples, gain : ndarray of float64
        Node impurity, weight, and weighted impurity decrease of its split (0 at leaves).
    n_node_samples, depth : ndarray of int
    """

    _arrays = (
        "children_left",
        "children_right",
        "feature",
        "threshold",
        "is_categorical",
        "categories_left",
        "missing_go_left",
        "bin_threshold",
        "value",
        "impurity",
        "n_node_samples",
        "weighted_n_node_samples",
        "gain",
        "depth",
    )

    def __init__(self, n_features, n_outputs, **arrays):
        self.n_features = n_features
        self.n_outputs = n_outputs
        for name in self._arrays:
            setattr(self, name, arrays[name])

    @property
    def categories_left(self):
        c = self._categories_left
        if c.ndim == 2 and c.shape[0] == 0 and self.node_count:
            return np.zeros((self.node_count, 4), np.uint64)
        return c

    @categories_left.setter
    def categories_left(self, value):
        value = np.asarray(value)
        if (
            value.ndim == 2
            and value.shape[0] > 0
            and value.shape[1] == 4
            and value.dtype == np.uint64
            and not value.any()
        ):
            value = np.zeros((0, 4), np.uint64)
        self._categories_left = value

    def _bitsets(self):
        """``categories_left`` for the kernels, which read it only at categorical nodes:
        one row of zeros stands in for a tree without categorical splits."""
        c = self._categories_left
        return _NO_CATEGORIES if c.ndim == 2 and c.shape[0] == 0 else c

    @property
    def node_count(self):
        return self.children_left.shape[0]

    @property
    def n_leaves(self):
        return int(np.sum(self.children_left == TREE_LEAF))

    @property
    def capacity(self):
        """Nodes the arrays hold (scikit-learn's name): exactly ``node_count`` here."""
        return self.node_count

    @property
    def n_classes(self):
        """scikit-learn's ``tree_.n_classes`` for one output: ``[value columns]`` (the
        classes of a classifier, 1 for a regressor of one output)."""
        return np.array([self.n_outputs], dtype=np.intp)

    @property
    def max_depth(self):
        return int(self.depth.max()) if self.node_count else 0

    def _check_walk(self, n_columns=None, with_depth=False):
        """Raise a ValueError unless the kernels can walk the tree's arrays on rows of
        ``n_columns`` columns (None: the caller bounds the features itself).

        A fitted or loaded tree is checked in full (:meth:`_validate_state`), but its
        arrays are plain attributes: an array edited in place or replaced after that
        (``tree_.children_left[0] = 10**6``) would send the unchecked kernels outside
        their memory.  So every walk checks first what it indexes, in one pass over the
        nodes (a few microseconds for thousands of nodes): the arrays' kinds and lengths,
        the children inside the tree and after their node, the features among the
        columns, the category sets of categorical nodes, and (``with_depth``) the
        depths.  (The arrays stay writeable: read-only arrays are another type to numba,
        and every kernel would be compiled a second time for them.)
        """
        left = self.children_left
        if not isinstance(left, np.ndarray) or left.ndim != 1 or left.dtype.kind not in "iu":
            raise ValueError(
                f"The tree's children_left must be a 1-dimensional integer array, got "
                f"{getattr(left, 'dtype', type(left).__name__)} of shape "
                f"{getattr(left, 'shape', None)}: were the fitted tree's arrays replaced?"
            )
        n = left.shape[0]
        for name, kinds in _WALK_KINDS.items():
            a = getattr(self, name)
            if not isinstance(a, np.ndarray) or a.shape != (n,) or a.dtype.kind not in kinds:
                raise ValueError(
                    f"The tree's {name} must be an array of {n} entries like its "
                    f"children_left, got {getattr(a, 'dtype', type(a).__name__)} of shape "
                    f"{getattr(a, 'shape', None)}: were the fitted tree's arrays replaced?"
                )
        value, bits = self.value, self._bitsets()
        if not isinstance(value, np.ndarray) or value.ndim != 2 or value.shape[0] != n:
            raise ValueError(
                f"The tree's value must have one row per node ({n}), got shape "
                f"{getattr(value, 'shape', None)}: were the fitted tree's arrays replaced?"
            )
        if not isinstance(bits, np.ndarray) or bits.ndim != 2 or bits.shape[1] != 4:
            raise ValueError("The tree's categories_left must have 4 columns.")
        node = _first_unsafe_node(
            left,
            self.children_right,
            self.feature,
            self.is_categorical,
            np.iinfo(np.int64).max if n_columns is None else n_columns,
            bits.shape[0],
            self.depth,
            with_depth,
        )
        if node >= 0:
            columns = "" if n_columns is None else f", X {n_columns} columns"
            depths = ", the depths one more at each child" if with_depth else ""
            raise ValueError(
                f"The tree's arrays cannot be walked: node {node} has children "
                f"{int(left[node])} and {int(self.children_right[node])} and feature "
                f"{int(self.feature[node])} (the tree has {n} nodes{columns}{depths}); "
                f"were the fitted tree's arrays edited?"
            )

    def _splits(self, binned=False):
        """The tree's :class:`~.routing.Splits`, with its bin thresholds for a walk on
        binned X (``binned``)."""
        return Splits(
            self.children_left,
            self.children_right,
            self.feature,
            self.bin_threshold if binned else self.threshold,
            self.missing_go_left,
            self.is_categorical,
            self._bitsets(),
        )

    def lane_arrays(self):
        """The tree's :class:`~.lane_walk.LaneArrays`, or None when the lane walk cannot
        take it (a categorical split, or children not side by side).  Built on each call:
        a caller that walks many blocks of rows builds them once and passes them on.
        The tree's nodes are checked first (:meth:`_check_walk`); the caller bounds the
        features by the columns of X."""
        self._check_walk()
        return self._lanes()

    def _lanes(self):
        """:meth:`lane_arrays` of a tree already checked."""
        return lane_arrays(
            self.children_left,
            self.children_right,
            self.feature,
            self.threshold,
            self.missing_go_left,
            self.is_categorical,
        )

    def apply(self, X, parallel=True):
        """Leaf id of each row of the encoded float matrix X (on numba's threads for 2000
        rows or more, :data:`WALK_ROWS_PER_THREAD` a thread, unless ``parallel=False``:
        the caller is one of several threads).
        A scipy.sparse X is walked row by row in its CSR form (:mod:`.csr_walk`), or
        in dense blocks of rows with ``parallel=False`` (:mod:`.row_blocks`).  Eight
        rows walk side by side (:mod:`.lane_walk`) where the tree allows it."""
        out = np.empty(X.shape[0], np.int64)
        self._check_walk(X.shape[1])
        if parallel and issparse(X):
            apply_csr(prepared_csr(X), self._splits(), out)
            return out
        lanes = self._lanes()

        def walk(Xd, out_rows):
            threads = parallel and region_threads(Xd.shape[0], WALK_ROWS_PER_THREAD) > 1
            if lanes is not None:
                (apply_lanes if threads else apply_lanes_serial)(Xd, *lanes, out_rows)
            else:
                (_apply_raw if threads else _apply_raw_serial)(Xd, self._splits(), out_rows)

        return into_row_blocks(walk, X, out)

    def apply_binned(self, X_binned_T, missing_code):
        """Leaf id of each column of the feature-major binned matrix (dense, or
        :class:`~.sparse_codes.SparseCodes`)."""
        out = np.empty(X_binned_T.shape[1], np.int64)
        self._check_walk(X_binned_T.shape[0])
        splits = self._splits(binned=True)
        if isinstance(X_binned_T, SparseCodes):
            _apply_code_rows(X_binned_T.rows, splits, missing_code, out)
        else:
            _apply_binned(X_binned_T, splits, missing_code, out)
        return out

    def predict(self, X):
        """Value of the leaf each row reaches, shape (n_samples, n_outputs)."""
        return self.value[self.apply(X)]

    def add_predictions(self, X, out, parallel=True, lanes=False):
        """``out += self.predict(X)``, in place and without temporaries (``out`` is a
        C-contiguous float64 array of shape (n_samples, n_outputs)), on numba's threads
        for 2000 rows or more, as :meth:`apply`, unless ``parallel=False`` (the caller is
        one of several threads).  A sparse X is
        walked on its CSR rows; a :class:`~.csr_walk.CSRRows` made once serves many
        trees.  A dense X is walked eight rows side by side where the tree allows it;
        ``lanes``, the tree's :meth:`lane_arrays` built once by a caller that adds many
        blocks of rows, saves building them again (False: build them here)."""
        self._check_walk(X.shape[1])
        if issparse(X):
            X = prepared_csr(X)
        # the kernel writes out[i, k] unchecked: a wrong shape must not reach it
        check_sum_buffer(out, (X.shape[0], self.value.shape[1]))
        value = np.ascontiguousarray(self.value, dtype=np.float64)
        if isinstance(X, CSRRows):
            accumulate_csr(X, self._splits(), value, out)
            return out
        if lanes is False:
            lanes = self._lanes()
        parallel = parallel and region_threads(X.shape[0], WALK_ROWS_PER_THREAD) > 1
        if lanes is not None:
            accumulate = accumulate_lanes if parallel else accumulate_lanes_serial
            return into_row_blocks(
                lambda Xd, out_rows: accumulate(Xd, *lanes, value, out_rows), X, out
            )
        accumulate = _accumulate_raw if parallel else _accumulate_raw_serial
        return into_row_blocks(
            lambda Xd, out_rows: accumulate(Xd, self._splits(), value, out_rows), X, out
        )

    def decision_path(self, X):
        """CSR indicator matrix (n_samples, node_count) of the nodes each row visits."""

        self._check_walk(X.shape[1], with_depth=True)

        def paths(Xd):
            indptr, indices = _decision_path(Xd, self._splits(), self.depth)
            data = np.ones(indices.shape[0], dtype=np.int64)
            return csr_matrix((data, indices, indptr), shape=(Xd.shape[0], self.node_count))

        return by_row_blocks(paths, X)

    def compute_feature_importances(self, normalize=True):
        """Weighted impurity decrease brought by each feature, as scikit-learn's:
        ``sum over its splits of (W_P i_P - W_L i_L - W_R i_R) / W_root``, then
        normalised to sum to 1 (``normalize=True``).  Unnormalised, a fully grown tree's
        importances sum to the root's impurity."""
        internal = self.children_left != TREE_LEAF
        imp = np.bincount(
            self.feature[internal], weights=self.gain[internal], minlength=self.n_features
        ).astype(np.float64)
        root_w = float(self.weighted_n_node_samples[0]) if self.node_count else 0.0
        if root_w > 0:
            imp /= root_w
        if normalize:
            s = imp.sum()
            if s > 0:
                imp /= s
        return imp

    # -- the state read from a model file ---------------------------------------------------

    #: what a model file stores of a tree
    _persist_attributes = ("n_features", "n_outputs", "_categories_left") + tuple(
        a for a in _arrays if a != "categories_left"
    )
    #: dtype and shape of each stored array, as the kernels above read them; a file is
    #: checked against it before its arrays are read (named sizes must agree)
    _persist_arrays = {
        "children_left": ("int32", ("n_nodes",)),
        "children_right": ("int32", ("n_nodes",)),
        "feature": ("int32", ("n_nodes",)),
        "threshold": ("float64", ("n_nodes",)),
        "is_categorical": ("bool", ("n_nodes",)),
        "_categories_left": ("uint64", (("n_nodes", 0), 4)),
        "missing_go_left": ("bool", ("n_nodes",)),
        "bin_threshold": ("int32", ("n_nodes",)),
        "value": ("float64", ("n_nodes", "n_outputs")),
        "impurity": ("float64", ("n_nodes",)),
        "n_node_samples": ("int64", ("n_nodes",)),
        "weighted_n_node_samples": ("float64", ("n_nodes",)),
        "gain": ("float64", ("n_nodes",)),
        "depth": ("int32", ("n_nodes",)),
    }
    #: what :meth:`_validate_state` checks attribute by attribute: the layout above (one
    #: row per node of ``children_left``), finite values, weights and gains, counts >= 0
    _state_spec = {
        "n_features": integer(1, 2**31 - 1),
        "n_outputs": integer(1),
        **layout_spec(
            _persist_arrays,
            {"n_nodes": "children_left"},
            {
                "children_left": {"ndim": 1},
                "value": {"finite": True},
                "impurity": {"finite": True},
                "gain": {"finite": True},
                "weighted_n_node_samples": {"finite": True, "low": 0},
                "n_node_samples": {"low": 0},
            },
        ),
    }

    def _validate_state(
        self, where="tree", n_features=None, n_outputs=None, categorical=None, bin_mapper=None
    ):
        """Raise ValueError unless the tree's arrays are safe for every kernel above.

        The kernels index without bounds checks: ``children_*`` and ``feature`` are read
        as indices, ``depth`` sizes the buffer of :meth:`decision_path`, a categorical
        node reads its row of ``categories_left``.  So: exact dtypes, one row per node,
        children after their parent and each node (but the root) the child of exactly
        one node, ``depth`` that of the children, features below ``n_features``,
        categorical splits only on categorical features and with their bitsets,
        numeric thresholds that are numbers (``+inf``: "is missing"), finite values,
        weights and gains.

        Parameters
        ----------
        where : str
            Where the tree sits in the model, for messages.
        n_features : int or None
            Number of input features of the owner (``self.n_features`` must match).
        n_outputs : int or None
            Number of value columns the owner reads.
        categorical : ndarray of bool of shape (n_features,) or None
            Which features are categorical (the owner's encoder / bin mapper).
        bin_mapper : BinMapper or None
            The bin mapper the tree was grown on: the binned thresholds must be codes of
            their feature and the thresholds its edges.
        """
        arrays = check_state(self, where, self._state_spec, missing="incomplete tree")
        nf, k = arrays["n_features"], arrays["n_outputs"]
        if n_features is not None and nf != n_features:
            raise ValueError(
                f"{where}.n_features: the tree reads {nf} features, its owner has {n_features}."
            )
        if n_outputs is not None and k != n_outputs:
            raise ValueError(f"{where}.n_outputs: {k}, the owner reads {n_outputs} output(s).")
        shape = _check_shape(where, arrays)
        _check_split_features(where, arrays, shape, nf, categorical)
        _check_numbers(where, arrays, shape)
        if bin_mapper is not None:
            _check_bins(where, arrays, shape, nf, bin_mapper)


class _TreeShape(NamedTuple):
    """Which nodes of a checked tree are leaves, splits, categorical and numeric splits."""

    leaf: Any
    internal: Any
    categorical: Any
    numeric: Any


def _check_shape(where, arrays):
    """The children and depths form one tree rooted at node 0, children after parents."""
    left = arrays["children_left"]
    n = left.shape[0]
    if n == 0:
        raise ValueError(f"{where}: a tree has at least one node (the root).")
    right, feature, depth = arrays["children_right"], arrays["feature"], arrays["depth"]
    bits = arrays["_categories_left"]
    if bits.shape[0] not in (0, n):
        raise ValueError(
            f"{where}._categories_left: must have {n} rows (or none), got {bits.shape[0]}."
        )
    leaf = left == TREE_LEAF
    if np.any(leaf != (right == TREE_LEAF)):
        raise ValueError(
            f"{where}: node {int(np.argmax(leaf != (right == TREE_LEAF)))} has exactly one child."
        )
    internal = np.flatnonzero(~leaf)
    # children after their parent: no cycle is possible, and every id is in range
    for name, child in (("children_left", left), ("children_right", right)):
        c = child[internal]
        bad = (c <= internal) | (c >= n)
        if bad.any():
            i = int(internal[np.argmax(bad)])
            raise ValueError(
                f"{where}.{name}: node {i} has child {int(child[i])}, out of "
                f"range or pointing backwards (the tree has {n} nodes)."
            )
    kids = np.concatenate([left[internal], right[internal]])
    # (the children are in range, checked above: counted, not sorted or hashed)
    if kids.size != n - 1 or (kids.size and np.bincount(kids, minlength=n).max() > 1):
        raise ValueError(
            f"{where}: the nodes do not form a tree (a node with two "
            f"parents or an unreachable node)."
        )
    if (
        depth[0] != 0
        or np.any(depth[left[internal]] != depth[internal] + 1)
        or np.any(depth[right[internal]] != depth[internal] + 1)
    ):
        raise ValueError(
            f"{where}.depth: must be 0 at the root and one more than the "
            f"parent's at every other node."
        )
    if np.any(feature[leaf] != TREE_LEAF):
        i = int(np.flatnonzero(leaf)[np.argmax(feature[leaf] != TREE_LEAF)])
        raise ValueError(
            f"{where}.feature: leaf {i} has feature {int(feature[i])}, must be {TREE_LEAF}."
        )
    is_cat = arrays["is_categorical"]
    return _TreeShape(leaf, internal, internal[is_cat[internal]], internal[~is_cat[internal]])


def _check_split_features(where, arrays, shape, nf, categorical):
    """Leaves test nothing; splits test a feature below ``nf``, categorical ones a
    categorical feature (``categorical``: the owner's flags) with a category set."""
    leaf, internal, cat_nodes = shape.leaf, shape.internal, shape.categorical
    feature, bits = arrays["feature"], arrays["_categories_left"]
    n = feature.shape[0]
    f_int = feature[internal]
    if f_int.size and (f_int.min() < 0 or f_int.max() >= nf):
        bad = f_int[(f_int < 0) | (f_int >= nf)][0]
        raise ValueError(f"{where}.feature: a split feature index {int(bad)} is outside [0, {nf}).")
    is_cat = arrays["is_categorical"]
    if is_cat[leaf].any():
        raise ValueError(f"{where}.is_categorical: a leaf is flagged categorical.")
    if cat_nodes.size and bits.shape[0] != n:
        raise ValueError(
            f"{where}._categories_left: the tree has categorical splits but no category sets."
        )
    if categorical is not None:
        categorical = np.asarray(categorical, bool)
        if categorical.shape != (nf,):
            raise ValueError(
                f"{where}: the owner's categorical flags do not cover the tree's {nf} features."
            )
        wrong = is_cat[internal] != categorical[f_int]
        if wrong.any():
            i = int(internal[np.argmax(wrong)])
            raise ValueError(
                f"{where}.is_categorical: node {i} makes a "
                f"{'categorical' if is_cat[i] else 'numeric'} split on "
                f"feature {int(feature[i])}, which is not "
                f"{'categorical' if is_cat[i] else 'numeric'}."
            )


def _check_numbers(where, arrays, shape):
    """Numeric thresholds that are numbers (``+inf``: "is missing"), finite gains, and a
    root weight that keeps the importances finite."""
    num_nodes = shape.numeric
    thr = arrays["threshold"][num_nodes]
    bad = np.isnan(thr) | np.isneginf(thr)
    if bad.any():
        raise ValueError(
            f"{where}.threshold: node {int(num_nodes[np.argmax(bad)])} has "
            f"threshold {thr[np.argmax(bad)]!r} (a number or +inf, the "
            f'"is missing" split, is needed).'
        )
    gains = np.abs(arrays["gain"]).sum()
    if not np.isfinite(gains):
        raise ValueError(f"{where}.gain: the gains must sum to a finite number.")
    # the importances divide the gains by the root's weight: a tiny (subnormal) weight
    # would make them infinite, and NaN once normalised (a diverged boosting fit's gains
    # are legitimately huge: only an infinite quotient is refused)
    root_w = float(arrays["weighted_n_node_samples"][0])
    with np.errstate(over="ignore", divide="ignore"):
        if root_w > 0 and not np.isfinite(gains / root_w):
            raise ValueError(
                f"{where}.weighted_n_node_samples: the root's weight "
                f"{root_w!r} makes the importances (the gains over it) "
                f"infinite."
            )


def _check_bins(where, arrays, shape, nf, bin_mapper):
    """The binned thresholds are codes of their feature, the thresholds its edges (or
    centred strictly between them), the category sets codes of their feature."""
    num_nodes, cat_nodes = shape.numeric, shape.categorical
    feature, bits = arrays["feature"], arrays["_categories_left"]
    thr = arrays["threshold"][num_nodes]
    n_bins = bin_mapper.n_bins_
    if n_bins.shape != (nf,):
        raise ValueError(f"{where}: the tree has {nf} features, its bin mapper {n_bins.shape[0]}.")
    bt = arrays["bin_threshold"][num_nodes]
    f_num = feature[num_nodes]
    bad = (bt < 0) | (bt >= n_bins[f_num])
    if bad.any():
        i = int(num_nodes[np.argmax(bad)])
        raise ValueError(
            f"{where}.bin_threshold: node {i} splits feature "
            f"{int(feature[i])} at code {int(arrays['bin_threshold'][i])}"
            f", outside its {int(n_bins[feature[i]])} bins."
        )
    _check_category_sets(where, bits, cat_nodes, n_bins[feature[cat_nodes]])
    if num_nodes.size:
        # the edge of the binned threshold, or (a threshold centered in its
        # node's gap, engine/split/gap_thresholds.py) strictly between the edges
        # around it, so that the binned and the raw test agree on the codes
        expected = bin_mapper.thresholds_of(f_num, bt)
        below = np.where(bt > 0, bin_mapper.thresholds_of(f_num, np.maximum(bt - 1, 0)), -np.inf)
        above = bin_mapper.thresholds_of(f_num, bt + 1)
        bad = (expected != thr) & ~((below < thr) & (thr < above))
        if bad.any():
            i = int(num_nodes[np.argmax(bad)])
            raise ValueError(
                f"{where}.threshold: node {i} has threshold "
                f"{arrays['threshold'][i]!r}, outside the bin mapper's "
                f"edges around its binned threshold "
                f"({below[np.argmax(bad)]!r}, "
                f"{above[np.argmax(bad)]!r})."
            )


def _check_category_sets(where, bits, nodes, n_codes):
    """A categorical node's 256-bit set holds codes of its feature only: a bit at a code
    past the feature's ``n_codes`` categories would be a category the model does not
    know (predictions ignore it, the exports and explanations look its label up)."""
    if not nodes.size:
        return
    for word in range(bits.shape[1]):
        k = np.clip(n_codes - 64 * word, 0, 64).astype(np.uint64)
        # the bits of codes 64 * word + k and above must be clear
        full = k == 64
        allowed = np.where(
            full,
            np.uint64(2**64 - 1),
            (np.uint64(1) << np.where(full, np.uint64(0), k)) - np.uint64(1),
        )
        extra = bits[nodes, word] & ~allowed
        if extra.any():
            j = int(np.argmax(extra != 0))
            low = int(extra[j])
            code = 64 * word + (low & -low).bit_length() - 1
            raise ValueError(
                f"{where}._categories_left: node {int(nodes[j])} sends category "
                f"code {code} left, its feature has {int(n_codes[j])} "
                f"categories."
            )


@inlined
def _packed_rows(X, lo, hi, splits, value, roots, output, out):
    """``out[i, output[t]] += value[leaf of row i in tree t]`` for the rows ``lo:hi``,
    every tree in turn (``splits`` the trees' concatenated nodes)."""
    for t in range(roots.shape[0]):
        root = roots[t]
        k = output[t]
        for i in range(lo, hi):
            out[i, k] += value[leaf_of_row(X, i, splits, root)]


#: rows of a block of the packed walk: each block walks one tree after the other, so a
#: tree's nodes stay in cache while the block's rows use them
_PACKED_ROWS = 64


def _make_predict_packed(blocks):
    def predict_packed(X, splits, value, roots, output, out):
        """``out[i, output[t]] += value[leaf of row i in tree t]`` for every tree ``t``;
        the trees' nodes are concatenated, ``roots[t]`` is the first node of tree ``t``.

        Rows go in blocks of 64 and each block walks one tree after the other, so a
        tree's nodes stay in cache while the block's rows use them."""
        n = X.shape[0]
        for blk in blocks((n + _PACKED_ROWS - 1) // _PACKED_ROWS):
            lo = blk * _PACKED_ROWS
            hi = min(n, lo + _PACKED_ROWS)
            _packed_rows(X, lo, hi, splits, value, roots, output, out)

    return predict_packed


#: on the calling thread (a few rows: starting numba's threads costs more than walking
#: them) and on numba's threads
_predict_packed_serial, _predict_packed = serial_and_parallel(_make_predict_packed)


class PackedTrees:
    """Many single-output trees in one set of arrays, predicted by one numba kernel.

    Used by the ensembles for fast prediction: each row walks every tree in one pass
    instead of one kernel call (and one temporary array) per tree.

    Parameters
    ----------
    trees : list of Tree
    outputs : array-like of int
        Output column each tree adds its leaf value to.
    """

    def __init__(self, trees, outputs):
        for t in trees:
            # the features are bounded below, at every predict
            t._check_walk()
        stack = TreeStack(trees)
        self.left, self.right = stack.children()
        self.feature = stack.concat("feature")
        self.threshold = stack.concat("threshold")
        self.missing_left = stack.concat("missing_go_left")
        self.is_cat = stack.concat("is_categorical")
        self.bitset = stack.bitsets()
        self.value = np.concatenate([t.value[:, 0] for t in trees])
        self.roots = stack.roots
        # the lane walk's arrays, when every tree has numeric splits only (the children
        # stay side by side through the shift)
        self.lanes = (
            lane_arrays(
                self.left, self.right, self.feature, self.threshold, self.missing_left, self.is_cat
            )
            if trees
            else None
        )
        self.output = np.asarray(outputs, dtype=np.int64)
        # what the kernel indexes, bounded once here and checked at every predict
        self.n_outputs_used = int(self.output.max()) + 1 if self.output.size else 0
        internal = self.left != TREE_LEAF
        self.n_features_used = int(self.feature[internal].max()) + 1 if internal.any() else 0

    def splits(self):
        """The trees' concatenated nodes as :class:`~.routing.Splits`."""
        return Splits(
            self.left,
            self.right,
            self.feature,
            self.threshold,
            self.missing_left,
            self.is_cat,
            self.bitset,
        )

    def predict(self, X, n_outputs, out=None):
        """Sum of the leaf values of every tree, shape (n_samples, n_outputs); a
        scipy.sparse X is walked in dense blocks of rows (:mod:`.row_blocks`)."""
        if out is None:
            out = np.zeros((X.shape[0], n_outputs))
        # the kernel reads X[i, feature] and writes out[i, output] unchecked: a buffer of
        # another model's shape (a refit racing a predict) must not reach it
        if X.ndim != 2 or X.shape[1] < self.n_features_used:
            raise ValueError(
                f"X must be 2-dimensional with at least {self.n_features_used} "
                f"columns for these trees, got shape {X.shape}."
            )
        if (
            not isinstance(out, np.ndarray)
            or out.dtype != np.float64
            or not out.flags.c_contiguous
            or out.shape != (X.shape[0], n_outputs)
            or n_outputs < self.n_outputs_used
        ):
            raise ValueError(
                f"out must be a C-contiguous float64 array of shape ({X.shape[0]}, "
                f"{max(n_outputs, self.n_outputs_used)}), got "
                f"{getattr(out, 'dtype', type(out).__name__)} of shape "
                f"{getattr(out, 'shape', None)} for {n_outputs} outputs."
            )
        # a sparse X: every tree walks one dense block of rows before the next block;
        # a few rows (rows x trees that feed one thread) on the calling thread
        parallel = region_threads(X.shape[0] * self.roots.shape[0]) > 1
        lanes = getattr(self, "lanes", None)
        if lanes is not None:
            walk = predict_packed_lanes if parallel else predict_packed_lanes_serial
            return into_row_blocks(
                lambda Xd, out_rows: walk(
                    Xd, *lanes, self.value, self.roots, self.output, out_rows
                ),
                X,
                out,
            )
        walk = _predict_packed if parallel else _predict_packed_serial
        return into_row_blocks(
            lambda Xd, out_rows: walk(
                Xd, self.splits(), self.value, self.roots, self.output, out_rows
            ),
            X,
            out,
        )


@kernel
def add_leaf_values(raw, k, value, leaf):
    """``raw[i, k] += value[leaf[i]]`` for every row: a boosting iteration's update of
    the raw scores of output ``k`` from the leaf of each row, without the temporary
    and the strided copy of numpy's fancy indexing."""
    for i in range(raw.shape[0]):
        raw[i, k] += value[leaf[i]]
