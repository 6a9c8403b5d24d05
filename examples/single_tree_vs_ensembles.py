"""A single tree against the ensembles: test error against the number of trees, and
the variance of predictions across bootstrap refits (why averaging trees helps).

Run:  python examples/single_tree_vs_ensembles.py [--out DIR] [--quick]

Writes ``error_vs_trees.png`` (Titanic and a noisy synthetic task; the single CART tree
as a horizontal line) and ``variance.png`` (the spread of the predicted probability of
each test point when the model is refitted on bootstrap samples: large for one deep tree,
small for a forest, whose average of decorrelated trees cancels much of it).
"""

import argparse
import os

import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

import treeboost
from treeboost.demo import staged_proba

#: the LightGBM-style trees this comparison has always boosted (31 leaves grown
#: best-first, 20 rows a leaf, second-order gain), not scikit-learn's depth-3 defaults
LGBM_TREES = dict(max_depth=None, max_leaf_nodes=31, min_samples_leaf=20, split_gain="hessian")


def tasks(quick):
    from treeboost.cli import _titanic_features

    X, y, categorical = _titanic_features()
    y = np.asarray(y)
    n = 3000 if quick else 6000
    Xs, ys = make_classification(
        n_samples=n, n_features=20, n_informative=6, flip_y=0.15, class_sep=0.8, random_state=0
    )
    return [("Titanic", X, y, categorical), ("noisy synthetic", Xs, ys, None)]


def ensembles(categorical, n_estimators):
    cf = {"categorical_features": categorical}
    out = []
    for label, name, params in [
        ("Bagging", "BaggingClassifier", {}),
        ("RandomForest", "RandomForestClassifier", {}),
        ("AdaBoost", "AdaBoostClassifier", {}),
        ("GradientBoosting", "GradientBoostingClassifier", {"learning_rate": 0.1, **LGBM_TREES}),
    ]:
        cls = getattr(treeboost, name, None)
        if cls is None:
            continue
        kwargs = dict(n_estimators=n_estimators, random_state=0, **params)
        if "categorical_features" in cls().get_params():
            kwargs.update(cf)
        elif "estimator" in cls().get_params():
            depth = 1 if label == "AdaBoost" else None
            kwargs["estimator"] = treeboost.DecisionTreeClassifier(max_depth=depth, **cf)
        out.append((label, cls(**kwargs)))
    return out


def _rows(X, idx):
    return X.iloc[idx] if hasattr(X, "iloc") else X[idx]


def error_vs_trees(ax, X, y, categorical, n_estimators, title):
    idx_tr, idx_te = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=0)
    tree = treeboost.DecisionTreeClassifier(random_state=0, categorical_features=categorical)
    tree.fit(_rows(X, idx_tr), y[idx_tr])
    err = 1 - np.mean(tree.predict(_rows(X, idx_te)) == y[idx_te])
    ax.axhline(err, color="black", linestyle="--", label=f"single CART tree ({err:.3f})")
    for label, model in ensembles(categorical, n_estimators):
        model.fit(_rows(X, idx_tr), y[idx_tr])
        stages = staged_proba(model, _rows(X, idx_te))
        if stages is None:
            continue
        errors = [1 - np.mean((p > 0.5).astype(int) == y[idx_te]) for p in stages]
        ax.plot(np.arange(1, len(errors) + 1), errors, label=f"{label} ({errors[-1]:.3f})")
    ax.set_xlabel("number of trees")
    ax.set_ylabel("test error")
    ax.set_title(title)
    ax.legend(fontsize=8)


def prediction_variance(X, y, categorical, n_refits, n_estimators):
    """Mean over test points of the variance of p(y=1) across bootstrap refits."""
    idx_tr, idx_te = train_test_split(np.arange(len(y)), test_size=0.3, stratify=y, random_state=1)
    rng = np.random.RandomState(0)
    forest_cls = getattr(treeboost, "RandomForestClassifier", None)
    makers = [
        (
            "single CART tree",
            lambda s: treeboost.DecisionTreeClassifier(
                random_state=s, categorical_features=categorical
            ),
        )
    ]
    if forest_cls is not None:
        makers.append(
            (
                "RandomForest",
                lambda s: forest_cls(
                    n_estimators=n_estimators, random_state=s, categorical_features=categorical
                ),
            )
        )
    makers.append(
        (
            "GradientBoosting",
            lambda s: treeboost.GradientBoostingClassifier(
                n_estimators=n_estimators,
                random_state=s,
                categorical_features=categorical,
                **LGBM_TREES,
            ),
        )
    )
    result = {}
    for label, make in makers:
        preds = []
        for s in range(n_refits):
            boot = rng.choice(idx_tr, idx_tr.size, replace=True)
            preds.append(make(s).fit(_rows(X, boot), y[boot]).predict_proba(_rows(X, idx_te))[:, 1])
        result[label] = np.var(np.array(preds), axis=0)
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="treeboost-examples")
    ap.add_argument("--quick", action="store_true", help="small settings (CI smoke test)")
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(args.out, exist_ok=True)
    n_estimators = 30 if args.quick else 200
    n_refits = 5 if args.quick else 20
    task_list = tasks(args.quick)

    fig, axes = plt.subplots(1, len(task_list), figsize=(12, 4.5))
    for ax, (name, X, y, cat) in zip(axes, task_list):
        error_vs_trees(ax, X, y, cat, n_estimators, f"{name}: test error against trees")
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "error_vs_trees.png"), dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(1, len(task_list), figsize=(12, 4))
    for ax, (name, X, y, cat) in zip(axes, task_list):
        var = prediction_variance(X, y, cat, n_refits, min(n_estimators, 100))
        labels = list(var)
        ax.boxplot([var[k] for k in labels], showfliers=False)
        ax.set_xticks(np.arange(1, len(labels) + 1))
        ax.set_xticklabels(labels)
        ax.set_ylabel("variance of p(y=1) across bootstrap refits")
        ax.set_title(f"{name}: prediction variance ({n_refits} refits)")
        print(
            f"{name}: mean prediction variance "
            + ", ".join(f"{k} {v.mean():.4f}" for k, v in var.items())
        )
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "variance.png"), dpi=110)
    plt.close(fig)
    print(f"pictures written to {args.out}/error_vs_trees.png and {args.out}/variance.png")


if __name__ == "__main__":
    main()
