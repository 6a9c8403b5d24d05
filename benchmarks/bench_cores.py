"""Many cores: treeboost against LightGBM and scikit-learn, each fit alone in a fresh process.

    python benchmarks/bench_cores.py [--cases NAME,...] [--threads 1,2,4,8,16]
                                     [--libs tb,lgbm,sk] [--scale 1.0] [--deadline 420]
                                     [--forest-block-values N] [--et-rows-max N]
                                     [--out DIR]
    python benchmarks/bench_cores.py --list
    python benchmarks/bench_cores.py --replot [--out DIR]

Every fit runs in a process of its own that imports one library only (treeboost,
LightGBM or scikit-learn), so that no library's OpenMP settings reach another's. Each
process makes its data, fits a small warm-up model (which loads or compiles the
kernels), then times the fit (best of ``repeats``) and the prediction of up to 200,000
training rows, and prints one JSON line: ``{case, lib, threads, fit_s, predict_s,
train_score, pinned}``. The driver appends the lines to ``DIR/cores.jsonl`` as they
come (a run cut off by a time limit keeps what it measured) and prints the tables:

- the fit at the machine's thread count, with treeboost's time over each reference's;
- each estimator's speed-up over 1, 2, 4, 8, 16 threads, and the serial share ``s``
  that Amdahl's law gives from the 1-thread and p-thread times,
  ``T_p / T_1 = s + (1 - s) / p``, so ``s = (T_p / T_1 - 1 / p) / (1 - 1 / p)``;
- for treeboost's forests, the fit's time before the first tree (checks, binning), the
  span of the trees and one tree's mean wall time in its worker, against one thread's
  (a tree that takes longer on 16 threads than on one waits on something the threads
  share: memory, the GIL);
- a plot of that scaling, ``DIR/cores_scaling.png`` (with matplotlib; ``--replot``
  redraws it and the tables from ``DIR/cores.jsonl`` without fitting);
- with ``--two-cores`` (Linux), the 2-core rows pinned to cores 0 and 1 with
  ``taskset``, quiet and beside ``yes > /dev/null`` pinned to core 0.

Threads: ``NUMBA_NUM_THREADS`` and ``OMP_NUM_THREADS`` are set for the process, and
``n_jobs`` for the estimators that take it (LightGBM, the forests). Settings (matched
where the libraries differ): gradient boosting 31 leaves best-first, 20 rows a leaf,
learning rate 0.1, 255 bins, no early stopping (scikit-learn's HistGradientBoosting
turns it on by default above 10,000 rows); forests 100 trees, library defaults.
Data: make_classification(n, 40 features, 2, 3 or 10 classes, 20 informative, 5
redundant, flip_y=0.03, random_state=0); the regression row is make_regression(n, 40 features, 20
informative, noise 10) plus Student-t(2) noise times 20; the 10-million-row case has 28
standard normal features and the sign of a linear score, one interaction and noise.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

# case: (data, n, kind, libraries, options, repeats)
CASES = {
    "hgb-1m": ("cls2", 1_000_000, "hgb", ("tb", "lgbm", "sk"), {}, 2),
    "hgb-10class": ("cls10", 200_000, "hgb", ("tb", "lgbm", "sk"), {"it": 50}, 1),
    # an odd number of classes: lanes of trees side by side, or one tree after another
    "hgb-3class": ("cls3", 200_000, "hgb", ("tb", "lgbm", "sk"), {"it": 50}, 2),
    "hgb-l1": ("reg", 400_000, "hgb", ("tb", "lgbm", "sk"), {"loss": "absolute_error"}, 1),
    "hgb-10m": ("big28", 10_000_000, "hgb", ("tb", "lgbm", "sk"), {"it": 50}, 1),
    "hgb-100k": ("cls2", 100_000, "hgb", ("tb", "tbp", "lgbm", "sk"), {}, 3),
    "rf-400k": ("cls2", 400_000, "rf", ("tb", "sk"), {}, 1),
    "et-400k": ("cls2", 400_000, "et", ("tb", "sk"), {}, 1),
    "cart-200k": ("cls2", 200_000, "cart", ("tb", "sk"), {}, 1),
    # thread scaling (each at 1, 2, 4, ... threads)
    "rf32-200k": ("cls2", 200_000, "rf", ("tb", "tbp"), {"trees": 32}, 1),
    "hgb30-1m": ("cls2", 1_000_000, "hgb", ("tb", "lgbm"), {"it": 30}, 1),
    "et32-200k": ("cls2", 200_000, "et", ("tb",), {"trees": 32}, 1),
    "cart1-200k": ("cls2", 200_000, "cart", ("tb",), {}, 2),
    # the 2-core rows of 10 classes and of a million rows
    "hgb10c-100k": ("cls10", 100_000, "hgb", ("tb", "lgbm"), {"it": 50}, 2),
    "hgb50-1m": ("cls2", 1_000_000, "hgb", ("tb", "lgbm"), {"it": 50}, 2),
}
MAIN = ("hgb-1m", "hgb-10class", "hgb-l1", "hgb-10m", "rf-400k", "et-400k", "cart-200k")
SCALING = ("rf32-200k", "hgb30-1m", "et32-200k", "cart1-200k")
TWO_CORES = ("hgb-100k", "rf32-200k")


def make_data(name, n, seed=0):
    import numpy as np
    from sklearn.datasets import make_classification, make_regression

    if name == "big28":
        # quick to make at ten million rows: a linear score with one interaction, 28 features
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((n, 28))
        w = rng.standard_normal(28)
        score = X @ w + 0.5 * np.sin(3 * X[:, 0]) * X[:, 1] + rng.standard_normal(n)
        return X, (score > 0).astype(np.int64)
    if name == "reg":
        X, y = make_regression(
            n_samples=n, n_features=40, n_informative=20, noise=10.0, random_state=seed
        )
        return X, y + np.random.default_rng(seed).standard_t(2, size=n) * 20
    k = {"cls10": 10, "cls3": 3}.get(name, 2)
    return make_classification(
        n_samples=n,
        n_features=40,
        n_informative=20,
        n_redundant=5,
        n_classes=k,
        flip_y=0.03,
        random_state=seed,
    )


def make_model(lib, kind, threads, it=100, trees=100, loss=None):
    """One library's estimator (that library alone imported)."""
    if kind == "hgb":
        if lib == "tb":
            import treeboost as tb

            if loss is None:
                return tb.HistGradientBoostingClassifier(max_iter=it, early_stopping=False)
            return tb.HistGradientBoostingRegressor(loss=loss, max_iter=it, early_stopping=False)
        if lib == "lgbm":
            import lightgbm

            if loss is None:
                return lightgbm.LGBMClassifier(n_estimators=it, n_jobs=threads, verbose=-1)
            objective = {"absolute_error": "l1", "squared_error": "l2"}[loss]
            return lightgbm.LGBMRegressor(
                n_estimators=it, objective=objective, n_jobs=threads, verbose=-1
            )
        from sklearn import ensemble

        if loss is None:
            return ensemble.HistGradientBoostingClassifier(max_iter=it, early_stopping=False)
        return ensemble.HistGradientBoostingRegressor(loss=loss, max_iter=it, early_stopping=False)
    if kind in ("rf", "et"):
        if lib == "tb":
            import treeboost as mod
        else:
            from sklearn import ensemble as mod
        cls = mod.RandomForestClassifier if kind == "rf" else mod.ExtraTreesClassifier
        return cls(n_estimators=trees, n_jobs=threads, random_state=0)
    if kind == "cart":
        if lib == "tb":
            import treeboost as mod
        else:
            from sklearn import tree as mod
        return mod.DecisionTreeClassifier(random_state=0)
    raise ValueError(f"kind={kind!r}")


