"""Ensemble benchmark: treeboost against scikit-learn (and LightGBM's random forest) in
the same run.

    python benchmarks/bench_ensembles.py [--n-samples 100000] [--quick]

Task: make_classification(n_samples, n_features=40, n_informative=20, random_state=0),
75/25 split, ``n_jobs=-1`` for both libraries.  RandomForestClassifier(n_estimators=100),
BaggingClassifier(n_estimators=50) of fully grown trees, AdaBoostClassifier(n_estimators=100)
of stumps; the forest with n_jobs=1 and 2; the memory of each forest fit, measured in a
fresh subprocess (``_memory.py``).  One timed fit each after a warm-up on 2000 rows.
"""

import argparse
import os
import time

import numpy as np
from sklearn import ensemble as sk
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier as SkTree

import treeboost as tb
from _memory import fit_memory


def timed(make, Xtr, ytr, Xte, yte):
    make().fit(Xtr[:2000], ytr[:2000])
    t = time.perf_counter()
    model = make().fit(Xtr, ytr)
    fit = time.perf_counter() - t
    t = time.perf_counter()
    acc = float(np.mean(model.predict(Xte) == yte))
    return fit, time.perf_counter() - t, acc


MEMORY_DATA = """
import numpy as np
from sklearn.datasets import make_classification
X, y = make_classification(n_samples={n}, n_features=40, n_informative=20, random_state=0)
{imp}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=100_000)
    ap.add_argument("--quick", action="store_true", help="20k rows, fewer trees")
    args = ap.parse_args()
    n = 20_000 if args.quick else args.n_samples
    n_rf, n_bag, n_ada = (20, 10, 30) if args.quick else (100, 50, 100)
    X, y = make_classification(n_samples=n, n_features=40, n_informative=20, random_state=0)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)
    print(
        f"make_classification {n} x 40, train {len(ytr)}, test {len(yte)}; "
        f"{os.cpu_count()} cores; n_jobs=-1"
    )
    cases = [
        (
            f"RandomForestClassifier({n_rf})",
            lambda: tb.RandomForestClassifier(n_estimators=n_rf, n_jobs=-1, random_state=0),
            lambda: sk.RandomForestClassifier(n_estimators=n_rf, n_jobs=-1, random_state=0),
        ),
        (
            f"BaggingClassifier({n_bag}) of full trees",
            lambda: tb.BaggingClassifier(n_estimators=n_bag, n_jobs=-1, random_state=0),
            lambda: sk.BaggingClassifier(SkTree(), n_estimators=n_bag, n_jobs=-1, random_state=0),
        ),
        (
            f"AdaBoostClassifier({n_ada}) of stumps",
            lambda: tb.AdaBoostClassifier(n_estimators=n_ada, random_state=0),
            lambda: sk.AdaBoostClassifier(n_estimators=n_ada, random_state=0),
        ),
    ]
    print(
        "\n| model | treeboost fit (s) | scikit-learn fit (s) | speed-up | treeboost acc "
        "| scikit-learn acc | treeboost predict (s) | scikit-learn predict (s) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, ours, theirs in cases:
        f1, p1, a1 = timed(ours, Xtr, ytr, Xte, yte)
        f2, p2, a2 = timed(theirs, Xtr, ytr, Xte, yte)
        print(
            f"| {name} | {f1:.2f} | {f2:.2f} | {f2 / f1:.1f}x | {a1:.4f} | {a2:.4f} "
            f"| {p1:.3f} | {p2:.3f} |",
            flush=True,
        )
    try:
        import lightgbm as lgb

        f, p, a = timed(
            lambda: lgb.LGBMClassifier(
                boosting_type="rf",
                n_estimators=n_rf,
                num_leaves=4096,
                max_depth=-1,
                bagging_freq=1,
                bagging_fraction=0.632,
                feature_fraction_bynode=0.16,
                min_child_samples=1,
                verbose=-1,
            ),
            Xtr,
            ytr,
            Xte,
            yte,
        )
        print(
            f"| LightGBM boosting_type='rf' ({n_rf} trees, reference) | {f:.2f} | | | {a:.4f} "
            f"| | {p:.3f} | |"
        )
    except ImportError:
        print("(lightgbm not installed: pip install treeboost[bench])")

    print("\nRandomForestClassifier: n_jobs=1 against n_jobs=2")
    t1, _, _ = timed(
        lambda: tb.RandomForestClassifier(n_estimators=n_rf, n_jobs=1, random_state=0),
        Xtr,
        ytr,
        Xte,
        yte,
    )
    t2, _, _ = timed(
        lambda: tb.RandomForestClassifier(n_estimators=n_rf, n_jobs=2, random_state=0),
        Xtr,
        ytr,
        Xte,
        yte,
    )
    print(
        f"| n_jobs | fit (s) |\n|---|---|\n| 1 | {t1:.2f} |\n| 2 | {t2:.2f} |\n"
        f"speed-up {t1 / t2:.2f}x"
    )

    print(
        f"\nMemory of the fits on all {n} rows (fresh process per fit, see "
        f"benchmarks/_memory.py: 'fit peak' = high-water mark during the fit minus the "
        f"resident size before it, after a 200-row fit has loaded the library and its "
        f"kernels; 'process peak' = the whole process: Python, libraries, data, fit; "
        f"'retained' = what the fitted model holds):"
    )
    print(
        "| fit | fit peak (MiB) | retained (MiB) | process peak (MiB) "
        "| resident before the fit (MiB) |"
    )
    print("|---|---|---|---|---|")
    rf = f"RandomForestClassifier(n_estimators={n_rf}, n_jobs=-1, random_state=0)"
    bag = f"BaggingClassifier({{}}n_estimators={n_bag}, n_jobs=-1, random_state=0)"
    for name, imp, make in [
        (f"treeboost RandomForest({n_rf})", "import treeboost", "treeboost." + rf),
        (f"scikit-learn RandomForest({n_rf})", "import sklearn.ensemble", "sklearn.ensemble." + rf),
        (f"treeboost Bagging({n_bag})", "import treeboost", "treeboost." + bag.format("")),
        (
            f"scikit-learn Bagging({n_bag})",
            "import sklearn.ensemble, sklearn.tree",
            "sklearn.ensemble." + bag.format("sklearn.tree.DecisionTreeClassifier(), "),
        ),
    ]:
        m = fit_memory(MEMORY_DATA.format(n=n, imp=imp), make)
        print(
            f"| {name} | {m['fit_peak']:.0f} | {m['retained']:.0f} "
            f"| {m['process_peak']:.0f} | {m['before']:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
