"""Weighted quantiles of many groups at once: the leaf values of the absolute-error,
Huber and quantile losses (the median or alpha-quantile of each leaf's residuals)."""
import numpy as np
from numba import njit


@njit(nogil=True, cache=True)
def grouped_weighted_quantile(groups, values, weights, alpha, n_groups):
    """For each group ``g`` of ``0..n_groups-1``: the smallest value ``v`` of its members
    whose cumulative weight (members in ascending order of value) reaches ``alpha`` of the
    group's total weight; 0 for a group with no member.

    The members are bucketed by group in one counting pass, then each group alone is
    sorted: ``sum_g n_g log n_g`` instead of a sort of all ``n`` by (group, value).
    ``groups`` must hold integers in ``[0, n_groups)`` (the caller's leaf ids).
    """
    n = groups.shape[0]
    counts = np.zeros(n_groups + 1, np.int64)
    for i in range(n):
        counts[groups[i] + 1] += 1
    for g in range(n_groups):
        counts[g + 1] += counts[g]
    fill = counts[:n_groups].copy()
    member = np.empty(n, np.int64)
    for i in range(n):
        g = groups[i]
        member[fill[g]] = i
        fill[g] += 1
    out = np.zeros(n_groups)
    for g in range(n_groups):
        start = counts[g]
        end = counts[g + 1]
        if end == start:
            continue
        vals = np.empty(end - start)
        for j in range(start, end):
            vals[j - start] = values[member[j]]
        order = np.argsort(vals, kind="mergesort")
        total = 0.0
        for j in range(start, end):
            total += weights[member[j]]
        target = alpha * total
        acc = 0.0
        pick = order[order.shape[0] - 1]
        for k in range(order.shape[0]):
            acc += weights[member[start + order[k]]]
            if acc >= target:
                pick = order[k]
                break
        out[g] = vals[pick]
    return out