def one(case, lib, threads):
    """Time one library's fit of ``case`` in this process and print its JSON line."""
    import numpy as np

    data, n, kind, _, opts, repeats = CASES[case]
    lib = "tb" if lib == "tbp" else lib
    n = max(2_000, int(n * float(os.environ.get("BENCH_SCALE", "1"))))
    if lib == "tb" and os.environ.get("BENCH_FOREST_BLOCK_VALUES"):
        # the forests' prediction blocks, to compare sizes on a machine's caches
        from treeboost.engine.predict import packed_forest

        packed_forest.FOREST_BLOCK_VALUES = int(os.environ["BENCH_FOREST_BLOCK_VALUES"])
    if lib == "tb" and os.environ.get("BENCH_ET_ROWS_MAX"):
        # Extra-Trees' largest node with rows of codes on many workers (0: every node),
        # to compare thresholds on a machine's caches and memory bus
        from treeboost.engine.grow import random_tree

        rows_max = int(os.environ["BENCH_ET_ROWS_MAX"])
        if rows_max > 0:
            random_tree._ROWS_MAX = rows_max
        else:
            random_tree._IDS_MIN_WORKERS = 1 << 30
    X, y = make_data(data, n)
    # a forest's warm-up: a tree for each thread on the serial grower, and one more, the
    # last round, on the parallel grower (ensembles._parallel.tail_plan), as the fit's
    warm = dict(opts, it=3, trees=threads + 1)
    make_model(lib, kind, threads, **warm).fit(X[:5000], y[:5000])
    chunks = _forest_chunks() if lib == "tb" and kind in ("rf", "et") else None
    best, timeline = np.inf, {}
    for _ in range(repeats):
        model = make_model(lib, kind, threads, **opts)
        if chunks is not None:
            chunks.clear()
        t = time.perf_counter()
        model.fit(X, y)
        took = time.perf_counter() - t
        if took < best:
            best = took
            if chunks:
                timeline = _timeline(t, t + took, chunks)
    m = min(n, 200_000)
    t = time.perf_counter()
    pred = model.predict(X[:m])
    pt = time.perf_counter() - t
    if data == "reg":
        score = 1 - np.mean((pred - y[:m]) ** 2) / np.var(y[:m])
    else:
        score = np.mean(pred == y[:m])
    extra = dict(timeline)
    if lib == "tb" and os.environ.get("BENCH_FOREST_BLOCK_VALUES"):
        extra["forest_block_values"] = int(os.environ["BENCH_FOREST_BLOCK_VALUES"])
    if lib == "tb" and os.environ.get("BENCH_ET_ROWS_MAX"):
        extra["et_rows_max"] = int(os.environ["BENCH_ET_ROWS_MAX"])
    if lib == "tb":
        import numba

        extra["threading_layer"] = numba.threading_layer()
    if os.environ.get("OMP_WAIT_POLICY") == "PASSIVE":
        lib = "tbp"
    print(
        json.dumps(
            {
                "case": case,
                "lib": lib,
                "threads": threads,
                "n": n,
                "fit_s": round(best, 3),
                "predict_s": round(pt, 3),
                "train_score": round(float(score), 4),
                "pinned": os.environ.get("BENCH_PINNED", ""),
                **extra,
            }
        ),
        flush=True,
    )


