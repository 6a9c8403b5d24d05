"""Training a forest on all cores, and on a Dask cluster through joblib.

Run:  python examples/parallel_forest.py [--n-samples 100000] [--n-estimators 100]
                                         [--out DIR] [--quick]

Fits the same RandomForestClassifier with n_jobs = 1, 2, ... up to the number of cores,
prints the fit times and the speed-up, plots them (``forest_n_jobs.png``), then fits it
once more on a local Dask cluster (``joblib.parallel_config(backend="dask")``) and checks
that the predictions equal the local fit's (same ``random_state``, same model).
"""

import argparse
import os
import time

import numpy as np
from sklearn.datasets import make_classification

from treeboost import RandomForestClassifier


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=100_000)
    ap.add_argument("--n-estimators", type=int, default=100)
    ap.add_argument("--out", default="treeboost-examples")
    ap.add_argument("--quick", action="store_true", help="small settings (CI smoke test)")
    args = ap.parse_args(argv)
    n, trees = (5000, 10) if args.quick else (args.n_samples, args.n_estimators)
    X, y = make_classification(n_samples=n, n_features=40, n_informative=20, random_state=0)
    cores = os.cpu_count() or 1
    make = lambda jobs: RandomForestClassifier(
        n_estimators=trees,
        n_jobs=jobs,  # noqa: E731
        random_state=0,
    )
    make(1).fit(X[:500], y[:500])  # compile the kernels once
    times = {}
    for jobs in range(1, cores + 1):
        t = time.perf_counter()
        model = make(jobs).fit(X, y)
        times[jobs] = time.perf_counter() - t
        print(f"n_jobs={jobs}: {times[jobs]:.2f} s  (speed-up {times[1] / times[jobs]:.2f}x)")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        os.makedirs(args.out, exist_ok=True)
        fig, ax = plt.subplots(figsize=(5.5, 4))
        ax.plot(list(times), list(times.values()), marker="o")
        ax.set_xlabel("n_jobs")
        ax.set_ylabel("fit time (s)")
        ax.set_xticks(list(times))
        ax.set_title(f"RandomForest, {trees} trees on {n} x 40")
        fig.tight_layout()
        fig.savefig(os.path.join(args.out, "forest_n_jobs.png"), dpi=110)
        plt.close(fig)
        print(f"picture written to {os.path.join(args.out, 'forest_n_jobs.png')}")
    except ImportError:
        print("(plot skipped: matplotlib is not installed)")
    try:
        import joblib
        from distributed import Client, LocalCluster
    except ImportError:
        print("(Dask part skipped: pip install dask distributed)")
        return
    with (
        LocalCluster(
            n_workers=min(2, cores), threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster),
    ):
        with joblib.parallel_config(backend="dask"):
            t = time.perf_counter()
            remote = make(min(2, cores)).fit(X, y)
            elapsed = time.perf_counter() - t
    same = np.array_equal(remote.predict_proba(X), model.predict_proba(X))
    print(
        f"Dask LocalCluster ({min(2, cores)} workers): {elapsed:.2f} s; predictions equal the "
        f"local fit's: {same}"
    )


if __name__ == "__main__":
    main()
