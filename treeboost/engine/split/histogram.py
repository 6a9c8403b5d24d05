"""Numba kernels that build, subtract and compress per-feature histograms.

A histogram of a node for feature ``f`` has one row per bin code (the last row is the
missing-value code) and one column per statistic: the learner's statistics (class
weights, ``(w, w*y)`` or ``(g, h)``) followed by a sample count.  The same kernels
therefore serve classification, regression and boosting.

For small nodes, zeroing and scanning a full histogram costs more than the samples
themselves; :func:`gather_sorted` then builds the same compressed histogram (only the
codes present in the node) by sorting the node's codes instead.

A large boosting node's histograms are built by blocks of its rows
(:func:`build_histograms_blocked`): each block's statistics are read from memory once for
all the features, where a pass per feature streams them once per feature pair.
"""

import numpy as np

from .._numba.pairs import add_pair
from ..statistics.samples import PACK_BITS
from .._numba.jit import inlined, kernel, serial_and_parallel

#: nodes of at most this many samples sort their codes by insertion: no allocation, and
#: faster than a library sort for the many tiny nodes of deep trees
SMALL_NODE_SORT = 32


@kernel
def build_histogram(hist_f, col, idx, start, end, ostats, with_count=True):
    """``hist_f[b, c] = sum of ostats[i, c]`` over node samples whose code is ``b``.

    ``ostats`` holds the statistics of the node's samples in node order
    (``ostats[i] = stats[idx[start + i]]``) so that they are read sequentially.
    ``with_count=False`` leaves the count column at 0: boosting estimates counts from the
    hessian instead (as LightGBM does), which saves one scattered addition in three.
    """
    n_stats = ostats.shape[1]
    flat = hist_f.reshape(-1)  # flat offsets: cheaper than 2-d indexing in the hot loop
    for i in range(flat.shape[0]):  # (a loop: a slice assignment compiles more)
        flat[i] = 0.0
    n = end - start
    # the node's ids as a slice: ``idx[start + i]`` would test a sum for a negative index
    # at every sample
    node_idx = idx[start:end]
    # the usual widths unrolled: (w_0, w_1, count) and (g, h, count)
    if n_stats == 3 and not with_count:
        # four samples a round: their codes are loaded before their additions, which
        # keep the samples' order within every bin (the sums are those of one at a time);
        # each sample's (g, h) is one two-lane addition (._pairs), and its id is read as
        # unsigned (no test for a negative index)
        src = ostats.reshape(-1)
        n4 = n - n % 4
        for i in range(0, n4, 4):
            a = np.intp(col[np.uintp(node_idx[i])]) * 3
            b = np.intp(col[np.uintp(node_idx[i + 1])]) * 3
            c = np.intp(col[np.uintp(node_idx[i + 2])]) * 3
            d = np.intp(col[np.uintp(node_idx[i + 3])]) * 3
            add_pair(flat, a, src, 3 * i)
            add_pair(flat, b, src, 3 * i + 3)
            add_pair(flat, c, src, 3 * i + 6)
            add_pair(flat, d, src, 3 * i + 9)
        for i in range(n4, n):
            add_pair(flat, np.intp(col[np.uintp(node_idx[i])]) * 3, src, 3 * i)
    elif n_stats == 3:
        # each sample's first two columns in one two-lane addition (._pairs), its count
        # in a scalar one
        src = ostats.reshape(-1)
        for i in range(n):
            o = np.intp(col[np.uintp(node_idx[i])]) * 3
            add_pair(flat, o, src, 3 * i)
            flat[o + 2] += src[3 * i + 2]
    else:
        for i in range(n):
            o = col[node_idx[i]] * n_stats
            for c in range(n_stats):
                flat[o + c] += ostats[i, c]


