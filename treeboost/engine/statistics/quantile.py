"""Weighted quantiles by selection: the leaf values of the absolute-error, Huber and
quantile losses (the median or alpha-quantile of each leaf's residuals) and Huber's
threshold (a quantile of all the residuals), at every boosting iteration.

The weighted ``alpha``-quantile of values ``v_i`` with weights ``w_i`` is the smallest
value ``v`` whose cumulative weight ``sum_{v_i <= v} w_i`` reaches ``alpha sum_i w_i``
(the inverted empirical CDF, as scikit-learn's weighted percentile).  It is found by
radix selection on the values' order keys (:func:`order_key`, integers that compare as
the floats do): a round sums the weights of the range's keys by their leading
:data:`RADIX_BITS` bits below those the range shares, keeps the keys of the bucket where
the cumulative weight reaches the target and moves them to the front, so that each round
fixes :data:`RADIX_BITS` more bits of the key in two passes over what is left, whatever
the values' spread.  A range of at most :data:`RADIX_MIN_VALUES` values is finished by
quickselect (Hoare 1961) with a three-way partition that carries the weights along.
Both are ``O(n)``, where a sort costs ``O(n log n)``; the radix rounds have no
data-dependent branch to mispredict and no worst case.
"""

import numpy as np
from numba import prange

from .._numba.bits import float_bits
from .._numba.jit import inlined, kernel, parallel_kernel
from .._numba.rows import prefetch_item

#: ranges this short are finished by insertion sort and a scan
_SMALL = 16
#: ranges of more values than this are narrowed by radix rounds before quickselect
RADIX_MIN_VALUES = 256
#: bits of the order key a radix round fixes (its buckets: ``2 ** RADIX_BITS``)
RADIX_BITS = 11
#: a leaf's gather of residuals asks for the sample this many positions ahead
GATHER_AHEAD = 64


@inlined
def order_key(x):
    """The order key of the float64 ``x``: its bits with the sign bit flipped for a
    non-negative value and all bits flipped for a negative one, so that keys compare as
    the values do (``-0.0`` just below ``0.0``)."""
    b = float_bits(x)
    top = np.uint64(1) << np.uint64(63)
    return ~b if b & top else b | top


@kernel
def _quickselect(vals, wts, lo, hi, target, below):
    """The weighted quantile of ``vals[lo:hi]`` (weights ``wts[lo:hi]``) whose cumulative
    weight, counted from ``below`` (the weight of the values known to lie below the
    range), reaches ``target``; both arrays are reordered in place.  The largest value
    when the weights never reach ``target`` (rounding)."""
    while hi - lo > _SMALL:
        a = vals[lo]
        b = vals[(lo + hi) >> 1]
        c = vals[hi - 1]
        pivot = max(min(a, b), min(max(a, b), c))  # median of three
        # Dijkstra's three-way partition: [lo, lt) < pivot, [lt, i) == pivot, (gt, hi) >
        lt = lo
        i = lo
        gt = hi - 1
        w_less = 0.0
        w_equal = 0.0
        while i <= gt:
            x = vals[i]
            if x < pivot:
                w_less += wts[i]
                vals[i], vals[lt] = vals[lt], x
                wts[i], wts[lt] = wts[lt], wts[i]
                lt += 1
                i += 1
            elif x > pivot:
                vals[i], vals[gt] = vals[gt], x
                wts[i], wts[gt] = wts[gt], wts[i]
                gt -= 1
            else:
                w_equal += wts[i]
                i += 1
        if lt > lo and below + w_less >= target:
            hi = lt
        elif below + w_less + w_equal >= target or gt + 1 == hi:
            return pivot
        else:
            below += w_less + w_equal
            lo = gt + 1
    for j in range(lo + 1, hi):
        x = vals[j]
        y = wts[j]
        k = j - 1
        while k >= lo and vals[k] > x:
            vals[k + 1] = vals[k]
            wts[k + 1] = wts[k]
            k -= 1
        vals[k + 1] = x
        wts[k + 1] = y
    acc = below
    for j in range(lo, hi):
        acc += wts[j]
        if acc >= target:
            return vals[j]
    return vals[hi - 1]


@inlined
def _key_range(vals, lo, hi):
    """The smallest and largest order keys of ``vals[lo:hi]`` (at least one value)."""
    kmin = order_key(vals[lo])
    kmax = kmin
    for i in range(lo + 1, hi):
        k = order_key(vals[i])
        kmin = min(kmin, k)
        kmax = max(kmax, k)
    return kmin, kmax


