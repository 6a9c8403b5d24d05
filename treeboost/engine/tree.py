"""Tree: a fitted tree as flat arrays, with numba prediction on raw X."""
import numpy as np
from numba import njit, prange
from scipy.sparse import csr_matrix

TREE_LEAF = -1
_NO_CATEGORIES = np.zeros((1, 4), np.uint64)


@njit(nogil=True, cache=True, inline="always")
def _goes_left(x, node, threshold, missing_left, is_cat, bitset):
    if np.isnan(x):
        return missing_left[node]
    if is_cat[node]:
        if x < 0 or x >= 256:
            return missing_left[node]
        c = np.int64(x)
        return (bitset[node, c >> 6] >> np.uint64(c & 63)) & np.uint64(1) == 1
    return x <= threshold[node]


@njit(nogil=True, cache=True, inline="always")
def _leaf_of_row(X, i, left, right, feature, threshold, missing_left, is_cat, bitset):
    """The leaf row ``i`` of the raw matrix ``X`` reaches."""
    node = 0
    while left[node] != TREE_LEAF:
        if _goes_left(X[i, feature[node]], node, threshold, missing_left, is_cat, bitset):
            node = left[node]
        else:
            node = right[node]
    return node


@njit(nogil=True, cache=True, parallel=True)
def _apply_raw(X, left, right, feature, threshold, missing_left, is_cat, bitset, out):
    for i in prange(X.shape[0]):
        out[i] = _leaf_of_row(X, i, left, right, feature, threshold, missing_left, is_cat,
                              bitset)


@njit(nogil=True, cache=True)
def _apply_raw_serial(X, left, right, feature, threshold, missing_left, is_cat, bitset, out):
    for i in range(X.shape[0]):
        out[i] = _leaf_of_row(X, i, left, right, feature, threshold, missing_left, is_cat,
                              bitset)


@njit(nogil=True, cache=True, parallel=True)
def _accumulate_raw(X, left, right, feature, threshold, missing_left, is_cat, bitset, value,
                    out):
    """``out[i] += value[leaf of row i]``: a forest sums its trees' outputs without a leaf
    array and a gathered copy of the values per tree."""
    for i in prange(X.shape[0]):
        node = _leaf_of_row(X, i, left, right, feature, threshold, missing_left, is_cat,
                            bitset)
        for k in range(value.shape[1]):
            out[i, k] += value[node, k]


@njit(nogil=True, cache=True)
def _apply_binned(Xb_T, left, right, feature, bin_threshold, missing_left, is_cat, bitset,
                  missing_code, out):
    for i in range(Xb_T.shape[1]):
        node = 0
        while left[node] != TREE_LEAF:
            b = Xb_T[feature[node], i]
            if b == missing_code:
                go = missing_left[node]
            elif is_cat[node]:
                go = (bitset[node, b >> 6] >> np.uint64(b & 63)) & np.uint64(1) == 1
            else:
                go = b <= bin_threshold[node]
            node = left[node] if go else right[node]
        out[i] = node


