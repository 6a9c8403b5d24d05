"""A categorical feature of 1,000 categories: treeboost's grouping against LightGBM.

    python benchmarks/bench_categorical.py [--n-samples 40000] [--n-categories 1000]
                                           [--repeats 1] [--seed 0]

Task: a column ``cat`` of ``--n-categories`` categories, each with its own random effect
``b_c ~ N(0, 1)`` on the log-odds, two numeric features and noise:

    logit P(y = 1) = b_cat + 0.8 x1 - 0.6 x2,        x1, x2 ~ N(0, 1)

in two shapes of the category frequencies: *uniform* (every category equally likely) and
*zipf* (category ``r`` of the ranking drawn with probability proportional to
``1 / (r + 10)``, the long tail of real identifiers).  75/25 split.  treeboost's
``GradientBoostingClassifier`` and LightGBM's ``LGBMClassifier`` (the column as a pandas
``category``), both with 100 iterations, 31 leaves, learning rate 0.1, at least 20 rows per
leaf; fit time (best of ``--repeats`` after a warm-up), test accuracy and ROC AUC, and
treeboost / LightGBM ratios.  The ``oracle`` line is the accuracy of the true model
(``P(y = 1) > 1/2``), the ceiling of both; ``oracle, 255 codes`` the true model that sees
only the codes of treeboost's encoder (for a code that stands for several categories, the
frequency-weighted mean of ``P(y = 1 | c, x)`` over them): the ceiling of any model on
those codes.
"""

import argparse
import os

from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from treeboost import GradientBoostingClassifier

from _timing import best_time


def make_data(n, k, shape, seed=0):
    """Frame of ``cat`` (pandas category), ``x1``, ``x2``; labels; true probabilities;
    the categories' effects and probabilities."""
    rng = np.random.default_rng(seed)
    effect = rng.normal(0.0, 1.0, k)
    if shape == "uniform":
        p = np.full(k, 1.0 / k)
    else:
        p = 1.0 / (np.arange(k) + 10.0)
        p /= p.sum()
    cat = rng.choice(k, n, p=p)
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    logit = effect[cat] + 0.8 * x1 - 0.6 * x2
    prob = 1.0 / (1.0 + np.exp(-logit))
    y = (rng.random(n) < prob).astype(np.int64)
    labels = np.array([f"c{i:04d}" for i in range(k)], dtype=object)
    X = pd.DataFrame({"cat": pd.Categorical(labels[cat], categories=labels), "x1": x1, "x2": x2})
    return X, y, prob, effect, p


def grouped_oracle(model, X, effect, p):
    """True P(y = 1) given only the encoder's code of ``cat``: the rows of a code that
    stands for several categories get the mean over them, weighted by their
    probabilities."""
    enc = model._encoder
    cat = X["cat"].cat.codes.to_numpy()
    lin = 0.8 * X["x1"].to_numpy() - 0.6 * X["x2"].to_numpy()
    prob = 1.0 / (1.0 + np.exp(-(effect[cat] + lin)))
    code_of = np.full(effect.shape[0], -1)
    for code in range(len(enc.categories_[0])):
        members = np.array([int(c[1:]) for c in enc.code_members(0, code)], dtype=np.int64)
        code_of[members] = code
        rows = np.isin(cat, members)
        if members.shape[0] > 1 and rows.any():
            w = p[members] / p[members].sum()
            prob[rows] = (1.0 / (1.0 + np.exp(-(effect[members][None, :] + lin[rows, None])))) @ w
    return prob


def run(make, Xtr, ytr, Xte, yte, repeats):
    make().fit(Xtr.iloc[:2000], ytr[:2000])  # warm-up: compilation, thread pools
    fit_t, model = best_time(lambda: make().fit(Xtr, ytr), repeats)
    proba = model.predict_proba(Xte)[:, 1]
    return Result(fit_t, *scores(yte, proba)), model


class Result(NamedTuple):
    fit_time: float
    accuracy: float
    auc: float


def scores(y, proba):
    return float(np.mean((proba > 0.5) == y)), float(roc_auc_score(y, proba))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=40_000)
    ap.add_argument("--n-categories", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0, help="seed of the data (default 0)")
    args = ap.parse_args()
    import lightgbm as lgb

    tb = lambda: GradientBoostingClassifier(
        n_estimators=100,
        max_leaf_nodes=31,  # noqa: E731
        learning_rate=0.1,
        min_samples_leaf=20,
        max_depth=None,
        split_gain="hessian",
    )
    lg = lambda: lgb.LGBMClassifier(
        n_estimators=100,
        num_leaves=31,  # noqa: E731
        learning_rate=0.1,
        min_child_samples=20,
        verbose=-1,
    )
    print(
        f"{args.n_samples} rows, {args.n_categories} categories, 75/25 split; "
        f"{os.cpu_count()} cores"
    )
    print("| frequencies | model | fit (s) | accuracy | ROC AUC |")
    print("|---|---|---|---|---|")
    for shape in ("uniform", "zipf"):
        X, y, prob, effect, p = make_data(args.n_samples, args.n_categories, shape, args.seed)
        Xtr, Xte, ytr, yte, _, pte = train_test_split(X, y, prob, test_size=0.25, random_state=0)
        a, model = run(tb, Xtr, ytr, Xte, yte, args.repeats)
        b, _ = run(lg, Xtr, ytr, Xte, yte, args.repeats)
        oracle = scores(yte, pte)
        grouped = scores(yte, grouped_oracle(model, Xte, effect, p))
        print(f"| {shape} | treeboost | {a.fit_time:.2f} | {a.accuracy:.4f} | {a.auc:.4f} |")
        print(f"| {shape} | LightGBM | {b.fit_time:.2f} | {b.accuracy:.4f} | {b.auc:.4f} |")
        print(
            f"| {shape} | treeboost / LightGBM | {a.fit_time / b.fit_time:.2f} | "
            f"{a.accuracy / b.accuracy:.3f} | {a.auc / b.auc:.3f} |"
        )
        print(f"| {shape} | oracle | | {oracle[0]:.4f} | {oracle[1]:.4f} |")
        print(f"| {shape} | oracle, 255 codes | | {grouped[0]:.4f} | {grouped[1]:.4f} |")


if __name__ == "__main__":
    main()
