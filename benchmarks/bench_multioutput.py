"""Multi-output benchmark: trees and forests on a 2-D y, treeboost against scikit-learn in
the same process.

    python benchmarks/bench_multioutput.py [--n-samples 50000] [--n-outputs 3] [--repeats 2]

Tasks (40 features, 75/25 split):

* regression: ``make_regression(n_targets=n_outputs, n_informative=20, noise=10)``,
  scored by the R^2 averaged over the outputs;
* classification: ``n_outputs`` labels from ``make_multilabel_classification``-like rules:
  output ``k`` is ``make_classification``'s informative features projected on a random
  direction, cut into 3 classes by its terciles; scored by the accuracy averaged over the
  outputs.

Each library fits a full-depth DecisionTree*, RandomForest*(100, n_jobs=-1) and
ExtraTrees*(100, n_jobs=-1) with its defaults; best of --repeats after a warm-up fit on
2000 rows.  The ratio is treeboost's fit time over scikit-learn's.
"""

import argparse

import numba
import numpy as np
from sklearn import ensemble as ske, tree as skt
from sklearn.datasets import make_classification, make_regression
from sklearn.model_selection import train_test_split

import treeboost as tb
from _timing import best_time


def regression_task(n, k):
    X, y = make_regression(
        n_samples=n, n_features=40, n_informative=20, n_targets=k, noise=10.0, random_state=0
    )
    return train_test_split(X, y, test_size=0.25, random_state=0)


def classification_task(n, k):
    X, _ = make_classification(n_samples=n, n_features=40, n_informative=20, random_state=0)
    rng = np.random.RandomState(1)
    scores = X[:, :20] @ rng.normal(size=(20, k)) + rng.normal(scale=2.0, size=(n, k))
    cuts = np.quantile(scores, [1 / 3, 2 / 3], axis=0)
    y = (scores > cuts[0]).astype(int) + (scores > cuts[1]).astype(int)
    return train_test_split(X, y, test_size=0.25, random_state=0)


def score(task, model, X, y):
    pred = model.predict(X)
    if task == "classification":
        return float(np.mean(pred == y))
    resid = ((y - pred) ** 2).sum(axis=0)
    total = ((y - y.mean(axis=0)) ** 2).sum(axis=0)
    return float(np.mean(1.0 - resid / total))


MODELS = {
    "regression": [
        (
            "DecisionTreeRegressor",
            lambda: tb.DecisionTreeRegressor(random_state=0),
            lambda: skt.DecisionTreeRegressor(random_state=0),
        ),
        (
            "RandomForestRegressor(100)",
            lambda: tb.RandomForestRegressor(100, n_jobs=-1, random_state=0),
            lambda: ske.RandomForestRegressor(100, n_jobs=-1, random_state=0),
        ),
        (
            "ExtraTreesRegressor(100)",
            lambda: tb.ExtraTreesRegressor(100, n_jobs=-1, random_state=0),
            lambda: ske.ExtraTreesRegressor(100, n_jobs=-1, random_state=0),
        ),
    ],
    "classification": [
        (
            "DecisionTreeClassifier",
            lambda: tb.DecisionTreeClassifier(random_state=0),
            lambda: skt.DecisionTreeClassifier(random_state=0),
        ),
        (
            "RandomForestClassifier(100)",
            lambda: tb.RandomForestClassifier(100, n_jobs=-1, random_state=0),
            lambda: ske.RandomForestClassifier(100, n_jobs=-1, random_state=0),
        ),
        (
            "ExtraTreesClassifier(100)",
            lambda: tb.ExtraTreesClassifier(100, n_jobs=-1, random_state=0),
            lambda: ske.ExtraTreesClassifier(100, n_jobs=-1, random_state=0),
        ),
    ],
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=50_000)
    ap.add_argument("--n-outputs", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--task", choices=sorted(MODELS), action="append")
    args = ap.parse_args()
    print(
        f"{args.n_samples:,} rows x 40 features, {args.n_outputs} outputs; "
        f"numba threads {numba.get_num_threads()}"
    )
    print("| task | model | treeboost fit (s) | scikit-learn fit (s) | ratio | score (tb vs sk) |")
    print("|---|---|---|---|---|---|")
    for task in args.task or sorted(MODELS):
        make = regression_task if task == "regression" else classification_task
        Xtr, Xte, ytr, yte = make(args.n_samples, args.n_outputs)
        for name, ours, theirs in MODELS[task]:
            times, scores = [], []
            for factory in (ours, theirs):
                factory().fit(Xtr[:2000], ytr[:2000])
                t, model = best_time(lambda: factory().fit(Xtr, ytr), args.repeats)
                times.append(t)
                scores.append(score(task, model, Xte, yte))
            print(
                f"| {task} | {name} | {times[0]:.2f} | {times[1]:.2f} | "
                f"{times[0] / times[1]:.2f}x | {scores[0]:.4f} vs {scores[1]:.4f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
