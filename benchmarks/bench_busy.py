"""Small fits on a busy machine: the Titanic's 891 rows, each library alone in a fresh
process, on a quiet machine and beside a busy process pinned to one core.

    python benchmarks/bench_busy.py [--repeats 7] [--libs treeboost,sklearn,lightgbm]
                                    [--threads N] [--out benchmarks/results/busy]

Rows: HistGradientBoostingClassifier(max_iter=100), GradientBoostingClassifier(100) and
RandomForestClassifier(100) fitted on all 891 passengers (Pclass, Sex, Age, SibSp,
Parch, Fare, Embarked), and each model's prediction of the last 179 rows (a 20 % test
split's size); LightGBM's ``LGBMClassifier(n_estimators=100)`` stands beside the
histogram boosting and its ``boosting_type="rf"`` beside the forest.  The busy process
is ``yes > /dev/null`` pinned with ``taskset`` to core 0, started before the library's
process and ended after it.  Each step runs once to warm up (compiled kernels loaded,
caches filled), then ``--repeats`` times; the table gives the min and the median of the
wall time and of the process's CPU time (every thread's), and the busy run's median
over the quiet one's.  ``--threads N`` runs every library on N threads (numba's count,
threadpoolctl's limit, LightGBM's ``n_jobs``); by default each uses its own default
(every core).

The small fits of a library whose parallel regions wait at each barrier for a thread
that shares its core with the busy process slow down by far more than the core lost;
one that runs such small work on one thread does not.  On a machine other work shares
("quiet" then is not), run it several times and read the medians with the load printed
at the top.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _fresh import run_each  # noqa: E402

LIBS = ("treeboost", "sklearn", "lightgbm")
#: the last rows, predicted: a 20 % test split of 891
N_PREDICT = 179


def titanic(lib):
    """The Titanic's features as ``lib`` takes them: treeboost its categorical columns
    and missing ages as they are; scikit-learn's GradientBoosting and forest take finite
    numbers only, so scikit-learn and LightGBM get the categories as codes (a missing
    Embarked -1) and a missing age as -1, as ``examples/titanic_gbdt.py`` does."""
    from treeboost.datasets import load_titanic

    data = load_titanic()
    X = data.data[["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]]
    if lib != "treeboost":
        X = X.assign(
            Sex=X["Sex"].cat.codes, Embarked=X["Embarked"].cat.codes, Age=X["Age"].fillna(-1)
        ).to_numpy(dtype=float)
    return X, data.target.to_numpy()


def models(lib, threads):
    """The rows' unfitted models of ``lib``: name -> factory."""
    if lib == "treeboost":
        import treeboost as tb

        return {
            "HGB(max_iter=100)": lambda: tb.HistGradientBoostingClassifier(
                max_iter=100, random_state=0
            ),
            "GB(100)": lambda: tb.GradientBoostingClassifier(n_estimators=100, random_state=0),
            "RF(100)": lambda: tb.RandomForestClassifier(n_estimators=100, random_state=0),
        }
    if lib == "sklearn":
        from sklearn.ensemble import (
            GradientBoostingClassifier,
            HistGradientBoostingClassifier,
            RandomForestClassifier,
        )

        return {
            "HGB(max_iter=100)": lambda: HistGradientBoostingClassifier(
                max_iter=100, random_state=0
            ),
            "GB(100)": lambda: GradientBoostingClassifier(n_estimators=100, random_state=0),
            "RF(100)": lambda: RandomForestClassifier(n_estimators=100, random_state=0),
        }
    from lightgbm import LGBMClassifier

    jobs = {} if threads is None else {"n_jobs": threads}
    return {
        "HGB(max_iter=100)": lambda: LGBMClassifier(
            n_estimators=100, verbose=-1, random_state=0, **jobs
        ),
        # a random forest of LightGBM's: bagged rows and sampled features a tree
        "RF(100)": lambda: LGBMClassifier(
            boosting_type="rf",
            n_estimators=100,
            subsample=0.632,
            subsample_freq=1,
            colsample_bytree=0.6,
            verbose=-1,
            random_state=0,
            **jobs,
        ),
    }


