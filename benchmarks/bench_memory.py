"""Peak memory of fitting on a large float32 matrix: treeboost, LightGBM, scikit-learn.

    python benchmarks/bench_memory.py [--rows 2000000] [--features 50]
                                      [--gbdt-iters 20] [--forest-trees 10]

Each fit runs in a fresh subprocess (see ``_memory.py``): after the data is built and the
same model has been fitted on 200 rows (which loads every library, numba's compiled
kernels included), the process's high-water mark is reset and the full fit runs.  The
table gives the fit's own peak (high-water mark during the fit minus the resident size
before it), the whole process's peak RSS (interpreter, libraries, data, fit), and the fit
time.  X is float32 (``rows x features x 4`` bytes) and is never copied to float64 by
treeboost.  The forests use ``max_depth=12`` and few trees to bound the time (memory, not
speed, is measured here).
"""

import argparse

from _memory import fit_memory

DATA = """
import numpy as np
rng = np.random.default_rng(0)
X = rng.standard_normal(({rows}, {features}), dtype=np.float32)
y = (X[:, :5].sum(axis=1) + rng.standard_normal({rows}, dtype=np.float32) > 0).astype(np.int8)
"""

#: name: (import, expression building the unfitted model)
MODELS = {
    "treeboost GradientBoostingClassifier": (
        "import treeboost",
        "treeboost.GradientBoostingClassifier(n_estimators={gbdt_iters}, "
        "max_depth=None, max_leaf_nodes=31, min_samples_leaf=20, split_gain='hessian')",
    ),
    "LightGBM LGBMClassifier": (
        "import lightgbm",
        "lightgbm.LGBMClassifier(n_estimators={gbdt_iters}, verbose=-1)",
    ),
    "scikit-learn HistGradientBoostingClassifier": (
        "import sklearn.ensemble",
        "sklearn.ensemble.HistGradientBoostingClassifier(max_iter={gbdt_iters}, "
        "early_stopping=False)",
    ),
    "treeboost RandomForestClassifier": (
        "import treeboost",
        "treeboost.RandomForestClassifier(n_estimators={forest_trees}, max_depth=12, "
        "n_jobs=-1, random_state=0)",
    ),
    "scikit-learn RandomForestClassifier": (
        "import sklearn.ensemble",
        "sklearn.ensemble.RandomForestClassifier(n_estimators={forest_trees}, max_depth=12, "
        "n_jobs=-1, random_state=0)",
    ),
    "LightGBM boosting_type='rf'": (
        "import lightgbm",
        "lightgbm.LGBMClassifier(boosting_type='rf', n_estimators={forest_trees}, "
        "max_depth=12, num_leaves=4096, bagging_freq=1, bagging_fraction=0.632, "
        "feature_fraction=0.15, verbose=-1)",
    ),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--features", type=int, default=50)
    ap.add_argument("--gbdt-iters", type=int, default=20)
    ap.add_argument("--forest-trees", type=int, default=10)
    ap.add_argument("--only", nargs="*", help="names (substrings) of the models to run")
    args = ap.parse_args()
    fmt = vars(args)
    x_mb = args.rows * args.features * 4 / 2**20
    print(
        f"X: {args.rows} x {args.features} float32 = {x_mb:.0f} MiB; GBDT {args.gbdt_iters} "
        f"iterations, forests {args.forest_trees} trees of depth <= 12\n"
    )
    print("| fit | fit peak (MiB) | process peak RSS (MiB) | fit time (s) |\n|---|---|---|---|")
    for name, (imp, make) in MODELS.items():
        if args.only and not any(o in name for o in args.only):
            continue
        try:
            m = fit_memory(DATA.format(**fmt) + imp, make.format(**fmt))
        except RuntimeError as exc:
            print(f"| {name} | failed: {exc} | | |", flush=True)
            continue
        print(
            f"| {name} | {m['fit_peak']:.0f} | {m['process_peak']:.0f} | {m['seconds']:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
