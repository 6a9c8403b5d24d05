"""Single-tree benchmark: treeboost against scikit-learn in the same run.

    python benchmarks/bench_tree.py [--n-samples 100000] [--repeats 3]

Task: make_classification(n_samples, n_features=40, n_informative=20, random_state=0),
75/25 split, fully grown trees.  Prints fit and predict times (best of ``--repeats``
after one warm-up fit), test accuracy, and the ratios sklearn / treeboost; then the
one-off numba compilation cost, cold (empty cache) and warm (on-disk cache), measured
in fresh subprocesses.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier as SkTree

import numba
from treeboost import DecisionTreeClassifier


def best_time(fn, repeats):
    times = []
    out = None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


FIRST_CALL = """
import time, numpy as np
t = time.perf_counter()
from treeboost import DecisionTreeClassifier
X = np.random.RandomState(0).normal(size=(200, 5)); y = (X[:, 0] > 0).astype(int)
DecisionTreeClassifier().fit(X, y).predict(X)
print(time.perf_counter() - t)
"""


def first_call_cost():
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        run = lambda: float(
            subprocess.run(
                [sys.executable, "-c", FIRST_CALL],
                env=env,  # noqa
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()[-1]
        )
        return run(), run()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-compile", action="store_true", help="skip the compilation timing")
    args = ap.parse_args()

    X, y = make_classification(
        n_samples=args.n_samples, n_features=40, n_informative=20, random_state=0
    )
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)
    print(
        f"make_classification {args.n_samples} x 40, train {len(ytr)}, test {len(yte)}; "
        f"numba threads {numba.get_num_threads()}, cores {os.cpu_count()}"
    )

    models = [
        ("treeboost (max_bins=255)", lambda: DecisionTreeClassifier(random_state=0)),
        (
            "treeboost (exact, max_bins=None)",
            lambda: DecisionTreeClassifier(max_bins=None, random_state=0),
        ),
        ("scikit-learn", lambda: SkTree(random_state=0)),
    ]
    rows = []
    for name, make in models:
        make().fit(Xtr[:2000], ytr[:2000])  # warm-up (compilation, caches)
        fit_t, model = best_time(lambda: make().fit(Xtr, ytr), args.repeats)
        pred_t, pred = best_time(lambda: model.predict(Xte), args.repeats)
        rows.append((name, fit_t, pred_t, np.mean(pred == yte), model.get_n_leaves()))
    sk_fit, sk_pred = rows[-1][1], rows[-1][2]
    print(
        "\n| model | fit (s) | predict (s) | test accuracy | leaves | fit speed-up vs sklearn "
        "| predict speed-up |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, f, p, acc, leaves in rows:
        print(
            f"| {name} | {f:.3f} | {p:.4f} | {acc:.4f} | {leaves} | {sk_fit / f:.1f}x "
            f"| {sk_pred / p:.1f}x |"
        )
    if not args.no_compile:
        cold, warm = first_call_cost()
        print(
            f"\nfirst fit+predict in a fresh process (import included): cold cache "
            f"{cold:.1f} s, warm on-disk cache {warm:.2f} s"
        )


if __name__ == "__main__":
    main()
