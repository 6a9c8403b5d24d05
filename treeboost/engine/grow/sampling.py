"""Which features a node searches: the tree's random generator, the features drawn at
each node (``max_features``) and those its interaction sets allow."""

import numpy as np

from .._numba.jit import internal


@internal
def rand(state):
    """xorshift64*: a small explicit-state generator, the same on every thread."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@internal
def sample_features(sampler, k):
    """Draw ``k`` features; returns them in ascending order (as without sampling: ties
    between equal scores are drawn at random in :func:`.examine.examine_node`, or go to the
    lowest feature index without ``random_ties``), and the others, searched only
    when none of the drawn ones splits, as a view in draw order."""
    perm = sampler.perm
    n = perm.shape[0]
    for i in range(k):
        j = i + np.int64(rand(sampler.state) % np.uint64(n - i))
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
    # ascending order by marking: O(n_features), no sort per node
    drawn = sampler.drawn
    for i in range(k):
        drawn[perm[i]] = True
    out = sampler.sorted_draw
    m = 0
    for f in range(n):
        if drawn[f]:
            out[m] = f
            m += 1
            drawn[f] = False
    return out[:k], perm[k:]


@internal
def allowed_features(open_sets, sets_of, feats, rest, out):
    """``feats`` and ``rest`` without the features that none of the interaction sets
    ``open_sets`` (a node's) holds (``sets_of``: each feature's sets), into ``out`` in
    their order.  (Compiled on its own with array arguments: a step taking the grow
    context would pass all of its records.)"""
    n_words = open_sets.shape[0]
    a = 0
    n_feats = 0
    for part in range(2):
        fs = feats if part == 0 else rest
        for i in range(fs.shape[0]):
            f = fs[i]
            for w in range(n_words):
                if open_sets[w] & sets_of[f, w]:
                    out[a] = f
                    a += 1
                    break
        if part == 0:
            n_feats = a
    return out[:n_feats], out[n_feats:a]
