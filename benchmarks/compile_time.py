"""Cold-start cost: numba compilation on a fresh machine, per step and per kernel.

    python benchmarks/compile_time.py [--mode sequence|each|both] [--top 25]
                                      [--kernels compiled|prebuilt]

Every measurement runs in a fresh Python process whose ``NUMBA_CACHE_DIR`` is a new
empty directory, which is what a fresh install, a CI run, a Docker image or a new Dask
worker has.  The data is the bundled Titanic set (7 features, two of them categorical).

``--kernels compiled`` (the default) leaves out the kernels that installing treeboost
compiled (``TREEBOOST_PREBUILT=0``, see ``treeboost/engine/kernel_cache.py``): every
kernel is compiled in the process, as on a machine whose install could not prebuild
them (another CPU than the build's, another numba).  ``--kernels prebuilt`` is what a
fresh install sees: the installed kernels, and numba's cache empty.

``sequence`` runs, in one process, ``import treeboost`` and then a first fit + predict of
a CART tree, gradient boosting (10 trees), RandomForest, ExtraTrees, Bagging and AdaBoost
(10 trees each), and prints the wall time of each step, then the same steps again in a
second process on the now warm cache.  ``each`` runs every estimator alone in its own
fresh process.  Both print the kernels that took longest to compile, from numba's event
API (``numba.core.event``, kind ``numba:compile``): *inclusive* seconds count the
kernels compiled inside a kernel's own compilation, *self* seconds do not.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, os, sys, time
if os.environ.get("TB_COMPILE_CLOCK") == "cpu":
    time.perf_counter = time.thread_time      # this thread's CPU seconds
t0 = time.perf_counter()
from numba.core import event
records = []

class Listener(event.Listener):
    def on_start(self, ev):
        records.append((time.perf_counter(), ev.kind, "start", self._name(ev)))
    def on_end(self, ev):
        records.append((time.perf_counter(), ev.kind, "end", self._name(ev)))
    @staticmethod
    def _name(ev):
        d = ev.data or {}
        disp = d.get("dispatcher")
        name = getattr(getattr(disp, "py_func", None), "__qualname__", None) or str(disp)
        mod = getattr(getattr(disp, "py_func", None), "__module__", "")
        return f"{mod}.{name}"

event.register("numba:compile", Listener())
import numpy as np
import treeboost
from treeboost.datasets import load_titanic
steps = [("import treeboost", time.perf_counter() - t0)]
data = load_titanic()
X = data.data[["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]]
y = np.asarray(data.target)
STEPS = {
    "DecisionTreeClassifier": lambda: treeboost.DecisionTreeClassifier(max_depth=3),
    # the second-order (Newton) kernels of LightGBM-style trees
    "GradientBoostingClassifier": lambda: treeboost.GradientBoostingClassifier(
        n_estimators=10, max_depth=None, max_leaf_nodes=31, min_samples_leaf=20,
        split_gain="hessian"),
    "RandomForestClassifier": lambda: treeboost.RandomForestClassifier(n_estimators=10),
    "ExtraTreesClassifier": lambda: treeboost.ExtraTreesClassifier(n_estimators=10),
    "BaggingClassifier": lambda: treeboost.BaggingClassifier(n_estimators=10),
    "AdaBoostClassifier": lambda: treeboost.AdaBoostClassifier(n_estimators=10),
}
for name in sys.argv[1].split(","):
    t = time.perf_counter()
    STEPS[name]().fit(X, y).predict(X)
    steps.append((name, time.perf_counter() - t))
steps.append(("total", time.perf_counter() - t0))
print("RESULT " + json.dumps({"steps": steps, "records": records}))
"""

ORDER = [
    "DecisionTreeClassifier",
    "GradientBoostingClassifier",
    "RandomForestClassifier",
    "ExtraTreesClassifier",
    "BaggingClassifier",
    "AdaBoostClassifier",
]


#: the value of TREEBOOST_PREBUILT for each --kernels choice
KERNELS = {"compiled": "0", "prebuilt": "1"}


def run(names, cache_dir, clock="wall", kernels="compiled"):
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=cache_dir,
        TB_COMPILE_CLOCK=clock,
        TREEBOOST_PREBUILT=KERNELS[kernels],
    )
    out = subprocess.run(
        [sys.executable, "-c", CHILD, ",".join(names)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT ") :])


def kernel_times(records):
    """Inclusive and self compile seconds per kernel, summed over its compilations."""
    incl, excl, count = {}, {}, {}
    stack = []
    for t, kind, phase, name in records:
        if phase == "start":
            stack.append([name, t, 0.0])
            continue
        name, t_start, nested = stack.pop()
        dt = t - t_start
        incl[name] = incl.get(name, 0.0) + dt
        excl[name] = excl.get(name, 0.0) + dt - nested
        count[name] = count.get(name, 0) + 1
        if stack:
            stack[-1][2] += dt
    return incl, excl, count


def print_kernels(records, top):
    incl, excl, count = kernel_times(records)
    print("\n| kernel | compilations | self (s) | inclusive (s) |\n|---|---|---|---|")
    for name in sorted(excl, key=excl.get, reverse=True)[:top]:
        short = name.replace("treeboost.", "")
        print(f"| {short} | {count[name]} | {excl[name]:.2f} | {incl[name]:.2f} |")
    print(
        f"\nall compilations, self seconds summed: {sum(excl.values()):.1f} s "
        f"({sum(count.values())} compilations)"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", choices=["sequence", "each", "both"], default="both")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument(
        "--only",
        help="comma-separated estimators: one cold process running "
        "just these, with its kernel table",
    )
    ap.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="cpu: the main thread's CPU seconds, which other processes on the "
        "machine do not inflate",
    )
    ap.add_argument(
        "--kernels",
        choices=sorted(KERNELS),
        default="compiled",
        help="compiled: every kernel compiled in the process (default); "
        "prebuilt: the kernels installing treeboost compiled, if any",
    )
    args = ap.parse_args()
    kernels = args.kernels
    if kernels == "prebuilt":
        from treeboost.engine import prebuilt_usable

        if not prebuilt_usable():
            sys.exit(
                "no usable prebuilt kernels: install treeboost (pip install .) or "
                "run python -m treeboost._prebuild"
            )
    if args.only:
        with tempfile.TemporaryDirectory() as cache:
            res = run(args.only.split(","), cache, args.clock, kernels)
        for name, t in res["steps"]:
            print(f"{name}: {t:.1f} s")
        print_kernels(res["records"], args.top)
        return
    if args.mode in ("sequence", "both"):
        with tempfile.TemporaryDirectory() as cache:
            cold = run(ORDER, cache, args.clock, kernels)
            warm = run(ORDER, cache, args.clock, kernels)
        print("One process, empty numba cache, then again on the warm cache (s):\n")
        print("| step | cold cache | warm cache |\n|---|---|---|")
        for (name, c), (_, w) in zip(cold["steps"], warm["steps"]):
            print(f"| {name} | {c:.1f} | {w:.2f} |")
        print_kernels(cold["records"], args.top)
    if args.mode in ("each", "both"):
        print("\nEach estimator alone in a fresh process, empty cache (s):\n")
        print("| estimator | import | first fit + predict |\n|---|---|---|")
        for name in ORDER:
            with tempfile.TemporaryDirectory() as cache:
                res = run([name], cache, kernels=kernels)
            steps = dict(res["steps"])
            print(f"| {name} | {steps['import treeboost']:.1f} | {steps[name]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
