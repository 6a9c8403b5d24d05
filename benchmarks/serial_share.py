"""Serial share of a fit and parallel regions per tree, the proxy for many cores (Linux, perf).

    python benchmarks/serial_share.py [--cases hgb-1m,hgb-10class,...] [--threads 16]
                                      [--scale 1.0] [--iterations N] [--cpu N]
                                      [--cache DIR] [--top 8]
    python benchmarks/serial_share.py --list

Amdahl's law bounds the speed-up of a fit on ``p`` threads by ``1 / (s + (1 - s) / p)``,
where ``s`` is the share of its work that runs outside parallel regions.  This script
measures ``s`` on one core, so that it can be read on a machine of two:

- each case is fitted in a fresh process pinned to one CPU, with ``NUMBA_NUM_THREADS=1``
  (every numba parallel region runs its whole loop in the calling thread), while
  treeboost is made to *see* ``--threads`` threads (16 by default): ``numba.get_num_threads``,
  the forests' thread budget and the binning's CPU count are patched in that process,
  so the fit takes every decision a 16-thread fit takes (which grower, which nodes
  share their features between threads, how many chunks) and does the same work;
- ``perf record`` samples the process's CPU time (``cpu-clock``, every 100 µs of it)
  and traces every OpenMP parallel region numba starts, with a uprobe on the entry and
  the return of libgomp's ``GOMP_parallel`` (numba's ``omp`` threading layer calls it
  once per region, even with one thread, which then runs the region's body inline);
- a sample of the main thread between an entry and its return is parallel work, and so
  is every sample of another thread (the forests' joblib workers, the thread pools of
  the raw-score update and of the binning); every other sample of the main thread is
  serial.  ``s`` = serial samples / all samples of the fit;
- ``g``: the samples of the other threads (a forest's workers) in the interpreter
  (CPython's ``_Py*`` / ``Py*`` functions), over all samples: work that holds the GIL,
  which the workers take in turn however many they are (numpy's own loops, which mostly
  release it, are not counted); the bound with ``s + g`` serial is the tighter one;
- ``z``: the samples of any thread in the kernel's zeroing of fresh pages (``clear_page_*``,
  ``folio_zero_user``, ``clear_huge_page``), over all samples: the first touch of the
  memory a fit allocates.  It is in neither ``s`` nor ``g`` (each worker zeroes its own
  pages), but it is a cost per worker that the Amdahl bound does not see: on many cores
  every worker's first tree zeroes its workspace at once, against one memory bus;
- regions per tree: the ``GOMP_parallel`` calls of the fit (counted by the same
  uprobe), and the Python thread-pool dispatches (``joblib.Parallel`` calls,
  ``ThreadPoolExecutor.map`` calls and a fit's chunks of trees sent to the engine's kept
  pool, counted by wrappers), over the trees fitted.

The serial samples are also listed by function (the numba kernels named through
``/tmp/perf-<pid>.map``, as ``profile_kernels.py`` does; ``[unknown]`` is numpy or the
interpreter).  The kernels are compiled in a private numba cache (``--cache``, a fresh
one by default: the first case compiles, a couple of minutes; reuse one only while the
engine's source is unchanged).  Needs root (or ``perf_event_paranoid`` <= 1 and access
to tracefs) for the uprobes.  The boosting cases run fewer iterations than
``bench_cores.py``'s, and the forests fewer trees: ``s`` and the regions per tree do not
depend on their number.
"""

import argparse
import gc
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# case: (bench_cores.py's case it follows, its options here)
CASES = {
    "hgb-1m": ("hgb-1m", {"it": 50}),
    "hgb-100k": ("hgb-100k", {"it": 100}),
    "hgb-10class": ("hgb-10class", {"it": 10}),
    "hgb-l1": ("hgb-l1", {"it": 30, "loss": "absolute_error"}),
    "rf-400k": ("rf-400k", {"trees": 32}),
    "et-400k": ("et-400k", {"trees": 32}),
    "cart-200k": ("cart-200k", {}),
}