def _forest_chunks():
    """Record each chunk of trees a treeboost forest's workers fit (start, end, trees),
    by wrapping the forest's worker function; returns the list it appends to."""
    from treeboost.ensembles import forest

    chunks = []
    fit_trees = forest._fit_trees

    def timed(chunk, threads, **shared):
        t = time.perf_counter()
        out = fit_trees(chunk, threads, **shared)
        chunks.append((t, time.perf_counter(), len(chunk)))
        return out

    forest._fit_trees = timed
    return chunks


def _timeline(start, end, chunks):
    """A forest fit's phases from its chunks: ``pre_s`` before the first tree (input
    checks, binning), ``trees_s`` from the first tree's start to the last one's end,
    ``tree_s`` the mean wall time of a tree in its worker, ``post_s`` after the trees."""
    first = min(c[0] for c in chunks)
    last = max(c[1] for c in chunks)
    trees = sum(c[2] for c in chunks)
    return {
        "pre_s": round(first - start, 4),
        "trees_s": round(last - first, 4),
        "tree_s": round(sum(c[1] - c[0] for c in chunks) / max(1, trees), 4),
        "post_s": round(end - last, 4),
    }


def run_one(case, lib, threads, timeout, pin=None, busy=False):
    env = dict(
        os.environ,
        NUMBA_NUM_THREADS=str(threads),
        OMP_NUM_THREADS=str(threads),
        PYTHONUNBUFFERED="1",
    )
    if lib == "tbp":
        # treeboost with OpenMP's passive wait, which a user may choose for a loaded machine
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    cmd = [sys.executable, os.path.abspath(__file__), "--one", case, lib, str(threads)]
    hog = None
    if pin:
        cmd = ["taskset", "-c", pin] + cmd
        env["BENCH_PINNED"] = pin + (" +busy" if busy else "")
    if busy:
        hog = subprocess.Popen(["taskset", "-c", "0", "yes"], stdout=subprocess.DEVNULL)
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
        if p.returncode or not lines:
            lines = [
                json.dumps(
                    {
                        "case": case,
                        "lib": lib,
                        "threads": threads,
                        "error": (p.stderr or p.stdout)[-300:],
                    }
                )
            ]
    except subprocess.TimeoutExpired:
        lines = [
            json.dumps(
                {"case": case, "lib": lib, "threads": threads, "error": f"over {timeout:.0f} s"}
            )
        ]
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()
    return [json.loads(ln) for ln in lines]


