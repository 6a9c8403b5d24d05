"""Learning to rank: treeboost's HistGradientBoostingRanker against LightGBM's
LGBMRanker and XGBoost's XGBRanker, each alone in a fresh process, on 2 threads.

The data: no package reachable here ships LETOR-style query-grouped data, so the queries
are built from a real data set that scikit-learn ships (the 1,797 handwritten digits):
query-by-example image retrieval.  Each query is one image; its documents are 40 other
images (about a quarter of them of the query's digit), relevance 1 for the same digit, 0
otherwise; a document's features are the 64 absolute pixel differences to the query
image.  Training queries and held-out queries draw their images from disjoint halves.

Each library with its defaults, 100 boosting rounds, NDCG@10 on the held-out queries
(:func:`treeboost.metrics.ndcg_score`, LightGBM's NDCG, for all three); fit time the
best of ``--repeats`` after a warm-up fit.  ``--quick``: fewer queries.
"""

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _fresh import run_each  # noqa: E402
from _timing import best_time  # noqa: E402

LIBS = ("treeboost", "lightgbm", "xgboost")


def make_queries(n_queries, n_docs=40, seed=0):
    """``(X_train, y_train, group_train, X_test, y_test, group_test)`` (module doc)."""
    from sklearn.datasets import load_digits

    images, digits = load_digits(return_X_y=True)
    rng = np.random.default_rng(seed)
    pool = rng.permutation(digits.size)
    halves = pool[: pool.size // 2], pool[pool.size // 2 :]

    def build(half, n):
        X, y = [], []
        for q in rng.choice(half, n):
            same = half[(digits[half] == digits[q]) & (half != q)]
            other = half[digits[half] != digits[q]]
            n_same = n_docs // 4
            docs = np.concatenate(
                [rng.choice(same, n_same, replace=False), rng.choice(other, n_docs - n_same)]
            )
            docs = rng.permutation(docs)
            X.append(np.abs(images[docs] - images[q]))
            y.append((digits[docs] == digits[q]).astype(int))
        return np.vstack(X), np.concatenate(y), np.full(n, n_docs)

    return (*build(halves[0], n_queries), *build(halves[1], max(n_queries // 4, 50)))


def make_ranker(lib, n_iter):
    if lib == "treeboost":
        from treeboost.ensembles import HistGradientBoostingRanker

        return HistGradientBoostingRanker(max_iter=n_iter, early_stopping=False, n_jobs=2)
    if lib == "lightgbm":
        from lightgbm import LGBMRanker

        return LGBMRanker(n_estimators=n_iter, n_jobs=2, verbose=-1)
    from xgboost import XGBRanker

    return XGBRanker(n_estimators=n_iter, n_jobs=2, tree_method="hist")


def fit(lib, model, X, y, group):
    if lib == "xgboost":
        return model.fit(X, y, qid=np.repeat(np.arange(group.size), group))
    return model.fit(X, y, group=group)


def run_one(lib, n_queries, n_iter, repeats):
    os.environ.setdefault("NUMBA_NUM_THREADS", "2")
    from treeboost.metrics import ndcg_score

    Xtr, ytr, gtr, Xte, yte, gte = make_queries(n_queries)
    fit(lib, make_ranker(lib, 5), Xtr[:4000], ytr[:4000], gtr[:100])  # warm-up
    seconds, model = best_time(lambda: fit(lib, make_ranker(lib, n_iter), Xtr, ytr, gtr), repeats)
    ndcg = ndcg_score(yte, model.predict(Xte), group=gte, k=10)
    return {
        "lib": lib,
        "rows": int(ytr.size),
        "queries": int(gtr.size),
        "fit_s": seconds,
        "ndcg@10": ndcg,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", choices=LIBS)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--queries", type=int, default=None)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    n_queries = args.queries or (200 if args.quick else 1500)
    if args.lib:
        print(json.dumps(run_one(args.lib, n_queries, args.iterations, args.repeats)))
        return
    rows = run_each(
        __file__,
        LIBS,
        {"queries": n_queries, "iterations": args.iterations, "repeats": args.repeats},
    )
    by = {r["lib"]: r for r in rows}
    if "treeboost" in by and "lightgbm" in by:
        tb = by["treeboost"]
        best = max(r["ndcg@10"] for lib, r in by.items() if lib != "treeboost")
        print(f"\n{'lib':<10} {'fit s':>8} {'NDCG@10':>8}")
        for r in rows:
            print(f"{r['lib']:<10} {r['fit_s']:8.3f} {r['ndcg@10']:8.4f}")
        print(f"NDCG@10 treeboost - best anchor: {tb['ndcg@10'] - best:+.4f} (goal >= -0.005)")
        print(
            f"fit time treeboost / lightgbm: {tb['fit_s'] / by['lightgbm']['fit_s']:.2f} "
            f"(goal <= 1)"
        )


if __name__ == "__main__":
    main()
