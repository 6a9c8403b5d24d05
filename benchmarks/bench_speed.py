"""The speed table: every row of the speed goals, treeboost against its reference.

    python benchmarks/bench_speed.py [--quick] [--rows NAME,NAME] [--repeats 2]

Data: make_classification / make_regression(n, n_features=40, n_informative=20,
random_state=0), 75/25 split; 100 iterations or trees; library defaults otherwise (for
gradient boosting both sides use 31 leaves, learning rate 0.1).  Each library runs in a
fresh process of its own that imports nothing of the other (no OpenMP setting of one
reaches the other), with its defaults for threads (all cores).  Each fit is timed after
a warm-up on 2,000 rows, best of ``--repeats`` for the rows under 200k samples, once
above; forests and Extra-Trees with ``n_jobs=-1`` on both sides.  The ratio is
treeboost's fit time over the reference's (below 1: treeboost is faster); then
``predict`` on the held-out quarter (best of 3) and its ratio, and the held-out
accuracy or R^2 of both.  ``--quick`` leaves out the 1M-row row.
"""

import argparse
import json
import os
import platform
import subprocess
import sys

import numpy as np

from _timing import best_time


def _lgbm(**kw):
    def make():
        import lightgbm

        return lightgbm.LGBMClassifier(n_estimators=100, verbose=-1, **kw)

    return make


def _lgbm_reg(**kw):
    def make():
        import lightgbm

        return lightgbm.LGBMRegressor(n_estimators=100, verbose=-1, **kw)

    return make


#: LightGBM's trees (31 leaves best-first, 20 rows a leaf, second-order gain), as the
#: LightGBM rows they are timed against
LGBM_TREES = dict(max_depth=None, max_leaf_nodes=31, min_samples_leaf=20, split_gain="hessian")


def _gbc(**kw):
    def make():
        import treeboost as tb

        return tb.GradientBoostingClassifier(n_estimators=100, random_state=0, **LGBM_TREES, **kw)

    return make


def _gbr(**kw):
    def make():
        import treeboost as tb

        return tb.GradientBoostingRegressor(n_estimators=100, random_state=0, **LGBM_TREES, **kw)

    return make


def _est(module, name, *args, **kw):
    """A factory of ``module.name(*args, **kw)``, importing ``module`` when called."""

    def make():
        import importlib

        return getattr(importlib.import_module(module), name)(*args, **kw)

    return make


#: name: (task, n_samples, n_classes, treeboost, reference name, reference)
ROWS = {
    "gbdt-10k": ("clf", 10_000, 2, _gbc(), "LightGBM", _lgbm()),
    "gbdt-75k": ("clf", 75_000, 2, _gbc(), "LightGBM", _lgbm()),
    "gbdt-100k": ("clf", 100_000, 2, _gbc(), "LightGBM", _lgbm()),
    "gbdt-1m": ("clf", 1_000_000, 2, _gbc(), "LightGBM", _lgbm()),
    "gbdt-10class": ("clf", 75_000, 10, _gbc(), "LightGBM", _lgbm()),
    "gbdt-absolute": (
        "reg",
        75_000,
        0,
        _gbr(loss="absolute_error"),
        "LightGBM",
        _lgbm_reg(objective="l1"),
    ),
    "gbdt-huber": ("reg", 75_000, 0, _gbr(loss="huber"), "LightGBM", _lgbm_reg(objective="huber")),
    "gbdt-quantile": (
        "reg",
        75_000,
        0,
        _gbr(loss="quantile", alpha=0.9),
        "LightGBM",
        _lgbm_reg(objective="quantile", alpha=0.9),
    ),
    "random-forest": (
        "clf",
        100_000,
        2,
        _est("treeboost", "RandomForestClassifier", 100, n_jobs=-1, random_state=0),
        "scikit-learn",
        _est("sklearn.ensemble", "RandomForestClassifier", 100, n_jobs=-1, random_state=0),
    ),
    # 7,500 training rows: every feature has at most 16,384 distinct values, so the
    # default max_bins="auto" keeps exact thresholds (the 100,000-row rows bin to 255)
    "random-forest-10k": (
        "clf",
        10_000,
        2,
        _est("treeboost", "RandomForestClassifier", 100, n_jobs=-1, random_state=0),
        "scikit-learn",
        _est("sklearn.ensemble", "RandomForestClassifier", 100, n_jobs=-1, random_state=0),
    ),
    "extra-trees": (
        "clf",
        100_000,
        2,
        _est("treeboost", "ExtraTreesClassifier", 100, n_jobs=-1, random_state=0),
        "scikit-learn",
        _est("sklearn.ensemble", "ExtraTreesClassifier", 100, n_jobs=-1, random_state=0),
    ),
    "cart": (
        "clf",
        100_000,
        2,
        _est("treeboost", "DecisionTreeClassifier", random_state=0),
        "scikit-learn",
        _est("sklearn.tree", "DecisionTreeClassifier", random_state=0),
    ),
}


