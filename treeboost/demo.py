"""``treeboost demo``: a single CART tree against the ensembles on the Titanic data.

Prints one table (5-fold cross-validated accuracy: mean ± std over the folds; ROC AUC of the
pooled out-of-fold probabilities, the same number the ROC picture shows; median fit and
predict time per fold) and, with matplotlib installed, writes three pictures: test accuracy against
the
number of trees of each ensemble (the single tree as a horizontal line), the ROC curves of
the out-of-fold probabilities, and the feature importances.
"""

import os
import time
from typing import NamedTuple

import numpy as np
from sklearn.base import clone
from sklearn.metrics import accuracy_score, roc_auc_score, roc_curve
from sklearn.model_selection import StratifiedKFold

from .engine.kernel_cache import prebuilt_usable


class DemoRow(NamedTuple):
    """One model's line of the table."""

    label: str
    accuracy: float  #: mean of the folds' accuracies
    accuracy_std: float  #: their standard deviation
    roc_auc: float  #: AUC of the pooled out-of-fold probabilities
    fit_time: float  #: median over the folds (s)
    predict_time: float  #: median over the folds (s)


def demo_models(categorical, n_estimators=100):
    """(name, estimator) pairs: the single tree first, then every ensemble available."""
    import treeboost

    cf = {"categorical_features": categorical}
    models = [
        ("CART tree", treeboost.DecisionTreeClassifier(min_samples_leaf=5, random_state=0, **cf))
    ]
    specs = [
        (
            "Bagging",
            "BaggingClassifier",
            dict(estimator=treeboost.DecisionTreeClassifier(min_samples_leaf=5, **cf), **cf),
        ),
        ("RandomForest", "RandomForestClassifier", dict(min_samples_leaf=2, **cf)),
        ("ExtraTrees", "ExtraTreesClassifier", dict(min_samples_leaf=2, **cf)),
        (
            "AdaBoost",
            "AdaBoostClassifier",
            dict(estimator=treeboost.DecisionTreeClassifier(max_depth=2, **cf), **cf),
        ),
        (
            "GradientBoosting",
            "GradientBoostingClassifier",
            # the LightGBM-style trees the demo has always shown (leaf-wise, 20 rows a
            # leaf, second-order gain), not scikit-learn's depth-3 defaults
            dict(
                learning_rate=0.05,
                max_leaf_nodes=8,
                max_depth=None,
                min_samples_leaf=20,
                split_gain="hessian",
                **cf,
            ),
        ),
    ]
    for label, name, params in specs:
        cls = getattr(treeboost, name, None)
        if cls is None:
            continue
        try:
            models.append((label, cls(n_estimators=n_estimators, random_state=0, **params)))
        except TypeError:  # an ensemble without one of these parameters
            params = {k: v for k, v in params.items() if k in cls().get_params()}
            models.append((label, cls(n_estimators=n_estimators, random_state=0, **params)))
    return models


def staged_proba(model, X):
    """Positive-class probability after 1, 2, ... trees (None when not available)."""
    if hasattr(model, "staged_predict_proba"):
        return [p[:, 1] for p in model.staged_predict_proba(X)]
    estimators = getattr(model, "estimators_", None)
    if not estimators or not hasattr(estimators[0], "predict_proba"):
        return None
    features = getattr(model, "estimators_features_", None)
    Xe = np.asarray(X) if not hasattr(X, "iloc") else X
    total = np.zeros(len(Xe))
    out = []
    for i, est in enumerate(estimators):
        Xi = (
            Xe
            if features is None
            else (Xe.iloc[:, features[i]] if hasattr(Xe, "iloc") else Xe[:, features[i]])
        )
        total += est.predict_proba(Xi)[:, 1]
        out.append(total / (i + 1))
    return out


def _subset(X, idx):
    return X.iloc[idx] if hasattr(X, "iloc") else X[idx]