#: CPU time between two samples (ns)
SAMPLE_PERIOD_NS = 100_000
#: the uprobe events, as ``perf probe`` names them
ENTRY, RETURN = "probe_libgomp:GOMP_parallel", "probe_libgomp:GOMP_parallel__return"


def libgomp_path():
    """The libgomp this process mapped (numba's threading layer launched)."""
    with open("/proc/self/maps") as fh:
        for line in fh:
            path = line.split()[-1]
            if "libgomp" in os.path.basename(path):
                return os.path.realpath(path)
    return None


def add_probes(lib):
    """The entry and return uprobes of ``GOMP_parallel`` in ``lib`` (kept if present)."""
    have = subprocess.run(["perf", "probe", "-l"], capture_output=True, text=True).stdout
    for spec, name in (("GOMP_parallel", ENTRY), ("GOMP_parallel%return", RETURN)):
        if name not in have:
            p = subprocess.run(
                ["perf", "probe", "-q", "-x", lib, "--add", spec], capture_output=True, text=True
            )
            if p.returncode:
                raise SystemExit(f"perf probe -x {lib} {spec} failed: {p.stderr.strip()}")


def see_threads(p):
    """Make treeboost decide as on ``p`` threads while numba runs on one."""
    import concurrent.futures

    import joblib
    import numba

    import treeboost.engine.binning.mapper as binning
    import treeboost.engine.parallel.free_cores as core_share
    import treeboost.ensembles._parallel as ens_parallel

    numba.get_num_threads = lambda: p
    # a boosting fit's lanes of several threads set numba's count for their thread
    # (ensembles._output_lanes): here every region runs on the one thread there is
    numba.set_num_threads = lambda n: None
    # the fit's process has one CPU: the load watch would lower numba's count (to 1,
    # which it is) and then restore the p it was made to see
    core_share.CoreShare.__enter__ = lambda self: self
    core_share.CoreShare.__exit__ = lambda self, *exc: False
    core_share.CoreShare.update = lambda self: p
    ens_parallel.thread_budget = lambda: p
    binning._cpu_count = lambda: p
    counts = {"pool": 0}

    def counted(cls, name):
        orig = getattr(cls, name)

        def wrapper(self, *args, **kwargs):
            counts["pool"] += 1
            return orig(self, *args, **kwargs)

        setattr(cls, name, wrapper)

    counted(concurrent.futures.ThreadPoolExecutor, "map")
    counted(joblib.Parallel, "__call__")
    run_on_pool = ens_parallel._run_on_pool

    def trees_on_pool(*args, **kwargs):
        counts["pool"] += 1
        return run_on_pool(*args, **kwargs)

    ens_parallel._run_on_pool = trees_on_pool
    return counts


def n_trees(model):
    """Trees of a fitted model (boosting: every output's tree of every iteration)."""
    if hasattr(model, "trees_"):
        return sum(len(stage) for stage in model.trees_)
    if hasattr(model, "estimators_"):
        return len(model.estimators_)
    return 1


