"""The work arrays of the compiled grower (:class:`~..layout.Workspace`), sized for the
largest tree the limits allow and kept from one tree to the next
(:class:`GrowerWorkspace`), and the workspaces of a fit's workers
(:class:`WorkspacePool`)."""

import contextlib
import threading
from collections import namedtuple

import numpy as np

from ..split.criteria import NEWTON
from ..records import (
    GAP_UNKNOWN,
    FeatureSampler,
    NodeArrays,
    Pending,
    RandomCuts,
    RowBuffers,
    SplitCandidates,
    Workspace,
)
from ..split.histogram import max_hist_blocks
from ..split.search import make_scratch
from ..statistics.samples import SUM_BLOCK


def node_capacity(n, crit, min_samples_leaf, max_leaf_nodes, max_depth):
    """Nodes of the largest tree the limits allow on ``n`` samples: leaves are bounded
    by the samples per leaf, ``max_leaf_nodes`` and ``2^max_depth`` (a depth-12 tree on
    2M rows needs 8191 nodes, not 4M)."""
    cap = 2 * n + 1
    if crit != NEWTON:  # boosting estimates counts: its leaves may hold fewer samples
        cap = min(cap, 2 * (n // max(min_samples_leaf, 1)) + 1)
    if max_leaf_nodes > 0:
        cap = min(cap, 2 * max_leaf_nodes + 1)
    if 0 <= max_depth < 40:
        cap = min(cap, 2 ** (max_depth + 1) - 1)
    return max(cap, 1)


def make_candidates(n_features, n_cols):
    """:class:`~..layout.SplitCandidates` for ``n_features`` features whose statistics
    have ``n_cols`` columns: each feature's best split, written by the split search."""
    return SplitCandidates(
        np.empty(n_features),
        np.empty(n_features),
        np.empty(n_features, np.int32),
        np.empty(n_features, np.bool_),
        np.zeros((n_features, 4), np.uint64),
        np.empty((n_features, n_cols)),
        np.zeros(n_features),
        np.full((n_features, 2), GAP_UNKNOWN, np.int32),
    )


#: the sizes of a :class:`~..records.Workspace` (:func:`make_workspace`,
#: :meth:`GrowerWorkspace.get`)
WorkspaceDims = namedtuple(
    "WorkspaceDims",
    [
        "n_rows",  # samples of the largest tree
        "cap",  # nodes of the largest tree
        "n_features",
        "n_cols",  # columns of the statistics
        "n_hist_bins",
        "n_slots",  # dense histogram buffers
        "categorical",  # whether some feature is categorical (per-node category sets)
        "newton",  # boosting: per-node left sums, the blocked histograms
        "n_threads",  # threads the tree grows on
        "n_words",  # 64-bit words per node of its open interaction sets
        "sparse_dims",  # sparse codes: rows of X, its entries, its fullest feature's
        "left_sums",  # per-node left sums outside boosting (trees of packed counts)
    ],
    defaults=(1, 0, (0, 0, 0), False),
)


def make_workspace(dims):
    """A :class:`~.layout.Workspace` of the sizes ``dims`` (a :class:`WorkspaceDims`):
    for trees of up to ``n_rows`` samples and ``cap`` nodes, grown on up to
    ``n_threads`` threads.

    The per-node category sets (32 bytes) exist only with ``categorical`` features and
    the per-node left sums only for ``newton`` (boosting) or ``left_sums`` (trees of
    packed counts, whose children take them as their sums); otherwise they have one row.
    ``n_words`` 64-bit words per node hold its open interaction sets.
    Row indices are int32, 8 bytes per row less than int64 in the two row arrays
    (:meth:`~..grower.TreeGrower.grow` refuses more than ``2**31 - 1`` samples).
    ``sparse_dims``, for sparse codes (:mod:`..sparse_codes`): the rows of X, its
    entries, and the entries of its fullest feature (zeros: dense codes).
    """
    n_rows, cap, n_features, n_cols, n_hist_bins, n_slots = dims[:6]
    categorical, newton, n_threads, n_words, sparse_dims, left_sums = dims[6:]
    cat_cap = cap if categorical else 1
    left_cap = cap if newton or left_sums else 1
    n_samples, n_entries, col_entries = sparse_dims
    rows = RowBuffers(
        np.empty(n_rows, np.int32),
        np.empty(n_rows, np.int32),
        np.empty((n_rows, n_cols)),
        np.full(n_samples, -1, np.int32),
        np.full(n_features if n_entries else 0, -1, np.int64),
        np.zeros(n_features + 1 if n_entries else 0, np.int64),
        np.empty(n_entries, np.int32),
        np.empty(n_entries, np.uint8),
    )
    # empty: the growers give the nodes their initial values as the trees reach them
    # (.nodes.ready_nodes)
    nodes = NodeArrays(
        np.empty(cap, np.int64),
        np.empty(cap, np.int64),
        np.empty(cap, np.int32),
        np.empty(cap, np.int32),
        np.empty(cap, np.int32),
        np.empty(cap, np.int32),
        np.empty(cap, np.int32),
        np.empty(cap, np.bool_),
        np.empty((cat_cap, 4), np.uint64),
        np.empty((cap, n_cols)),
        np.empty(cap),
        np.empty(cap),
        np.empty(cap),
        np.empty((left_cap, n_cols)),
        np.empty(cap, np.int64),
        np.empty(cap, np.bool_),
        np.empty((cap, 3)),
        np.empty((cap, n_words), np.uint64),
        np.empty((cap, 2), np.int32),
    )
    cands = make_candidates(n_features, n_cols)
    sampler = FeatureSampler(
        np.arange(n_features),
        np.arange(n_features),
        np.empty(0, np.int64),
        np.zeros(1, np.uint64),
        np.zeros(n_features, np.bool_),
        np.empty(n_features, np.int64),
        np.empty(n_features, np.int64),
    )
    cuts = RandomCuts(
        *(np.zeros(n_features, np.int64) for _ in range(4)),
        np.zeros((n_features, n_cols)),
        np.zeros((n_features, n_cols)),
    )
    return Workspace(
        rows,
        nodes,
        cands,
        make_scratch(n_threads, n_rows, n_hist_bins, n_cols, col_entries),
        np.empty((n_slots, 1 if n_entries else n_features, n_hist_bins, n_cols)),
        np.arange(n_slots),
        np.zeros(1, np.int64),
        sampler,
        np.empty(cap, np.int64),
        np.zeros(2, np.int64),
        cuts,
        Pending(
            np.zeros(2, np.int64),
            np.zeros(2, np.int64),
            np.zeros(2, np.int64),
            np.zeros(2, np.int64),
        ),
        np.empty((max(1, -(-n_rows // SUM_BLOCK)), n_cols)),
        # boosting's large nodes build their histograms by blocks of rows (dense codes)
        np.empty(
            (max_hist_blocks(n_features, n_hist_bins, n_cols), n_features, n_hist_bins, n_cols)
            if newton and not n_entries
            else (1, 1, 1, n_cols)
        ),
    )


def same_key(a, b):
    """Whether two keys of :meth:`GrowerWorkspace.kept` are the same: tuples item by item,
    arrays by identity, the rest by ``==``."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same_key(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return a is b
    return type(a) is type(b) and a == b


#: bytes of a cache line: the start of a work array of rows
CACHE_LINE = 64


def aligned_empty(shape, dtype):
    """``np.empty(shape, dtype)`` whose first byte starts a cache line.

    A large array from the C heap starts 16 bytes into a page, so a row of 64 bytes
    (the lean grower's rows of codes, moved as one vector) would straddle two cache
    lines: every load and store of it touches both."""
    dtype = np.dtype(dtype)
    n_bytes = int(np.prod(shape)) * dtype.itemsize
    raw = np.empty(n_bytes + CACHE_LINE, np.uint8)
    skip = -raw.ctypes.data % CACHE_LINE
    return raw[skip : skip + n_bytes].view(dtype).reshape(shape)


class WorkspacePool:
    """The :class:`GrowerWorkspace` of each worker of one fit, kept from one chunk of trees
    to the next: a chunk borrows one (:meth:`lend`, or :meth:`take` and :meth:`give`),
    so that small chunks (which even out the workers' loads) do not each allocate a
    workspace again; its workspaces share one sample-major copy of the codes
    (:class:`SharedCodesRows`).  Thread-safe.  Pickled (a process worker), a pool arrives
    empty: each process makes its own."""

    def __init__(self, min_rows=0, workers=1):
        self.min_rows = min_rows
        self.workers = workers
        self._free = []
        self._lock = threading.Lock()
        self._codes_rows = SharedCodesRows()

    def take(self):
        """A workspace no chunk is using, or a new one."""
        with self._lock:
            if self._free:
                return self._free.pop()
        return GrowerWorkspace(
            min_rows=self.min_rows, codes_rows=self._codes_rows, workers=self.workers
        )

    def give(self, workspace):
        with self._lock:
            self._free.append(workspace)

    @contextlib.contextmanager
    def lend(self):
        """A workspace for the ``with`` block, given back after it."""
        workspace = self.take()
        try:
            yield workspace
        finally:
            self.give(workspace)

    def __reduce__(self):
        return (WorkspacePool, (self.min_rows, self.workers))


class SharedCodesRows:
    """The codes sample-major (``X_binned_T.T``, C-contiguous), made once for all the
    workspaces that share this object: the workers of one fit read the same codes, and a
    copy each would cost every worker a pass over them and the first touch of their
    pages.  Thread-safe: the first worker to ask for an array's makes them while the
    others asking for the same array wait; a worker asking for another array (a Bagging
    member's own columns) does not wait for it."""

    def __init__(self):
        self._entry = None
        self._lock = threading.Lock()

    def get(self, X_binned_T):
        with self._lock:
            entry = self._entry
            if entry is None or entry.codes_T is not X_binned_T:
                entry = self._entry = _CodesEntry(X_binned_T, threading.Lock(), [])
        with entry.lock:
            if not entry.made:
                entry.made.append(np.ascontiguousarray(X_binned_T.T))
        return entry.made[0]


#: one array's sample-major codes in a SharedCodesRows: ``made`` holds them once made
#: (under ``lock``, which only the workers asking for the same ``codes_T`` wait on)
_CodesEntry = namedtuple("_CodesEntry", ["codes_T", "lock", "made"])


class GrowerWorkspace:
    """Work arrays kept from one tree to the next (a forest's worker, the boosting loop).

    Growing a tree needs arrays sized for the largest tree the data allows; allocating
    them afresh for every tree costs page faults and zeroing, and leaves the C heap
    fragmented between the trees' own arrays.  :meth:`get` returns arrays at least as large as
    asked for, allocating only
    when the request outgrows them.

    Parameters
    ----------
    min_rows : int, default=0
        Size the arrays for at least this many samples from the start (a forest passes
        the training set size, so that bootstrap samples of varying size never grow it).
    codes_rows : SharedCodesRows, optional
        The sample-major codes shared with other workspaces (a :class:`WorkspacePool`'s);
        by default this workspace's own.
    workers : int, default=1
        How many workspaces of the same fit grow trees at once (a forest's workers): the
        lean random-cut grower keeps a smaller copy of the codes per worker when many
        workers share the machine's caches and memory (:mod:`.random_tree`).
    """

    def __init__(self, min_rows=0, codes_rows=None, workers=1):
        self.min_rows = min_rows
        self.workers = int(workers)
        self._arrays = None
        self._dims = None
        self._shared_rows = SharedCodesRows() if codes_rows is None else codes_rows
        self._codes_rows = None
        self._row_arrays = {}
        self._kept = {}

    def codes_rows(self, X_binned_T):
        """The codes of ``X_binned_T`` sample-major (``.T``, C-contiguous), made once for
        the trees of one estimator that reuse this workspace (or its pool's)."""
        kept = self._codes_rows
        if kept is None or kept[0] is not X_binned_T:
            kept = self._codes_rows = (X_binned_T, self._shared_rows.get(X_binned_T))
        return kept[1]

    def kept(self, name, key, make):
        """``make()``, kept under ``name`` for the next tree while ``key`` is the same
        (compared with ``==``; the arrays it derives from are compared by identity)."""
        kept = self._kept.get(name)
        if kept is None or not same_key(kept[0], key):
            kept = self._kept[name] = (key, make())
        return kept[1]

    def row_array(self, name, n_rows, n_cols, dtype=np.float64):
        """An ``(n_rows, n_cols)`` work array of ``dtype`` (at least ``min_rows`` rows),
        kept under ``name`` for the next tree: the lean random-cut grower's buffers
        (:mod:`.random_tree`)."""
        kept = self._row_arrays.get(name)
        if kept is None or kept.shape[0] < n_rows or kept.shape[1] != n_cols or kept.dtype != dtype:
            kept = self._row_arrays[name] = aligned_empty(
                (max(n_rows, self.min_rows), n_cols), dtype
            )
        return kept

    def get(self, *dims, **named):
        """Work arrays of at least the sizes ``WorkspaceDims(*dims, **named)``
        (:class:`WorkspaceDims`; see :func:`make_workspace`): made again only when a tree
        asks for more than they hold, or for other shapes."""
        want = WorkspaceDims(*dims, **named)
        d = self._dims
        if d is None or not _holds(d, want):
            capacity = want.cap
            if d is not None and capacity > d.cap:
                # the next trees' bounds differ by a little (a forest's bootstrap samples
                # have more or fewer distinct rows): room for them, not for this one only
                capacity += capacity // _CAPACITY_HEADROOM
            d = want._replace(
                n_rows=max(want.n_rows, self.min_rows),
                cap=max(capacity, d.cap if d else 0),
                sparse_dims=tuple(want.sparse_dims),
                # kept once made: the trees that do not read them do not mind them
                left_sums=want.left_sums or bool(d and d.left_sums),
            )
            self._arrays = make_workspace(d)
            self._dims = d
        return self._arrays

    @property
    def nodes(self):
        """The node arrays (:class:`~..layout.NodeArrays`) of the tree grown last, valid
        until the next tree (node ids as the grown tree's)."""
        return self._arrays.nodes

    @property
    def capacity(self):
        """Nodes the arrays hold now (0 before the first tree)."""
        return self._dims.cap if self._dims else 0


def _holds(have, want):
    """Whether a workspace of the sizes ``have`` serves a tree that asks for ``want``
    (two :class:`WorkspaceDims`): room enough, and the same shapes."""
    return not (
        want.n_rows > have.n_rows
        or want.cap > have.cap
        or (want.n_features, want.n_cols, want.n_hist_bins)
        != (have.n_features, have.n_cols, have.n_hist_bins)
        or want.n_slots > have.n_slots
        or (want.categorical, want.newton) != (have.categorical, have.newton)
        or want.n_threads > have.n_threads
        or want.n_words != have.n_words
        or tuple(want.sparse_dims) != have.sparse_dims
        or (want.left_sums and not have.left_sums)
    )


#: A workspace that a tree outgrows is made again with this fraction more node room
#: than the tree asks (1 / the constant): every reallocation costs page faults and zeroing
#: of the node arrays, each tree of a forest asks for a little more or less
_CAPACITY_HEADROOM = 32
