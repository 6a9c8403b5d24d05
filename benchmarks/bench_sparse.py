"""Sparse X benchmark: fit time, fit memory and predict time on one CSR matrix,
treeboost against scikit-learn (and LightGBM for gradient boosting), each row in a fresh
process.

    python benchmarks/bench_sparse.py [--n-samples 100000] [--n-features 1000]
                                      [--density 0.01] [--rows forest,boosting,shape]

Task: a CSR matrix of ``n_samples x n_features`` with ``density * n_samples *
n_features`` values drawn at random places (uniform in [0, 1); the few places drawn
twice are summed), and ``y = X[:, :k] @ w > 0`` with ``w`` of random sign on the first
``k = min(n_features, 1 / density)`` features (about one informative value a row).
RandomForestClassifier(n_estimators=20, n_jobs=2, max_depth=20) and gradient boosting
with 50 trees: treeboost's defaults (31 leaves, ``min_samples_leaf=20``) against
LightGBM's LGBMClassifier(n_estimators=50), and treeboost with scikit-learn's tree shape
(depth 3, ``min_samples_leaf=1``) against scikit-learn's GradientBoostingClassifier.

Each row runs in its own process (benchmarks/_memory.py): the data, a warm-up fit on
2,000 rows (compilation, thread pools), then the measured fit.  "fit peak" is the
resident memory the fit adds at its worst moment; the data itself (and the process) is
not in it.  Dense codes of the matrix would take ``n_samples x n_features`` bytes,
printed above the table.  The accuracy is on the training rows: it shows that each
model learned the rule.
"""

import argparse
import os

from _memory import fit_memory

DATA = """
import numpy as np, scipy.sparse as sp
n, d, density = {n}, {d}, {density}
rng = np.random.default_rng(0)
nnz = int(density * n * d)
X = sp.csr_matrix((rng.random(nnz), (rng.integers(0, n, nnz), rng.integers(0, d, nnz))),
                  shape=(n, d))
k = min(d, int(round(1 / density)))
w = np.random.RandomState(0).choice([-1.0, 1.0], size=k)
y = (X[:, :k] @ w > 0).astype(int)
{imports}
"""

AFTER = """
_model.predict(X[:100])             # compiles the predict kernels
_t = time.perf_counter()
_pred = _model.predict(X)
_extra['predict'] = time.perf_counter() - _t
_extra['accuracy'] = float(np.mean(_pred == y))
"""

ROWS = {
    "forest": [
        (
            "treeboost RandomForestClassifier(20, max_depth=20)",
            "import treeboost as tb",
            "tb.RandomForestClassifier(20, max_depth=20, n_jobs=2, random_state=0)",
        ),
        (
            "scikit-learn RandomForestClassifier(20, max_depth=20)",
            "from sklearn.ensemble import RandomForestClassifier",
            "RandomForestClassifier(20, max_depth=20, n_jobs=2, random_state=0)",
        ),
    ],
    "boosting": [
        (
            "treeboost HistGradientBoostingClassifier(max_iter=50) (31 leaves)",
            "import treeboost as tb",
            "tb.HistGradientBoostingClassifier(max_iter=50, early_stopping=False, random_state=0)",
        ),
        (
            "LightGBM LGBMClassifier(n_estimators=50) (31 leaves)",
            "import lightgbm as lgb",
            "lgb.LGBMClassifier(n_estimators=50, verbose=-1, random_state=0)",
        ),
    ],
    "shape": [
        (
            "treeboost GradientBoostingClassifier(50, max_depth=3)",
            "import treeboost as tb",
            "tb.GradientBoostingClassifier(n_estimators=50, max_depth=3, max_leaf_nodes=None, "
            "min_samples_leaf=1, random_state=0)",
        ),
        (
            "scikit-learn GradientBoostingClassifier(50) (depth 3)",
            "from sklearn.ensemble import GradientBoostingClassifier",
            "GradientBoostingClassifier(n_estimators=50, random_state=0)",
        ),
    ],
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=100_000)
    ap.add_argument("--n-features", type=int, default=1000)
    ap.add_argument("--density", type=float, default=0.01)
    ap.add_argument("--rows", default="forest,boosting,shape")
    args = ap.parse_args()
    n, d = args.n_samples, args.n_features
    print(
        f"CSR {n:,} x {d:,}, density {args.density}, "
        f"{int(args.density * n * d):,} values; dense codes would take "
        f"{n * d / 2**20:,.0f} MiB; {os.cpu_count()} cores"
    )
    print("| model | fit (s) | fit / treeboost | fit peak (MiB) | predict (s) | train accuracy |")
    print("|---|---|---|---|---|---|")
    for group in args.rows.split(","):
        base = None
        for name, imports, make in ROWS[group]:
            data = DATA.format(n=n, d=d, density=args.density, imports=imports)
            try:
                m = fit_memory(data, make, warm_rows=2000, after_src=AFTER)
            except RuntimeError as e:
                print(f"| {name} | failed: {e} | | | | |", flush=True)
                continue
            base = base or m["seconds"]
            print(
                f"| {name} | {m['seconds']:.2f} | {m['seconds'] / base:.2f} | "
                f"{m['fit_peak']:,.0f} | {m['predict']:.2f} | {m['accuracy']:.4f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
