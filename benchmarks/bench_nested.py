"""A forest inside a parallel grid search: the threads each fit runs, and the wall time.

    python benchmarks/bench_nested.py [--n-samples 20000]

``GridSearchCV(n_jobs=2)`` runs its fits in joblib's worker processes, and joblib gives
each worker its share of the cores (``NUMBA_NUM_THREADS``, ``OMP_NUM_THREADS``, ... = 1
on 2 cores).  A forest asked for ``n_jobs=2`` (or -1) inside such a worker should use
that share, not 2 threads more per process.  Rows: the same search (4 candidates x 3
folds, RandomForestClassifier(50) on make_classification(n, 40 features)) with the
forest's ``n_jobs`` = 1, 2 and -1, for treeboost and scikit-learn; columns: how many
threads treeboost's forest starts inside each search worker
(``treeboost.ensembles._parallel.n_workers``, asked there), and the search's wall time
after a warm-up search.
"""

import argparse
import time

import treeboost as tb  # noqa: I001  (first: its OpenMP wait policy)
from sklearn import ensemble as sk
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV


def _run(make, X, y):
    grid = GridSearchCV(make(), {"max_depth": [6, 8, 10, 12]}, cv=3, n_jobs=2)
    grid.fit(X[:500], y[:500])  # warm-up: workers started, kernels loaded
    t = time.perf_counter()
    grid.fit(X, y)
    return time.perf_counter() - t


class _Probe:
    """The number of tree workers a forest fit would use in a joblib worker process."""

    @staticmethod
    def workers(n_jobs):
        from joblib import Parallel, delayed

        from treeboost.ensembles._parallel import n_workers

        return Parallel(n_jobs=2)(delayed(n_workers)(n_jobs, 50) for _ in range(2))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=20_000)
    args = ap.parse_args()
    X, y = make_classification(
        n_samples=args.n_samples, n_features=40, n_informative=20, random_state=0
    )
    print("| library | forest n_jobs | tree workers per search worker | grid search wall (s) |")
    print("|---|---|---|---|")
    for n_jobs in (1, 2, -1):
        for name, cls in (
            ("treeboost", tb.RandomForestClassifier),
            ("scikit-learn", sk.RandomForestClassifier),
        ):

            def make(cls=cls, n_jobs=n_jobs):
                return cls(n_estimators=50, n_jobs=n_jobs, random_state=0)

            workers = _Probe.workers(n_jobs) if name == "treeboost" else "-"
            print(f"| {name} | {n_jobs} | {workers} | {_run(make, X, y):.2f} |", flush=True)


if __name__ == "__main__":
    main()
