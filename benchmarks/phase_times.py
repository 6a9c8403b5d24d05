"""Where a fit's time goes on p threads: the wall time of its phases, each thread count
in a fresh process.

    python benchmarks/phase_times.py [--cases rf32-200k,hgb-l1] [--threads 1,16]
                                     [--scale 1.0] [--out DIR]

``serial_share.py`` measures what a fit does outside parallel regions, on one core; what
is lost *inside* them on many cores (memory shared by the threads, a slower clock, the
GIL taken in turn by a forest's workers) only a run on those cores shows.  This script
wraps the Python entry points of a fit's phases with wall-clock timers (numba kernels
are timed through the Python function that calls them), fits ``bench_cores.py``'s case
once after a warm-up fit, and prints each phase's time per call at every thread count
and its ratio to the first: a forest's tree whose kernel takes 1.4 times as long on 16
threads as on one waits on something the threads share.

Phases (those a case does not reach are left out):

- forests, summed over the workers: ``bootstrap`` (the tree's draw), ``grow`` (the
  tree's whole growth, ``TreeGrower.grow``), inside it ``kernel`` (the compiled grower),
  ``centers`` (thresholds between values), ``tree_arrays`` (the tree's copy of the
  workspace's nodes), and ``trim`` (``malloc_trim`` after each chunk);
- boosting, on the main thread: ``iteration`` (one stage), inside it ``gradients``,
  ``rows`` (the statistics of the rows), ``grow`` / ``kernel``, ``leaf_values``,
  ``add_values`` (the raw scores' update);
- both: ``binning`` (``BinMapper.fit`` and ``transform``).

Each phase also counts the page faults of its calls (the calling thread's, from
``getrusage(RUSAGE_THREAD)`` on Linux: a kernel releases the GIL but runs in its
caller's thread), and a forest's ``kernel`` is also reported for the first call in each
worker thread alone (``kernel, first in its thread``): a worker's first tree faults in
its workspace, which on many cores every worker does at once.  A tree slower on 16
threads than on one because of that shows there as many faults and a first tree far
slower than the rest.

Each line the child prints is JSON: ``{case, threads, fit_s, trees, phases: {name:
[seconds, calls, faults]}}``; the driver appends them to ``DIR/phases.jsonl``.
"""

import argparse
import functools
import json
import os
import resource
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_cores  # noqa: E402

_totals = {}
_lock = threading.Lock()
#: the phases each thread has called, by thread (its first call of a forest's kernel
#: is also reported alone); cleared with the totals, for every thread at once
_seen = {}
#: phases whose first call in a thread is reported apart
_FIRST_APART = ("kernel",)


def _thread_faults():
    """The calling thread's page faults so far (0 where the platform does not count
    them per thread)."""
    who = getattr(resource, "RUSAGE_THREAD", None)
    if who is None:
        return 0
    usage = resource.getrusage(who)
    return usage.ru_minflt + usage.ru_majflt


def _add(name, took, faults):
    """One call of phase ``name`` into the totals (the caller holds ``_lock``)."""
    s, c, f = _totals.get(name, (0.0, 0, 0))
    _totals[name] = (s + took, c + 1, f + faults)


