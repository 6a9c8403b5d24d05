"""Fingerprints of the estimators' default models: a digest of each one's predictions.

A change that should keep every model as it is (a refactoring, a new option that is off
by default) must leave these digests alone.  ``--save`` records them for this machine's
CPU in ``tests/data/model_fingerprints.json``; ``--check`` (the default) recomputes and
lists the estimators whose predictions changed.  The digests are bit-exact, so they are
compared only on the CPU they were recorded on (:mod:`tests.test_model_fingerprints`).

Run: ``python tests/fingerprints.py [--save | --check]``.
"""

import argparse
import hashlib
import json
import platform
import sys
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification, make_regression

import treeboost as tb

FILE = Path(__file__).parent / "data" / "model_fingerprints.json"


def _data():
    Xc, yc = make_classification(
        n_samples=600, n_features=8, n_informative=5, n_classes=3, random_state=0
    )
    Xr, yr = make_regression(n_samples=600, n_features=8, noise=5.0, random_state=0)
    rng = np.random.default_rng(0)
    for X in (Xc, Xr):
        X[rng.random(X.shape) < 0.05] = np.nan
    cat = rng.integers(0, 6, size=600).astype(float)
    Xc = np.column_stack([Xc, cat])
    Xr = np.column_stack([Xr, cat])
    Xk = np.column_stack([np.nan_to_num(Xc[:, :8]), cat])
    return Xc, yc, Xr, yr, Xk


def _models():
    cat = [8]
    return {
        "DecisionTreeClassifier": (tb.DecisionTreeClassifier(random_state=0), "c"),
        "DecisionTreeRegressor": (tb.DecisionTreeRegressor(random_state=0), "r"),
        "ExtraTreeClassifier": (tb.ExtraTreeClassifier(random_state=0), "c"),
        "ExtraTreeRegressor": (tb.ExtraTreeRegressor(random_state=0), "r"),
        "RandomForestClassifier": (
            tb.RandomForestClassifier(n_estimators=20, random_state=0),
            "c",
        ),
        "RandomForestRegressor": (
            tb.RandomForestRegressor(n_estimators=20, random_state=0),
            "r",
        ),
        "ExtraTreesClassifier": (tb.ExtraTreesClassifier(n_estimators=20, random_state=0), "c"),
        "ExtraTreesRegressor": (tb.ExtraTreesRegressor(n_estimators=20, random_state=0), "r"),
        "BaggingClassifier": (tb.BaggingClassifier(random_state=0), "c"),
        "BaggingRegressor": (tb.BaggingRegressor(random_state=0), "r"),
        "AdaBoostClassifier": (tb.AdaBoostClassifier(random_state=0), "c"),
        "AdaBoostRegressor": (tb.AdaBoostRegressor(random_state=0), "r"),
        "GradientBoostingClassifier": (
            tb.GradientBoostingClassifier(n_estimators=30, random_state=0),
            "c",
        ),
        "GradientBoostingRegressor": (
            tb.GradientBoostingRegressor(n_estimators=30, random_state=0),
            "r",
        ),
        "HistGradientBoostingClassifier": (
            tb.HistGradientBoostingClassifier(
                max_iter=30, categorical_features=cat, random_state=0
            ),
            "c",
        ),
        "HistGradientBoostingRegressor": (
            tb.HistGradientBoostingRegressor(max_iter=30, categorical_features=cat, random_state=0),
            "r",
        ),
        "DecisionTreeClassifier-categorical": (
            tb.DecisionTreeClassifier(categorical_features=cat, random_state=0),
            "c",
        ),
        "RandomForestClassifier-categorical": (
            tb.RandomForestClassifier(n_estimators=20, categorical_features=cat, random_state=0),
            "c",
        ),
        "ObliqueDecisionTreeClassifier": (tb.ObliqueDecisionTreeClassifier(random_state=0), "k"),
        "ObliqueRandomForestClassifier": (
            tb.ObliqueRandomForestClassifier(n_estimators=10, random_state=0),
            "k",
        ),
    }


def compute():
    """Return ``{estimator: sha256 of its predictions' bytes}`` on fixed data."""
    Xc, yc, Xr, yr, Xk = _data()
    out = {}
    for name, (model, kind) in _models().items():
        X, y = {"c": (Xc, yc), "r": (Xr, yr), "k": (Xk, yc)}[kind]
        model.fit(X, y)
        pred = model.predict_proba(X) if hasattr(model, "predict_proba") else model.predict(X)
        pred = np.ascontiguousarray(pred, dtype=np.float64)
        out[name] = hashlib.sha256(pred.tobytes()).hexdigest()[:16]
    return out


def cpu():
    """The CPU the digests belong to (numba compiles for the host's CPU)."""
    import numba

    return f"{platform.machine()}-{numba.config.CPU_NAME or ''}-{_llvm_cpu()}"


def _llvm_cpu():
    import llvmlite.binding as llvm

    return llvm.get_host_cpu_name()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args(argv)
    digests = compute()
    if args.save:
        FILE.parent.mkdir(exist_ok=True)
        FILE.write_text(json.dumps({"cpu": cpu(), "digests": digests}, indent=1) + "\n")
        print(f"saved {len(digests)} digests for {cpu()}")
        return 0
    saved = json.loads(FILE.read_text())
    changed = [n for n, d in digests.items() if saved["digests"].get(n) != d]
    for n in changed:
        print(f"CHANGED {n}")
    print(f"{len(digests) - len(changed)} of {len(digests)} models unchanged")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