def _key(r):
    return r["case"], r["lib"], r["threads"], r.get("pinned", "")


def print_tables(results, n_cores):
    by = {_key(r): r for r in results if "fit_s" in r}
    names = {
        "tb": "treeboost",
        "tbp": "treeboost, OMP_WAIT_POLICY=PASSIVE",
        "lgbm": "LightGBM",
        "sk": "scikit-learn",
    }
    print(f"\n### Fit at {n_cores} threads (s; ratio = treeboost / reference)\n")
    print(
        "| case | treeboost | LightGBM | scikit-learn | / LightGBM | / scikit-learn "
        "| scores tb / lgbm / sk |"
    )
    print("|---|---|---|---|---|---|---|")
    for case in CASES:
        row = {lib: by.get((case, lib, n_cores, "")) for lib in ("tb", "lgbm", "sk")}
        if row["tb"] is None:
            continue
        t = row["tb"]["fit_s"]
        cells = [f"{row[lib]['fit_s']:.2f}" if row[lib] else "" for lib in row]
        ratios = [f"{t / row[lib]['fit_s']:.2f}x" if row[lib] else "" for lib in ("lgbm", "sk")]
        scores = " / ".join(f"{row[lib]['train_score']:.4f}" if row[lib] else "-" for lib in row)
        print(f"| {case} | " + " | ".join(cells + ratios) + f" | {scores} |")
    print("\n### Thread scaling (fit s; speed-up over 1 thread; Amdahl's serial share s)\n")
    print("| case | library | " + " | ".join(f"{p} thr" for p in THREADS) + " | s |")
    print("|---|---|" + "---|" * (len(THREADS) + 1))
    for case in CASES:
        for lib in ("tb", "lgbm", "sk"):
            ts = {p: by[(case, lib, p, "")]["fit_s"] for p in THREADS if (case, lib, p, "") in by}
            if len(ts) < 2 or 1 not in ts:
                continue
            cells = [f"{ts[p]:.2f} ({ts[1] / ts[p]:.1f}x)" if p in ts else "" for p in THREADS]
            p = max(ts)
            s = (ts[p] / ts[1] - 1 / p) / (1 - 1 / p)
            print(f"| {case} | {names[lib]} | " + " | ".join(cells) + f" | {s:.3f} |")
    timed = sorted(
        (r for r in results if "tree_s" in r and not r.get("pinned")),
        key=lambda r: (r["case"], r["threads"]),
    )
    if timed:
        print("\n### treeboost's forests: before the trees, the trees, one tree (s)\n")
        print(
            "| case | threads | fit | before the trees | trees | one tree "
            "| one tree / on 1 thread |"
        )
        print("|---|---|---|---|---|---|---|")
        one_thread = {r["case"]: r["tree_s"] for r in timed if r["threads"] == 1}
        for r in timed:
            base = one_thread.get(r["case"])
            inflation = f"{r['tree_s'] / base:.2f}x" if base else ""
            print(
                f"| {r['case']} | {r['threads']} | {r['fit_s']:.2f} | {r['pre_s']:.3f} | "
                f"{r['trees_s']:.3f} | {r['tree_s']:.4f} | {inflation} |"
            )
    pinned = {
        (r["case"], r["lib"], r["pinned"].endswith("+busy")): r
        for r in results
        if r.get("pinned") and "fit_s" in r
    }
    if pinned:
        print("\n### Two cores (taskset 0,1): quiet, and beside `yes` pinned to core 0\n")
        print("| case | library | quiet (s) | one core busy (s) | slow-down | train score |")
        print("|---|---|---|---|---|---|")
        for (case, lib, busy), r in pinned.items():
            if busy:
                continue
            b = pinned.get((case, lib, True))
            cells = f"{b['fit_s']:.2f} | {b['fit_s'] / r['fit_s']:.2f}x" if b else " | "
            print(
                f"| {case} | {names[lib]} | {r['fit_s']:.2f} | {cells} | {r['train_score']:.4f} |"
            )