@kernel
def build_histogram_pair(hist_a, hist_b, col_a, col_b, idx, start, end, ostats):
    """:func:`build_histogram` of two features at once, boosting's width without the
    count column (``ostats`` of 3 columns): one pass over the node's samples reads each
    sample's id and ``(g, h)`` once for both features, where two passes stream them
    twice (the root's rows do not fit in the cache).  Each histogram gets the same
    additions in the same order as from its own pass."""
    fa = hist_a.reshape(-1)
    fb = hist_b.reshape(-1)
    for i in range(fa.shape[0]):
        fa[i] = 0.0
        fb[i] = 0.0
    n = end - start
    node_idx = idx[start:end]
    src = ostats.reshape(-1)
    n2 = n - n % 2
    for i in range(0, n2, 2):
        s = np.uintp(node_idx[i])
        t = np.uintp(node_idx[i + 1])
        a0 = np.intp(col_a[s]) * 3
        b0 = np.intp(col_b[s]) * 3
        a1 = np.intp(col_a[t]) * 3
        b1 = np.intp(col_b[t]) * 3
        add_pair(fa, a0, src, 3 * i)
        add_pair(fb, b0, src, 3 * i)
        add_pair(fa, a1, src, 3 * i + 3)
        add_pair(fb, b1, src, 3 * i + 3)
    for i in range(n2, n):
        s = np.uintp(node_idx[i])
        add_pair(fa, np.intp(col_a[s]) * 3, src, 3 * i)
        add_pair(fb, np.intp(col_b[s]) * 3, src, 3 * i)


@kernel
def subtract_histogram(parent_f, child_f):
    """Sibling histogram by subtraction, in place: ``parent_f -= child_f``."""
    # one flat loop, which the compiler vectorises (the bins' short rows are not)
    parent = parent_f.reshape(-1)
    child = child_f.reshape(-1)
    for i in range(parent.shape[0]):
        parent[i] -= child[i]


@kernel
def compress_histogram(hist_f, n_bins_f, missing_code, count_col, codes, cstats, miss):
    """Copy the non-empty bins ``< n_bins_f`` of a dense histogram to ``codes`` /
    ``cstats`` (ascending codes) and the missing bin to ``miss``; return their number."""
    n_stats = hist_f.shape[1]
    m = 0
    for b in range(n_bins_f):
        if hist_f[b, count_col] > 0.5:
            codes[m] = b
            for c in range(n_stats):
                cstats[m, c] = hist_f[b, c]
            m += 1
    for c in range(n_stats):
        miss[c] = hist_f[missing_code, c]
    return m


@kernel
def insertion_order(keys, m, order):
    """``order[:m]`` = the positions of ``keys[:m]`` sorted ascending, equal keys in
    their order and NaN last (numpy's stable argsort), by insertion: no allocation, and
    the fastest sort for the few keys it is used for (the codes of a tiny node, the
    categories of a feature)."""
    for i in range(m):
        order[i] = i
    for i in range(1, m):
        o = order[i]
        key = keys[o]
        j = i - 1
        while j >= 0 and (keys[order[j]] > key or (np.isnan(keys[order[j]]) and not np.isnan(key))):
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = o


@kernel
def _radix_order(keys, n, order, tmp, counts):
    """``order[:n]`` = the positions of ``keys[:n]`` (non-negative integers) in ascending
    order, stable: one counting pass per byte of the largest key, ``O(n + 256)`` each
    (exact binning's codes can exceed 16 bits).  ``tmp`` (``n`` entries) and ``counts``
    (257) are work arrays: the grower's kernels allocate nothing (see
    grower.GROWER_NRT)."""
    largest = 0
    for i in range(n):
        largest = max(largest, keys[i])
    for i in range(n):
        order[i] = i
    src = order
    dst = tmp
    shift = 0
    passes = 0
    while True:
        for b in range(257):
            counts[b] = 0
        for j in range(n):
            counts[((keys[src[j]] >> shift) & 255) + 1] += 1
        for b in range(256):
            counts[b + 1] += counts[b]
        for j in range(n):
            i = src[j]
            b = (keys[i] >> shift) & 255
            dst[counts[b]] = i
            counts[b] += 1
        src, dst = dst, src
        passes += 1
        shift += 8
        if (largest >> shift) == 0:
            break
    if passes % 2 == 1:  # the last pass wrote to tmp
        for j in range(n):
            order[j] = tmp[j]


