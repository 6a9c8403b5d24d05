"""Fits under CPU contention: each row alone, then beside a busy process pinned to one core.

    python benchmarks/bench_contention.py [--n-samples 75000]

A fit that shares its work well slows down at most in proportion to the cores it lost
(2 cores -> 1: at most about 2x).  Rows: GradientBoostingClassifier(100) and
DecisionTreeClassifier (full depth) on make_classification(n, 40 features, 20
informative), RandomForestClassifier(100, n_jobs=-1) and ExtraTreesClassifier(100,
n_jobs=-1) on the same; the busy process is
``yes > /dev/null`` pinned with ``taskset`` to core 0.  Each fit is timed once after a
warm-up.  Runs in the environment it is given: OpenMP's default wait policy (idle
workers spin a while), or ``OMP_WAIT_POLICY=PASSIVE python benchmarks/bench_contention.py``
for workers that sleep at once, the setting for a machine shared with other busy work.
"""

import argparse
import os
import subprocess
import time

import treeboost as tb
from sklearn.datasets import make_classification


def fit_time(make, X, y):
    make().fit(X[:2000], y[:2000])
    t = time.perf_counter()
    make().fit(X, y)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=75_000)
    args = ap.parse_args()
    X, y = make_classification(
        n_samples=args.n_samples, n_features=40, n_informative=20, random_state=0
    )
    # LightGBM's trees (31 leaves best-first, 20 rows a leaf, second-order gain)
    rows = {
        "GBDT(100)": lambda: tb.GradientBoostingClassifier(
            n_estimators=100,
            random_state=0,
            max_depth=None,
            max_leaf_nodes=31,
            min_samples_leaf=20,
            split_gain="hessian",
        ),
        "CART full depth": lambda: tb.DecisionTreeClassifier(random_state=0),
        "RandomForest(100)": lambda: tb.RandomForestClassifier(
            n_estimators=100, n_jobs=-1, random_state=0
        ),
        "ExtraTrees(100)": lambda: tb.ExtraTreesClassifier(
            n_estimators=100, n_jobs=-1, random_state=0
        ),
    }
    print(
        f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY')}, "
        f"{os.cpu_count()} cores, {args.n_samples} rows"
    )
    print("| fit | quiet (s) | one core busy (s) | slow-down |")
    print("|---|---|---|---|")
    for name, make in rows.items():
        quiet = fit_time(make, X, y)
        busy = subprocess.Popen("exec taskset -c 0 yes > /dev/null", shell=True)
        try:
            time.sleep(0.5)
            loaded = fit_time(make, X, y)
        finally:
            busy.kill()
            busy.wait()
        print(f"| {name} | {quiet:.2f} | {loaded:.2f} | {loaded / quiet:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