THREADS = (1, 2, 4, 8, 16)


def plot_scaling(results, path):
    """Each scaling case's speed-up over its 1-thread fit against the thread count, one
    line per library, beside the ideal ``p``; written to ``path`` (PNG).  Returns
    whether there was anything to draw (and matplotlib to draw it)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    by = {_key(r): r["fit_s"] for r in results if "fit_s" in r and not r.get("pinned")}
    lines = []
    for case in SCALING:
        for lib in ("tb", "lgbm", "sk"):
            ts = {p: by[(case, lib, p, "")] for p in THREADS if (case, lib, p, "") in by}
            if 1 in ts and len(ts) > 1:
                lines.append((case, lib, sorted(ts), [ts[1] / ts[p] for p in sorted(ts)]))
    if not lines:
        return False
    names = {"tb": "treeboost", "lgbm": "LightGBM", "sk": "scikit-learn"}
    fig, ax = plt.subplots(figsize=(5.5, 4))
    top = max(max(ps) for _, _, ps, _ in lines)
    ax.plot([1, top], [1, top], color="0.7", linestyle="--", label="ideal")
    for case, lib, ps, speedup in lines:
        ax.plot(ps, speedup, marker="o", label=f"{case}, {names[lib]}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(THREADS[: len([p for p in THREADS if p <= top])])
    ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.get_yaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.set_xlabel("threads")
    ax.set_ylabel("speed-up over 1 thread (fit)")
    # the runs' own thread counts (a replot may run on another machine than the fits)
    most = max(r["threads"] for r in results if "fit_s" in r and not r.get("pinned"))
    ax.set_title(f"Thread scaling, 1 to {most} threads")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main():
    global THREADS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--one", nargs=3, metavar=("CASE", "LIB", "THREADS"), help=argparse.SUPPRESS)
    ap.add_argument("--cases", default=",".join(MAIN + SCALING))
    ap.add_argument("--threads", default="1,2,4,8,16", help="thread counts of the scaling cases")
    ap.add_argument("--libs", default="tb,lgbm,sk", help="the libraries to fit (of each case's)")
    ap.add_argument(
        "--two-cores",
        action="store_true",
        help="also the 2-core rows pinned with taskset, quiet and busy",
    )
    ap.add_argument("--scale", type=float, default=1.0, help="rows x SCALE (a quick try)")
    ap.add_argument(
        "--forest-block-values",
        type=int,
        default=None,
        help="values of X in a block of treeboost forests' prediction (default: the library's)",
    )
    ap.add_argument(
        "--et-rows-max",
        type=int,
        default=None,
        help="Extra-Trees' largest node with rows of codes when 4 or more workers grow "
        "trees (0: every node; default: the library's)",
    )
    ap.add_argument("--deadline", type=float, default=420.0, help="seconds for the whole run")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--list", action="store_true")
    ap.add_argument(
        "--replot",
        action="store_true",
        help="no fits: the tables and the plot of the fits already in DIR/cores.jsonl",
    )
    args = ap.parse_args()
    if args.one:
        one(args.one[0], args.one[1], int(args.one[2]))
        return
    if args.list:
        for name, (data, n, kind, libs, opts, _) in CASES.items():
            print(f"{name}: {kind} on {data} x {n:,}, {', '.join(libs)} {opts or ''}")
        return
    os.environ["BENCH_SCALE"] = str(args.scale)
    if args.forest_block_values:
        os.environ["BENCH_FOREST_BLOCK_VALUES"] = str(args.forest_block_values)
    if args.et_rows_max is not None:
        os.environ["BENCH_ET_ROWS_MAX"] = str(args.et_rows_max)
    n_cores = os.cpu_count()
    path = os.path.join(args.out, "cores.jsonl")
    plot_path = os.path.join(args.out, "cores_scaling.png")
    if args.replot:
        with open(path) as f:
            results = [json.loads(line) for line in f if line.strip()]
        print_tables(results, n_cores)
        if plot_scaling(results, plot_path):
            print(f"\nscaling plot: {plot_path}")
        return
    THREADS = tuple(int(t) for t in args.threads.split(",") if int(t) <= n_cores)
    have_lgbm = _importable("lightgbm")
    main_plan, scaling_plan, two_plan = [], [], []
    for case in args.cases.split(","):
        libs = [
            lib
            for lib in CASES[case][3]
            if (lib != "lgbm" or have_lgbm) and lib != "tbp" and lib in args.libs.split(",")
        ]
        if case in SCALING:
            scaling_plan += [(case, lib, p, None, False) for p in THREADS for lib in libs]
        else:
            main_plan += [(case, lib, n_cores, None, False) for lib in libs]
    if args.two_cores and shutil.which("taskset") and n_cores >= 2:
        for case in TWO_CORES:
            libs = [lib for lib in CASES[case][3] if lib != "lgbm" or have_lgbm]
            two_plan += [(case, lib, 2, "0,1", busy) for busy in (False, True) for lib in libs]
    # the shorter two-core rows before the scaling rows, should the deadline come first
    plan = main_plan + two_plan + scaling_plan
    os.makedirs(args.out, exist_ok=True)
    start = time.time()
    results = []
    print(
        f"{n_cores} cores, python {sys.version.split()[0]}, {len(plan)} fits, writing {path}",
        flush=True,
    )
    with open(path, "a") as log:
        for case, lib, p, pin, busy in plan:
            left = args.deadline - (time.time() - start)
            if left < 15:
                rec = [{"case": case, "lib": lib, "threads": p, "skipped": "deadline"}]
            else:
                rec = run_one(case, lib, p, min(left, 240), pin, busy)
            for r in rec:
                print(json.dumps(r), flush=True)
                log.write(json.dumps(r) + "\n")
                log.flush()
            results += rec
    print_tables(results, n_cores)
    if plot_scaling(results, plot_path):
        print(f"\nscaling plot: {plot_path}")


def _importable(name):
    import importlib.util

    return importlib.util.find_spec(name) is not None


if __name__ == "__main__":
    main()