def one(case, p, top):
    """Fit ``case`` under perf in this process; print one JSON line."""
    import numba
    import numpy as np

    sys.path.insert(0, HERE)
    import bench_cores
    from profile_kernels import keep_object_code, write_perf_map

    keep_object_code()  # before any kernel loads: named in the perf map from the cache too

    @numba.njit(parallel=True)
    def _launch(a):
        for i in numba.prange(a.shape[0]):
            a[i] += 1.0

    _launch(np.zeros(4))  # the threading layer, on NUMBA_NUM_THREADS=1 threads
    assert numba.get_num_threads() == 1
    lib = libgomp_path()
    if numba.threading_layer() != "omp" or lib is None:
        raise SystemExit(f"needs numba's omp threading layer, not {numba.threading_layer()}")
    add_probes(lib)
    counts = see_threads(p)

    base, opts = CASES[case]
    if os.environ.get("SERIAL_SHARE_ITERATIONS") and "it" in opts:
        opts = dict(opts, it=int(os.environ["SERIAL_SHARE_ITERATIONS"]))
    data, n, kind, _, _, _ = bench_cores.CASES[base]
    n = max(2_000, int(n * float(os.environ.get("BENCH_SCALE", "1"))))
    X, y = bench_cores.make_data(data, n)
    warm = dict(opts, it=3, trees=2)
    # compiles every kernel the fit runs: some run only on trees of over 200,000 rows
    bench_cores.make_model("tb", kind, p, **warm).fit(X[:250_000], y[:250_000])
    if kind in ("rf", "et"):
        # 2 trees on many threads are a last round, each tree on the parallel grower
        # (ensembles._parallel.tail_plan); a forest's other trees grow on the serial one
        bench_cores.make_model("tb", kind, 1, **dict(warm, trees=1)).fit(X[:250_000], y[:250_000])
    model = bench_cores.make_model("tb", kind, p, **opts)
    # the compiler's objects out of the collections the fit triggers (a process that
    # loads its kernels from the cache has none of them)
    gc.collect()
    gc.freeze()
    out = tempfile.mktemp(suffix=".perf.data")
    perf = subprocess.Popen(
        [
            "perf",
            "record",
            "-q",
            "-k",
            "CLOCK_MONOTONIC",
            "-e",
            f"cpu-clock/period={SAMPLE_PERIOD_NS}/",
            "-e",
            ENTRY,
            "-e",
            RETURN,
            "-o",
            out,
            "-p",
            str(os.getpid()),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.5)
    counts["pool"] = 0
    t0 = time.clock_gettime(time.CLOCK_MONOTONIC)
    c0 = time.process_time()
    model.fit(X, y)
    c1 = time.process_time()
    t1 = time.clock_gettime(time.CLOCK_MONOTONIC)
    pool = counts["pool"]
    perf.send_signal(signal.SIGINT)
    perf.wait()
    write_perf_map()
    script = subprocess.run(
        ["perf", "script", "-i", out, "-F", "tid,time,event,ip,sym"],
        capture_output=True,
        text=True,
    ).stdout
    os.remove(out)
    res = classify(script, os.getpid(), t0, t1, top)
    trees = n_trees(model)
    res.update(
        case=case,
        threads_seen=p,
        n=n,
        trees=trees,
        fit_cpu_s=round(c1 - c0, 2),
        gomp_per_tree=round(res.pop("gomp") / trees, 2),
        pool_per_tree=round(pool / trees, 3),
    )
    print(json.dumps(res), flush=True)


#: the interpreter's functions (CPython's C API and evaluation loop): a thread runs them
#: holding the GIL, so the other threads' Python waits for them
_INTERPRETER = ("_Py", "Py")

_LINE = re.compile(r"^\s*(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)$")


def classify(script, main_tid, t0, t1, top):
    """Serial and parallel samples of ``perf script`` output within ``[t0, t1]``."""
    depth = gomp = interpreted = zeroing = 0
    by_sym, by_par = {}, {}  # samples by function, serial and parallel
    for line in script.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        tid, t, event, rest = int(m[1]), float(m[2]), m[3], m[4]
        if tid == main_tid and event == ENTRY:
            depth += 1
            gomp += t0 <= t <= t1
            continue
        if tid == main_tid and event == RETURN:
            depth = max(0, depth - 1)
            continue
        if not event.startswith("cpu-clock") or not t0 <= t <= t1:
            continue
        parts = rest.split(None, 1)  # ip, symbol
        sym = parts[1].strip() if len(parts) > 1 else "[unknown]"
        side = by_par if tid != main_tid or depth > 0 else by_sym
        side[sym] = side.get(sym, 0) + 1
        if tid != main_tid and sym.startswith(_INTERPRETER):
            interpreted += 1
        if sym.startswith(_ZEROING):
            zeroing += 1
    serial = sum(by_sym.values())
    total = max(serial + sum(by_par.values()), 1)

    def shares(counts):
        ranked = sorted(counts.items(), key=lambda kv: -kv[1])[:top]
        return [[sym[:60], round(c / total, 4)] for sym, c in ranked]

    return {
        "samples": total,
        "s": round(serial / total, 4),
        "g": round(interpreted / total, 4),
        "z": round(zeroing / total, 4),
        "gomp": gomp,
        "serial_top": shares(by_sym),
        "parallel_top": shares(by_par),
    }


#: the kernel's functions that zero a fresh page (a 4 KiB one or a huge one)
_ZEROING = ("clear_page", "folio_zero_user", "clear_huge_page", "clear_subpage")


def amdahl(s, p):
    return 1.0 / (s + (1.0 - s) / p)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--one", nargs=2, metavar=("CASE", "THREADS"), help=argparse.SUPPRESS)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--threads", type=int, default=16, help="threads the fit decides for")
    ap.add_argument("--scale", type=float, default=1.0, help="rows x SCALE (a quick try)")
    ap.add_argument("--cpu", type=int, default=None, help="the CPU to pin to (the last one)")
    ap.add_argument("--cache", default=None, help="numba cache folder (a fresh one)")
    ap.add_argument("--top", type=int, default=8, help="serial functions listed per case")
    ap.add_argument("--iterations", type=int, default=None, help="of every boosting case")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    if args.one:
        one(args.one[0], int(args.one[1]), args.top)
        return
    if args.list:
        for name, (base, opts) in CASES.items():
            print(f"{name}: bench_cores.py's {base} {opts}")
        return
    cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
    cache = args.cache or tempfile.mkdtemp(prefix="tb-serial-")
    env = dict(
        os.environ,
        NUMBA_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
        NUMBA_CACHE_DIR=cache,
        TREEBOOST_PREBUILT="0",
        BENCH_SCALE=str(args.scale),
        SERIAL_SHARE_ITERATIONS=str(args.iterations or ""),
        PYTHONUNBUFFERED="1",
    )
    print(f"one thread on CPU {cpu}, deciding as on {args.threads}; numba cache {cache}")
    results = []
    for case in args.cases.split(","):
        cmd = ["taskset", "-c", str(cpu), sys.executable, os.path.abspath(__file__)]
        cmd += ["--one", case, str(args.threads), "--top", str(args.top)]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
        if p.returncode or not lines:
            print(f"{case}: failed\n{(p.stderr or p.stdout)[-2000:]}", flush=True)
            continue
        r = json.loads(lines[-1])
        print(json.dumps(r), flush=True)
        results.append(r)
    p = args.threads
    print(
        f"\n| case | rows | trees | fit CPU (s) | s | Amdahl bound on {p} threads "
        f"| g | bound with g serial | z | OpenMP regions / tree | thread-pool dispatches / tree |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        g = r.get("g", 0.0)
        print(
            f"| {r['case']} | {r['n']:,} | {r['trees']} | {r['fit_cpu_s']:.2f} | "
            f"{100 * r['s']:.1f} % | {amdahl(r['s'], p):.1f}x | {100 * g:.1f} % | "
            f"{amdahl(r['s'] + g, p):.1f}x | {100 * r.get('z', 0.0):.1f} % | "
            f"{r['gomp_per_tree']} | {r['pool_per_tree']} |"
        )
    print("\nserial work by function (share of the fit's samples):")
    for r in results:
        top = ", ".join(f"{sym} {100 * sh:.1f} %" for sym, sh in r["serial_top"])
        print(f"- {r['case']}: {top}")


if __name__ == "__main__":
    main()
