"""Serving speed of a tree model: single-row latency and batch throughput.

Each library runs in a fresh process of its own (``--lib``) on the same data and model
shape: HistGradientBoosting (``--iters`` iterations, 31 leaves) and RandomForest
(``--trees`` trees); treeboost's ``predict_proba``, onnxruntime on treeboost's ONNX
export (float64 graph), tl2cgen's compiled treeboost model, and LightGBM's and
scikit-learn's ``predict_proba`` on their own models fitted to the same data.

Single-row latency: median and 99th percentile over ``--calls`` calls of one row each;
throughput: rows per second on 1,000 rows and on ``--batch`` rows (the best of 3).
The models are fitted to ``--rows`` rows (``--train-rows`` for the forest, whose trees
grow to full depth: 100,000 by default); the single rows, the 1,000 rows and the batch
come from the same data (the batch repeats it past its rows).  The issue's size is
``--rows 1000000 --features 40 --iters 100``; ``--quick`` is small.

``--breakdown`` says where a single-row ``predict_proba`` of treeboost's HGB spends its
time instead: each stage of the call timed alone, median over ``--calls`` calls.

    python benchmarks/bench_serving.py --quick
    python benchmarks/bench_serving.py --breakdown --rows 100000
"""

import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _fresh import run_each  # noqa: E402
from _timing import best_time  # noqa: E402

LIBS = ["treeboost", "onnxruntime", "tl2cgen", "lightgbm", "sklearn"]


def _data(rows, features, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, features))
    X[rng.random(X.shape) < 0.02] = np.nan
    score = np.nansum(X[:, :5], axis=1) + np.nan_to_num(X[:, 5] * X[:, 6])
    return X, (score > 0).astype(np.int64)


def _treeboost(kind, args):
    import treeboost as tb

    if kind == "hgb":
        return tb.HistGradientBoostingClassifier(max_iter=args.iters, early_stopping=False)
    return tb.RandomForestClassifier(n_estimators=args.trees, n_jobs=-1, random_state=0)


def _predictor(lib, kind, args, X, y):
    """``predict(rows) -> probabilities`` of ``lib``'s model fitted to X, y."""
    if lib == "lightgbm":
        import lightgbm as lgb

        if kind == "hgb":
            m = lgb.LGBMClassifier(n_estimators=args.iters, verbose=-1)
        else:
            m = lgb.LGBMClassifier(
                boosting_type="rf",
                n_estimators=args.trees,
                num_leaves=2**15,
                subsample=0.632,
                subsample_freq=1,
                colsample_bytree=0.8,
                verbose=-1,
            )
        m.fit(X, y)
        return m.predict_proba
    if lib == "sklearn":
        from sklearn import ensemble

        if kind == "hgb":
            m = ensemble.HistGradientBoostingClassifier(max_iter=args.iters, early_stopping=False)
        else:
            m = ensemble.RandomForestClassifier(n_estimators=args.trees, n_jobs=-1, random_state=0)
        m.fit(X, y)
        return m.predict_proba
    model = _treeboost(kind, args).fit(X, y)
    if lib == "treeboost":
        return model.predict_proba

    if lib == "onnxruntime":
        import onnxruntime as ort

        from treeboost.export import to_onnx

        s = ort.InferenceSession(
            to_onnx(model).SerializeToString(), providers=["CPUExecutionProvider"]
        )
        return lambda rows: s.run(["probabilities"], {"X": rows})[0]
    if lib == "tl2cgen":
        import tl2cgen

        from treeboost.export import to_treelite

        lib_path = os.path.join(tempfile.mkdtemp(), "model.so")
        tl2cgen.export_lib(
            to_treelite(model),
            toolchain="gcc",
            libpath=lib_path,
            params={"parallel_comp": 8},
            nthread=2,
        )
        pred = tl2cgen.Predictor(lib_path)
        return lambda rows: pred.predict(tl2cgen.DMatrix(rows))
    raise ValueError(f"unknown --lib {lib!r}")


def _train_rows(model, rows, train_rows):
    """Rows the model is fitted to: ``--rows``, or ``--train-rows`` for the forest."""
    if model == "rf" and train_rows:
        return min(rows, train_rows)
    return rows


def child(args):
    X, y = _data(args.rows, args.features)
    n_train = _train_rows(args.model, args.rows, args.train_rows)
    t = time.perf_counter()
    predict = _predictor(args.lib, args.model, args, X[:n_train], y[:n_train])
    setup = time.perf_counter() - t
    predict(X[:10])  # compile / warm up
    rows = [X[i : i + 1] for i in range(min(args.calls, len(X)))]
    lat = np.empty(len(rows))
    for i, r in enumerate(rows):
        t = time.perf_counter()
        predict(r)
        lat[i] = time.perf_counter() - t
    t1k, _ = best_time(lambda: predict(X[:1000]), 3)
    batch = X[: args.batch] if args.batch <= len(X) else np.resize(X, (args.batch, X.shape[1]))
    tbig, _ = best_time(lambda: predict(batch), 3)
    print(
        json.dumps(
            {
                "lib": args.lib,
                "model": args.model,
                "train_rows": n_train,
                "setup_s": round(setup, 2),
                "median_us": round(float(np.median(lat)) * 1e6, 1),
                "p99_us": round(float(np.percentile(lat, 99)) * 1e6, 1),
                "rows_per_s_1k": round(1000 / t1k),
                "rows_per_s_batch": round(len(batch) / tbig),
                "batch": len(batch),
                "load": round(os.getloadavg()[0], 2),
            }
        )
    )


