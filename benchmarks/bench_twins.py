"""Every treeboost estimator against its scikit-learn twin, on the same folds.

Data: the sets that ship with scikit-learn (iris, wine, breast_cancer, digits, diabetes,
california housing subsampled to 2,000 rows) and two small real ones from installable
packages: statsmodels' ``copper`` (25 rows, target ``WORLDCONSUMPTION``) and
palmerpenguins' penguins (the four measurements, rows without them dropped, target
``species``).  A set whose package is not installed (or, for california, that cannot be
downloaded) is left out.

Protocol: ``--repeats`` shuffles of ``--folds``-fold cross-validation (stratified for
classification; by default two shuffles of five folds on the sets of at most 500 rows,
one on the larger ones), the same folds for every library; each fit gets ``random_state`` = the
shuffle's number.  Score: accuracy (classification, higher is better) or RMSE
(regression, lower is better), the mean over the folds and their spread (the standard
deviation of the fold scores).

Settings:

* treeboost and scikit-learn: both libraries' defaults, which are the same parameters
  (``BaggingRegressor``/``BaggingClassifier``: ``n_estimators=100`` on both sides, the
  default 10 being too noisy to compare);
* LightGBM and XGBoost (when installed, the ``bench`` extra), next to the boosting rows:
  their defaults, and settings matched to ``HistGradientBoosting``'s defaults
  (100 trees, learning rate 0.1, 31 leaves grown best-first, at least 20 rows a leaf,
  255 bins, no L2 penalty, no row or column sampling; XGBoost ``tree_method="hist"``,
  ``grow_policy="lossguide"``, ``max_depth=0``, which has no row minimum per leaf:
  ``min_child_weight=1e-3`` as HistGradientBoosting's hessian minimum).

The sets that installed packages ship (``_twin_sets.py``: treeboost.datasets' titanic,
palmerpenguins with every column, statsmodels' grunfeld, randhie (20,190 rows), fair,
anes96, modechoice, star98, spector, scotland, stackloss, ccard; plotnine's mpg and
msleep; string columns, missing values, columns of up to 681 levels) are run as a raw
frame (treeboost's native categories, scikit-learn the ordinal matrix) and as the
ordinal matrix on both sides (levels numbered in sorted order, NaN kept), by default
with three shuffles of five folds. Each pair gets the corrected repeated-CV t-test of
Nadeau & Bengio (2003) on its paired fold scores; a row is flagged ``WORSE`` where
treeboost is worse with p < 0.05.

A row is flagged ``BEHIND`` where treeboost's mean is worse than its twin's by more
than the twin's fold spread, and on copper where treeboost's RMSE is more than 10 %
above scikit-learn's.

Run: ``python benchmarks/bench_twins.py`` (several minutes on two cores: the
multi-class GradientBoosting fits of both libraries take most of it); ``--quick`` for one
shuffle of three folds on the small sets; ``--sets copper,wine`` for some sets only;
``--repeats 3`` for the protocol of issue 34 (three shuffles of five folds) everywhere;
``--estimators HistGradientBoosting --variants raw`` for some rows only.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn import datasets as skd
from sklearn import ensemble as ske
from sklearn import tree as skt
from sklearn.model_selection import KFold, StratifiedKFold

import treeboost as tb
from _twin_sets import SETS as SHIPPED
from _twin_sets import nadeau_bengio, ordinal, string_columns


def _copper():
    import statsmodels.api as sm

    d = sm.datasets.copper.load_pandas().data
    y = d.pop("WORLDCONSUMPTION").to_numpy(float)
    return d.to_numpy(float), y, False


def _penguins():
    from palmerpenguins import load_penguins

    cols = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
    d = load_penguins().dropna(subset=cols)
    return d[cols].to_numpy(float), d["species"].astype("category").cat.codes.to_numpy(), True


def _california():
    X, y = skd.fetch_california_housing(return_X_y=True)
    rows = np.random.default_rng(0).choice(len(y), 2000, replace=False)
    return X[rows], y[rows], False


SETS = {
    "iris": lambda: (*skd.load_iris(return_X_y=True), True),
    "wine": lambda: (*skd.load_wine(return_X_y=True), True),
    "breast_cancer": lambda: (*skd.load_breast_cancer(return_X_y=True), True),
    "digits": lambda: (*skd.load_digits(return_X_y=True), True),
    "penguins": _penguins,
    "diabetes": lambda: (*skd.load_diabetes(return_X_y=True), False),
    "california": _california,
    "copper": _copper,
    **SHIPPED,
}
QUICK_SETS = ("iris", "wine", "penguins", "diabetes", "copper", "spector", "grunfeld")


def _twins(classifier):
    """(name, treeboost factory, scikit-learn factory) of each estimator; a factory takes
    the seed."""
    kind = "Classifier" if classifier else "Regressor"
    out = []
    for name, mod in [
        ("DecisionTree", skt),
        ("RandomForest", ske),
        ("ExtraTrees", ske),
        ("Bagging", ske),
        ("AdaBoost", ske),
        ("GradientBoosting", ske),
        ("HistGradientBoosting", ske),
    ]:
        extra = {"n_estimators": 100} if name == "Bagging" else {}
        tb_cls, sk_cls = getattr(tb, name + kind), getattr(mod, name + kind)
        out.append(
            (
                name,
                lambda s, c=tb_cls, e=extra: c(random_state=s, **e),
                lambda s, c=sk_cls, e=extra: c(random_state=s, **e),
            )
        )
    return out


def _others(classifier):
    """LightGBM's and XGBoost's defaults and matched settings, where installed."""
    out = []
    try:
        import lightgbm as lgb

        cls = lgb.LGBMClassifier if classifier else lgb.LGBMRegressor
        out.append(("LightGBM defaults", lambda s, c=cls: c(random_state=s, verbose=-1)))
        out.append(
            (
                "LightGBM matched",
                lambda s, c=cls: c(
                    random_state=s,
                    verbose=-1,
                    n_estimators=100,
                    learning_rate=0.1,
                    num_leaves=31,
                    max_depth=-1,
                    min_child_samples=20,
                    min_child_weight=1e-3,
                    max_bin=255,
                    reg_lambda=0.0,
                    subsample=1.0,
                    colsample_bytree=1.0,
                ),
            )
        )
    except ImportError:
        pass
    try:
        import xgboost as xgb

        cls = xgb.XGBClassifier if classifier else xgb.XGBRegressor
        out.append(("XGBoost defaults", lambda s, c=cls: c(random_state=s, n_jobs=1)))
        out.append(
            (
                "XGBoost matched",
                lambda s, c=cls: c(
                    random_state=s,
                    n_jobs=1,
                    n_estimators=100,
                    learning_rate=0.1,
                    tree_method="hist",
                    grow_policy="lossguide",
                    max_leaves=31,
                    max_depth=0,
                    min_child_weight=1e-3,
                    max_bin=255,
                    reg_lambda=0.0,
                    subsample=1.0,
                    colsample_bytree=1.0,
                ),
            )
        )
    except ImportError:
        pass
    return out


def _rows(X, idx):
    return X.iloc[idx] if hasattr(X, "iloc") else X[idx]


def _score(model, X, y, tr, te, classifier):
    pred = model.fit(_rows(X, tr), y[tr]).predict(_rows(X, te))
    if classifier:
        return float(np.mean(pred == y[te]))
    return float(np.sqrt(np.mean((pred - y[te]) ** 2)))


def _folds(X, y, classifier, repeats, n_folds):
    out = []
    for r in range(repeats):
        cv = (StratifiedKFold if classifier else KFold)(n_folds, shuffle=True, random_state=r)
        out += [(r, tr, te) for tr, te in cv.split(X, y)]
    return out


def _cv(make, X, y, folds, classifier):
    return np.array([_score(make(r), X, y, tr, te, classifier) for r, tr, te in folds])


def _inputs(X):
    """(variant, treeboost's X, scikit-learn's X): a frame of strings both as the raw
    frame (treeboost's native categories; scikit-learn gets the ordinal matrix) and as
    the ordinal matrix on both sides; any other X as it is."""
    if not hasattr(X, "columns"):
        return [("", X, X)]
    Xo = ordinal(X)
    return [("ordinal", Xo, Xo)] + ([("raw", X, Xo)] if string_columns(X) else [])


def run(sets, repeats, n_folds, others=True, estimators=None, variants=None):
    rows = []
    for set_name in sets:
        try:
            X, y, classifier = SETS[set_name]()
        except (ImportError, OSError) as exc:  # a package missing, no download
            print(f"{set_name}: left out ({exc})")
            continue
        default = 3 if set_name in SHIPPED else (2 if len(y) <= 500 else 1)
        r = repeats if repeats else default
        folds = _folds(X, y, classifier, r, n_folds)
        n_test = len(folds[0][2])
        n_train = len(folds[0][1])
        metric = "accuracy" if classifier else "RMSE"
        for variant, Xt, Xs in _inputs(X):
            if variants and variant and variant not in variants:
                continue
            label = f"{set_name}/{variant}" if variant else set_name
            for name, make_tb, make_sk in _twins(classifier):
                if estimators and name not in estimators:
                    continue
                t0 = time.perf_counter()
                try:
                    a = _cv(make_tb, Xt, y, folds, classifier)
                    b = _cv(make_sk, Xs, y, folds, classifier)
                except Exception as exc:  # noqa: BLE001 - one failing pair, not the table
                    print(f"{label:22s} {metric:8s} {name:22s} FAILED: {exc!r}", flush=True)
                    continue
                gap = (b.mean() - a.mean()) if classifier else (a.mean() - b.mean())
                behind = gap > b.std()
                if set_name == "copper" and a.mean() > 1.10 * b.mean():
                    behind = True
                p = nadeau_bengio(a, b, n_train, n_test) if len(folds) > 1 else 1.0
                worse = gap > 0 and p < 0.05
                rows.append((label, metric, name, a, b, behind, p, worse))
                print(
                    f"{label:22s} {metric:8s} {name:22s} treeboost {a.mean():10.4g} "
                    f"+- {a.std():<8.3g} scikit-learn {b.mean():10.4g} +- {b.std():<8.3g}"
                    f" p {p:6.3f}{'  WORSE' if worse else ''}{'  BEHIND' if behind else ''}"
                    f"  ({time.perf_counter() - t0:.1f} s)",
                    flush=True,
                )
        if not others:
            continue
        X = _inputs(X)[0][2]
        for name, make in _others(classifier):
            c = _cv(make, X, y, folds, classifier)
            rows.append((set_name, metric, name, None, c, False, 1.0, False))
            print(
                f"{set_name:14s} {metric:8s} {name:22s} {'':33s} {c.mean():10.4g} "
                f"+- {c.std():<8.3g}",
                flush=True,
            )
    return rows


def markdown(rows):
    """The table as Markdown (the docs' benchmarks page)."""
    lines = [
        "| data | metric | estimator | treeboost | twin | p (Nadeau-Bengio) | |",
        "|---|---|---|---|---|---|---|",
    ]
    for set_name, metric, name, a, b, behind, p, worse in rows:
        tb_cell = "" if a is None else f"{a.mean():.4g} ± {a.std():.2g}"
        p_cell = "" if a is None else f"{p:.3f}"
        flag = "worse" if worse else ("behind" if behind else "")
        lines.append(
            f"| {set_name} | {metric} | {name} | {tb_cell} | "
            f"{b.mean():.4g} ± {b.std():.2g} | {p_cell} | {flag} |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="one shuffle of three folds on the small sets"
    )
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--folds", type=int, default=None)
    parser.add_argument("--sets", default=None, help="comma-separated names: " + ",".join(SETS))
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table too")
    parser.add_argument("--twins-only", action="store_true", help="leave out LightGBM and XGBoost")
    parser.add_argument(
        "--estimators", default=None, help="comma-separated twins, e.g. RandomForest,Bagging"
    )
    parser.add_argument(
        "--variants", default=None, help="comma-separated frame variants: raw, ordinal"
    )
    args = parser.parse_args(argv)
    sets = args.sets.split(",") if args.sets else (QUICK_SETS if args.quick else list(SETS))
    unknown = [s for s in sets if s not in SETS]
    if unknown:
        parser.error(f"unknown sets {unknown}; known: {', '.join(SETS)}")
    repeats = args.repeats or (1 if args.quick else None)
    n_folds = args.folds or (3 if args.quick else 5)
    warnings.filterwarnings("ignore", category=UserWarning)
    warnings.filterwarnings("ignore", category=FutureWarning)
    estimators = args.estimators.split(",") if args.estimators else None
    variants = args.variants.split(",") if args.variants else None
    rows = run(sets, repeats, n_folds, not args.twins_only, estimators, variants)
    worse = [r for r in rows if r[7]]
    print(
        f"\n{len(worse)} of {sum(r[3] is not None for r in rows)} treeboost rows significantly "
        "worse than their twin (Nadeau-Bengio corrected t-test, p < 0.05)"
        + (": " + ", ".join(f"{r[0]}/{r[2]}" for r in worse) if worse else "")
    )
    behind = [r for r in rows if r[5]]
    print(
        f"{len(behind)} of {sum(r[3] is not None for r in rows)} treeboost rows behind "
        "their twin by more than the fold spread"
        + (": " + ", ".join(f"{r[0]}/{r[2]}" for r in behind) if behind else "")
    )
    if args.markdown:
        print()
        print(markdown(rows))


if __name__ == "__main__":
    main()