@kernel
def _select(vals, wts, lo, hi, target):
    """The weighted quantile of ``vals[lo:hi]`` (weights ``wts[lo:hi]``) whose cumulative
    weight reaches ``target``; both arrays are reordered in place.  The largest value
    when the weights never reach ``target`` (rounding)."""
    if hi - lo <= RADIX_MIN_VALUES:
        return _quickselect(vals, wts, lo, hi, target, 0.0)
    kmin, kmax = _key_range(vals, lo, hi)
    return _radix_select(vals, wts, lo, hi, target, kmin, kmax)


@kernel
def _radix_select(vals, wts, lo, hi, target, kmin, kmax):
    """:func:`_select` of a range whose smallest and largest order keys are ``kmin`` and
    ``kmax`` (a range of at most :data:`RADIX_MIN_VALUES` values is finished by
    quickselect at once, the keys unread).

    Radix rounds narrow the range while it holds more than :data:`RADIX_MIN_VALUES`
    values: the bucket of a key is ``(key - kmin) >> shift``, the smallest shift that
    leaves at most ``2 ** RADIX_BITS`` buckets; the buckets' weights are summed, the
    first bucket where ``below`` plus the cumulative weight reaches ``target`` is kept
    (the last one, which holds the largest value, where none does), its values moved to
    the front of the range with their weights and their keys' range taken on the way, and
    ``below`` grows by the weight of the buckets before it.  Its keys agree on all bits
    above ``shift``, so the next round's span is below ``2 ** shift``, and a range of one
    key returns it.  (A target at or below 0 is reached in the first bucket, which holds
    the smallest value.)"""
    below = 0.0
    sums = np.empty(1 << RADIX_BITS)
    n_buckets = np.uint64(1 << RADIX_BITS)
    while hi - lo > RADIX_MIN_VALUES:
        if kmin == kmax:
            return vals[lo]
        span = kmax - kmin
        shift = np.uint64(0)
        while (span >> shift) >= n_buckets:
            shift += np.uint64(1)
        last = np.intp(span >> shift)
        for b in range(last + 1):
            sums[b] = 0.0
        for i in range(lo, hi):
            sums[np.intp((order_key(vals[i]) - kmin) >> shift)] += wts[i]
        chosen = last
        acc = below
        for b in range(last + 1):
            if acc + sums[b] >= target:
                chosen = b
                break
            acc += sums[b]
        if chosen == last:
            # reached in the last bucket, or never (rounding): the bucket of the largest
            # value either way, above the weight of all the others
            acc = below
            for b in range(last):
                acc += sums[b]
        keep = np.uint64(chosen)
        base = kmin
        kmin = kmax
        kmax = base
        j = lo
        for i in range(lo, hi):
            x = vals[i]
            k = order_key(x)
            if (k - base) >> shift == keep:
                vals[j] = x
                wts[j] = wts[i]
                kmin = min(kmin, k)
                kmax = max(kmax, k)
                j += 1
        below = acc
        hi = j
    return _quickselect(vals, wts, lo, hi, target, below)


@kernel
def weighted_quantile(values, weights, alpha):
    """The weighted ``alpha``-quantile of ``values`` (see the module docstring); the
    inputs are not modified."""
    vals = values.copy()
    wts = weights.copy()
    total = 0.0
    for i in range(wts.shape[0]):
        total += wts[i]
    return _select(vals, wts, 0, vals.shape[0], alpha * total)


@kernel
def grouped_weighted_quantile(groups, values, weights, alpha, n_groups):
    """For each group ``g`` of ``0..n_groups-1``: the weighted ``alpha``-quantile of its
    members' values (see the module docstring); 0 for a group with no member.

    The members are bucketed by group in one counting pass, then each group's quantile is
    selected in its bucket.  ``groups`` must hold integers in ``[0, n_groups)`` (the
    caller's leaf ids).
    """
    n = groups.shape[0]
    counts = np.zeros(n_groups + 1, np.int64)
    for i in range(n):
        counts[groups[i] + 1] += 1
    for g in range(n_groups):
        counts[g + 1] += counts[g]
    fill = counts[:n_groups].copy()
    vals = np.empty(n)
    wts = np.empty(n)
    total = np.zeros(n_groups)
    for i in range(n):
        g = groups[i]
        vals[fill[g]] = values[i]
        wts[fill[g]] = weights[i]
        total[g] += weights[i]
        fill[g] += 1
    out = np.zeros(n_groups)
    for g in range(n_groups):
        if counts[g + 1] > counts[g]:
            out[g] = _select(vals, wts, counts[g], counts[g + 1], alpha * total[g])
    return out


