"""Constraints benchmark: monotonic and interaction constraints, treeboost against
scikit-learn and LightGBM in the same process.

    python benchmarks/bench_constraints.py [--n-samples 50000] [--repeats 2]

Task: ``make_regression`` (20 features, 10 informative, noise 20, 75/25 split) whose
target grows with feature 0 and falls with feature 1 (feature 1's sign flipped);
``monotonic_cst`` = +1, -1 on those two, 0 elsewhere.  Interaction rows use the sets
``{0, 1, 2}, {3, 4, 5}, ...`` (scikit-learn's list of sets, LightGBM's
``interaction_constraints``).

Each row fits the same model without and with the constraint; the columns give the fit
time of both, the ratio of treeboost's constrained fit time to the reference's, the test
R^2, and the monotonicity violations on the test rows (the largest step against the
constraint when feature 0 or 1 moves by +-1 standard deviation; 0 means none).  Best of
--repeats after a warm-up fit on 2000 rows.
"""

import argparse

import lightgbm as lgb
import numpy as np
from sklearn import ensemble as ske, tree as skt
from sklearn.datasets import make_regression
from sklearn.model_selection import train_test_split

import treeboost as tb
from _timing import best_time

N_FEATURES = 20
CST = np.zeros(N_FEATURES, int)
CST[:2] = (1, -1)
SETS = [set(range(i, min(i + 3, N_FEATURES))) for i in range(0, N_FEATURES, 3)]


def task(n):
    X, y = make_regression(
        n_samples=n, n_features=N_FEATURES, n_informative=10, noise=20.0, random_state=0
    )
    X[:, 1] *= -1
    return train_test_split(X, y, test_size=0.25, random_state=0)


def violation(model, X):
    """The largest prediction step against the constraints of features 0 and 1."""
    base = model.predict(X)
    worst = 0.0
    for f in (0, 1):
        step = X[:, f].std()
        for sign in (-1, 1):
            moved = X.copy()
            moved[:, f] += sign * step
            against = -(model.predict(moved) - base) * sign * CST[f]
            worst = max(worst, float(against.max()))
    return worst


def lgbm(**kw):
    return lgb.LGBMRegressor(n_estimators=100, verbose=-1, **kw)


#: (row, treeboost model, reference name, reference model), each a factory of the
#: constrained model given the constraint keyword arguments (empty: none)
ROWS = [
    (
        "DecisionTreeRegressor(max_depth=8), monotonic",
        lambda **k: tb.DecisionTreeRegressor(max_depth=8, random_state=0, **k),
        "scikit-learn",
        lambda **k: skt.DecisionTreeRegressor(max_depth=8, random_state=0, **k),
        {"monotonic_cst": CST},
    ),
    (
        "RandomForestRegressor(100, max_depth=8), monotonic",
        lambda **k: tb.RandomForestRegressor(100, max_depth=8, n_jobs=-1, random_state=0, **k),
        "scikit-learn",
        lambda **k: ske.RandomForestRegressor(100, max_depth=8, n_jobs=-1, random_state=0, **k),
        {"monotonic_cst": CST},
    ),
    (
        "HistGradientBoostingRegressor(100 iterations), monotonic",
        lambda **k: tb.HistGradientBoostingRegressor(early_stopping=False, random_state=0, **k),
        "scikit-learn",
        lambda **k: ske.HistGradientBoostingRegressor(early_stopping=False, random_state=0, **k),
        {"monotonic_cst": CST},
    ),
    (
        "HistGradientBoostingRegressor(100 iterations), monotonic",
        lambda **k: tb.HistGradientBoostingRegressor(early_stopping=False, random_state=0, **k),
        "LightGBM",
        lambda **k: lgbm(monotone_constraints=list(k["monotonic_cst"])) if k else lgbm(),
        {"monotonic_cst": CST},
    ),
    (
        "HistGradientBoostingRegressor(100 iterations), interaction",
        lambda **k: tb.HistGradientBoostingRegressor(early_stopping=False, random_state=0, **k),
        "scikit-learn",
        lambda **k: ske.HistGradientBoostingRegressor(early_stopping=False, random_state=0, **k),
        {"interaction_cst": SETS},
    ),
    (
        "HistGradientBoostingRegressor(100 iterations), interaction",
        lambda **k: tb.HistGradientBoostingRegressor(early_stopping=False, random_state=0, **k),
        "LightGBM",
        lambda **k: (
            lgbm(interaction_constraints=[sorted(s) for s in k["interaction_cst"]]) if k else lgbm()
        ),
        {"interaction_cst": SETS},
    ),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    Xtr, Xte, ytr, yte = task(args.n_samples)
    print(f"{args.n_samples} rows x {N_FEATURES} features, 75/25 split\n")
    print(
        "| model | reference | tb fit free / constrained (s) | ref fit free / constrained "
        "(s) | ratio (constrained) | R^2 tb vs ref (constrained) | violation tb / ref |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, ours, ref_name, theirs, kw in ROWS:
        for make in (ours, theirs):  # warm-up: compilation, thread pools
            make(**kw).fit(Xtr[:2000], ytr[:2000])
        t_free, _ = best_time(lambda: ours().fit(Xtr, ytr), args.repeats)
        t_tb, m_tb = best_time(lambda: ours(**kw).fit(Xtr, ytr), args.repeats)
        r_free, _ = best_time(lambda: theirs().fit(Xtr, ytr), args.repeats)
        r_ref, m_ref = best_time(lambda: theirs(**kw).fit(Xtr, ytr), args.repeats)
        v_tb = violation(m_tb, Xte) if "monotonic_cst" in kw else float("nan")
        v_ref = violation(m_ref, Xte) if "monotonic_cst" in kw else float("nan")
        print(
            f"| {name} | {ref_name} | {t_free:.2f} / {t_tb:.2f} | {r_free:.2f} / "
            f"{r_ref:.2f} | {t_tb / r_ref:.2f}x | {m_tb.score(Xte, yte):.4f} vs "
            f"{m_ref.score(Xte, yte):.4f} | {v_tb:.3g} / {v_ref:.3g} |"
        )


if __name__ == "__main__":
    main()
