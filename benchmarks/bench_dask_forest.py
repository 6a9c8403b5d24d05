"""Random forests on a Dask cluster: treeboost.dask against the one-machine forests.

    python benchmarks/bench_dask_forest.py [--rows 1000000] [--features 20] [--chunks 8]
                                           [--workers 2] [--threads 1] [--trees 100]
                                           [--min-samples-leaf 5] [--libs dask,local]
                                           [--out DIR]

Each forest runs in a fresh driver process of its own, on the data of
``bench_dask.py`` (float32, a binary target with 5 % label noise, a test set of a
quarter as many rows), with ``--trees`` trees of the default parameters (``sqrt``
features) but ``--min-samples-leaf`` (5 by default: full-depth trees, ``1``, hold about
as many nodes as there are rows, which makes the default run of the two treeboost
forests last twice as long on two cores, and their model about a gigabyte):

* ``dask``: :class:`treeboost.dask.DaskRandomForestClassifier` on a fresh
  ``LocalCluster`` of ``--workers`` worker processes (``--threads`` threads each), the
  data made on the workers in ``--chunks`` persisted chunks; each worker grows its
  share of the trees on its rows and only the trees travel to the driver.
* ``local``: :class:`treeboost.RandomForestClassifier` on the same data made in the
  driver (no cluster), ``n_jobs`` = workers x threads.
* ``sklearn``: scikit-learn's ``RandomForestClassifier`` under joblib's Dask backend on a
  fresh cluster as ``dask``'s, the data computed to the driver first (joblib sends the
  whole X to every worker). Not in the default run: at 1M rows a tree takes it about
  ten times as long as treeboost's (minutes for the default forest on two cores).

Each prints one JSON line: fit seconds, test accuracy and AUC, the peak resident memory
of each worker and of the driver (``ru_maxrss``, which counts the data made there), the
nodes of the forest; for ``dask``, the trees per worker and the seconds of a
``predict_proba`` mapped over the dask test set. A small fit first loads (or compiles)
the kernels where the forest grows. The table at the end gives each fit time over the
one-machine forest's.
"""

import argparse
import json
import time

from _fresh import run_each
from bench_dask import make_chunk, make_data, peak_rss_mib


def local_data(rows, n_features, chunks, seed):
    """The data of :func:`bench_dask.make_data`, made in this process."""
    import numpy as np

    size = rows // chunks
    parts = [make_chunk(seed * 1000 + i, size, n_features) for i in range(chunks)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def scores(y, proba):
    from sklearn.metrics import roc_auc_score

    return {
        "acc": round(float(((proba[:, 1] > 0.5) == y).mean()), 4),
        "auc": round(float(roc_auc_score(y, proba[:, 1])), 4),
    }


def run_one(args):
    import numpy as np

    params = dict(n_estimators=args.trees, min_samples_leaf=args.min_samples_leaf, random_state=0)
    out = {"lib": args.lib}
    cluster = client = None
    if args.lib in ("dask", "sklearn"):
        from distributed import Client, LocalCluster

        cluster = LocalCluster(
            n_workers=args.workers,
            threads_per_worker=args.threads,
            processes=True,
            dashboard_address=None,
        )
        client = Client(cluster)
    if args.lib == "dask":
        from treeboost.dask import DaskRandomForestClassifier

        X, y = make_data(client, args.rows, args.features, args.chunks, 0)
        Xt, yt = make_data(client, args.rows // 4, args.features, args.chunks, 1)
        Xw, yw = make_data(client, 4_000 * args.workers * 4, args.features, args.workers * 4, 2)
        DaskRandomForestClassifier(n_estimators=2 * args.workers).fit(Xw, yw)
        model = DaskRandomForestClassifier(**params)
        t0 = time.perf_counter()
        model.fit(X, y)
        out["fit_s"] = round(time.perf_counter() - t0, 2)
        t0 = time.perf_counter()
        proba = model.predict_proba(Xt).compute()
        out["predict_dask_s"] = round(time.perf_counter() - t0, 2)
        yt = yt.compute()
        out["trees_per_worker"] = list(model.trees_per_worker_.values())
    elif args.lib == "local":
        from treeboost import RandomForestClassifier

        X, y = local_data(args.rows, args.features, args.chunks, 0)
        Xt, yt = local_data(args.rows // 4, args.features, args.chunks, 1)
        n_jobs = args.workers * args.threads
        RandomForestClassifier(n_estimators=n_jobs, n_jobs=n_jobs).fit(X[:16_000], y[:16_000])
        model = RandomForestClassifier(n_jobs=n_jobs, **params)
        t0 = time.perf_counter()
        model.fit(X, y)
        out["fit_s"] = round(time.perf_counter() - t0, 2)
        proba = model.predict_proba(Xt)
    else:
        from joblib import parallel_config
        from sklearn.ensemble import RandomForestClassifier

        X, y = (a.compute() for a in make_data(client, args.rows, args.features, args.chunks, 0))
        Xt, yt = local_data(args.rows // 4, args.features, args.chunks, 1)
        model = RandomForestClassifier(n_jobs=-1, **params)
        t0 = time.perf_counter()
        with parallel_config(backend="dask"):
            model.fit(X, y)
        out["fit_s"] = round(time.perf_counter() - t0, 2)
        proba = model.predict_proba(Xt)
    out.update(scores(np.asarray(yt), np.asarray(proba)))
    out["nodes"] = int(sum(t.tree_.node_count for t in model.estimators_))
    if client is not None:
        out["worker_peak_mib"] = [round(v) for v in client.run(peak_rss_mib).values()]
    out["client_peak_mib"] = round(peak_rss_mib())
    print(json.dumps(out), flush=True)
    if client is not None:
        client.close()
        cluster.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--chunks", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--min-samples-leaf", type=int, default=5)
    ap.add_argument("--libs", default="dask,local")
    ap.add_argument("--lib", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.lib:
        return run_one(args)
    keys = ("rows", "features", "chunks", "workers", "threads", "trees", "min_samples_leaf")
    rows = run_each(
        __file__,
        args.libs.split(","),
        {k: getattr(args, k) for k in keys},
        args.out,
        "dask_forest.jsonl",
    )
    ref = {r["lib"]: r for r in rows}.get("local")
    print(
        f"\n{args.rows:,} rows x {args.features} features in {args.chunks} chunks, "
        f"{args.workers} workers x {args.threads} threads, {args.trees} trees "
        f"(min_samples_leaf={args.min_samples_leaf})"
    )
    print(
        "| forest | fit (s) | / one machine | test acc | test AUC | nodes | "
        "worker peak (MiB) | client peak (MiB) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    names = {
        "dask": "treeboost.dask DaskRandomForestClassifier",
        "local": "treeboost RandomForestClassifier (one machine)",
        "sklearn": "scikit-learn RandomForestClassifier (joblib Dask backend)",
    }
    for r in rows:
        ratio = f"{r['fit_s'] / ref['fit_s']:.2f}x" if ref else "-"
        workers = " / ".join(map(str, r.get("worker_peak_mib", []))) or "-"
        print(
            f"| {names[r['lib']]} | {r['fit_s']:.2f} | {ratio} | {r['acc']:.4f} | "
            f"{r['auc']:.4f} | {r['nodes']:,} | {workers} | {r['client_peak_mib']} |"
        )
    for r in rows:
        if "predict_dask_s" in r:
            print(
                f"\ntreeboost.dask: trees per worker {r['trees_per_worker']}; predict_proba "
                f"mapped over the dask test set: {r['predict_dask_s']:.2f} s"
            )


if __name__ == "__main__":
    main()