@parallel_kernel
def range_quantiles(y, raw, weights, idx, leaves, start, end, alpha, out, vals, wts, n_threads):
    """``out[leaves[j]]`` = the weighted ``alpha``-quantile of the residuals ``y[s] -
    raw[s]`` (weights ``weights[s]``) of the samples ``s`` of ``idx[start[j]:end[j]]``,
    for every leaf ``j``, the leaves shared among threads.

    A grown tree's leaves hold disjoint ranges of ``idx`` (:class:`~.leaf_ranges.LeafRanges`):
    each leaf gathers its residuals into the same positions of ``vals`` and ``wts`` and
    selects there, so that no thread touches another's.  Within a leaf the samples are in
    the order :func:`grouped_weighted_quantile` would bucket them (the tree's samples in
    ascending order, which the partition keeps), so both give the same values.  The
    caller checks that the ranges lie within ``idx``, the samples within the arrays and
    the leaves within ``out``.

    A leaf costs in proportion to its samples, and a tree's leaves differ in size by
    orders of magnitude: the leaves go to the ``n_threads`` threads (numba's count, from
    the caller: a kernel that asks numba for it is not cached) largest first, each to the
    thread with the fewest samples so far (:func:`largest_first`), not in equal counts.
    """
    n_tasks = min(n_threads, leaves.shape[0])
    first, order = largest_first(end - start, n_tasks)
    for t in prange(n_tasks):
        for k in range(first[t], first[t + 1]):
            j = order[k]
            lo = start[j]
            hi = end[j]
            if hi <= lo:
                continue
            total = 0.0
            kmin = order_key(y[idx[lo]] - raw[idx[lo]])
            kmax = kmin
            for i in range(lo, hi):
                # the leaf's samples lie scattered over the rows: ask for them ahead
                ahead = idx[min(i + GATHER_AHEAD, hi - 1)]
                prefetch_item(y, ahead)
                prefetch_item(raw, ahead)
                prefetch_item(weights, ahead)
                s = idx[i]
                r = y[s] - raw[s]
                vals[i] = r
                wts[i] = weights[s]
                total += weights[s]
                k = order_key(r)
                kmin = min(kmin, k)
                kmax = max(kmax, k)
            # (a leaf of at most RADIX_MIN_VALUES samples goes straight to quickselect)
            out[leaves[j]] = _radix_select(vals, wts, lo, hi, alpha * total, kmin, kmax)


@kernel
def largest_first(sizes, n_bins):
    """The items of ``sizes`` shared among ``n_bins`` bins largest first, each to the
    bin of the smallest total so far (the lowest on a tie): Graham's LPT rule, whose
    largest total is at most 4/3 of the best's.  Returns ``first`` (``n_bins + 1``) and
    ``order``: bin ``b`` holds the items ``order[first[b]:first[b + 1]]``, largest first."""
    n = sizes.shape[0]
    by_size = np.argsort(-sizes, kind="mergesort")
    load = np.zeros(max(n_bins, 1), np.int64)
    bin_of = np.empty(n, np.int64)
    count = np.zeros(max(n_bins, 1) + 1, np.int64)
    for k in range(n):
        b = 0
        for c in range(1, n_bins):
            if load[c] < load[b]:
                b = c
        j = by_size[k]
        bin_of[j] = b
        load[b] += max(sizes[j], 0)
        count[b + 1] += 1
    for b in range(n_bins):
        count[b + 1] += count[b]
    order = np.empty(n, np.int64)
    fill = count[:-1].copy()
    for k in range(n):
        j = by_size[k]
        order[fill[bin_of[j]]] = j
        fill[bin_of[j]] += 1
    return count, order


@kernel
def huber_leaf_values(node, rows, y, raw, weights, delta, n_nodes):
    """Friedman's M-TreeBoost step of every node from its rows (0 for a node without
    any): ``median(r) + mean(sign(r - median(r)) * min(delta, |r - median(r)|))``,
    weighted, with ``r = y - raw`` of the rows ``rows`` and ``node`` the node of each.

    The medians are those of :func:`grouped_weighted_quantile`; the clipped deviations
    are summed in the rows' order, as ``np.bincount`` sums them, in the same kernel: no
    gathered residuals and weights, no temporaries.
    """
    n = rows.shape[0]
    r = np.empty(n)
    w = np.empty(n)
    for i in range(n):
        s = rows[i]
        r[i] = y[s] - raw[s]
        w[i] = weights[s]
    med = grouped_weighted_quantile(node, r, w, 0.5, n_nodes)
    wsum = np.zeros(n_nodes)
    csum = np.zeros(n_nodes)
    for i in range(n):
        g = node[i]
        dev = r[i] - med[g]
        wsum[g] += w[i]
        csum[g] += w[i] * (np.sign(dev) * min(delta, abs(dev)))
    out = med
    for g in range(n_nodes):
        if wsum[g] > 0:
            out[g] = med[g] + csum[g] / wsum[g]
    return out


