"""Bootstrap samples as weights, drawn in one pass without per-tree temporaries.

A tree of a forest sees its bootstrap sample as integer weights (a row drawn twice weighs
2).  Drawing ``n`` indices with NumPy and counting them with ``bincount`` holds two arrays
of ``n`` int64 per tree besides the weights; the kernel here counts the draws straight
into the worker's weight buffer and marks the out-of-bag rows in a bit mask.

The draws come from SplitMix64 (Steele, Lea and Flood 2014) seeded with the tree's seed:
the same sample for the same seed on any thread, independent of the generator the grower
uses for its feature sampling.
"""

import numpy as np
from ..engine import inlined, kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@inlined
def _splitmix64(state):
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def bootstrap_weights(seed, n_draws, sample_weight, weights, oob_bits):
    """Draw ``n_draws`` rows of ``n = weights.shape[0]`` with replacement and set

    ``weights[i] = count_i * sample_weight[i]`` (``count_i`` the times row ``i`` is
    drawn; an empty ``sample_weight`` stands for unit weights) and bit ``i`` of
    ``oob_bits`` (NumPy's ``packbits`` order) when ``count_i == 0``.  Returns the number
    of rows drawn at least once.
    """
    n = weights.shape[0]
    weights[:] = 0.0
    state = np.uint64(seed) * _GOLDEN
    un = np.uint64(n)
    for _ in range(n_draws):
        state += _GOLDEN
        # modulo bias: below n / 2^64, negligible for any n that fits in memory
        weights[np.int64(_splitmix64(state) % un)] += 1.0
    oob_bits[:] = 0
    drawn = 0
    unit = sample_weight.shape[0] == 0
    for i in range(n):
        c = weights[i]
        if c == 0.0:
            oob_bits[i >> 3] |= np.uint8(128 >> (i & 7))
        else:
            drawn += 1
        if not unit:
            weights[i] = c * sample_weight[i]
    return drawn


@kernel
def selection_sample(u, k, mask):
    """Knuth's selection sampling (algorithm S): ``mask[i]`` for exactly ``k`` of the
    ``n = u.shape[0]`` rows, row ``i`` taken when ``u[i] (n - i) < k - taken`` with
    ``u`` uniform in [0, 1).  From the same ``u`` it is the subsample scikit-learn's
    gradient boosting draws (its ``_random_sample_mask``)."""
    n = u.shape[0]
    taken = 0
    for i in range(n):
        take = u[i] * (n - i) < k - taken
        mask[i] = take
        taken += take
