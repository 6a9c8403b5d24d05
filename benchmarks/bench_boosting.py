"""Gradient boosting benchmark: treeboost, LightGBM, XGBoost and scikit-learn in one run.

    python benchmarks/bench_boosting.py [--n-samples 100000] [--repeats 3] [--sk-rows 20000]

Task: make_classification(n_samples, n_features=40, n_informative=20, random_state=0),
75/25 split.  treeboost, LightGBM (LGBMClassifier(n_estimators=100)), XGBoost
(tree_method="hist", max_leaves=31, grow_policy="lossguide") and scikit-learn's
HistGradientBoostingClassifier: 100 iterations, 31 leaves, learning rate 0.1.  scikit-learn's
GradientBoostingClassifier (max_depth=3, 100 iterations) is timed on the first --sk-rows
training rows (it is too slow for the full set) against treeboost with the same settings
(max_depth=3) on the same rows.  Fit and predict: best of --repeats after a warm-up.
"""

import argparse
import os

import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import GradientBoostingClassifier as SkGBC
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import train_test_split

import numba
from treeboost import GradientBoostingClassifier

from _timing import best_time


def run(name, make, Xtr, ytr, Xte, yte, repeats):
    make().fit(Xtr[:2000], ytr[:2000])  # warm-up: compilation, thread pools
    fit_t, model = best_time(lambda: make().fit(Xtr, ytr), repeats)
    pred_t, pred = best_time(lambda: model.predict(Xte), repeats)
    return name, fit_t, pred_t, float(np.mean(pred == yte))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sk-rows", type=int, default=20_000)
    args = ap.parse_args()
    X, y = make_classification(
        n_samples=args.n_samples, n_features=40, n_informative=20, random_state=0
    )
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)
    print(
        f"make_classification {args.n_samples} x 40, train {len(ytr)}, test {len(yte)}; "
        f"{os.cpu_count()} cores, numba threads {numba.get_num_threads()}"
    )

    rows = [
        run(
            "treeboost GradientBoostingClassifier",
            lambda: GradientBoostingClassifier(
                n_estimators=100,
                max_leaf_nodes=31,
                max_depth=None,
                min_samples_leaf=20,
                split_gain="hessian",
                learning_rate=0.1,
            ),
            Xtr,
            ytr,
            Xte,
            yte,
            args.repeats,
        )
    ]
    try:
        import lightgbm as lgb

        rows.append(
            run(
                "LightGBM LGBMClassifier(n_estimators=100)",
                lambda: lgb.LGBMClassifier(n_estimators=100, verbose=-1),
                Xtr,
                ytr,
                Xte,
                yte,
                args.repeats,
            )
        )
    except ImportError:
        print("(lightgbm not installed: pip install treeboost[bench])")
    try:
        import xgboost as xgb

        rows.append(
            run(
                "XGBoost XGBClassifier(hist, lossguide, 31 leaves)",
                lambda: xgb.XGBClassifier(
                    n_estimators=100,
                    tree_method="hist",
                    grow_policy="lossguide",
                    max_leaves=31,
                    max_depth=0,
                    learning_rate=0.1,
                ),
                Xtr,
                ytr,
                Xte,
                yte,
                args.repeats,
            )
        )
    except ImportError:
        print("(xgboost not installed: pip install treeboost[bench])")
    rows.append(
        run(
            "scikit-learn HistGradientBoostingClassifier",
            lambda: HistGradientBoostingClassifier(max_iter=100, early_stopping=False),
            Xtr,
            ytr,
            Xte,
            yte,
            args.repeats,
        )
    )
    ref = {r[0].split()[0]: r for r in rows}
    base = ref.get("LightGBM", rows[0])
    print(
        "\n| model | fit (s) | predict (s) | test accuracy | fit time / LightGBM "
        "| predict time / LightGBM |"
    )
    print("|---|---|---|---|---|---|")
    for name, f, p, acc in rows:
        print(f"| {name} | {f:.3f} | {p:.4f} | {acc:.4f} | {f / base[1]:.2f} | {p / base[2]:.2f} |")

    n = min(args.sk_rows, len(ytr))
    print(
        f"\nAgainst scikit-learn's GradientBoostingClassifier (max_depth=3, 100 iterations) "
        f"on the first {n} training rows:"
    )
    sk_rows = [
        run(
            "treeboost (max_depth=3, max_leaf_nodes=None, min_samples_leaf=1)",
            lambda: GradientBoostingClassifier(
                n_estimators=100,
                max_depth=3,
                max_leaf_nodes=None,
                min_samples_leaf=1,
                split_gain="hessian",
            ),
            Xtr[:n],
            ytr[:n],
            Xte,
            yte,
            1,
        ),
        run(
            "scikit-learn GradientBoostingClassifier",
            lambda: SkGBC(n_estimators=100, max_depth=3, random_state=0),
            Xtr[:n],
            ytr[:n],
            Xte,
            yte,
            1,
        ),
    ]
    print("| model | fit (s) | predict (s) | test accuracy | fit speed-up |\n|---|---|---|---|---|")
    for name, f, p, acc in sk_rows:
        print(f"| {name} | {f:.3f} | {p:.4f} | {acc:.4f} | {sk_rows[1][1] / f:.1f}x |")


if __name__ == "__main__":
    main()
