"""Boosting on a Dask cluster: treeboost.dask against lightgbm.dask and xgboost.dask.

    python benchmarks/bench_dask.py [--rows 2000000] [--features 20] [--chunks 8]
                                    [--workers 2] [--threads 1] [--trees 100]
                                    [--loss log_loss|absolute_error|quantile]
                                    [--libs tb,lgbm,xgb] [--out DIR]

Each library runs in a fresh driver process of its own, with a fresh ``LocalCluster``
of ``--workers`` worker processes (``--threads`` threads each). The driver makes the
same data on the workers (float32, ``--chunks`` persisted chunks, chunk i on worker
i mod ``--workers`` so that every library gets the same even share; a binary target from
a fixed random linear-plus-interaction model with 5 % label noise, and a test set of a
quarter as many rows), fits 100 trees of 31 leaves (learning rate 0.1, 255 bins, 20 rows
a leaf, no early stopping), and prints one JSON line: fit seconds, the peak resident
memory of each worker and of the driver (``ru_maxrss``), the test AUC, the chunks each
worker held and, for treeboost, the round trips to the workers per tree and the
histogram bytes they sent per tree.

``--loss absolute_error`` or ``quantile`` fits regressors instead (the same model's
score plus Student-t noise as the target; LightGBM's ``l1`` / ``quantile`` objectives,
XGBoost's ``reg:absoluteerror`` / ``reg:quantileerror``, alpha 0.9) and scores the test
set's mean absolute error or pinball loss (lower is better) where AUC was.
The table at the end gives each library's fit time over LightGBM's.
"""

import argparse
import json
import time

from _fresh import run_each


#: alpha of the quantile loss
ALPHA = 0.9


def make_chunk(seed, n, n_features, regression=False):
    import numpy as np

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, n_features)).astype(np.float32)
    w = np.random.default_rng(12345).standard_normal(n_features)
    z = X @ w + 1.5 * X[:, 0] * X[:, 1] - np.abs(X[:, 2])
    if regression:
        return X, z + rng.standard_t(3, size=n)
    y = (z + rng.logistic(size=n) * 0.5 > 0).astype(np.int64)
    flip = rng.random(n) < 0.05
    y[flip] = 1 - y[flip]
    return X, y


def make_data(client, rows, n_features, chunks, seed, regression=False):
    import dask
    import dask.array as da
    import numpy as np

    size = rows // chunks
    # chunk i made on worker i mod n_workers: every library gets the same, even share of
    # rows per worker (where the scheduler puts them, one worker may get 5 chunks of 8)
    workers = sorted(client.scheduler_info()["workers"])
    X_parts, y_parts = [], []
    for i in range(chunks):
        where = [workers[i % len(workers)]]
        both = dask.delayed(make_chunk)(seed * 1000 + i, size, n_features, regression)
        X_part, y_part = client.persist(
            [both[0], both[1]], workers=where, allow_other_workers=False
        )
        X_parts.append(da.from_delayed(X_part, (size, n_features), np.float32))
        y_parts.append(da.from_delayed(y_part, (size,), np.float64 if regression else np.int64))
    X = da.concatenate(X_parts)
    y = da.concatenate(y_parts)
    X, y = client.persist([X, y])
    from distributed import wait

    wait([X, y])
    return X, y


