"""The categorical split search: categories ordered by their statistic (the
positive-class rate, the mean target, or ``G/(H+lambda)``), the rare ones set aside, and
the best prefix of the order (Fisher 1958), with boosting's rules for many categories.
"""

import numpy as np

from .criteria import (
    node_term,
    is_regression,
    NEWTON,
)
from .histogram import (
    insertion_order,
)
from .._numba.jit import inlined, internal, kernel
from .scoring import SplitRule, copy_into, nan_goes_left, rule_score, split_rule

# Categorical splits with many categories and few rows each: the best prefix of the
# order by the categories' statistic mostly fits noise.  Every tree holds it back by one
# rule (category_key, category_searched), with its own parameters (GrowthParams'
# cat_smooth and min_samples_per_category); boosting's are LightGBM's defaults, under
# the same names, and it has the three rules after these as well.
#: boosting's ``cat_smooth`` and ``min_samples_per_category`` (LightGBM's
#: ``cat_smooth``, and the rows it needs a category to have): categories ordered by
#: ``G / (H + CAT_SMOOTH)``; one with fewer rows in the node is left out of the search
#: (it goes right, with the categories never seen)
CAT_SMOOTH = 10.0
#: added to ``l2`` in the gain of a categorical split (not of the leaves)
CAT_L2 = 10.0
#: at most this many categories on the side that is searched (both ends of the order)
MAX_CAT_THRESHOLD = 32
#: rows each side of a categorical split keeps, at most a fraction
#: ``MIN_DATA_PER_GROUP_SHARE`` of the node's (LightGBM's 100 alone forbids every such
#: split in a node of fewer than 200 rows: on small data boosting could not split a
#: column of categories at all)
MIN_DATA_PER_GROUP = 100
MIN_DATA_PER_GROUP_SHARE = 0.25
#: a node with at most this many categories present keeps the exact optimal-subset scan
#: without the rules above (the order's every prefix, Fisher 1958), as trees do
MAX_CAT_EXACT = 4


@inlined
def category_key(s, w, prior, smooth):
    """A category's place in the order of a categorical split's search: its smoothed
    mean ``(s + smooth * prior) / (w + smooth)`` of the statistic ``s`` over the weight
    ``w`` (0 when both ``w`` and ``smooth`` are 0).  With ``smooth > 0`` a category of
    few rows sits near ``prior``, the node's own mean, instead of at the end of the
    order its few labels would put it at.  Trees: ``s`` the category's sum of ``w y``
    (regression) or weight of one class, ``prior`` the node's mean (class rate);
    boosting: ``s = G``, ``w = H`` and ``prior = 0`` (LightGBM's order
    ``G / (H + cat_smooth)``).  The one order of every tree's categorical search."""
    d = w + smooth
    if d <= 0.0:
        return 0.0
    return (s + smooth * prior) / d


@inlined
def category_searched(count, min_count):
    """Whether a category with ``count`` rows in the node takes part in a categorical
    split's search (``count >= min_count``, the tree's ``min_samples_per_category``); the
    one rule of every tree.  A tree's split sends the others with the missing values
    (:func:`set_aside_rare`), boosting's to the right."""
    return count >= min_count


@internal
def set_aside_rare(codes, cstats, m, miss, min_count):
    """Move the categories of fewer than ``min_count`` rows (``cstats``' count column)
    to the end of ``codes[:m]`` and ``cstats[:m]`` and add their statistics to ``miss``:
    a tree's split treats them as missing values (tried on both sides, the side learned).
    Returns how many categories are left to search, in their order, at the front."""
    cnt = cstats.shape[1] - 1
    kept = 0
    for j in range(m):
        if category_searched(cstats[j, cnt], min_count):
            if j != kept:
                c = codes[kept]
                codes[kept] = codes[j]
                codes[j] = c
                for k in range(cstats.shape[1]):
                    v = cstats[kept, k]
                    cstats[kept, k] = cstats[j, k]
                    cstats[j, k] = v
            kept += 1
    for j in range(kept, m):
        for k in range(cstats.shape[1]):
            miss[k] += cstats[j, k]
    return kept


@internal
def _category_keys(cstats, m, crit, n_stats, l2, order_class, total, smooth, keys):
    """Each category's :func:`category_key` for the search of a tree (boosting's exact
    scan: ``G / (H + l2)``); ``total`` the node's statistics, whose mean is the prior."""
    if crit == NEWTON:
        for j in range(m):
            keys[j] = cstats[j, 0] / (cstats[j, 1] + l2)
    elif is_regression(crit):
        prior = total[1] / total[0] if total[0] > 0 else 0.0
        for j in range(m):
            keys[j] = category_key(cstats[j, 1], cstats[j, 0], prior, smooth)
    else:
        wt = 0.0
        for k in range(n_stats):
            wt += total[k]
        prior = total[order_class] / wt if wt > 0 else 0.0
        for j in range(m):
            w = 0.0
            for k in range(n_stats):
                w += cstats[j, k]
            keys[j] = category_key(cstats[j, order_class], w, prior, smooth)


