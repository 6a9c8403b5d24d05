"""Forest accuracy over seeds: treeboost's forests against scikit-learn's, mean and spread.

    python benchmarks/bench_forest_accuracy.py [--samples 100000,40000] [--seeds 5]
                                               [--max-bins 255,4095] [--model extra-trees]

One seed of a forest moves its held-out accuracy by a few hundredths of a point, as much
as the gap between two libraries; this prints, for each data size, the mean and the
standard deviation over ``--seeds`` forests (``random_state`` 0, 1, ...) of each side's
held-out accuracy, and the fit time (best over the seeds).  The data of bench_speed.py
(``make_classification(n, 40 features, 20 informative, random_state=0)``, 75/25 split),
100 trees, ``n_jobs=-1``.  ``--max-bins`` lists treeboost's bin counts to compare (the
cuts of a binned forest fall on bin edges; scikit-learn's between any two values).
"""

import argparse
import time

import treeboost as tb  # noqa: I001  (first: its OpenMP wait policy, see bench_speed.py)
import numpy as np
from sklearn import ensemble as sk

from bench_speed import _data

MODELS = {
    "extra-trees": (tb.ExtraTreesClassifier, sk.ExtraTreesClassifier),
    "random-forest": (tb.RandomForestClassifier, sk.RandomForestClassifier),
}


def _ints(text):
    return [int(v) for v in text.split(",")]


def _over_seeds(make, seeds, data):
    Xtr, Xte, ytr, yte = data
    scores, times = [], []
    for seed in range(seeds):
        t = time.perf_counter()
        model = make(seed).fit(Xtr, ytr)
        times.append(time.perf_counter() - t)
        scores.append(model.score(Xte, yte))
    return np.mean(scores), np.std(scores), min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=_ints, default=[100_000, 40_000])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--max-bins", type=_ints, default=[255])
    ap.add_argument("--model", choices=sorted(MODELS), default="extra-trees")
    args = ap.parse_args()
    ours, theirs = MODELS[args.model]
    print(f"{args.model}, 100 trees, {args.seeds} seeds")
    print("| rows | library | accuracy (mean +- std) | fit (s, best) |")
    print("|---|---|---|---|")
    for n in args.samples:
        data = _data("clf", n, 2)
        ours(3, max_bins=args.max_bins[0]).fit(data[0][:2000], data[2][:2000])  # compile
        rows = [
            (
                f"treeboost, max_bins={b}",
                lambda s, b=b: ours(100, n_jobs=-1, random_state=s, max_bins=b),
            )
            for b in args.max_bins
        ]
        rows.append(("scikit-learn", lambda s: theirs(100, n_jobs=-1, random_state=s)))
        for name, make in rows:
            mean, std, fit = _over_seeds(make, args.seeds, data)
            print(f"| {n:,} | {name} | {mean:.4f} +- {std:.4f} | {fit:.2f} |", flush=True)


if __name__ == "__main__":
    main()
