"""The Titanic GBDT walkthrough: one boosting step by hand, then the whole data set.

The lecture slide this reproduces takes six passengers, four who survived and two who
did not, and walks one step of gradient boosting with learning rate 0.1:
``F0 = ln(4/2)``, ``p = 2/3``, residuals ``y - p``, a small regression tree on the
residuals, each leaf's output by the Taylor (Newton) approximation of the log-loss
``gamma = sum(r) / sum(p (1 - p))``, then ``F1 = F0 + 0.1 * gamma`` and ``p1 = expit(F1)``.

Every number printed here is read from the fitted ``GradientBoostingClassifier`` through
its public attributes (``init_score_``, ``trees_``, ``apply``, ``decision_function``);
the hand formulas are printed beside them (and a test checks they agree to 1e-12).
The six passengers' SHAP values (``treeboost.inspection.shap_values``) then split each
``F1`` into the expected value plus one share per feature.

Run:  python examples/titanic_gbdt.py [--folds 5]
"""

import argparse

import numpy as np
from scipy.special import expit

from treeboost import GradientBoostingClassifier
from treeboost.datasets import load_titanic
from treeboost.inspection import shap_values
from treeboost.inspection import export_text

#: PassengerId of the six passengers: 2, 3, 4, 9 survived; 5 and 15 did not
PASSENGERS = [2, 3, 4, 9, 5, 15]
FEATURES = ["Pclass", "Sex", "Age", "Fare"]
LEARNING_RATE = 0.1


def six_passengers():
    data = load_titanic()
    rows = [pid - 1 for pid in PASSENGERS]  # PassengerId i is row i - 1
    return data.data.iloc[rows][FEATURES], data.target.iloc[rows]


def walkthrough(verbose=True):
    """One boosting step on the six passengers; returns the model's numbers and the hand
    computation side by side."""
    X, y = six_passengers()
    model = GradientBoostingClassifier(
        n_estimators=1,
        learning_rate=LEARNING_RATE,
        max_depth=1,
        max_leaf_nodes=None,
        min_samples_leaf=1,
        min_child_weight=0.0,
        split_gain="hessian",
    ).fit(X, y)
    tree = model.trees_[0][0]
    leaves = model.apply(X)[:, 0, 0]  # iteration 0, the one output
    yv = y.to_numpy().astype(float)

    F0 = float(model.init_score_[0])  # the model's initial raw score
    p0 = expit(F0)
    residuals = yv - p0
    gamma_model = tree.value[:, 0] / LEARNING_RATE  # leaf outputs before shrinkage
    F1 = model.decision_function(X)
    p1 = model.predict_proba(X)[:, 1]

    # the same numbers by hand
    hand = {"F0": np.log(yv.sum() / (1 - yv).sum()), "p0": yv.mean()}
    hand_gamma = {
        int(l): residuals[leaves == l].sum() / (p0 * (1 - p0) * (leaves == l).sum())
        for l in np.unique(leaves)
    }
    hand_F1 = F0 + LEARNING_RATE * np.array([hand_gamma[int(l)] for l in leaves])
    # each F1 split into the expected value plus one share per feature
    shap, expected = shap_values(model, X)
    out = dict(
        F0=F0,
        p0=p0,
        residuals=residuals,
        leaves=leaves,
        gamma=gamma_model,
        F1=F1,
        p1=p1,
        hand=hand,
        hand_gamma=hand_gamma,
        hand_F1=hand_F1,
        hand_p1=expit(hand_F1),
        tree=tree,
        model=model,
        X=X,
        y=yv,
        shap=shap,
        expected_value=expected,
    )
    if verbose:
        print("Six passengers (PassengerId):", PASSENGERS, " survived:", yv.astype(int).tolist())
        print(X.assign(Survived=yv.astype(int)).to_string())
        print(f"\nF0 = ln(4/2) = {F0:.6f}   (by hand {hand['F0']:.6f})")
        print(f"p  = expit(F0) = {p0:.6f}   (by hand 4/6 = {hand['p0']:.6f})")
        print("residuals y - p:", np.round(residuals, 6).tolist())
        print("\nThe regression tree fitted to the residuals (values are 0.1 * gamma):")
        print(export_text(model, tree_index=0, decimals=6))
        for l, g in hand_gamma.items():
            members = np.flatnonzero(leaves == l)
            print(
                f"leaf {l}: passengers {[PASSENGERS[i] for i in members]}, "
                f"gamma = sum r / sum p(1-p) = {residuals[members].sum():.6f} / "
                f"{(p0 * (1 - p0) * members.size):.6f} = {gamma_model[l]:.6f} "
                f"(by hand {g:.6f})"
            )
        three = [l for l in hand_gamma if (leaves == l).sum() == 3 and yv[leaves == l].all()]
        if three:
            l = three[0]
            print(
                f"\nThe slide's leaf of three survivors prints 4.29 = 0.9 / 0.21: it sums "
                f"the residuals (3 x 0.3) but takes p(1-p) = 0.21 once.  The formula sums "
                f"p(1-p) over the three passengers: 0.9 / 0.63 = {0.9 / 0.63:.2f} with the "
                f"slide's rounded p = 0.7, and {gamma_model[l]:.4f} with p = 2/3 exactly "
                f"(what the model computes)."
            )
            print(
                f"Slide: F1 = ln(4/2) + 0.1 x 4.29 = {np.log(2) + 0.429:.2f}, p = "
                f"{expit(np.log(2) + 0.429):.2f}.  Model: F1 = {F0:.4f} + 0.1 x "
                f"{gamma_model[l]:.4f} = {F0 + LEARNING_RATE * gamma_model[l]:.4f}, "
                f"p = {expit(F0 + LEARNING_RATE * gamma_model[l]):.4f}."
            )
        print("\nAfter one step, per passenger:")
        for i, pid in enumerate(PASSENGERS):
            print(f"  {pid:3d}: F1 = {F1[i]:.6f}  p1 = {p1[i]:.6f}")
        _print_shap(out)
    return out