def breakdown(args):
    """Median time of each stage of a single-row ``predict_proba`` of treeboost's HGB
    (the stages ``predict_proba`` runs, called one by one on the same row)."""
    from treeboost.engine import CoreShare
    from treeboost.engine.predict.eight_rows import predict_packed_lanes_serial

    X, y = _data(args.rows, args.features)
    model = _treeboost("hgb", args).fit(X, y)
    row = X[:1]
    loss = model._loss
    K = loss.n_outputs
    packer = model._packer()
    Xe = model._encode_X(row, reset=False)
    raw = model._initial_raw(row, 1, loss)
    lanes = packer.lanes

    def share():
        with CoreShare.for_prediction(packer.roots.shape[0]):
            pass

    stages = {
        "whole predict_proba call": lambda: model.predict_proba(row),
        "input check and encoding (_encode_X)": lambda: model._encode_X(row, reset=False),
        "initial scores (_initial_raw)": lambda: model._initial_raw(row, 1, loss),
        "thread share of the call (CoreShare)": share,
        "packed trees, looked up (_packer)": model._packer,
        "PackedTrees.predict (checks, kernel)": lambda: packer.predict(Xe, K, out=raw),
        "  of which the kernel (numba's call)": lambda: predict_packed_lanes_serial(
            Xe, *lanes, packer.value, packer.roots, packer.output, raw
        ),
        "probabilities (loss.proba)": lambda: model._proba(raw),
    }
    empty = lambda: None  # noqa: E731  (the timer's own cost, subtracted)
    medians = {}
    for name, call in {"": empty, **stages}.items():
        call()
        lat = np.empty(args.calls)
        for i in range(args.calls):
            t = time.perf_counter()
            call()
            lat[i] = time.perf_counter() - t
        medians[name] = float(np.median(lat))
    base = medians.pop("")
    us = {name: max(m - base, 0.0) * 1e6 for name, m in medians.items()}
    names = list(us)
    # the stages but the whole call and the kernel inside PackedTrees.predict
    rest = us[names[0]] - sum(us[n] for n in names[1:] if not n.startswith(" "))
    print(
        f"HGB({args.iters}) fitted to {args.rows:,} x {args.features}: one row, median of "
        f"{args.calls:,} calls per stage, load {os.getloadavg()[0]:.2f}"
    )
    for name, t in us.items():
        print(f"{name:40} {t:6.1f} us")
    print(f"{'the Python calls between the stages':40} {rest:6.1f} us")


def _table(model, args, results):
    """The table of one model's rows (``results``: the JSON rows of its libraries)."""
    ref = next((r for r in results if r["lib"] == "treeboost"), None)
    n_train = _train_rows(model, args.rows, args.train_rows)
    size = f"{model}({args.trees if model == 'rf' else args.iters})"
    print(
        f"\n{size} fitted to {n_train} x {args.features}, predicting rows of "
        f"{args.rows} x {args.features}  (ratio: treeboost / other; "
        f"latency < 1 and throughput > 1 favour treeboost; load: 1-minute load average)"
    )
    print(
        f"{'lib':12} {'median us':>10} {'p99 us':>9} {'rows/s 1k':>11} "
        f"{'rows/s ' + str(args.batch):>15} {'load':>5}   ratios (median, 1k, batch)"
    )
    for r in results:
        ratio = ""
        if ref is not None:
            ratio = (
                f"{ref['median_us'] / r['median_us']:.2f}  "
                f"{ref['rows_per_s_1k'] / r['rows_per_s_1k']:.2f}  "
                f"{ref['rows_per_s_batch'] / r['rows_per_s_batch']:.2f}"
            )
        print(
            f"{r['lib']:12} {r['median_us']:>10} {r['p99_us']:>9} "
            f"{r['rows_per_s_1k']:>11} {r['rows_per_s_batch']:>15} {r['load']:>5}   {ratio}"
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--lib")
    ap.add_argument("--model", default="hgb")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--features", type=int, default=40)
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument(
        "--train-rows",
        type=int,
        default=100_000,
        help="rows the forest is fitted to (its trees grow to full depth); 0: --rows",
    )
    ap.add_argument("--calls", type=int, default=10_000)
    ap.add_argument("--batch", type=int, default=1_000_000)
    ap.add_argument("--libs", default=",".join(LIBS))
    ap.add_argument("--models", default="hgb,rf", help="comma-separated: hgb, rf")
    ap.add_argument("--out-dir", default=None, help="write each model's rows here (JSONL)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--breakdown", action="store_true", help="where a one-row call's time goes")
    ap.add_argument(
        "--table",
        nargs="+",
        metavar="JSONL",
        help="print the table of rows saved by --out-dir (runs of a model's libraries apart)",
    )
    args = ap.parse_args()
    if args.breakdown:
        return breakdown(args)
    if args.table:
        rows = [json.loads(ln) for f in args.table for ln in open(f) if ln.strip()]
        return _table(rows[0]["model"], args, rows)
    if args.lib:
        return child(args)
    if args.quick:
        args.rows, args.features, args.iters, args.trees = 20_000, 20, 30, 20
        args.train_rows = 20_000
        args.calls, args.batch = 1000, 100_000
    for model in args.models.split(","):
        opts = dict(
            model=model,
            rows=args.rows,
            features=args.features,
            iters=args.iters,
            trees=args.trees,
            train_rows=args.train_rows,
            calls=args.calls,
            batch=args.batch,
        )
        results = run_each(
            __file__, args.libs.split(","), opts, args.out_dir, f"serving_{model}.jsonl"
        )
        _table(model, args, results)


if __name__ == "__main__":
    main()