def _data(task, n, n_classes):
    from sklearn.datasets import make_classification, make_regression
    from sklearn.model_selection import train_test_split

    if task == "clf":
        X, y = make_classification(
            n_samples=n, n_features=40, n_informative=20, n_classes=n_classes, random_state=0
        )
    else:
        X, y = make_regression(
            n_samples=n, n_features=40, n_informative=20, noise=10.0, random_state=0
        )
    return train_test_split(X, y, test_size=0.25, random_state=0)


def _fit(make, Xtr, ytr, repeats):
    make().fit(Xtr[:2000], ytr[:2000])
    return best_time(lambda: make().fit(Xtr, ytr), repeats)


def _predict_time(model, Xte):
    return best_time(lambda: model.predict(Xte), 3)[0]


def _score(task, model, Xte, yte):
    pred = model.predict(Xte)
    if task == "clf":
        return float(np.mean(pred == yte))
    from sklearn.metrics import r2_score

    return float(r2_score(yte, pred))


def one(name, side, repeats):
    """Fit and time one side (``tb`` or ``ref``) of row ``name`` in this process; print
    its JSON line."""
    task, n, n_classes, make_tb, _, make_ref = ROWS[name]
    Xtr, Xte, ytr, yte = _data(task, n, n_classes)
    t, model = _fit(make_tb if side == "tb" else make_ref, Xtr, ytr, repeats)
    print(
        json.dumps(
            {"fit": t, "predict": _predict_time(model, Xte), "score": _score(task, model, Xte, yte)}
        ),
        flush=True,
    )


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _run_side(name, side, repeats):
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--one", name, side, "--repeats", str(repeats)],
        capture_output=True,
        text=True,
    )
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode or not lines:
        raise RuntimeError(f"{name} {side}: {(out.stderr or out.stdout)[-500:]}")
    return json.loads(lines[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="leave out the 1M-row row")
    ap.add_argument("--rows", default=None, help="comma-separated names of " + ", ".join(ROWS))
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--one", nargs=2, metavar=("ROW", "SIDE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        one(args.one[0], args.one[1], args.repeats)
        return
    names = (
        args.rows.split(",")
        if args.rows
        else [r for r in ROWS if not (args.quick and r == "gbdt-1m")]
    )
    unknown = sorted(set(names) - set(ROWS))
    if unknown:
        ap.error(f"unknown rows {unknown}; choose from {list(ROWS)}")
    print(f"{_cpu_name()}, {os.cpu_count()} cores, each library alone in a fresh process")
    print(
        "| task | rows | treeboost fit (s) | reference | reference fit (s) | ratio | "
        "predict (s, tb / ref) | predict ratio | score (tb vs ref) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name in names:
        _, n, _, _, ref_name, _ = ROWS[name]
        repeats = args.repeats if n < 200_000 else 1
        a, b = (_run_side(name, side, repeats) for side in ("tb", "ref"))
        print(
            f"| {name} | {n:,} | {a['fit']:.2f} | {ref_name} | {b['fit']:.2f} | "
            f"{a['fit'] / b['fit']:.2f}x | {a['predict']:.3f} / {b['predict']:.3f} | "
            f"{a['predict'] / b['predict']:.2f}x | "
            f"{a['score']:.4f} vs {b['score']:.4f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