@kernel
def gather_sorted(col, idx, start, end, ostats, missing_code, scratch, codes, cstats, miss):
    """Compressed histogram of one feature for a node, built by sorting its codes.

    Costs ``O(n)`` for ``n`` node samples (a radix sort; insertion below
    :data:`SMALL_NODE_SORT` samples) instead of ``O(n + n_bins)``, which is what makes
    exact CART (one bin per distinct value, codes wider than 8 bits) and deep trees
    fast.  ``scratch`` is the thread's :class:`~.layout.Scratch`.
    """
    n = end - start
    n_stats = ostats.shape[1]
    keys = scratch.tmp_codes
    order = scratch.order
    for i in range(n):
        keys[i] = col[idx[start + i]]
    if n <= SMALL_NODE_SORT:
        insertion_order(keys, n, order)
    else:
        _radix_order(keys, n, order, scratch.radix, scratch.rank)
    for c in range(n_stats):
        miss[c] = 0.0
    m = 0
    last = -1
    for r in range(n):
        i = order[r]
        b = keys[i]
        if b == missing_code:
            for c in range(n_stats):
                miss[c] += ostats[i, c]
            continue
        if b != last:
            codes[m] = b
            for c in range(n_stats):
                cstats[m, c] = ostats[i, c]
            m += 1
            last = b
        else:
            for c in range(n_stats):
                cstats[m - 1, c] += ostats[i, c]
    return m


#: de Bruijn sequence B(2, 6): the top six bits of ``B << k`` differ for every k < 64
_DEBRUIJN64 = np.uint64(0x03F79D71B4CB0A89)
#: ... and the shift ``k`` that gives each of them
_DEBRUIJN_INDEX = np.zeros(64, np.int64)
for _k in range(64):
    _DEBRUIJN_INDEX[((int(_DEBRUIJN64) << _k) & 0xFFFFFFFFFFFFFFFF) >> 58] = _k
del _k


@inlined
def _ctz(x):
    """Number of trailing zero bits of a non-zero uint64: its lowest bit times a de
    Bruijn sequence, whose top six bits index a table (no branch, which a binary search
    over the bits mispredicts once or twice a call on the scattered bins of a node)."""
    low = x & (~x + np.uint64(1))
    return _DEBRUIJN_INDEX[(low * _DEBRUIJN64) >> np.uint64(58)]


#: nodes of at least this many samples mark the bins they touch with a plain store per
#: sample and find them by a pass over the bins (:func:`gather_bitmap`)
GATHER_MARK_ROWS = 256


@inlined
def _missing_apart(missing_code, codes, cstats, m, miss):
    """Of the ``m`` codes emitted in ascending order, the missing code's row (the largest
    code: last, when present) into ``miss`` (zeros without it); returns the count of
    the others."""
    has_missing = m > 0 and codes[m - 1] == missing_code
    if has_missing:
        m -= 1
    for c in range(miss.shape[0]):
        miss[c] = cstats[m, c] if has_missing else 0.0
    return m