def peak_rss_mib():
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_one(args):
    import numpy as np
    from distributed import Client, LocalCluster
    from sklearn.metrics import roc_auc_score

    cluster = LocalCluster(
        n_workers=args.workers,
        threads_per_worker=args.threads,
        processes=True,
        dashboard_address=None,
    )
    client = Client(cluster)
    reg = args.loss != "log_loss"
    X, y = make_data(client, args.rows, args.features, args.chunks, 0, reg)
    Xt, yt = make_data(client, args.rows // 4, args.features, args.chunks, 1, reg)
    common = dict(learning_rate=0.1)
    extra = {}
    if args.lib == "tb":
        import treeboost.dask as tbd

        cls = (
            tbd.DaskHistGradientBoostingRegressor if reg else tbd.DaskHistGradientBoostingClassifier
        )
        loss = dict(loss=args.loss, quantile=ALPHA) if args.loss == "quantile" else {}
        if args.loss == "absolute_error":
            loss = dict(loss=args.loss)
        model = cls(
            max_iter=args.trees,
            max_leaf_nodes=31,
            min_samples_leaf=20,
            max_bins=255,
            early_stopping=False,
            **loss,
            **common,
        )
        # a small fit first, on every worker: the kernels load (or compile) there
        Xw, yw = make_data(
            client, 4_000 * args.workers * 4, args.features, args.workers * 4, 2, reg
        )
        cls(max_iter=2, early_stopping=False, **loss).fit(Xw, yw)
    elif args.lib == "lgbm":
        import lightgbm as lgb

        cls = lgb.DaskLGBMRegressor if reg else lgb.DaskLGBMClassifier
        objective = {
            "absolute_error": dict(objective="l1"),
            "quantile": dict(objective="quantile", alpha=ALPHA),
        }
        model = cls(
            client=client,
            n_estimators=args.trees,
            num_leaves=31,
            min_child_samples=20,
            max_bin=255,
            verbose=-1,
            **objective.get(args.loss, {}),
            **common,
        )
    else:
        import xgboost.dask as xgb_dask

        cls = xgb_dask.DaskXGBRegressor if reg else xgb_dask.DaskXGBClassifier
        objective = {
            "absolute_error": dict(objective="reg:absoluteerror"),
            "quantile": dict(objective="reg:quantileerror", quantile_alpha=ALPHA),
        }
        model = cls(
            n_estimators=args.trees,
            max_leaves=31,
            grow_policy="lossguide",
            max_depth=0,
            tree_method="hist",
            max_bin=256,
            **objective.get(args.loss, {}),
            **common,
        )
        model.client = client
    # where the scheduler put the training chunks: a worker with more of them gates
    # every library's fit
    from distributed import futures_of

    holders = client.who_has(futures_of(X))
    chunks = sorted(
        sum(1 for h in holders.values() if w in h) for w in client.scheduler_info()["workers"]
    )
    t0 = time.perf_counter()
    model.fit(X, y)
    fit_s = time.perf_counter() - t0
    if reg:
        from sklearn.metrics import mean_absolute_error, mean_pinball_loss

        pred = model.predict(Xt)
        p = np.asarray(pred.compute() if hasattr(pred, "compute") else pred).reshape(-1)
        if args.loss == "quantile":
            score = mean_pinball_loss(yt.compute(), p, alpha=ALPHA)
        else:
            score = mean_absolute_error(yt.compute(), p)
    else:
        proba = model.predict_proba(Xt)
        p = np.asarray(proba.compute() if hasattr(proba, "compute") else proba)
        score = roc_auc_score(yt.compute(), p[:, 1] if p.ndim == 2 else p)
    workers = client.run(peak_rss_mib)
    if args.lib == "tb":
        extra = {
            "rounds_per_tree": float(np.mean(model.n_rounds_)),
            # what the workers sent: each worker's histograms of the nodes built
            "hist_bytes_per_tree": float(np.mean(model.n_hist_bytes_)),
        }
    out = {
        "lib": args.lib,
        "loss": args.loss,
        "fit_s": round(fit_s, 2),
        "score": round(float(score), 4),
        "worker_peak_mib": [round(v) for v in workers.values()],
        "client_peak_mib": round(peak_rss_mib()),
        "chunks_per_worker": chunks,
        **extra,
    }
    print(json.dumps(out), flush=True)
    client.close()
    cluster.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--chunks", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument(
        "--loss", default="log_loss", choices=["log_loss", "absolute_error", "quantile"]
    )
    ap.add_argument("--libs", default="tb,lgbm,xgb")
    ap.add_argument("--lib", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.lib:
        return run_one(args)
    keys = ("rows", "features", "chunks", "workers", "threads", "trees", "loss")
    rows = run_each(
        __file__, args.libs.split(","), {k: getattr(args, k) for k in keys}, args.out, "dask.jsonl"
    )
    ref = {r["lib"]: r for r in rows}.get("lgbm")
    print(
        f"\n{args.rows:,} rows x {args.features} features in {args.chunks} chunks, "
        f"{args.workers} workers x {args.threads} threads, {args.trees} trees of 31 "
        f"leaves, loss {args.loss}"
    )
    metric = {"log_loss": "test AUC", "absolute_error": "test MAE", "quantile": "test pinball"}
    print(
        f"| library | fit (s) | / LightGBM | {metric[args.loss]} | worker peak (MiB) "
        "| client peak (MiB) | chunks per worker |"
    )
    print("|---|---|---|---|---|---|---|")
    names = {"tb": "treeboost.dask", "lgbm": "lightgbm.dask", "xgb": "xgboost.dask"}
    for r in rows:
        ratio = f"{r['fit_s'] / ref['fit_s']:.2f}x" if ref else "-"
        print(
            f"| {names[r['lib']]} | {r['fit_s']:.2f} | {ratio} | {r['score']:.4f} | "
            f"{' / '.join(map(str, r['worker_peak_mib']))} | {r['client_peak_mib']} | "
            f"{' / '.join(map(str, r['chunks_per_worker']))} |"
        )
    for r in rows:
        if "rounds_per_tree" in r:
            print(
                f"\ntreeboost: {r['rounds_per_tree']:.1f} round trips and "
                f"{r['hist_bytes_per_tree'] / 2**20:.1f} MiB of histograms per tree"
            )


if __name__ == "__main__":
    main()
