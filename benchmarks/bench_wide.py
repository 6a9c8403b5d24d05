"""Wide data: few rows, many columns (issue 59).  Fit time and peak memory of a
decision tree, a random forest of 5 trees and 5 boosting rounds, treeboost against
scikit-learn (and LightGBM when it is installed), each fit in a fresh process.

    python benchmarks/bench_wide.py [--shapes 10x100000,1000x20000]
                                    [--models tree,forest,boosting]
                                    [--libs treeboost,sklearn,lightgbm]

Task: ``X = rng.normal(size=(rows, cols))`` (float64), ``y`` alternating 0 and 1.  Each
run imports one library, builds the data, fits once on the first 100 columns (a
warm-up: compilation, kernel cache, thread pools) and then the measured fit.  "peak" is
the process's peak resident memory (``resource.getrusage``, the child's own), "added"
what the measured fit raised it by above the peak before it (data, imports and the
warm-up are not in it); the data's size is printed with each row.
"""

import argparse
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

MODELS = {
    "treeboost": {
        "tree": ("treeboost", "DecisionTreeClassifier", {"random_state": 0}),
        "forest": (
            "treeboost",
            "RandomForestClassifier",
            {"n_estimators": 5, "random_state": 0},
        ),
        "boosting": (
            "treeboost",
            "HistGradientBoostingClassifier",
            {"max_iter": 5, "random_state": 0, "early_stopping": False},
        ),
    },
    "sklearn": {
        "tree": ("sklearn.tree", "DecisionTreeClassifier", {"random_state": 0}),
        "forest": (
            "sklearn.ensemble",
            "RandomForestClassifier",
            {"n_estimators": 5, "random_state": 0},
        ),
        "boosting": (
            "sklearn.ensemble",
            "HistGradientBoostingClassifier",
            {"max_iter": 5, "random_state": 0, "early_stopping": False},
        ),
    },
    "lightgbm": {
        # LightGBM grows no single CART tree; its random forest and boosting stand in
        "forest": (
            "lightgbm",
            "LGBMClassifier",
            {
                "boosting_type": "rf",
                "n_estimators": 5,
                "subsample": 0.632,
                "subsample_freq": 1,
                "min_child_samples": 1,
                "verbose": -1,
            },
        ),
        "boosting": (
            "lightgbm",
            "LGBMClassifier",
            {"n_estimators": 5, "min_child_samples": 1, "verbose": -1},
        ),
    },
}


def _peak_mib():
    # ru_maxrss is in KiB on Linux, bytes on macOS
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20


def child(lib, model, rows, cols):
    """One fit in this process; prints one JSON line."""
    import importlib

    import numpy as np

    module, name, params = MODELS[lib][model]
    cls = getattr(importlib.import_module(module), name)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, cols))
    y = np.resize([0, 1], rows)
    cls(**params).fit(np.ascontiguousarray(X[:, :100]), y)
    before = _peak_mib()
    t = time.perf_counter()
    cls(**params).fit(X, y)
    fit = time.perf_counter() - t
    peak = _peak_mib()
    print(
        json.dumps(
            {
                "lib": lib,
                "model": model,
                "shape": f"{rows}x{cols}",
                "data_mib": round(X.nbytes / 2**20, 1),
                "fit_s": round(fit, 3),
                "peak_mib": round(peak, 1),
                "added_mib": round(peak - before, 1),
            }
        ),
        flush=True,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", default="10x100000,1000x20000")
    parser.add_argument("--models", default="tree,forest,boosting")
    parser.add_argument("--libs", default="treeboost,sklearn,lightgbm")
    parser.add_argument("--lib", help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    parser.add_argument("--rows", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--cols", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.lib:
        return child(args.lib, args.model, args.rows, args.cols)

    import importlib.util

    from _fresh import run_each

    libs = [
        lib
        for lib in args.libs.split(",")
        if importlib.util.find_spec("lightgbm" if lib == "lightgbm" else lib) is not None
    ]
    rows = []
    for shape in args.shapes.split(","):
        n, d = (int(v) for v in shape.lower().split("x"))
        for model in args.models.split(","):
            with_model = [lib for lib in libs if model in MODELS[lib]]
            rows += run_each(
                os.path.abspath(__file__),
                with_model,
                {"model": model, "rows": n, "cols": d},
            )
    print()
    print("| shape | model | library | fit (s) | peak (MiB) | added (MiB) | data (MiB) |")
    print("|---|---|---|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['shape']} | {r['model']} | {r['lib']} | {r['fit_s']:.2f} | "
            f"{r['peak_mib']:.0f} | {r['added_mib']:.0f} | {r['data_mib']:.0f} |"
        )


if __name__ == "__main__":
    main()