@kernel
def gather_bitmap(
    col, idx, start, end, ostats, missing_code, sparse_hist, bits, touched, codes, cstats, miss
):
    """Compressed histogram of one feature for a node with 8-bit codes, in ``O(n + m)``.

    The bins touched are marked in a 256-bit set and summed in ``sparse_hist``, a
    scratch histogram that is all zeros on entry and is left all zeros on exit (only
    the touched bins are read back and cleared), so a node of ``n`` samples never pays
    for the 256 bins it does not use.  A node of at least :data:`GATHER_MARK_ROWS`
    samples (three columns) marks them in ``touched`` instead (a work array of at least
    ``missing_code + 1`` integers, any values on entry): one store a sample, where a
    word of the set is loaded, or-ed and stored again, waiting on its previous store
    whenever consecutive samples mark the same word; its bins are then found by one pass
    over the codes, which such a node mostly fills.  Same codes, same order, same sums.
    """
    n_stats = ostats.shape[1]
    one = np.uint64(1)
    # the node's ids as a slice (no test of ``start + i`` for a negative index)
    node_idx = idx[start:end]
    if n_stats == 3 and end - start >= GATHER_MARK_ROWS:
        flat = sparse_hist.reshape(-1)
        src = ostats.reshape(-1)
        for b in range(missing_code + 1):
            touched[b] = 0
        for i in range(end - start):
            b = col[np.uintp(node_idx[i])]
            touched[b] = 1
            o = np.intp(b) * 3
            add_pair(flat, o, src, 3 * i)
            flat[o + 2] += src[3 * i + 2]
        m = 0
        for b in range(missing_code + 1):
            if touched[b] != 0:
                codes[m] = b
                for c in range(3):
                    cstats[m, c] = sparse_hist[b, c]
                    sparse_hist[b, c] = 0.0
                m += 1
        return _missing_apart(missing_code, codes, cstats, m, miss)
    if n_stats == 3:
        # the usual width, (w_0, w_1, count) or (w, w*y, count), unrolled on flat offsets
        flat = sparse_hist.reshape(-1)
        src = ostats.reshape(-1)
        for i in range(end - start):
            b = col[np.uintp(node_idx[i])]
            bits[b >> 6] |= one << np.uint64(b & 63)
            o = np.intp(b) * 3
            add_pair(flat, o, src, 3 * i)
            flat[o + 2] += src[3 * i + 2]
    else:
        for i in range(end - start):
            b = col[node_idx[i]]
            bits[b >> 6] |= one << np.uint64(b & 63)
            for c in range(n_stats):
                sparse_hist[b, c] += ostats[i, c]
    return _emit_bitmap(missing_code, sparse_hist, bits, codes, cstats, miss)


@inlined
def _unpack_row(v, cstats, m):
    """Row ``m`` of ``cstats``: the three fields of the packed sums ``v``
    (:func:`~.statistics.gather_rows_packed`), as float64 (exact: below 2^21)."""
    mask = np.int64((1 << PACK_BITS) - 1)
    cstats[m, 0] = np.float64(v & mask)
    cstats[m, 1] = np.float64((v >> np.int64(PACK_BITS)) & mask)
    cstats[m, 2] = np.float64(v >> np.int64(2 * PACK_BITS))


@kernel
def gather_bitmap_packed(
    col, idx, start, end, packed, missing_code, hist, bits, touched, codes, cstats, miss
):
    """:func:`gather_bitmap` of two classes' integer weights packed one integer a sample
    (``packed[i]``: the node's ``i``-th sample, :func:`~.statistics.gather_rows_packed`):
    one integer addition a sample where the float rows take three, and the same codes,
    ``cstats`` and ``miss`` (the sums are integers, exact in any order).  ``hist``: 256
    int64, all zeros on entry and left so; ``bits`` and ``touched`` as there."""
    one = np.uint64(1)
    node_idx = idx[start:end]
    n = end - start
    m = 0
    if n >= GATHER_MARK_ROWS:
        for b in range(missing_code + 1):
            touched[b] = 0
        for i in range(n):
            b = col[np.uintp(node_idx[i])]
            touched[b] = 1
            hist[b] += packed[i]
        for b in range(missing_code + 1):
            if touched[b] != 0:
                codes[m] = b
                _unpack_row(hist[b], cstats, m)
                hist[b] = 0
                m += 1
    else:
        for i in range(n):
            b = col[np.uintp(node_idx[i])]
            bits[b >> 6] |= one << np.uint64(b & 63)
            hist[b] += packed[i]
        for w in range(4):
            word = bits[w]
            while word != 0:
                b, word = _pop_bit(word, w)
                codes[m] = b
                _unpack_row(hist[b], cstats, m)
                hist[b] = 0
                m += 1
            bits[w] = 0
    return _missing_apart(missing_code, codes, cstats, m, miss)