def run_demo(
    X, y, categorical, feature_names, out="treeboost-demo", folds=5, n_estimators=100, plots=True
):
    y = np.asarray(y)
    models = demo_models(categorical, n_estimators)
    cv = StratifiedKFold(folds, shuffle=True, random_state=0)
    splits = list(cv.split(np.zeros(len(y)), y))
    rows, oof = [], {}
    t_all = time.perf_counter()
    # said first: without the kernels compiled at installation, the first fits on a
    # machine also compile them
    if prebuilt_usable():
        kernels = "treeboost's kernels were compiled for this machine when it was installed"
    else:
        kernels = (
            "the first run on a machine also compiles treeboost's kernels, once: "
            "they are cached on disk"
        )
    print(f"Fitting {len(models)} models, {folds} folds each ({kernels}) ...", flush=True)
    for label, est in models:
        t_model = time.perf_counter()
        accs, fit_t, pred_t = [], [], []
        proba_oof = np.zeros(len(y))
        for train, test in splits:
            model = clone(est)
            t = time.perf_counter()
            model.fit(_subset(X, train), y[train])
            fit_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            proba = model.predict_proba(_subset(X, test))[:, 1]
            pred_t.append(time.perf_counter() - t)
            proba_oof[test] = proba
            accs.append(accuracy_score(y[test], (proba > 0.5).astype(int)))
        oof[label] = proba_oof
        print(f"  {label}: {time.perf_counter() - t_model:.1f} s", flush=True)
        # the median, because the first fold of a fresh process also compiles the kernels
        # one AUC for the table and the ROC picture: that of the pooled out-of-fold
        # probabilities (the area under the curve drawn), not the mean of the folds' AUCs
        rows.append(
            DemoRow(
                label,
                np.mean(accs),
                np.std(accs),
                roc_auc_score(y, proba_oof),
                np.median(fit_t),
                np.median(pred_t),
            )
        )
    print(
        f"\nTitanic: {len(y)} passengers; features {', '.join(feature_names)}; "
        f"{folds}-fold cross-validation, {n_estimators} "
        f"tree{'' if n_estimators == 1 else 's'} per ensemble\n"
    )
    print(
        "| model | accuracy (mean ± std of folds) | ROC AUC (pooled out-of-fold) "
        "| fit time (s) | predict time (s) |"
    )
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r.label} | {r.accuracy:.3f} ± {r.accuracy_std:.3f} | {r.roc_auc:.3f} "
            f"| {r.fit_time:.3f} | {r.predict_time:.4f} |"
        )
    tree_auc = rows[0].roc_auc
    below = [r.label for r in rows[1:] if r.roc_auc <= tree_auc]
    if below:
        print(f"\nNot above the single tree in ROC AUC: {', '.join(below)}.")
    else:
        print("\nEvery ensemble is above the single tree in ROC AUC.")
    print(
        "Times are the median over the folds: the first fit in a fresh process also "
        "loads the numba kernels (or compiles them, when they were not compiled at "
        "installation)."
    )
    if plots:
        _pictures(models, X, y, splits[0], oof, feature_names, out)
    print(f"\n(total {time.perf_counter() - t_all:.1f} s)")
    return 0


def _save_picture(fig, path):
    """Write ``fig`` as a PNG through a temporary file (an interrupted run leaves no
    half-written picture)."""
    from .persistence import atomic_write

    with atomic_write(path) as fh:
        fig.savefig(fh, format="png", dpi=120)


def _finish(plt, ax, path, labels, title, **legend):
    """Label ``ax`` (``labels``: the x and y axes', None for none), title it, add its
    legend, and write its figure to ``path``."""
    xlabel, ylabel = labels
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8, **legend)
    fig = ax.figure
    fig.tight_layout()
    _save_picture(fig, path)
    plt.close(fig)


def _pictures(models, X, y, split, oof, feature_names, out):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("\n(pictures skipped: matplotlib is not installed; pip install matplotlib)")
        return
    os.makedirs(out, exist_ok=True)
    train, test = split
    fitted = []
    _, ax = plt.subplots(figsize=(7, 4.5))
    for label, est in models:
        model = clone(est).fit(_subset(X, train), y[train])
        fitted.append((label, model))
        stages = staged_proba(model, _subset(X, test))
        if label == "CART tree":
            acc = accuracy_score(y[test], model.predict(_subset(X, test)))
            ax.axhline(acc, color="black", linestyle="--", label=f"{label} ({acc:.3f})")
        elif stages:
            accs = [accuracy_score(y[test], (p > 0.5).astype(int)) for p in stages]
            ax.plot(np.arange(1, len(accs) + 1), accs, label=label)
    _finish(
        plt,
        ax,
        os.path.join(out, "accuracy_vs_trees.png"),
        ("number of trees", "test accuracy (first fold)"),
        "Titanic: accuracy against the number of trees",
    )

    _, ax = plt.subplots(figsize=(5.5, 5))
    for label, proba in oof.items():
        fpr, tpr, _ = roc_curve(y, proba)
        ax.plot(fpr, tpr, label=f"{label} (AUC {roc_auc_score(y, proba):.3f})")
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":")
    _finish(
        plt,
        ax,
        os.path.join(out, "roc_curves.png"),
        ("false positive rate", "true positive rate"),
        "Titanic: ROC curves (pooled out-of-fold probabilities)",
        loc="lower right",
    )

    with_imp = [(label, m) for label, m in fitted if hasattr(m, "feature_importances_")]
    _, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / max(1, len(with_imp))
    pos = np.arange(len(feature_names))
    for i, (label, m) in enumerate(with_imp):
        ax.bar(pos + i * width, m.feature_importances_, width, label=label)
    ax.set_xticks(pos + 0.4 - width / 2)
    ax.set_xticklabels(feature_names)
    _finish(
        plt,
        ax,
        os.path.join(out, "feature_importances.png"),
        (None, "importance (normalised)"),
        "Titanic: feature importances (first fold)",
    )
    print(
        f"\nPictures written to {out}/: accuracy_vs_trees.png, roc_curves.png, "
        f"feature_importances.png"
    )
