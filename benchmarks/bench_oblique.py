"""Oblique trees and forests against the oblique learners on PyPI and scikit-learn's
axis-parallel ones, each library in a fresh process, on data sets that packages ship.

    python benchmarks/bench_oblique.py --quick      # 4 data sets, 20 trees
    python benchmarks/bench_oblique.py              # 8 data sets, 100 trees
    python benchmarks/bench_oblique.py --python treeple_sporf=/venvs/treeple/bin/python
    python benchmarks/bench_oblique.py --libs treeboost_sporf --sets fair,digits
    python benchmarks/bench_oblique.py --quick --libs oc1_package,treeboost_oc1 \
        --python oc1_package=/venvs/oc1/bin/python --fit-limit 60

Every learner sees the same 5 stratified folds (shuffled, seed 0), with its defaults
(``random_state=0``, one thread).  Printed per data set and learner: mean accuracy and
its spread over the folds, leaves (per tree), fit time (seconds per fold, the whole
forest).  A library that does not install or import is skipped with its reason.  With
``--fit-limit S`` a fit that runs past ``S`` seconds is stopped and its data set reported
"did not finish in S s" (processor seconds; the pure-Python OC1 package needs minutes
on the larger sets).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

FORESTS = ["treeboost_sporf", "treeple_sporf", "sklearn_rf", "rotation_forest"]
TREES = [
    "treeboost_oc1",
    "treeboost_cart",
    "sklearn_cart",
    "oc1_package",
    "obliquetree",
    "scikit_obliquetree",
]


def datasets(quick):
    """Real data sets shipped by installed packages (numeric attributes, class y)."""
    from sklearn import datasets as skd

    out = {}
    for name in ("iris", "wine", "breast_cancer", "digits"):
        X, y = getattr(skd, f"load_{name}")(return_X_y=True)
        out[name] = (X.astype(float), y)
    if quick:
        return out
    Xd, yd = skd.load_diabetes(return_X_y=True)
    out["diabetes>median"] = (Xd, (yd > np.median(yd)).astype(int))
    import pandas as pd

    # read from the package's folder, not through treeboost: an anchor's own environment
    # (see --python) need not have treeboost installed
    here = os.path.dirname(os.path.abspath(__file__))
    t = pd.read_csv(os.path.join(here, "..", "treeboost", "datasets", "data", "titanic.csv"))
    t = t.drop(columns="PassengerId")
    cols = [c for c in t.columns if t[c].dtype.kind in "if" and c.lower() != "survived"]
    Xt = t[cols].astype(float).to_numpy()
    sex = [c for c in t.columns if c.lower() == "sex"]
    if sex:
        Xt = np.column_stack([Xt, (t[sex[0]].astype(str) == "male").to_numpy(float)])
    Xt = np.where(np.isnan(Xt), np.nanmedian(Xt, axis=0), Xt)
    ycol = [c for c in t.columns if c.lower() == "survived"][0]
    out["titanic"] = (Xt, t[ycol].to_numpy().astype(int))
    try:
        import statsmodels.api as sm

        fair = sm.datasets.fair.load_pandas().data
        out["fair(affairs>0)"] = (
            fair.drop(columns="affairs").to_numpy(float),
            (fair["affairs"] > 0).to_numpy(int),
        )
        anes = sm.datasets.anes96.load_pandas().data
        out["anes96(vote)"] = (
            anes.drop(columns="vote").to_numpy(float),
            anes["vote"].to_numpy(int),
        )
    except ImportError:
        print("statsmodels not installed: its data sets left out", file=sys.stderr)
    return out


def make(lib, n_trees):
    """The learner of ``lib`` with its defaults, and how to count its leaves."""
    if lib == "treeboost_sporf":
        from treeboost.oblique import ObliqueRandomForestClassifier

        return ObliqueRandomForestClassifier(n_trees, random_state=0), lambda m: m.n_leaves_.mean()
    if lib == "treeple_sporf":
        from treeple import ObliqueRandomForestClassifier

        m = ObliqueRandomForestClassifier(n_estimators=n_trees, random_state=0)
        return m, lambda m: np.mean([e.get_n_leaves() for e in m.estimators_])
    if lib == "sklearn_rf":
        from sklearn.ensemble import RandomForestClassifier

        m = RandomForestClassifier(n_trees, random_state=0)
        return m, lambda m: np.mean([e.get_n_leaves() for e in m.estimators_])
    if lib == "rotation_forest":
        from rotation_forest import RotationForestClassifier

        m = RotationForestClassifier(n_estimators=n_trees, random_state=0)
        return m, lambda m: np.mean([e.get_n_leaves() for e in m.estimators_])
    if lib == "treeboost_oc1":
        from treeboost.oblique import ObliqueDecisionTreeClassifier

        return ObliqueDecisionTreeClassifier(random_state=0), lambda m: m.get_n_leaves()
    if lib == "treeboost_cart":
        from treeboost import DecisionTreeClassifier

        return DecisionTreeClassifier(random_state=0), lambda m: m.get_n_leaves()
    if lib == "sklearn_cart":
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(random_state=0), lambda m: m.get_n_leaves()
    if lib == "obliquetree":
        from obliquetree import Classifier

        return Classifier(random_state=0), lambda m: float("nan")
    if lib == "oc1_package":
        from oc1 import ObliqueDecisionTree

        return ObliqueDecisionTree(random_state=0), lambda m: m.get_n_leaves()
    if lib == "scikit_obliquetree":
        from scikit_obliquetree.HHCART import HouseHolderCART

        return HouseHolderCART(), lambda m: float("nan")
    raise ValueError(f"unknown lib {lib!r}")


class _FitTimeout(BaseException):
    """Past the fit limit (a BaseException: a library's ``except Exception`` around its
    own steps does not swallow it)."""


def _fit_within(model, X, y, limit):
    """``model.fit(X, y)``; ``_FitTimeout`` past ``limit`` seconds of processor time
    (0: no limit; processor time, so that a busy machine does not cut a fit short)."""
    if not limit:
        model.fit(X, y)
        return
    import signal

    def stop(signum, frame):
        raise _FitTimeout

    old = signal.signal(signal.SIGPROF, stop)
    # repeated each second past the limit, should a library still swallow one
    signal.setitimer(signal.ITIMER_PROF, limit, 1.0)
    try:
        model.fit(X, y)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def _chosen_sets(all_sets, sets):
    """The data sets named (a name or its start, e.g. ``fair``) in ``sets``."""
    if not sets:
        return all_sets
    keys = [k.strip() for k in sets.split(",") if k.strip()]
    return {n: v for n, v in all_sets.items() if any(n.startswith(k) for k in keys)}


def child(lib, quick, sets="", fit_limit=0.0):
    from sklearn.model_selection import StratifiedKFold

    n_trees = 20 if quick else 100
    try:
        make(lib, n_trees)
    except Exception as exc:  # noqa: BLE001  (a library that does not import: skipped)
        print(json.dumps({"lib": lib, "skipped": f"{type(exc).__name__}: {exc}"[:200]}))
        return
    rows = {}
    for name, (X, y) in _chosen_sets(datasets(quick), sets).items():
        folds = StratifiedKFold(5, shuffle=True, random_state=0).split(X, y)
        acc, leaves, fit = [], [], []
        try:
            for train, test in folds:
                model, count = make(lib, n_trees)
                t0 = time.perf_counter()
                _fit_within(model, X[train], y[train], fit_limit)
                fit.append(time.perf_counter() - t0)
                acc.append(float(np.mean(model.predict(X[test]) == y[test])))
                leaves.append(float(count(model)))
        except _FitTimeout:
            rows[name] = {"dnf": float(fit_limit)}
            # the rows so far, in case the run is stopped (the driver keeps the last line)
            print(json.dumps({"lib": lib, "rows": rows}), flush=True)
            continue
        rows[name] = {
            "acc": float(np.mean(acc)),
            "acc_sd": float(np.std(acc)),
            "leaves": float(np.mean(leaves)),
            # the first fold pays for numba's compilation in a fresh process: left out
            "fit_s": float(np.median(fit[1:])),
        }
        print(json.dumps({"lib": lib, "rows": rows}), flush=True)
    print(json.dumps({"lib": lib, "rows": rows}))


def table(results, libs, title):
    got = {r["lib"]: r for r in results}
    print(f"\n## {title}\n")
    for lib in libs:
        if lib in got and "skipped" in got[lib]:
            print(f"skipped {lib}: {got[lib]['skipped']}")
        elif lib not in got:
            print(f"skipped {lib}: failed to run (see stderr)")
    ran = [lib for lib in libs if lib in got and "rows" in got[lib]]
    if not ran:
        return
    names = list(got[ran[0]]["rows"])
    print("| data set | " + " | ".join(f"{lib} acc (sd) / leaves / fit s" for lib in ran) + " |")
    print("|---" * (len(ran) + 1) + "|")
    for name in names:
        cells = []
        for lib in ran:
            r = got[lib]["rows"].get(name)
            if r is None:
                cells.append("-")
            elif "dnf" in r:
                cells.append(f"did not finish in {r['dnf']:g} s")
            else:
                cells.append(
                    f"{r['acc']:.3f} ({r['acc_sd']:.3f}) / {r['leaves']:.0f} / {r['fit_s']:.3f}"
                )
        print(f"| {name} | " + " | ".join(cells) + " |")
    base = "treeboost_sporf" if "treeboost_sporf" in ran else "treeboost_oc1"
    for lib in ran:
        if lib == base:
            continue
        ratios = [
            got[lib]["rows"][n]["fit_s"] / got[base]["rows"][n]["fit_s"]
            for n in names
            if "fit_s" in got[lib]["rows"].get(n, {}) and "fit_s" in got[base]["rows"].get(n, {})
        ]
        if not ratios:
            continue
        print(f"\nfit time {lib} / {base}: geometric mean {np.exp(np.mean(np.log(ratios))):.2f}x")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib")
    ap.add_argument("--quick", nargs="?", const="1", default="0")
    ap.add_argument("--libs", help="comma-separated subset of the learners")
    ap.add_argument("--sets", default="", help="comma-separated data sets (a name's start)")
    ap.add_argument(
        "--fit-limit",
        type=float,
        default=0.0,
        help="seconds one fit may take (0: no limit); past it the data set is reported "
        "'did not finish'",
    )
    ap.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="LIB=PATH",
        help="the interpreter for one learner, e.g. treeple_sporf=/venvs/treeple/bin/python "
        "(treeple 0.10 imports only beside scikit-learn 1.6)",
    )
    args = ap.parse_args()
    quick = args.quick not in ("0", "False", "false", "")
    if args.lib:
        child(args.lib, quick, args.sets, args.fit_limit)
        return
    from _fresh import run_each

    chosen = args.libs.split(",") if args.libs else FORESTS + TREES
    pythons = dict(item.split("=", 1) for item in args.python)
    options = {"quick": int(quick), "sets": args.sets, "fit_limit": args.fit_limit}
    results = run_each(__file__, chosen, options, pythons=pythons)
    table(results, [lib for lib in FORESTS if lib in chosen], "Forests")
    table(results, [lib for lib in TREES if lib in chosen], "Single trees")


if __name__ == "__main__":
    main()