@kernel
def gather_entries(
    pos, code, m, ostats, total, zero_code, missing_code, sparse_hist, bits, codes, cstats, miss
):
    """Compressed histogram of one feature of sparse codes for a node, in ``O(m)``:
    its ``m`` entries (place ``pos[j]`` in the node, ``code[j]``), and the node's other
    samples in the zero code's bin with the node's ``total`` minus the entries'
    statistics (:mod:`.sparse_codes`).  The scratch as :func:`gather_bitmap`'s."""
    n_stats = ostats.shape[1]
    count_col = n_stats - 1
    one = np.uint64(1)
    for j in range(m):
        b = code[j]
        bits[b >> 6] |= one << np.uint64(b & 63)
        for c in range(n_stats):
            sparse_hist[b, c] += ostats[pos[j], c]
    # the zero code holds no entry: its bin is the rest of the node
    z = zero_code
    for c in range(n_stats):
        sparse_hist[z, c] = total[c]
    for w in range(4):
        word = bits[w]
        while word != 0:
            b, word = _pop_bit(word, w)
            for c in range(n_stats):
                sparse_hist[z, c] -= sparse_hist[b, c]
    if sparse_hist[z, count_col] > 0.5:
        bits[z >> 6] |= one << np.uint64(z & 63)
    else:
        for c in range(n_stats):
            sparse_hist[z, c] = 0.0
    return _emit_bitmap(missing_code, sparse_hist, bits, codes, cstats, miss)


@inlined
def _pop_bit(word, w):
    """The lowest set bit of ``word`` (word ``w`` of a 256-bit set) as a code, and the
    word without it."""
    low = word & (~word + np.uint64(1))
    return w * 64 + _ctz(low), word ^ low


@inlined
def _emit_bitmap(missing_code, sparse_hist, bits, codes, cstats, miss):
    """The bins marked in ``bits`` as a compressed histogram (ascending codes into
    ``codes`` / ``cstats``, the missing bin into ``miss``), clearing ``sparse_hist`` and
    ``bits`` behind it; returns the number of codes."""
    n_stats = sparse_hist.shape[1]
    m = 0
    for w in range(4):
        word = bits[w]
        while word != 0:
            b, word = _pop_bit(word, w)
            codes[m] = b
            for c in range(n_stats):
                cstats[m, c] = sparse_hist[b, c]
                sparse_hist[b, c] = 0.0
            m += 1
        bits[w] = 0
    return _missing_apart(missing_code, codes, cstats, m, miss)


#: a boosting node is split into blocks of at least this many rows for its histograms
#: (:func:`build_histograms_blocked`): a block's partial histograms cost a pass over the
#: bins of every feature, small beside the block's rows
HIST_BLOCK_ROWS = 16_384
#: ... and into at most this many, which is plenty of tasks for the threads with the
#: features' groups (:data:`BLOCK_GROUP`)
HIST_MAX_BLOCKS = 32
#: the most memory a workspace gives its blocks' partial histograms: wide data get fewer
#: blocks (none below two)
HIST_PARTIALS_BYTES = 8 << 20
#: features a task of the blocked build takes (two pairs): a block's tasks read its
#: statistics from the cache, not from memory
BLOCK_GROUP = 4


