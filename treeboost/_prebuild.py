"""Compile the engine's kernels of the common fits once, into the package's prebuilt
kernels (:mod:`treeboost.engine.kernel_cache`).

    python -m treeboost._prebuild [--jobs 2]

The package's build runs this (``tools/prebuild_backend.py``), so that a fresh install's
first fit loads machine code instead of compiling it; it can be run again after an
upgrade of numba (``treeboost compile`` does).  Each *case* below is a small fit that
calls the kernels of one kind of use (an estimator, a criterion or loss, categorical or
missing values, sparse X, several outputs, a saved model, SHAP values, a tree of more
than ``PARALLEL_GROWER_MIN_WORK`` cells); what they compile is what a user's first fit
would.  Cases are spread over ``--jobs`` processes, each of which saves what it
compiles into its own part of the folder; a kernel that one has saved is loaded, not
compiled again, by another that needs it later.

A case that fails is reported and skipped: a missing prebuilt kernel only means that the
first fit that needs it compiles it, as any numba kernel.
"""

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import NamedTuple, Optional

import numpy as np

SMALL = 400  # rows of the small fits: every code path of a fit, in milliseconds


def _data(n=SMALL, p=6, seed=0, missing=True, categorical=True, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    if categorical:
        X[:, 0] = rng.integers(0, 5, n)
    if missing:
        X[rng.random(n) < 0.1, 1] = np.nan
    y_class = (X[:, 2] + rng.normal(size=n) > 0).astype(np.int64)
    y_multi = rng.integers(0, 3, n)
    y_reg = X[:, 2] * 2.0 + rng.normal(size=n)
    return X.astype(dtype), y_class, y_multi, y_reg


def _use(model, X):
    model.predict(X)
    for method in ("predict_proba", "apply", "decision_path"):
        if hasattr(model, method):
            getattr(model, method)(X)
    return model


def _first():
    """The fits of a first hour: the Quick start's, ``treeboost demo``'s (on the bundled
    Titanic frame, as the demo reads it) and every estimator's defaults there, with their
    predictions, SHAP values and text rules."""
    import treeboost as tb
    from treeboost.demo import demo_models
    from treeboost.inspection import export_rules, shap_values

    if importlib.util.find_spec("pandas") is None:
        return  # the bundled data sets are data frames
    from treeboost.datasets import load_titanic

    data = load_titanic()
    X = data.data[["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]]
    y = np.asarray(data.target)
    clf = _use(tb.DecisionTreeClassifier(max_depth=3).fit(X, y), X)
    export_rules(clf)
    gbdt = tb.HistGradientBoostingClassifier(max_iter=20, early_stopping=True).fit(X, y)
    shap_values(_use(gbdt, X), X)
    for _, model in demo_models(None, n_estimators=5):
        _use(model.fit(X.iloc[:700], y[:700]), X.iloc[700:])
    for cls in (
        tb.GradientBoostingClassifier,
        tb.RandomForestClassifier,
        tb.ExtraTreesClassifier,
        tb.BaggingClassifier,
        tb.AdaBoostClassifier,
    ):
        _use(cls(n_estimators=5).fit(X, y), X)


def _trees():
    import treeboost as tb

    X, yc, ym, yr = _data()
    cat = [0]
    for criterion in ("gini", "entropy"):
        for y in (yc, ym):
            _use(
                tb.DecisionTreeClassifier(criterion=criterion, categorical_features=cat).fit(X, y),
                X,
            )
    _use(tb.DecisionTreeClassifier(max_depth=3, max_leaf_nodes=6).fit(X, yc), X)
    _use(tb.DecisionTreeClassifier(max_depth=3).fit(X, yc, sample_weight=np.ones(len(yc))), X)
    _use(tb.DecisionTreeClassifier(ccp_alpha=0.01).fit(X, yc), X)
    for criterion in ("squared_error", "friedman_mse", "absolute_error", "poisson"):
        target = np.abs(yr) if criterion == "poisson" else yr
        _use(
            tb.DecisionTreeRegressor(
                criterion=criterion, categorical_features=cat, max_depth=6
            ).fit(X, target),
            X,
        )
    _use(tb.ExtraTreeClassifier().fit(X, yc), X)
    _use(tb.ExtraTreeRegressor().fit(X, yr), X)
    _use(tb.DecisionTreeClassifier(monotonic_cst=[0, 0, 1, 0, 0, 0]).fit(X, yc), X)
    X32 = X.astype(np.float32)
    _use(tb.DecisionTreeClassifier().fit(X32, yc), X32)
    _use(tb.DecisionTreeRegressor().fit(X32, yr), X32)


def _layouts(X):
    """``X`` as the arrays users pass: numba compiles a kernel again for each memory
    layout, dtype and read-only flag (a data frame's ``to_numpy()`` is often Fortran
    ordered, and read-only under pandas 3, as joblib's memory maps are)."""
    readonly = X.copy()
    readonly.setflags(write=False)
    X32 = X.astype(np.float32)
    readonly32 = X32.copy()
    readonly32.setflags(write=False)
    return [X, np.asfortranarray(X), readonly, X32, readonly32]


def _inputs():
    """Fits and predictions on every layout of X (see :func:`_layouts`)."""
    import treeboost as tb

    X, yc, _, yr = _data()
    models = [
        tb.DecisionTreeClassifier(max_depth=4).fit(X, yc),
        tb.DecisionTreeRegressor(max_depth=4).fit(X, yr),
        tb.RandomForestClassifier(n_estimators=3, max_depth=4).fit(X, yc),
        tb.GradientBoostingClassifier(n_estimators=3).fit(X, yc),
        tb.GradientBoostingRegressor(n_estimators=3).fit(X, yr),
        tb.HistGradientBoostingClassifier(max_iter=3).fit(X, yc),
    ]
    from treeboost.engine import BinMapper

    for Xv in _layouts(X):
        tb.DecisionTreeClassifier(max_depth=4).fit(Xv, yc)
        tb.GradientBoostingClassifier(n_estimators=2).fit(Xv, yc)
        for model in models:
            _use(model, Xv)
        # a fit on more rows than the binning's sample reads every row for the NaN flags
        BinMapper(subsample=SMALL // 2, random_state=0).fit(Xv)
    # exact thresholds (no binning: a grower of its own; more than 255 bins, another
    # code dtype and thus another grower, is left to the fits that ask for it)
    for Xv in _layouts(X):
        _use(tb.DecisionTreeClassifier(max_bins=None).fit(Xv, yc), Xv)
    _use(tb.DecisionTreeRegressor(max_bins=None).fit(X, yr), X)
    _use(tb.RandomForestClassifier(n_estimators=2, max_bins=None).fit(X, yc), X)
    _use(tb.ExtraTreesClassifier(n_estimators=2, max_bins=None).fit(X, yc), X)


def _forests():
    import treeboost as tb

    X, yc, ym, yr = _data()
    for cls in (
        tb.RandomForestClassifier,
        tb.ExtraTreesClassifier,
        tb.BaggingClassifier,
        tb.AdaBoostClassifier,
    ):
        for y in (yc, ym):
            _use(cls(n_estimators=4, random_state=0).fit(X, y), X)
    for cls in (
        tb.RandomForestRegressor,
        tb.ExtraTreesRegressor,
        tb.BaggingRegressor,
        tb.AdaBoostRegressor,
    ):
        _use(cls(n_estimators=4, random_state=0).fit(X, yr), X)
    Xn, yc, _, _ = _data(missing=False, categorical=False)
    # numeric splits only: the lane walks (engine/predict/eight_rows.py), on numba's threads and
    # in a forest's workers
    for cls in (tb.RandomForestClassifier, tb.ExtraTreesClassifier):
        for n_jobs in (None, 2):
            _use(cls(n_estimators=4, n_jobs=n_jobs, random_state=0).fit(Xn, yc), Xn)
    _use(tb.GradientBoostingClassifier(n_estimators=3).fit(Xn, yc), Xn)
    _use(tb.RandomForestClassifier(n_estimators=4, oob_score=True, random_state=0).fit(X, yc), X)


def _boosting():
    import treeboost as tb

    X, yc, ym, yr = _data()
    for y in (yc, ym):
        _use(tb.GradientBoostingClassifier(n_estimators=5).fit(X, y), X)
        _use(tb.HistGradientBoostingClassifier(max_iter=5).fit(X, y), X)
        _use(
            tb.GradientBoostingClassifier(
                n_estimators=5,
                max_depth=None,
                max_leaf_nodes=31,
                min_samples_leaf=20,
                split_gain="hessian",
            ).fit(X, y),
            X,
        )
    for loss in ("squared_error", "absolute_error", "huber", "quantile"):
        _use(tb.GradientBoostingRegressor(n_estimators=5, loss=loss).fit(X, yr), X)
    _use(tb.HistGradientBoostingRegressor(max_iter=5).fit(X, yr), X)
    # early stopping scores the validation rows with the loss alone (the multinomial's
    # pointwise kernel, which a fit without a validation set never calls)
    for y in (yc, ym):
        _use(
            tb.HistGradientBoostingClassifier(
                max_iter=30, early_stopping=True, validation_fraction=0.2
            ).fit(X, y),
            X,
        )


def _large():
    """Trees above the parallel grower's size (as soon as data reaches it), of dense and
    of sparse codes."""
    import treeboost as tb
    from treeboost.engine import PARALLEL_GROWER_MIN_WORK

    n = 2 * PARALLEL_GROWER_MIN_WORK // 10
    X, yc, _, yr = _data(n=n, p=10)
    _use(tb.DecisionTreeClassifier(max_depth=8).fit(X, yc), X)
    _use(tb.DecisionTreeRegressor(max_depth=8).fit(X, yr), X)
    _use(tb.GradientBoostingClassifier(n_estimators=3).fit(X, yc), X)
    _use(tb.RandomForestClassifier(n_estimators=2, max_depth=8).fit(X, yc), X)
    # numeric splits only, rows enough for the lane walks on numba's threads
    Xn, yc, _, yr = _data(n=n, p=10, missing=False, categorical=False)
    _use(tb.DecisionTreeClassifier(max_depth=8).fit(Xn, yc), Xn)
    _use(tb.GradientBoostingRegressor(n_estimators=3).fit(Xn, yr), Xn)
    # rows enough for boosting's raw-score update on numba's threads
    from treeboost.engine import ADD_PARALLEL_MIN_SAMPLES

    Xa, _, _, ya = _data(n=2 * ADD_PARALLEL_MIN_SAMPLES, p=4, missing=False, categorical=False)
    _use(tb.HistGradientBoostingRegressor(max_iter=2, early_stopping=False).fit(Xa, ya), Xa)
    # ... and for the copy of a tree's samples on numba's threads
    from treeboost.engine import COPY_PARALLEL_MIN_SAMPLES

    Xc, _, _, yc2 = _data(n=2 * COPY_PARALLEL_MIN_SAMPLES, p=3, missing=False, categorical=False)
    tb.HistGradientBoostingRegressor(max_iter=1, early_stopping=False).fit(Xc, yc2)
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    very = sp.random(
        n,
        2 * PARALLEL_GROWER_MIN_WORK // n,
        density=0.03,
        format="csr",
        random_state=0,
        data_rvs=lambda k: rng.normal(size=k),
    )
    very_y = (np.asarray(very[:, :3].sum(axis=1)).ravel() > 0).astype(np.int64)
    _use(tb.DecisionTreeClassifier(max_depth=8).fit(very, very_y), very)
    _use(tb.DecisionTreeRegressor(max_depth=8).fit(very, very_y * 1.0), very)


def _structured():
    """Sparse X, several outputs, saved models, SHAP values, frames with text columns."""
    import tempfile

    import scipy.sparse as sp

    import treeboost as tb

    X, yc, ym, yr = _data(missing=False, categorical=False)
    # binned densely, and (at most 5 % of entries) kept as sparse codes: other growers
    rng = np.random.default_rng(0)
    very = sp.random(
        SMALL, 60, density=0.03, format="csr", random_state=0, data_rvs=lambda k: rng.normal(size=k)
    )
    very_y = (np.asarray(very[:, :3].sum(axis=1)).ravel() > 0).astype(np.int64)
    for Xs, y, target in (
        (sp.csr_matrix(np.where(np.abs(X) < 0.8, 0.0, X)), yc, yr),
        (very, very_y, very_y * 1.0),
    ):
        for model in (
            tb.DecisionTreeClassifier(),
            tb.RandomForestClassifier(n_estimators=3),
            tb.ExtraTreesClassifier(n_estimators=3),
            tb.GradientBoostingClassifier(n_estimators=3),
            tb.HistGradientBoostingClassifier(max_iter=3),
        ):
            _use(model.fit(Xs, y), Xs)
            _use(model, Xs.tocsc())
        for criterion in ("squared_error", "absolute_error"):
            _use(tb.DecisionTreeRegressor(criterion=criterion).fit(Xs, target), Xs)
        _use(tb.GradientBoostingRegressor(n_estimators=3).fit(Xs, target), Xs)
    Y = np.column_stack([yc, ym])
    _use(tb.DecisionTreeClassifier().fit(X, Y), X)
    _use(tb.RandomForestClassifier(n_estimators=3).fit(X, Y), X)
    _use(tb.DecisionTreeRegressor().fit(X, np.column_stack([yr, -yr])), X)
    from treeboost.inspection import shap_values

    with tempfile.TemporaryDirectory() as folder:
        for model in (
            tb.DecisionTreeClassifier(max_depth=4),
            tb.RandomForestClassifier(n_estimators=3, max_depth=4),
            tb.GradientBoostingClassifier(n_estimators=3),
        ):
            model.fit(X, ym)
            shap_values(model, X)
            path = os.path.join(folder, "model.tb")
            tb.save(model, path)
            _use(tb.load(path), X)
    if importlib.util.find_spec("pandas") is None:
        return  # the bundled data sets are data frames
    from treeboost.datasets import load_titanic

    data = load_titanic()
    frame = data.data[["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]]
    for model in (
        tb.DecisionTreeClassifier(max_depth=3),
        tb.GradientBoostingClassifier(n_estimators=3),
        tb.RandomForestClassifier(n_estimators=3),
    ):
        _use(model.fit(frame, data.target), frame)


#: the cases, dealt in this order to the processes (with two: first, large, forests and
#: inputs to one; trees, boosting and structured to the other).  The first case of each
#: compiles a grower of its own (the serial and the parallel copy); the later ones find
#: what the other process compiled meanwhile in its part of the folder
CASES = {
    "first": _first,
    "trees": _trees,
    "large": _large,
    "boosting": _boosting,
    "forests": _forests,
    "structured": _structured,
    "inputs": _inputs,
}

#: what a build compiles, by the name its ``prebuild`` setting gives: ``first`` (the
#: default) the kernels of the first hour's fits, in one process (about 80 CPU seconds;
#: every other kind of fit compiles its kernels the first time it runs, once, into the
#: user's cache folder); ``all`` every case, in two processes (about 470 CPU seconds)
GROUPS = {"first": (["first"], 1), "all": (list(CASES), 2)}

#: how often the build looks whether its processes have finished (s)
POLL_SECONDS = 0.2
#: the line a worker prints to its parent for each case it finishes
CASE_LINE = "TREEBOOST-PREBUILD-CASE"


def _count_compilations():
    """A list that numba's compile events append to (one item per kernel compiled,
    nested compilations included), for the rest of this process."""
    from numba.core import event

    compiled = []

    class _Counter(event.Listener):
        def on_start(self, ev):
            pass

        def on_end(self, ev):
            compiled.append(1)

    event.register("numba:compile", _Counter())
    return compiled


def run_cases(names):
    """Run the named cases in this process; returns the names of those that failed.
    For each case it prints a line to stdout (:data:`CASE_LINE`, the case, its seconds,
    the kernels it compiled) that the building parent turns into its progress."""
    from treeboost.engine import speed_up_compilation

    # this worker process compiles nothing but the engine (engine/_numba/compilation.py)
    speed_up_compilation()
    compiled = _count_compilations()
    failed = []
    for name in names:
        start, before = time.perf_counter(), len(compiled)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                CASES[name]()
        except Exception as exc:  # noqa: BLE001 (a failed case costs only its kernels)
            print(f"treeboost prebuild: case {name!r} failed: {exc!r}", file=sys.stderr)
            failed.append(name)
        seconds = time.perf_counter() - start
        print(f"{CASE_LINE} {name} {seconds:.1f} {len(compiled) - before}", flush=True)
    return failed


def worker_env(i, folder=None):
    """The environment of the build's ``i``-th worker process: it saves into its part of
    ``folder`` (default :data:`~treeboost.engine.kernel_cache.PREBUILT_DIR`), and has at
    least two threads, so that its large trees take the parallel growers, which it then
    compiles (on a one-core machine too, where numba's default is one thread)."""
    from treeboost.engine import kernel_cache

    part = f"part{i}" if folder is None else str(Path(folder).resolve() / f"part{i}")
    env = dict(os.environ, **{kernel_cache.PREBUILD_ENV: part})
    env.pop(kernel_cache.DISABLE_ENV, None)
    given = env.get("NUMBA_NUM_THREADS", "")
    threads = int(given) if given.isdigit() else (os.cpu_count() or 1)
    env["NUMBA_NUM_THREADS"] = str(max(2, threads))
    return env


def _split(names, jobs):
    return [names[i::jobs] for i in range(jobs) if names[i::jobs]]


class PrebuildReport(NamedTuple):
    """What :func:`prebuild` did."""

    seconds: float  #: wall time
    failed: int  #: processes in which a case failed (their other kernels kept)
    compiled: int = 0  #: kernels compiled (0 when the layer was there or copied)
    reused: Optional[str] = None  #: the layer copied or kept instead of compiling, if any
    folder: Optional[str] = None  #: the layer written


def complete(folder, names):
    """Whether ``folder`` holds a layer compiled from this source, under this process's
    settings, by every case of ``names``, none of which failed."""
    from treeboost.engine import kernel_cache

    if not kernel_cache.prebuilt_matches(folder):
        return False
    manifest = kernel_cache.read_manifest(folder)
    done = {case for part in manifest.get("parts", {}).values() for case in part["cases"]}
    return manifest.get("failed_processes", 1) == 0 and set(names) <= done


def say(message):
    """One line of the build's progress, on stderr (pip shows it with ``-v``)."""
    print(f"treeboost: {message}", file=sys.stderr, flush=True)


def _relay(proc, share, progress):
    """Turn a worker's case lines into progress lines (the rest of its stdout passes)."""
    for line in proc.stdout:
        if not line.startswith(CASE_LINE):
            sys.stderr.write(line)
            continue
        _, name, seconds, compiled = line.split()
        with progress["lock"]:
            progress["done"] += 1
            progress["compiled"] += int(compiled)
            say(
                f"kernels [{progress['done']}/{progress['total']}] {name}: "
                f"{compiled} compiled in {float(seconds):.0f} s"
            )


def prebuild(jobs=2, cases=None, folder=None, force=False):
    """Compile the kernels of ``cases`` (default: every case) into the layer ``folder``
    (default: the one in the user's cache folder,
    :func:`~treeboost.engine.kernel_cache.user_prebuilt_dir`), in ``jobs`` processes,
    and write its manifest.  Returns a :class:`PrebuildReport`.

    Nothing is compiled when ``folder`` already holds those kernels for this source and
    machine, and when the user's cache folder does (a second build of the same source:
    an editable install after a regular one, another virtual environment): that layer
    is copied.  A layer compiled elsewhere is copied into the user's cache folder, for
    the next build.  ``force`` compiles in any case."""
    from treeboost.engine import kernel_cache

    names = list(cases or CASES)
    unknown = [name for name in names if name not in CASES]
    if unknown:
        raise ValueError(f"cases: no such case {unknown} (the cases: {list(CASES)})")
    start = time.perf_counter()
    cached = kernel_cache.user_prebuilt_dir()
    folder = cached if folder is None else Path(folder)
    if not force and complete(folder, names):
        say(f"kernels already compiled for this source and machine ({folder})")
        return PrebuildReport(0.0, 0, 0, str(folder), str(folder))
    if not force and folder != cached and complete(cached, names):
        kernel_cache.copy_layer(cached, folder)
        seconds = time.perf_counter() - start
        say(f"kernels of this source and machine copied from {cached} in {seconds:.1f} s")
        return PrebuildReport(seconds, 0, 0, str(cached), str(folder))
    shutil.rmtree(folder, ignore_errors=True)
    shares = _split(names, max(1, jobs))
    # every part exists before any process starts, so that each looks in all of them
    for i in range(len(shares)):
        (folder / f"part{i}").mkdir(parents=True)
    say(
        f"compiling the numba kernels of {len(names)} groups of fits in {len(shares)} "
        f"processes, once for this source and machine (pip shows these lines with -v) ..."
    )
    progress = {"lock": threading.Lock(), "done": 0, "total": len(names), "compiled": 0}
    running, relays = {}, []
    for i, share in enumerate(shares):
        proc = subprocess.Popen(
            [sys.executable, "-m", "treeboost._prebuild", "--cases", ",".join(share)],
            env=worker_env(i, folder),
            stdout=subprocess.PIPE,
            text=True,
        )
        relay = threading.Thread(target=_relay, args=(proc, share, progress), daemon=True)
        relay.start()
        relays.append(relay)
        running[f"part{i}"] = (share, proc)
    parts, failed = {}, 0
    while running:
        time.sleep(POLL_SECONDS)
        for part, (share, proc) in list(running.items()):
            if proc.poll() is not None:
                parts[part] = {"cases": share, "seconds": round(time.perf_counter() - start, 1)}
                failed += proc.returncode != 0
                del running[part]
    for relay in relays:
        relay.join()
    report = PrebuildReport(
        time.perf_counter() - start, failed, progress["compiled"], None, str(folder)
    )
    kernel_cache.write_manifest(
        {
            "parts": parts,
            "seconds": round(report.seconds, 1),
            "failed_processes": report.failed,
            "compiled": report.compiled,
        },
        folder=folder,
    )
    if folder != cached and not failed:
        try:
            kernel_cache.copy_layer(folder, cached)
        except OSError as exc:  # the next build compiles them again
            say(f"the kernels were not kept in {cached} ({exc})")
    say(f"{report.compiled} kernels compiled in {report.seconds:.0f} s into {folder}")
    return report


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, help="processes (default 2; the group's)")
    ap.add_argument(
        "--cases",
        help="comma-separated cases to run in this process (the "
        "worker mode; the folder and manifest are left alone)",
    )
    ap.add_argument(
        "--package",
        action="store_true",
        help="into the package's folder (the build: a wheel carries it) instead of the "
        "user's cache folder",
    )
    ap.add_argument("--force", action="store_true", help="compile even if they are there")
    ap.add_argument(
        "--group",
        choices=sorted(GROUPS),
        help="the cases of a group (first: the first hour's fits; all: every case, "
        "the default), in the group's processes unless --jobs says otherwise",
    )
    args = ap.parse_args(argv)
    if args.cases:
        from treeboost.engine import CoreShare

        # the other worker keeps a core busy: a fit that watched the load would grow its
        # large trees on one thread and never compile the parallel growers
        CoreShare._watch = False
        failed = run_cases(args.cases.split(","))
        return 1 if failed else 0
    from treeboost.engine import kernel_cache

    folder = kernel_cache.PREBUILT_DIR if args.package else None
    cases, jobs = GROUPS[args.group] if args.group else (None, args.jobs)
    jobs = args.jobs if args.jobs is not None else jobs
    report = prebuild(jobs=jobs or 2, cases=cases, folder=folder, force=args.force)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
