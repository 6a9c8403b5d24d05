"""TreeSHAP benchmark: shap's TreeExplainer on LightGBM against treeboost.inspection.

    python benchmarks/bench_shap.py [--n-samples 20000] [--n-explain 10000] [--repeats 1]

Task: make_classification(n_samples, n_features=40, n_informative=20, random_state=0).
LightGBM ``LGBMClassifier(n_estimators=100, num_leaves=31)`` explained by
``shap.TreeExplainer(model).shap_values(X)`` (path-dependent TreeSHAP; for LightGBM shap
calls the booster's own ``pred_contrib``) against treeboost's
``GradientBoostingClassifier(n_estimators=100, max_leaf_nodes=31)`` explained by
``treeboost.inspection.shap_values``, on the first ``--n-explain`` rows.  Both are called
once first on 200 rows (numba compiles, thread pools start), then timed: best of
``--repeats``.
Both explanations are checked to add up to their model's raw score.
"""

import argparse
import os
import time

import numba
import numpy as np
from sklearn.datasets import make_classification

from treeboost import GradientBoostingClassifier
from treeboost.inspection import shap_values


def best_time(fn, warm, repeats):
    """Best wall-clock time of ``fn`` over ``repeats`` calls after one ``warm`` call, the
    process's CPU time (all threads) of that call, and its result.  On a shared machine
    the CPU time is the steadier of the two."""
    warm()  # compilation and thread pools, on a few rows
    best, out = None, None
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        t, c = time.perf_counter() - t, time.process_time() - c
        if best is None or t < best[0]:
            best = (t, c)
    return best, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=20_000)
    ap.add_argument("--n-explain", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    X, y = make_classification(
        n_samples=args.n_samples, n_features=40, n_informative=20, random_state=0
    )
    Xs = X[: args.n_explain]
    print(
        f"make_classification {args.n_samples} x 40, explaining {Xs.shape[0]} rows; "
        f"{os.cpu_count()} cores, numba threads {numba.get_num_threads()}"
    )

    tb = GradientBoostingClassifier(
        n_estimators=100,
        max_leaf_nodes=31,
        max_depth=None,
        min_samples_leaf=20,
        split_gain="hessian",
        learning_rate=0.1,
    ).fit(X, y)
    tb_t, (tb_v, tb_e) = best_time(
        lambda: shap_values(tb, Xs), lambda: shap_values(tb, Xs[:200]), args.repeats
    )
    err = np.abs(tb_v.sum(axis=1) + tb_e - tb.decision_function(Xs)).max()
    depth = max(t.max_depth for it in tb.trees_ for t in it)
    rows = [("treeboost shap_values (GradientBoostingClassifier)", *tb_t, err, depth)]
    try:
        import lightgbm as lgb
        import shap
    except ImportError:
        print("(shap or lightgbm not installed: pip install treeboost[bench])")
    else:
        lg = lgb.LGBMClassifier(n_estimators=100, num_leaves=31, verbose=-1).fit(X, y)
        explainer = shap.TreeExplainer(lg)
        lg_t, lg_v = best_time(
            lambda: explainer.shap_values(Xs), lambda: explainer.shap_values(Xs[:200]), args.repeats
        )
        lg_v = lg_v[1] if isinstance(lg_v, list) else lg_v
        lg_v = lg_v[..., 1] if lg_v.ndim == 3 else lg_v
        lg_e = np.ravel(explainer.expected_value)[-1]
        err = np.abs(lg_v.sum(axis=1) + lg_e - lg.predict(Xs, raw_score=True)).max()
        lg_depth = max(int(d) for d in lg.booster_.trees_to_dataframe()["node_depth"]) - 1
        rows.append(
            (
                f"shap {shap.__version__} TreeExplainer (LightGBM {lgb.__version__})",
                *lg_t,
                err,
                lg_depth,
            )
        )
    base = rows[-1]
    print(
        "\n| explainer | time (s) | CPU time (s) | rows / s | max additivity error "
        "| deepest leaf | time / shap on LightGBM | CPU time / shap on LightGBM |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, t, c, e, d in rows:
        print(
            f"| {name} | {t:.3f} | {c:.3f} | {Xs.shape[0] / t:,.0f} | {e:.1e} | {d} | "
            f"{t / base[1]:.2f} | {c / base[2]:.2f} |"
        )


if __name__ == "__main__":
    main()
