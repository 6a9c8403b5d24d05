"""Peak memory of fitting on a large float32 matrix: treeboost, LightGBM, scikit-learn.

    python benchmarks/bench_memory.py [--rows 2000000] [--features 50]
                                      [--gbdt-iters 20] [--forest-trees 10]

Each fit runs in a fresh subprocess under ``/usr/bin/time -v``; the table gives its
"Maximum resident set size", the same for a process that only builds the data (the
baseline: Python, the libraries and X itself), the difference, and the fit time.  X is
float32 (``rows x features x 4`` bytes) and is never copied to float64 by treeboost.
The forests use ``max_depth=12`` and few trees to bound the time (memory, not speed, is
measured here).
"""
import argparse
import re
import subprocess
import sys
import textwrap

DATA = """
import time, numpy as np
rng = np.random.default_rng(0)
X = rng.standard_normal(({rows}, {features}), dtype=np.float32)
y = (X[:, :5].sum(axis=1) + rng.standard_normal({rows}, dtype=np.float32) > 0).astype(np.int8)
t = time.perf_counter()
"""

MODELS = {
    "baseline (data only)": "",
    "treeboost GradientBoostingClassifier": """
from treeboost import GradientBoostingClassifier
GradientBoostingClassifier(n_estimators={gbdt_iters}).fit(X, y)""",
    "LightGBM LGBMClassifier": """
import lightgbm as lgb
lgb.LGBMClassifier(n_estimators={gbdt_iters}, verbose=-1).fit(X, y)""",
    "scikit-learn HistGradientBoostingClassifier": """
from sklearn.ensemble import HistGradientBoostingClassifier
HistGradientBoostingClassifier(max_iter={gbdt_iters}, early_stopping=False).fit(X, y)""",
    "treeboost RandomForestClassifier": """
from treeboost import RandomForestClassifier
RandomForestClassifier(n_estimators={forest_trees}, max_depth=12, n_jobs=-1,
                       random_state=0).fit(X, y)""",
    "scikit-learn RandomForestClassifier": """
from sklearn.ensemble import RandomForestClassifier
RandomForestClassifier(n_estimators={forest_trees}, max_depth=12, n_jobs=-1,
                       random_state=0).fit(X, y)""",
    "LightGBM boosting_type='rf'": """
import lightgbm as lgb
lgb.LGBMClassifier(boosting_type="rf", n_estimators={forest_trees}, max_depth=12,
                   num_leaves=4096, bagging_freq=1, bagging_fraction=0.632,
                   feature_fraction=0.15, verbose=-1).fit(X, y)""",
}


def measure(code, sizes):
    script = DATA.format(**sizes) + textwrap.dedent(code) + "\nprint('FIT_SECONDS', time.perf_counter() - t)\n"
    proc = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-c", script],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return None, None, proc.stderr.strip().splitlines()[-1][:120]
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)[1])
    secs = float(re.search(r"FIT_SECONDS ([\d.eE+-]+)", proc.stdout)[1])
    return peak_kb / 1024, secs, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--features", type=int, default=50)
    ap.add_argument("--gbdt-iters", type=int, default=20)
    ap.add_argument("--forest-trees", type=int, default=10)
    ap.add_argument("--only", nargs="*", help="names (substrings) of the models to run")
    args = ap.parse_args()
    fmt = vars(args)
    x_mb = args.rows * args.features * 4 / 2 ** 20
    print(f"X: {args.rows} x {args.features} float32 = {x_mb:.0f} MiB; GBDT {args.gbdt_iters} "
          f"iterations, forests {args.forest_trees} trees of depth <= 12\n")
    print("| fit | peak RSS (MiB) | above baseline (MiB) | fit time (s) |\n|---|---|---|---|")
    base = None
    for name, code in MODELS.items():
        if args.only and name != "baseline (data only)" and not any(o in name for o in args.only):
            continue
        peak, secs, err = measure(code.format(**fmt), fmt)
        if err:
            print(f"| {name} | failed: {err} | | |")
            continue
        if base is None:
            base = peak
        print(f"| {name} | {peak:.0f} | {peak - base:.0f} | {secs:.1f} |", flush=True)


if __name__ == "__main__":
    main()