@njit(nogil=True, cache=True)
def _decision_path(X, left, right, feature, threshold, missing_left, is_cat, bitset,
                   max_depth):
    n = X.shape[0]
    indptr = np.zeros(n + 1, np.int64)
    indices = np.empty(n * (max_depth + 1), np.int64)
    k = 0
    for i in range(n):
        node = 0
        while True:
            indices[k] = node
            k += 1
            if left[node] == TREE_LEAF:
                break
            if _goes_left(X[i, feature[node]], node, threshold, missing_left, is_cat, bitset):
                node = left[node]
            else:
                node = right[node]
        indptr[i + 1] = k
    return indptr, indices[:k]


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

    _arrays = ("children_left", "children_right", "feature", "threshold", "is_categorical",
               "categories_left", "missing_go_left", "bin_threshold", "value", "impurity",
               "n_node_samples", "weighted_n_node_samples", "gain", "depth")

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
        if (value.ndim == 2 and value.shape[0] > 0 and value.shape[1] == 4
                and value.dtype == np.uint64 and not value.any()):
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
    def max_depth(self):
        return int(self.depth.max()) if self.node_count else 0

    def _args(self):
        return (self.children_left, self.children_right, self.feature, self.threshold,
                self.missing_go_left, self.is_categorical, self._bitsets())

    def apply(self, X):
        """Leaf id of each row of the encoded float matrix X."""
        out = np.empty(X.shape[0], np.int64)
        kernel = _apply_raw if X.shape[0] >= 2000 else _apply_raw_serial
        kernel(X, *self._args(), out)
        return out

    def apply_binned(self, X_binned_T, missing_code):
        """Leaf id of each column of the feature-major binned matrix."""
        out = np.empty(X_binned_T.shape[1], np.int64)
        _apply_binned(X_binned_T, self.children_left, self.children_right, self.feature,
                      self.bin_threshold, self.missing_go_left, self.is_categorical,
                      self._bitsets(), missing_code, out)
        return out

    def predict(self, X):
        """Value of the leaf each row reaches, shape (n_samples, n_outputs)."""
        return self.value[self.apply(X)]

    def add_predictions(self, X, out):
        """``out += self.predict(X)``, in place and without temporaries (``out`` is a
        C-contiguous float64 array of shape (n_samples, n_outputs))."""
        # the kernel writes out[i, k] unchecked: a wrong shape must not reach it
        if (not isinstance(out, np.ndarray) or out.dtype != np.float64
                or not out.flags.c_contiguous
                or out.shape != (X.shape[0], self.value.shape[1])):
            raise ValueError(
                f"out must be a C-contiguous float64 array of shape "
                f"({X.shape[0]}, {self.value.shape[1]}), got "
                f"{getattr(out, 'dtype', type(out).__name__)} of shape "
                f"{getattr(out, 'shape', None)}.")
        _accumulate_raw(X, *self._args(), np.ascontiguousarray(self.value, dtype=np.float64),
                        out)
        return out

    def decision_path(self, X):
        """CSR indicator matrix (n_samples, node_count) of the nodes each row visits."""
        indptr, indices = _decision_path(X, *self._args(), self.max_depth)
        data = np.ones(indices.shape[0], dtype=np.int64)
        return csr_matrix((data, indices, indptr), shape=(X.shape[0], self.node_count))

    def compute_feature_importances(self, normalize=True):
        """Total weighted impurity decrease brought by each feature (normalised to 1)."""
        internal = self.children_left != TREE_LEAF
        imp = np.bincount(self.feature[internal], weights=self.gain[internal],
                          minlength=self.n_features).astype(np.float64)
        if normalize:
            s = imp.sum()
            if s > 0:
                imp /= s
        return imp


@njit(nogil=True, cache=True, parallel=True)
def _predict_packed(X, left, right, feature, threshold, missing_left, is_cat, bitset, value,
                    roots, output, out):
    """``out[i, output[t]] += value[leaf of row i in tree t]`` for every tree ``t``; the
    trees' nodes are concatenated, ``roots[t]`` is the first node of tree ``t``.

    Rows go in blocks of 64 and each block walks one tree after the other, so a tree's
    nodes stay in cache while the block's rows use them."""
    n = X.shape[0]
    block = 64
    for blk in prange((n + block - 1) // block):
        lo = blk * block
        hi = min(n, lo + block)
        for t in range(roots.shape[0]):
            root = roots[t]
            k = output[t]
            for i in range(lo, hi):
                node = root
                while left[node] != TREE_LEAF:
                    x = X[i, feature[node]]
                    if is_cat[node]:
                        go = _goes_left(x, node, threshold, missing_left, is_cat, bitset)
                    elif missing_left[node]:
                        go = not (x > threshold[node])     # NaN goes left
                    else:
                        go = x <= threshold[node]          # NaN goes right
                    node = left[node] if go else right[node]
                out[i, k] += value[node]


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
        sizes = np.array([t.node_count for t in trees], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        cat = lambda name: np.concatenate([getattr(t, name) for t in trees])  # noqa: E731
        shift = np.repeat(offsets, sizes)
        left = cat("children_left").astype(np.int64)
        right = cat("children_right").astype(np.int64)
        self.left = np.where(left >= 0, left + shift, TREE_LEAF)
        self.right = np.where(right >= 0, right + shift, TREE_LEAF)
        self.feature = cat("feature")
        self.threshold = cat("threshold")
        self.missing_left = cat("missing_go_left")
        self.is_cat = cat("is_categorical")
        self.bitset = (np.concatenate([t.categories_left for t in trees])
                       if any(t.is_categorical.any() for t in trees) else _NO_CATEGORIES)
        self.value = np.concatenate([t.value[:, 0] for t in trees])
        self.roots = offsets
        self.output = np.asarray(outputs, dtype=np.int64)

    def predict(self, X, n_outputs, out=None):
        """Sum of the leaf values of every tree, shape (n_samples, n_outputs)."""
        if out is None:
            out = np.zeros((X.shape[0], n_outputs))
        _predict_packed(X, self.left, self.right, self.feature, self.threshold,
                        self.missing_left, self.is_cat, self.bitset, self.value, self.roots,
                        self.output, out)
        return out