def max_hist_blocks(n_features, n_hist_bins, n_cols):
    """How many blocks of a node's rows a workspace holds partial histograms for: at most
    :data:`HIST_MAX_BLOCKS`, within :data:`HIST_PARTIALS_BYTES`."""
    per_block = max(1, n_features * n_hist_bins * n_cols * 8)
    return int(min(HIST_MAX_BLOCKS, max(1, HIST_PARTIALS_BYTES // per_block)))


@inlined
def hist_blocks(n_node, partials):
    """The blocks a node of ``n_node`` rows is built in: one per
    :data:`HIST_BLOCK_ROWS` rows, as many as ``partials`` holds.  A number of the node
    and the data only, never of the threads: the sums, hence the trees, do not depend
    on how many threads build them."""
    return min(partials.shape[0], n_node // HIST_BLOCK_ROWS)


@inlined
def _build_block_task(
    k, n_groups, feats, partials, codes_T, is_categorical, idx, start, end, ostats, n_blocks
):
    """Task ``k`` of :func:`build_histograms_blocked`: the partial histograms of block
    ``k // n_groups`` for the features of group ``k % n_groups`` (numeric features two
    at a time, a categorical one with its count column)."""
    b = k // n_groups
    grp = k % n_groups
    n = end - start
    size = -(-n // n_blocks)
    lo = b * size
    hi = min(n, lo + size)
    # the block's statistics: ostats holds the node's rows in partition order
    block_stats = ostats[lo:]
    j = grp * BLOCK_GROUP
    stop = min(feats.shape[0], j + BLOCK_GROUP)
    part = partials[b]
    while j < stop:
        f = feats[j]
        if j + 1 < stop and not is_categorical[f] and not is_categorical[feats[j + 1]]:
            fb = feats[j + 1]
            build_histogram_pair(
                part[f], part[fb], codes_T[f], codes_T[fb], idx, start + lo, start + hi, block_stats
            )
            j += 2
        else:
            build_histogram(
                part[f], codes_T[f], idx, start + lo, start + hi, block_stats, is_categorical[f]
            )
            j += 1


@inlined
def _sum_blocks(j, feats, hist, partials, n_blocks):
    """``hist[f]`` = the sum of feature ``f = feats[j]``'s partial histograms, block by
    block in order (the same sums whichever thread built which block)."""
    f = feats[j]
    out = hist[f].reshape(-1)
    first = partials[0, f].reshape(-1)
    for i in range(out.shape[0]):
        out[i] = first[i]
    for b in range(1, n_blocks):
        part = partials[b, f].reshape(-1)
        for i in range(out.shape[0]):
            out[i] += part[i]


def _make_build_histograms_blocked(blocks):
    def build_histograms_blocked(
        feats, hist, partials, n_blocks, codes_T, is_categorical, idx, start, end, ostats
    ):
        """The histograms ``hist[f]`` of the features ``f`` of ``feats`` for the node of rows
        ``idx[start:end]`` (statistics ``ostats`` in node order, boosting's three columns),
        built by ``n_blocks`` blocks of consecutive rows: the partial histograms of every
        (block, group of :data:`BLOCK_GROUP` features) into ``partials[block]``, then each
        feature's partials summed in block order.

        A pass over a whole node per feature pair streams its ``(g, h)`` and row ids from
        memory once per pair; a block's stay in the cache while its groups read them, so the
        node is read from memory about once, which is what lets many threads share the
        memory bus.  Numeric features get no count column (as :func:`build_histogram` with
        ``with_count=False``), categorical ones get it."""
        n_groups = -(-feats.shape[0] // BLOCK_GROUP)
        for k in blocks(n_blocks * n_groups):
            _build_block_task(
                k, n_groups, feats, partials, codes_T, is_categorical, idx, start, end, ostats,
                n_blocks,
            )  # fmt: skip
        for j in blocks(feats.shape[0]):
            _sum_blocks(j, feats, hist, partials, n_blocks)

    return build_histograms_blocked


#: the blocked build on the calling thread, and with its tasks, then its sums, on numba's
#: threads: the same histograms, bit for bit
build_histograms_blocked, build_histograms_blocked_parallel = serial_and_parallel(
    _make_build_histograms_blocked
)
