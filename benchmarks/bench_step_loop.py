"""The grower's two loops on one machine: the compiled loop of the one-machine estimator
against the loop stepped from Python (the data-parallel trainer's, with one shard in this
process: no network, no Dask).

    python benchmarks/bench_step_loop.py [--rows 200000] [--features 20] [--trees 50]
                                         [--leaves 31] [--repeats 3]

Both grow the same trees from the same step kernels (histograms, split search,
partition); the stepped loop adds, per round of nodes, a Python call into each kernel,
the sum of the shards' histograms and the client's bookkeeping.  Prints the best of
``--repeats`` fits of each (after a warm-up fit), their ratio, and whether the models
make the same splits.
"""

import argparse
import json
import time

import numpy as np
from sklearn.datasets import make_classification


def stepped_fit(est, X, y):
    from treeboost.dask._boosting import _Shards
    from treeboost.dask._shard import BoostingShard

    shards = _Shards.in_process([BoostingShard([(X, y, None)], [])])
    est._check_supported()
    est._fit_shards(shards, False)
    return est


def best_of(fit, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        model = fit()
        times.append(time.perf_counter() - t0)
    return min(times), model


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--trees", type=int, default=50)
    ap.add_argument("--leaves", type=int, default=31)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    from treeboost import HistGradientBoostingClassifier
    from treeboost.dask import DaskHistGradientBoostingClassifier

    X, y = make_classification(
        args.rows, args.features, n_informative=args.features // 2, random_state=0
    )
    kw = dict(max_iter=args.trees, max_leaf_nodes=args.leaves, early_stopping=False)
    # warm-up: every kernel loaded or compiled
    HistGradientBoostingClassifier(**dict(kw, max_iter=2)).fit(X, y)
    stepped_fit(DaskHistGradientBoostingClassifier(**dict(kw, max_iter=2)), X, y)
    compiled_s, one = best_of(lambda: HistGradientBoostingClassifier(**kw).fit(X, y), args.repeats)
    stepped_s, step = best_of(
        lambda: stepped_fit(DaskHistGradientBoostingClassifier(**kw), X, y), args.repeats
    )
    same = bool(
        all(
            np.array_equal(a[0].feature, b[0].feature)
            and np.array_equal(a[0].bin_threshold, b[0].bin_threshold)
            for a, b in zip(one.trees_, step.trees_)
        )
    )
    out = {
        "rows": args.rows,
        "features": args.features,
        "trees": args.trees,
        "compiled_s": round(compiled_s, 3),
        "stepped_s": round(stepped_s, 3),
        "ratio": round(stepped_s / compiled_s, 2),
        "rounds_per_tree": float(np.mean(step.n_rounds_)),
        "same_splits": same,
    }
    print(json.dumps(out))
    print(
        f"\n{args.rows:,} x {args.features}, {args.trees} trees of {args.leaves} leaves: "
        f"compiled loop {compiled_s:.2f} s, stepped loop {stepped_s:.2f} s "
        f"({stepped_s / compiled_s:.2f}x; {out['rounds_per_tree']:.1f} rounds a tree), "
        f"same splits: {same}"
    )


if __name__ == "__main__":
    main()