def _print_shap(r):
    """The SHAP table: per passenger its leaf, the leaf's value, each feature's share."""
    shap, expected, leaves = r["shap"], r["expected_value"], r["leaves"]
    names = list(r["X"].columns)
    print(
        f"\nSHAP values (treeboost.inspection.shap_values): F1 = expected value "
        f"{expected:.6f} + the shares of {', '.join(names)}.  The expected value is F0 "
        f"plus the mean of the tree's leaf values weighted by their cover (the nodes' "
        f"weighted_n_node_samples, here the sums of p(1-p): three passengers each, so "
        f"+0.15 and -0.15 cancel); a tree of one split gives a passenger's whole "
        f"deviation from it to the feature it splits on."
    )
    head = "".join(f"{n:>10}" for n in names)
    print(f"  {'id':>3} {'leaf':>4} {'leaf value':>11}{head} {'expected + sum':>15} {'F1':>10}")
    for i, pid in enumerate(PASSENGERS):
        cells = "".join(f"{v:>10.6f}" for v in shap[i])
        leaf = int(leaves[i])
        print(
            f"  {pid:3d} {leaf:>4} {r['tree'].value[leaf, 0]:>11.6f}{cells} "
            f"{expected + shap[i].sum():>15.6f} {r['F1'][i]:>10.6f}"
        )


def full_data(folds=5, n_estimators=100, verbose=True):
    """5-fold CV accuracy and ROC AUC on all 891 passengers, next to scikit-learn."""
    from sklearn.ensemble import GradientBoostingClassifier as SkGBC
    from sklearn.model_selection import StratifiedKFold, cross_validate

    data = load_titanic()
    X = data.data[["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]]
    y = data.target
    cv = StratifiedKFold(folds, shuffle=True, random_state=0)
    ours = GradientBoostingClassifier(
        n_estimators=n_estimators,
        learning_rate=0.1,
        max_depth=3,
        max_leaf_nodes=None,
        min_samples_leaf=1,
        split_gain="hessian",
        random_state=0,
    )
    # scikit-learn's GradientBoostingClassifier takes finite numbers only: Sex and
    # Embarked as codes (a missing Embarked is code -1), a missing Age as -1 (a value a
    # tree can isolate, the usual stand-in)
    Xsk = X.assign(
        Sex=X["Sex"].cat.codes, Embarked=X["Embarked"].cat.codes, Age=X["Age"].fillna(-1)
    )
    theirs = SkGBC(n_estimators=n_estimators, learning_rate=0.1, max_depth=3, random_state=0)
    rows = []
    for name, est, XX in [("treeboost", ours, X), ("scikit-learn", theirs, Xsk)]:
        r = cross_validate(est, XX, y, cv=cv, scoring=["accuracy", "roc_auc"])
        rows.append(
            (
                name,
                r["test_accuracy"].mean(),
                r["test_accuracy"].std(),
                r["test_roc_auc"].mean(),
                r["fit_time"].mean(),
            )
        )
    if verbose:
        print(
            f"\nAll {len(y)} passengers, {folds}-fold CV, 100 trees of depth 3, "
            f"learning rate 0.1 (Age missing values left missing, Embarked categorical):"
        )
        print("| model | accuracy | ROC AUC | fit time (s) |\n|---|---|---|---|")
        for name, acc, sd, auc, t in rows:
            print(f"| {name} | {acc:.3f} ± {sd:.3f} | {auc:.3f} | {t:.3f} |")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--n-estimators", type=int, default=100)
    args = ap.parse_args()
    walkthrough()
    full_data(args.folds, args.n_estimators)


if __name__ == "__main__":
    main()