def timed(fn, repeats):
    """``fn()`` once to warm up, then ``repeats`` times: the (wall, CPU) seconds of each."""
    fn()
    out = []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        out.append((time.perf_counter() - wall, time.process_time() - cpu))
    return out


def child(lib, repeats, threads, mode):
    """One library's rows in this process: print one JSON line of their times."""
    limit = None
    if threads is not None:
        if lib == "treeboost":
            import numba

            numba.set_num_threads(threads)
        from threadpoolctl import threadpool_limits

        limit = threadpool_limits(threads)
    X, y = titanic(lib)
    Xp = X.iloc[-N_PREDICT:] if hasattr(X, "iloc") else X[-N_PREDICT:]
    steps = {}
    for name, make in models(lib, threads).items():
        steps[f"{name} fit"] = timed(lambda make=make: make().fit(X, y), repeats)
        model = make().fit(X, y)
        steps[f"{name} predict {N_PREDICT}"] = timed(lambda m=model: m.predict(Xp), repeats)
    del limit
    print(json.dumps({"lib": lib, "mode": mode, "threads": threads, "steps": steps}), flush=True)


def _summary(times):
    wall = [w for w, _ in times]
    cpu = [c for _, c in times]
    return min(wall), statistics.median(wall), min(cpu), statistics.median(cpu)


def table(rows):
    """The markdown table of the quiet and busy runs of every library."""
    by = {(r["lib"], r["mode"]): r for r in rows}
    lines = [
        "| step | library | quiet wall min / median (s) | quiet CPU median (s) "
        "| busy wall min / median (s) | busy CPU median (s) | busy / quiet (medians) |",
        "|---|---|---|---|---|---|---|",
    ]
    steps = []
    for r in rows:
        steps += [s for s in r["steps"] if s not in steps]
    for step in steps:
        for lib in LIBS:
            quiet, busy = by.get((lib, "quiet")), by.get((lib, "busy"))
            if quiet is None or busy is None or step not in quiet["steps"]:
                continue
            q, b = _summary(quiet["steps"][step]), _summary(busy["steps"][step])
            lines.append(
                f"| {step} | {lib} | {q[0]:.3f} / {q[1]:.3f} | {q[3]:.3f} | "
                f"{b[0]:.3f} / {b[1]:.3f} | {b[3]:.3f} | {b[1] / q[1]:.2f}x |"
            )
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", choices=LIBS, help="(internal) run one library's rows here")
    ap.add_argument("--mode", default="quiet", help="(internal) the label of a run")
    ap.add_argument("--libs", default=",".join(LIBS))
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--threads", type=int, default=0, help="0: each library's default")
    ap.add_argument("--out", default=None, help="folder for results.jsonl")
    args = ap.parse_args()
    threads = args.threads or None
    if args.lib:
        child(args.lib, args.repeats, threads, args.mode)
        return
    libs = [lib for lib in args.libs.split(",") if lib]
    if "lightgbm" in libs:
        try:
            import lightgbm  # noqa: F401
        except ImportError:
            libs.remove("lightgbm")
            print("lightgbm is not installed: left out", file=sys.stderr)
    with open("/proc/loadavg") as f:
        load = f.read().split()
    print(
        f"{os.cpu_count()} cores, threads={threads or 'default'}, load average "
        f"{' '.join(load[:3])} (running {load[3]}) at the start",
        flush=True,
    )
    options = {"repeats": args.repeats, "threads": args.threads}
    rows = run_each(__file__, libs, {**options, "mode": "quiet"})
    busy = subprocess.Popen("exec taskset -c 0 yes > /dev/null", shell=True)
    try:
        time.sleep(0.5)
        rows += run_each(__file__, libs, {**options, "mode": "busy"})
    finally:
        busy.kill()
        busy.wait()
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "results.jsonl"), "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    print(table(rows))


if __name__ == "__main__":
    main()