# -- the same quantiles selected across machines -------------------------------------------
#
# A leaf whose rows lie on several workers cannot be partitioned in one place.  Its
# quantile is found digit by digit instead (radix selection): each float is mapped to
# an unsigned key of the same order (:func:`order_keys`); every worker sums the weights
# of its rows by the key's next 8 bits among the keys that share the digits chosen so
# far (:func:`first_digit_weights`, then :func:`key_digit_weights`, which keeps only
# those keys for the next round); and the caller, from the sums over the workers,
# picks the digit where the cumulative weight reaches ``alpha`` of the total
# (:func:`next_digits`).  Eight rounds fix all 64 bits: the key, and so the value, of
# the quantile as defined above.

#: bits of the key fixed by one round
KEY_DIGIT_BITS = 8
#: rounds that fix a key
KEY_ROUNDS = 64 // KEY_DIGIT_BITS


@parallel_kernel
def order_keys(y, raw, keys):
    """``keys[s]`` = the order key (:func:`order_key`) of the residual ``y[s] - raw[s]``
    for every row ``s``.  One pass in row order, shared among threads."""
    for s in prange(keys.shape[0]):
        keys[s] = order_key(y[s] - raw[s])


@parallel_kernel
def first_digit_weights(
    row_keys, weights, unit, rows, starts, ends, keys, key_weights, candidates, out
):
    """The first round of the selection on one worker, for each range ``j``: for each
    position ``i`` of ``[starts[j], ends[j])``, with ``s = rows[i]``, ``keys[i] =
    row_keys[s]`` (:func:`order_keys`), ``key_weights[i] = weights[s]`` (1 where
    ``unit``: unit weights, not read) and ``candidates[i] = i``; and ``out[j, d]`` = the
    summed weights of the range's keys whose top 8 bits are ``d``, in the positions'
    order.  The ranges are shared among threads."""
    first = np.uint64(64 - KEY_DIGIT_BITS)
    for j in prange(starts.shape[0]):
        for d in range(out.shape[1]):
            out[j, d] = 0.0
        for i in range(starts[j], ends[j]):
            s = rows[i]
            k = row_keys[s]
            w = 1.0 if unit else weights[s]
            keys[i] = k
            key_weights[i] = w
            candidates[i] = i
            out[j, np.intp(k >> first)] += w


@parallel_kernel
def key_digit_weights(keys, key_weights, starts, counts, candidates, prefix, shift, out):
    """A later round of the selection on one worker: ``out[j, d]`` = the summed
    ``key_weights`` of the candidates of range ``j`` (the positions
    ``candidates[starts[j]:starts[j] + counts[j]]``) whose key's bits above ``shift +
    8`` are ``prefix[j]`` and whose bits ``shift .. shift + 7`` are ``d``, in the
    candidates' order.

    The candidates that match are kept, in their order, at the front of their range and
    ``counts[j]`` becomes their number: the prefixes of later rounds extend this one, so
    each round reads only the keys still in play.  (Without a branch on the match: the
    others add 0 to some digit and are overwritten.)  The ranges are shared among
    threads."""
    sh = np.uint64(shift)
    above = np.uint64(shift + KEY_DIGIT_BITS)
    mask = np.uint64(255)
    for j in prange(starts.shape[0]):
        for d in range(out.shape[1]):
            out[j, d] = 0.0
        p = prefix[j]
        base = starts[j]
        kept = 0
        for t in range(counts[j]):
            i = candidates[base + t]
            k = keys[i]
            match = (k >> above) == p
            out[j, np.intp((k >> sh) & mask)] += key_weights[i] if match else 0.0
            candidates[base + kept] = i
            kept += np.intp(match)
        counts[j] = kept


def key_values(keys):
    """The floats whose order keys (:func:`order_keys`) are ``keys``."""
    keys = np.asarray(keys, dtype=np.uint64)
    top = np.uint64(1) << np.uint64(63)
    bits = np.where(keys & top, keys & ~top, ~keys)
    return bits.view(np.float64)


def next_digits(digit_weights, below, target):
    """One round of the selection for every range: the digit of some key where ``below``
    (the weight of the keys below the digits chosen so far) plus the digits' cumulative
    weight first reaches ``target`` (else the largest digit with weight, as the
    quantile's largest-value rule), and ``below`` plus the weight of the smaller
    digits.  ``digit_weights`` is ``(n_ranges, 256)``, summed over the workers."""
    cum = below[:, None] + np.cumsum(digit_weights, axis=1)
    present = digit_weights > 0
    # (a digit no key has is never chosen: a target of 0 is reached at the smallest key)
    reached = (cum >= target[:, None]) & present
    last = digit_weights.shape[1] - 1 - np.argmax(present[:, ::-1], axis=1)
    digit = np.where(reached.any(axis=1), np.argmax(reached, axis=1), last)
    before = np.where(digit > 0, cum[np.arange(digit.size), digit - 1], below)
    return digit.astype(np.uint64), before
