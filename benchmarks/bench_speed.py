"""The speed table: every row of the speed goals, treeboost against its reference in one run.

    python benchmarks/bench_speed.py [--quick] [--rows NAME,NAME] [--repeats 2]

Data: make_classification / make_regression(n, n_features=40, n_informative=20,
random_state=0), 75/25 split; 100 iterations or trees; library defaults otherwise (for
gradient boosting both sides use 31 leaves, learning rate 0.1).  Each fit is timed after
a warm-up on 2,000 rows, best of ``--repeats`` for the rows under 200k samples, once
above; forests and Extra-Trees with ``n_jobs=-1`` on both sides.  The ratio is
treeboost's fit time over the reference's (below 1: treeboost is faster); then
``predict`` on the held-out quarter (best of 3, each side's ``n_jobs`` as fitted) and
its ratio, and the held-out accuracy or R^2 of both.

Both libraries run in this one process and share its OpenMP runtime (LightGBM and
numba's parallel kernels both use GNU OpenMP here); ``bench_cores.py`` runs each library
alone in a fresh process.
``--quick`` leaves out the 1M-row row.
"""
import argparse
import time

import treeboost as tb
import numba
import numpy as np
from sklearn import ensemble as sk
from sklearn.datasets import make_classification, make_regression
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier as SkTree

from _timing import best_time


def _lgbm(**kw):
    import lightgbm
    return lambda: lightgbm.LGBMClassifier(n_estimators=100, verbose=-1, **kw)


def _lgbm_reg(**kw):
    import lightgbm
    return lambda: lightgbm.LGBMRegressor(n_estimators=100, verbose=-1, **kw)


#: LightGBM's trees (31 leaves best-first, 20 rows a leaf, second-order gain), as the
#: LightGBM rows they are timed against
LGBM_TREES = dict(max_depth=None, max_leaf_nodes=31, min_samples_leaf=20, split_gain="hessian")


def _gbc(**kw):
    return lambda: tb.GradientBoostingClassifier(n_estimators=100, random_state=0,
                                                 **LGBM_TREES, **kw)


def _gbr(**kw):
    return lambda: tb.GradientBoostingRegressor(n_estimators=100, random_state=0,
                                                **LGBM_TREES, **kw)


#: name: (task, n_samples, n_classes, treeboost, reference name, reference)
ROWS = {
    "gbdt-10k": ("clf", 10_000, 2, _gbc(), "LightGBM", _lgbm()),
    "gbdt-75k": ("clf", 75_000, 2, _gbc(), "LightGBM", _lgbm()),
    "gbdt-100k": ("clf", 100_000, 2, _gbc(), "LightGBM", _lgbm()),
    "gbdt-1m": ("clf", 1_000_000, 2, _gbc(), "LightGBM", _lgbm()),
    "gbdt-10class": ("clf", 75_000, 10, _gbc(), "LightGBM", _lgbm()),
    "gbdt-absolute": ("reg", 75_000, 0, _gbr(loss="absolute_error"), "LightGBM",
                      _lgbm_reg(objective="l1")),
    "gbdt-huber": ("reg", 75_000, 0, _gbr(loss="huber"), "LightGBM",
                   _lgbm_reg(objective="huber")),
    "gbdt-quantile": ("reg", 75_000, 0, _gbr(loss="quantile", alpha=0.9), "LightGBM",
                      _lgbm_reg(objective="quantile", alpha=0.9)),
    "random-forest": ("clf", 100_000, 2,
                      lambda: tb.RandomForestClassifier(100, n_jobs=-1, random_state=0),
                      "scikit-learn",
                      lambda: sk.RandomForestClassifier(100, n_jobs=-1, random_state=0)),
    "extra-trees": ("clf", 100_000, 2,
                    lambda: tb.ExtraTreesClassifier(100, n_jobs=-1, random_state=0),
                    "scikit-learn",
                    lambda: sk.ExtraTreesClassifier(100, n_jobs=-1, random_state=0)),
    "cart": ("clf", 100_000, 2, lambda: tb.DecisionTreeClassifier(random_state=0),
             "scikit-learn", lambda: SkTree(random_state=0)),
}


def _data(task, n, n_classes):
    if task == "clf":
        X, y = make_classification(n_samples=n, n_features=40, n_informative=20,
                                   n_classes=n_classes, random_state=0)
    else:
        X, y = make_regression(n_samples=n, n_features=40, n_informative=20, noise=10.0,
                               random_state=0)
    return train_test_split(X, y, test_size=0.25, random_state=0)


def _fit(make, Xtr, ytr, repeats):
    make().fit(Xtr[:2000], ytr[:2000])
    return best_time(lambda: make().fit(Xtr, ytr), repeats)


def _predict_time(model, Xte):
    return best_time(lambda: model.predict(Xte), 3)[0]


def _score(task, model, Xte, yte):
    pred = model.predict(Xte)
    return float(np.mean(pred == yte)) if task == "clf" else r2_score(yte, pred)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="leave out the 1M-row row")
    ap.add_argument("--rows", default=None, help="comma-separated names of " + ", ".join(ROWS))
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    names = args.rows.split(",") if args.rows else [
        r for r in ROWS if not (args.quick and r == "gbdt-1m")]
    unknown = sorted(set(names) - set(ROWS))
    if unknown:
        ap.error(f"unknown rows {unknown}; choose from {list(ROWS)}")
    print(f"{time.strftime('%Y-%m-%d')}, numba threads {numba.get_num_threads()}")
    print("| task | rows | treeboost fit (s) | reference | reference fit (s) | ratio | "
          "predict (s, tb / ref) | predict ratio | score (tb vs ref) |")
    print("|---|---|---|---|---|---|---|---|---|")
    data = {}
    for name in names:
        task, n, n_classes, make_tb, ref_name, make_ref = ROWS[name]
        key = (task, n, n_classes)
        if key not in data:
            data = {key: _data(task, n, n_classes)}      # one data set in memory at a time
        Xtr, Xte, ytr, yte = data[key]
        repeats = args.repeats if n < 200_000 else 1
        t_tb, m_tb = _fit(make_tb, Xtr, ytr, repeats)
        t_ref, m_ref = _fit(make_ref, Xtr, ytr, repeats)
        s_tb, s_ref = _score(task, m_tb, Xte, yte), _score(task, m_ref, Xte, yte)
        p_tb, p_ref = _predict_time(m_tb, Xte), _predict_time(m_ref, Xte)
        print(f"| {name} | {n:,} | {t_tb:.2f} | {ref_name} | {t_ref:.2f} | "
              f"{t_tb / t_ref:.2f}x | {p_tb:.3f} / {p_ref:.3f} | {p_tb / p_ref:.2f}x | "
              f"{s_tb:.4f} vs {s_ref:.4f} |", flush=True)


if __name__ == "__main__":
    main()
