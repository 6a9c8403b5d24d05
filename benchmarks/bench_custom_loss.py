"""The custom-objective path against the built-in loss: fit time of a booster with
``loss="squared_error"`` / ``"log_loss"`` and with the same loss as a numpy callable,
each fit in a fresh process.  The callable's own time (its calls, timed inside the fit)
is the user's; the rest of the difference is treeboost's (the checks of the gradients,
the Newton search of the initial score, the per-iteration copies).

    python benchmarks/bench_custom_loss.py [--quick]
"""

import argparse
import json
import sys
import time

import numpy as np

from _fresh import run_each
from _timing import best_time


def squared_error(y_true, raw):
    return raw - y_true, np.ones_like(raw)


def logistic(y_true, raw):
    p = 1.0 / (1.0 + np.exp(-raw))
    return p - y_true, p * (1.0 - p)


def _one(args):
    from sklearn.datasets import make_classification, make_regression

    import treeboost as tb

    task, path = args.lib.split(":")
    if task == "regression":
        X, y = make_regression(args.n, 20, noise=10.0, random_state=0)
        cls, builtin, func = tb.GradientBoostingRegressor, "squared_error", squared_error
    else:
        X, y = make_classification(args.n, 20, random_state=0)
        cls, builtin, func = tb.GradientBoostingClassifier, "log_loss", logistic
    spent = [0.0]

    def timed(y_true, raw):
        t = time.perf_counter()
        out = func(y_true, raw)
        spent[0] += time.perf_counter() - t
        return out

    loss = builtin if path == "builtin" else timed
    params = dict(n_estimators=args.iters, max_depth=6, split_gain="hessian", random_state=0)
    cls(n_estimators=2, loss=loss).fit(X[:500], y[:500])  # compile outside the timing

    def fit():
        spent[0] = 0.0
        return cls(loss=loss, **params).fit(X, y)

    seconds, _ = best_time(fit, args.repeats)
    print(json.dumps({"lib": args.lib, "fit_s": seconds, "callable_s": spent[0]}))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--n", type=int, default=None)
    p.add_argument("--iters", type=int, default=None)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    if args.n is None:
        args.n = 20_000 if args.quick else 200_000
    if args.iters is None:
        args.iters = 30 if args.quick else 100
    if args.lib:
        return _one(args)
    libs = [f"{t}:{p}" for t in ("regression", "binary") for p in ("builtin", "callable")]
    rows = {r["lib"]: r for r in run_each(__file__, libs, dict(n=args.n, iters=args.iters))}
    print(f"\n{args.n} rows x 20, {args.iters} iterations, depth 6, split_gain='hessian'")
    print("| task | built-in fit (s) | callable fit (s) | ratio | callable's own (s) | ours (s) |")
    print("|---|---|---|---|---|---|")
    for t in ("regression", "binary"):
        b, c = rows.get(f"{t}:builtin"), rows.get(f"{t}:callable")
        if b and c:
            ours = c["fit_s"] - b["fit_s"] - c["callable_s"]
            print(
                f"| {t} | {b['fit_s']:.3f} | {c['fit_s']:.3f} | {c['fit_s'] / b['fit_s']:.2f} "
                f"| {c['callable_s']:.3f} | {ours:.3f} |"
            )


if __name__ == "__main__":
    sys.exit(main())
