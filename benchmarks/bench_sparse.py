"""Sparse X benchmark: fit and predict on one CSR matrix, treeboost against scikit-learn
(and LightGBM for gradient boosting) in the same process.

    python benchmarks/bench_sparse.py [--n-samples 100000] [--n-features 1000]
                                      [--density 0.01] [--repeats 1]

Task: ``scipy.sparse.random(n_samples, n_features, density, format="csr",
random_state=0)`` (values uniform in [0, 1)), ``y = X[:, :10] @ w > 0`` with ``w`` ten
weights of random sign.  RandomForestClassifier(n_estimators=20, n_jobs=2) and
GradientBoostingClassifier(n_estimators=50), each library with its own defaults
otherwise, plus treeboost's gradient boosting with scikit-learn's tree shape (depth 3,
``min_samples_leaf=1``) and LightGBM's LGBMClassifier(n_estimators=50).  Fit and predict
on the same matrix (the accuracy is on the training rows: it only shows that each model
learned the rule); best of --repeats after a warm-up fit on 2000 rows.  The ratio is the
library's time over treeboost's with the same task (its first row of the group).

treeboost bins the sparse matrix without a dense copy of the floats, but its binned
matrix is dense (``n_samples x n_features`` bytes); predict walks dense blocks of rows.
"""
import argparse
import os

import numba
import numpy as np
import scipy.sparse as sp
from sklearn import ensemble as sk

import treeboost as tb
from _timing import best_time


def make_data(n_samples, n_features, density):
    X = sp.random(n_samples, n_features, density=density, format="csr", random_state=0,
                  dtype=np.float64)
    w = np.random.RandomState(0).choice([-1.0, 1.0], size=10)
    y = (X[:, :10] @ w > 0).astype(int)
    return X, y


def run(name, make, X, y, repeats):
    make().fit(X[:2000], y[:2000])            # warm-up: compilation, thread pools
    fit_t, model = best_time(lambda: make().fit(X, y), repeats)
    pred_t, pred = best_time(lambda: model.predict(X), repeats)
    return name, fit_t, pred_t, float(np.mean(pred == y))


def table(groups):
    print("| model | fit (s) | fit / treeboost | predict (s) | predict / treeboost "
          "| train accuracy |")
    print("|---|---|---|---|---|---|")
    for rows in groups:
        base_fit, base_pred = rows[0][1], rows[0][2]
        for name, fit_t, pred_t, acc in rows:
            print(f"| {name} | {fit_t:.2f} | {fit_t / base_fit:.2f} | {pred_t:.3f} | "
                  f"{pred_t / base_pred:.2f} | {acc:.4f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=100_000)
    ap.add_argument("--n-features", type=int, default=1000)
    ap.add_argument("--density", type=float, default=0.01)
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    X, y = make_data(args.n_samples, args.n_features, args.density)
    print(f"CSR {X.shape[0]} x {X.shape[1]}, density {args.density}, {X.nnz} stored values, "
          f"positive rate {y.mean():.3f}; {os.cpu_count()} cores, numba threads "
          f"{numba.get_num_threads()}")

    forest = [
        run("treeboost RandomForestClassifier(20, n_jobs=2)",
            lambda: tb.RandomForestClassifier(20, n_jobs=2, random_state=0), X, y,
            args.repeats),
        run("scikit-learn RandomForestClassifier(20, n_jobs=2)",
            lambda: sk.RandomForestClassifier(20, n_jobs=2, random_state=0), X, y,
            args.repeats),
    ]
    boosting = [
        run("treeboost GradientBoostingClassifier(50) (31 leaves, min_samples_leaf=20)",
            lambda: tb.GradientBoostingClassifier(n_estimators=50, random_state=0), X, y,
            args.repeats),
    ]
    try:
        import lightgbm as lgb
        boosting.append(run("LightGBM LGBMClassifier(n_estimators=50) (31 leaves)",
                            lambda: lgb.LGBMClassifier(n_estimators=50, verbose=-1,
                                                       random_state=0), X, y, args.repeats))
    except ImportError:
        print("(lightgbm not installed: its row is left out)")
    shape = [
        run("treeboost GradientBoostingClassifier(50, max_depth=3, min_samples_leaf=1)",
            lambda: tb.GradientBoostingClassifier(n_estimators=50, max_depth=3,
                                                  max_leaf_nodes=None, min_samples_leaf=1,
                                                  random_state=0), X, y, args.repeats),
        run("scikit-learn GradientBoostingClassifier(50) (depth 3)",
            lambda: sk.GradientBoostingClassifier(n_estimators=50, random_state=0), X, y,
            args.repeats),
    ]
    table([forest, boosting, shape])


if __name__ == "__main__":
    main()
