"""Learning to rank: treeboost's HistGradientBoostingRanker against LightGBM's
LGBMRanker and XGBoost's XGBRanker, each alone in a fresh process, on 2 threads.

The data: no package reachable here ships LETOR-style query-grouped data, so the queries
are built from a real data set that scikit-learn ships (the 1,797 handwritten digits):
query-by-example image retrieval.  Each query is one image; its documents are 40 other
images (about a quarter of them of the query's digit), relevance 1 for the same digit, 0
otherwise; a document's features are the 64 absolute pixel differences to the query
image.  Training queries and held-out queries draw their images from disjoint halves.
``--data diabetes``: a second, graded set from scikit-learn's diabetes data (442
patients, :func:`make_diabetes_queries`).

Each library with its defaults (and treeboost with LightGBM's 31-leaf trees), 100
rounds, NDCG@10 on the held-out queries (:func:`treeboost.metrics.ndcg_score`,
LightGBM's NDCG, for all); fit time the best of ``--repeats`` after a warm-up fit.
``--quick``: fewer queries.
"""

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _fresh import run_each  # noqa: E402
from _timing import best_time  # noqa: E402

#: "treeboost-31": the ranker with LightGBM's trees (31 leaves, no depth limit), its
#: defaults before they became XGBoost's depth-6 trees
LIBS = ("treeboost", "treeboost-31", "lightgbm", "xgboost")


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


def make_diabetes_queries(n_queries, n_docs=30, seed=0):
    """Query-by-example on scikit-learn's diabetes data (442 patients, 10 features): a
    query is a patient, its documents 30 other patients, relevance 3, 2, 1 or 0 as their
    disease progression lies within 10, 25, 50 or more of the query's; a document's
    features are its differences to the query and their absolute values.  Training and
    held-out queries draw their patients from disjoint halves."""
    from sklearn.datasets import load_diabetes

    features, target = load_diabetes(return_X_y=True)
    rng = np.random.default_rng(seed)
    pool = rng.permutation(target.size)
    halves = pool[: pool.size // 2], pool[pool.size // 2 :]

    def build(half, n):
        X, y = [], []
        for q in rng.choice(half, n):
            docs = rng.choice(half[half != q], n_docs, replace=False)
            distance = np.abs(target[docs] - target[q])
            diff = features[docs] - features[q]
            X.append(np.hstack([np.abs(diff), diff]))
            y.append(3 - np.digitize(distance, [10, 25, 50]))
        return np.vstack(X), np.concatenate(y), np.full(n, n_docs)

    return (*build(halves[0], n_queries), *build(halves[1], max(n_queries // 4, 50)))


DATA = {"digits": make_queries, "diabetes": make_diabetes_queries}


def make_ranker(lib, n_iter):
    if lib.startswith("treeboost"):
        from treeboost.ensembles import HistGradientBoostingRanker

        shape = {"max_leaf_nodes": 31, "max_depth": None} if lib == "treeboost-31" else {}
        return HistGradientBoostingRanker(max_iter=n_iter, early_stopping=False, n_jobs=2, **shape)
    if lib == "lightgbm":
        from lightgbm import LGBMRanker

        return LGBMRanker(n_estimators=n_iter, n_jobs=2, verbose=-1)
    from xgboost import XGBRanker

    return XGBRanker(n_estimators=n_iter, n_jobs=2, tree_method="hist")


def fit(lib, model, X, y, group):
    if lib == "xgboost":
        return model.fit(X, y, qid=np.repeat(np.arange(group.size), group))
    return model.fit(X, y, group=group)


def run_one(lib, n_queries, n_iter, repeats, data="digits", seed=0):
    os.environ.setdefault("NUMBA_NUM_THREADS", "2")
    from treeboost.metrics import ndcg_score

    Xtr, ytr, gtr, Xte, yte, gte = DATA[data](n_queries, seed=seed)
    n_warm = int(gtr[:100].sum())
    fit(lib, make_ranker(lib, 5), Xtr[:n_warm], ytr[:n_warm], gtr[:100])  # warm-up
    seconds, model = best_time(lambda: fit(lib, make_ranker(lib, n_iter), Xtr, ytr, gtr), repeats)
    ndcg = ndcg_score(yte, model.predict(Xte), group=gte, k=10)
    return {
        "lib": lib,
        "data": data,
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
    parser.add_argument("--data", choices=sorted(DATA), default="digits")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n_queries = args.queries or (200 if args.quick else 1500)
    if args.lib:
        row = run_one(args.lib, n_queries, args.iterations, args.repeats, args.data, args.seed)
        print(json.dumps(row))
        return
    rows = run_each(
        __file__,
        LIBS,
        {
            "queries": n_queries,
            "iterations": args.iterations,
            "repeats": args.repeats,
            "data": args.data,
            "seed": args.seed,
        },
    )
    by = {r["lib"]: r for r in rows}
    if "treeboost" in by and "lightgbm" in by:
        tb = by["treeboost"]
        best = max(r["ndcg@10"] for lib, r in by.items() if lib in ("lightgbm", "xgboost"))
        print(f"\n{'lib':<13} {'fit s':>8} {'NDCG@10':>8}")
        for r in rows:
            print(f"{r['lib']:<13} {r['fit_s']:8.3f} {r['ndcg@10']:8.4f}")
        print(f"NDCG@10 treeboost - best anchor: {tb['ndcg@10'] - best:+.4f} (goal >= -0.005)")
        print(
            f"fit time treeboost / lightgbm: {tb['fit_s'] / by['lightgbm']['fit_s']:.2f} "
            f"(goal <= 1)"
        )


if __name__ == "__main__":
    main()