def _timed(name, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        f0 = _thread_faults()
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            took = time.perf_counter() - t
            faults = _thread_faults() - f0
            with _lock:
                _add(name, took, faults)
                seen = _seen.setdefault(threading.get_ident(), set())
                if name not in seen and name in _FIRST_APART:
                    _add(f"{name}, first in its thread", took, faults)
                seen.add(name)

    return wrapper


def _wrap(owner, attr, name):
    if hasattr(owner, attr):
        setattr(owner, attr, _timed(name, getattr(owner, attr)))


def instrument():
    """Wrap the phases' entry points (treeboost imported here)."""
    from treeboost import losses
    from treeboost.engine.binning import mapper as binning
    from treeboost.engine.grow import grower
    from treeboost.engine.grow import leaf_ranges
    from treeboost.ensembles import forest, gradient_boosting

    _wrap(forest, "bootstrap_weights", "bootstrap")
    _wrap(forest, "release_free_memory", "trim")
    _wrap(grower.TreeGrower, "grow", "grow")
    _wrap(grower, "center_thresholds", "centers")
    _wrap(grower, "tree_arrays", "tree_arrays")
    choose = grower.TreeGrower._choose_grower

    def timed_choice(self, *args, **kwargs):
        choice = choose(self, *args, **kwargs)
        return choice._replace(kernel=_timed("kernel", choice.kernel))

    grower.TreeGrower._choose_grower = timed_choice
    _wrap(binning.BinMapper, "fit", "binning")
    _wrap(binning.BinMapper, "transform", "binning")
    gb = gradient_boosting.BaseGradientBoosting
    _wrap(gb, "_fit_stage", "iteration")
    _wrap(gradient_boosting, "boosting_rows", "rows")
    _wrap(leaf_ranges.LeafRanges, "add_values", "add_values")
    for name in dir(losses):
        cls = getattr(losses, name)
        if isinstance(cls, type) and issubclass(cls, losses.Loss):
            for attr, phase in (
                ("gradient_hessian", "gradients"),
                ("loss_gradient_hessian", "gradients"),
                ("leaf_values", "leaf_values"),
            ):
                if attr in vars(cls):
                    _wrap(cls, attr, phase)


def one(case, threads):
    data, n, kind, _, opts, _ = bench_cores.CASES[case]
    n = max(2_000, int(n * float(os.environ.get("BENCH_SCALE", "1"))))
    X, y = bench_cores.make_data(data, n)
    import treeboost  # noqa: F401

    instrument()
    # (a forest's: the serial and the parallel grower, as bench_cores.py's warm-up)
    warm = dict(opts, it=3, trees=threads + 1)
    bench_cores.make_model("tb", kind, threads, **warm).fit(X[:5000], y[:5000])
    _totals.clear()
    # a worker's first tree of this fit faults in the fit's own workspace, whether its
    # thread is one of the warm-up's (the engine's kept pool) or a new one (joblib's)
    _seen.clear()
    model = bench_cores.make_model("tb", kind, threads, **opts)
    t = time.perf_counter()
    model.fit(X, y)
    fit_s = time.perf_counter() - t
    trees = len(getattr(model, "estimators_", [])) if kind in ("rf", "et") else 1
    if kind == "hgb":
        trees = sum(len(stage) for stage in model.trees_)
    rec = {
        "case": case,
        "threads": threads,
        "fit_s": round(fit_s, 4),
        "trees": trees,
        "phases": {k: [round(s, 5), c, f] for k, (s, c, f) in sorted(_totals.items())},
    }
    print(json.dumps(rec), flush=True)


def print_table(records):
    by_case = {}
    for r in records:
        by_case.setdefault(r["case"], []).append(r)
    for case, recs in by_case.items():
        recs.sort(key=lambda r: r["threads"])
        base = recs[0]
        heads = " | ".join(f"{r['threads']} thr" for r in recs)
        print(
            f"\n### {case}: ms per call (ratio to {base['threads']} thread(s)), "
            "page faults per call\n"
        )
        print(f"| phase | calls | {heads} |")
        print("|---|---|" + "---|" * len(recs))
        fits = " | ".join(f"{1000 * r['fit_s']:.0f}" for r in recs)
        print(f"| fit (wall) | 1 | {fits} |")
        for name, entry in base["phases"].items():
            s0, c0 = entry[:2]
            cells = []
            for r in recs:
                s, c, *f = r["phases"].get(name, (0.0, 0))
                per = 1000 * s / max(c, 1)
                ratio = (s / max(c, 1)) / (s0 / max(c0, 1)) if s0 else float("nan")
                faults = f", {f[0] / max(c, 1):.0f} faults" if f else ""
                cells.append(f"{per:.2f} ({ratio:.2f}x{faults})")
            print(f"| {name} | {c0} | {' | '.join(cells)} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--one", nargs=2, metavar=("CASE", "THREADS"), help=argparse.SUPPRESS)
    ap.add_argument("--cases", default="rf32-200k,et32-200k,hgb-l1,hgb30-1m")
    ap.add_argument("--threads", default="1,16")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    args = ap.parse_args()
    if args.one:
        one(args.one[0], int(args.one[1]))
        return
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "phases.jsonl")
    records = []
    for case in args.cases.split(","):
        for p in (int(t) for t in args.threads.split(",")):
            if p > os.cpu_count():
                continue
            env = dict(
                os.environ,
                NUMBA_NUM_THREADS=str(p),
                OMP_NUM_THREADS=str(p),
                BENCH_SCALE=str(args.scale),
                PYTHONUNBUFFERED="1",
            )
            cmd = [sys.executable, os.path.abspath(__file__), "--one", case, str(p)]
            out = subprocess.run(cmd, env=env, capture_output=True, text=True)
            lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
            if not lines:
                print(f"{case} on {p} threads failed: {out.stderr[-400:]}", flush=True)
                continue
            rec = json.loads(lines[-1])
            print(json.dumps(rec), flush=True)
            with open(path, "a") as fh:
                fh.write(json.dumps(rec) + "\n")
            records.append(rec)
    print_table(records)


if __name__ == "__main__":
    main()
