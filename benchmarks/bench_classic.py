"""ID3 / C4.5 fit times: treeboost against chefboost on the same data.

    python benchmarks/bench_classic.py [--rows 100000] [--chefboost-max-rows 10000]

Data: the 891 Titanic passengers (ID3 on Pclass, Sex, SibSp, Parch, Embarked; C4.5 also on
Age and Fare, continuous, with their missing values), and a synthetic table of n rows x 10
categorical attributes with 4 values each (the class depends on two of them, 5 % label
noise).  chefboost (``pip install chefboost``; not a treeboost dependency) is skipped when
it is not installed, and run only up to ``--chefboost-max-rows`` rows (it is much slower).
chefboost writes its rules to ./outputs, so it runs in a temporary directory.
"""

import argparse
import contextlib
import importlib
import io
import os
import sys
import tempfile
import time

import numpy as np
import pandas as pd

from treeboost.datasets import load_titanic
from treeboost.trees.classic import C45Classifier, ID3Classifier

CATEGORICAL = ["Pclass", "Sex", "SibSp", "Parch", "Embarked"]


def titanic(algorithm):
    t = load_titanic()
    cols = CATEGORICAL + (["Age", "Fare"] if algorithm == "C4.5" else [])
    X = t.data[cols].copy()
    for c in CATEGORICAL:  # categories as text for both libraries
        X[c] = X[c].astype(str).where(X[c].notna(), np.nan).astype("category")
    if algorithm == "ID3":
        X = X.fillna({"Embarked": "S"})  # chefboost's ID3 has no missing values
    return X, t.target.map({0: "died", 1: "survived"})


def synthetic(n, seed=0):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, (n, 10))
    X = pd.DataFrame(
        {f"a{j}": pd.Categorical.from_codes(codes[:, j], list("abcd")) for j in range(10)}
    )
    y = (codes[:, 0] + codes[:, 1] > 3) ^ (rng.random(n) < 0.05)
    return X, pd.Series(np.where(y, "yes", "no"))


def time_treeboost(algorithm, X, y, repeat=3):
    est = ID3Classifier() if algorithm == "ID3" else C45Classifier()
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        est.fit(X, y)
        best = min(best, time.perf_counter() - t0)
    return best, est.score(X, y), est.get_n_leaves()


def time_chefboost(algorithm, X, y):
    try:
        from chefboost import Chefboost as cb
    except ImportError:
        return None
    df = X.astype(object).where(X.notna(), None).copy()
    for c in df.columns:
        if isinstance(X[c].dtype, pd.CategoricalDtype):
            df[c] = df[c].astype(str)
    df["Decision"] = np.asarray(y.astype(str).to_numpy(), dtype=object)
    # chefboost tests dtype == object; pandas >= 3 would infer its str dtype
    df = df.astype({c: object for c in df.columns if c not in ("Age", "Fare")})
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        sys.path.insert(0, tmp)  # chefboost imports outputs/rules/rules.py
        for mod in [m for m in sys.modules if m == "outputs" or m.startswith("outputs.")]:
            del sys.modules[mod]
        importlib.invalidate_caches()
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                t0 = time.perf_counter()
                model = cb.fit(
                    df, config={"algorithm": algorithm, "enableParallelism": False}, silent=True
                )
                elapsed = time.perf_counter() - t0
                sample = df.drop(columns="Decision").iloc[:500]
                pred = [cb.predict(model, list(row)) for row in sample.itertuples(index=False)]
        finally:
            os.chdir(cwd)
            sys.path.remove(tmp)
    acc = float(np.mean(np.array(pred, dtype=object) == df["Decision"].iloc[:500].to_numpy()))
    return elapsed, acc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--chefboost-max-rows", type=int, default=10_000)
    args = ap.parse_args()
    cases = [("Titanic 891", "ID3", *titanic("ID3")), ("Titanic 891", "C4.5", *titanic("C4.5"))]
    for n in sorted({1000, 10_000, args.rows}):
        X, y = synthetic(n)
        cases += [(f"{n} x 10 cat.", "ID3", X, y), (f"{n} x 10 cat.", "C4.5", X, y)]
    print(
        "| data | algorithm | treeboost fit (s) | train acc. | leaves | chefboost fit (s) "
        "| chefboost acc. (first 500) |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, algo, X, y in cases:
        t, acc, leaves = time_treeboost(algo, X, y)
        cb, failed = None, False
        if len(X) <= args.chefboost_max_rows:
            try:
                cb = time_chefboost(algo, X, y)
            except Exception as exc:  # report chefboost's failure, keep going
                failed = True
                print(f"chefboost failed on {name} {algo}: {type(exc).__name__}: {exc}")
        cb_t = (
            "failed"
            if failed
            else "not installed"
            if cb is None and len(X) <= args.chefboost_max_rows
            else ("skipped" if cb is None else f"{cb[0]:.2f}")
        )
        cb_a = "" if cb is None else f"{cb[1]:.3f}"
        print(f"| {name} | {algo} | {t:.3f} | {acc:.3f} | {leaves} | {cb_t} | {cb_a} |", flush=True)


if __name__ == "__main__":
    main()