@internal
def missing_side_codes(out_bitset, codes, m, n_codes):
    """Add to a split's set of the codes that go left every code below ``n_codes`` that
    is not among the ``m`` searched ``codes``: the categories absent from the node (or
    set aside as rare), which go where its missing values go."""
    for b in range(min(n_codes, 256)):
        seen = False
        for p in range(m):
            if codes[p] == b:
                seen = True
                break
        if not seen:
            out_bitset[b >> 6] |= np.uint64(1) << np.uint64(b & 63)


@kernel
def scan_categories_newton(codes, cstats, m, miss, total, params, scratch, out_bitset, out_left):
    """Boosting's best split of a categorical feature with more than ``MAX_CAT_EXACT``
    categories in the node, LightGBM's search and regularisation.

    The categories with at least ``min_samples_per_category`` rows
    (:func:`category_searched`) are ordered by ``G_c / (H_c + cat_smooth)``
    (:func:`category_key`; both ``CAT_SMOOTH`` by default); the left side is a prefix
    of that order taken from either end, of at most
    ``min(MAX_CAT_THRESHOLD, (u + 1) // 2)`` of the ``u`` ordered categories, and each
    side keeps at least ``min(MIN_DATA_PER_GROUP, MIN_DATA_PER_GROUP_SHARE n)`` of the
    node's ``n`` rows.  Candidates are scored with
    ``lambda + CAT_L2``, so the score ``G_L^2/(H_L+l') + G_R^2/(H_R+l')`` competes with
    the numeric features' (lower for the same partition), and the decrease is
    ``1/2 score - 1/2 G^2/(H + lambda)``.  The missing values are tried on both sides.
    Same returns as :func:`scan_feature` (its monotonic constraints are not applied: a
    categorical feature has none, and the node's interval clips the leaves).
    """
    # the criterion (newton) and its 2 statistics as run-time values: literal constants
    # would compile _score and node_term once more, for the literals' types
    tree_rule = split_rule(params)
    rule = SplitRule(
        tree_rule.criterion,
        tree_rule.n_stats,
        tree_rule.l1,
        params.l2 + CAT_L2,
        tree_rule.min_leaf,
        tree_rule.min_weight,
    )
    keys = scratch.keys
    order = scratch.rank
    left = scratch.left
    tmp = scratch.tmp
    n_cols = total.shape[0]
    cnt = n_cols - 1
    has_miss = miss[cnt] > 0.5
    used = 0
    smooth = params.cat_smooth
    min_count = params.min_samples_per_category
    for j in range(m):
        if category_searched(cstats[j, cnt], min_count):
            keys[j] = category_key(cstats[j, 0], cstats[j, 1], 0.0, smooth)
            used += 1
        else:
            keys[j] = np.nan  # sorted last, never searched
    insertion_order(keys, m, order)
    max_left = min(MAX_CAT_THRESHOLD, (used + 1) // 2)
    min_group = min(MIN_DATA_PER_GROUP, MIN_DATA_PER_GROUP_SHARE * total[cnt])
    best_score = -np.inf
    best_ml = False
    best_end = 0
    best_pos = -1
    for end in range(2):
        for c in range(n_cols):
            left[c] = 0.0
        for i in range(max_left):
            j = order[i] if end == 0 else order[used - 1 - i]
            for c in range(n_cols):
                left[c] += cstats[j, c]
            for with_miss in range(2 if has_miss else 1):
                for c in range(n_cols):
                    tmp[c] = left[c] + miss[c] if with_miss == 1 else left[c]
                if tmp[cnt] < min_group or total[cnt] - tmp[cnt] < min_group:
                    continue
                sc = rule_score(tmp, total, rule)
                if sc > best_score:
                    best_score, best_ml, best_end, best_pos = sc, with_miss == 1, end, i
                    copy_into(out_left, tmp)
    for w in range(out_bitset.shape[0]):
        out_bitset[w] = 0
    if best_pos < 0:
        return -np.inf, 0.0, -1, False, 0.0
    for i in range(best_pos + 1):
        b = codes[order[i]] if best_end == 0 else codes[order[used - 1 - i]]
        out_bitset[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
    best_dec = 0.5 * best_score + node_term(total, rule.criterion, rule.n_stats, rule.l1, params.l2)
    if not has_miss:
        best_ml = nan_goes_left(out_left, total, rule.criterion)
    return best_score, best_dec, 0, best_ml, 0.0
