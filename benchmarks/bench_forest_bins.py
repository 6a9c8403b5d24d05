"""What the bins cost a forest's probabilities: treeboost's forests and Extra-Trees with
``max_bins=255`` and with the default ``max_bins="auto"`` (exact thresholds up to 16,384
distinct values) against scikit-learn's exact trees, on ISLR's ``Default`` (10,000 rows;
``balance`` and ``income`` have about 10,000 distinct values each), the ordinal matrix.

Five stratified folds, the same for every model, 100 trees, each fit seeded with its
fold's number; printed: the mean log-loss and its spread over the folds, and the test rows
(over all folds) whose true class gets probability 0.  Needs ISLP's data folder
(``pip install --no-deps ISLP``)::

    python benchmarks/bench_forest_bins.py
"""

import numpy as np
import sklearn.ensemble as ske
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

import treeboost as tb
from _twin_sets import default, ordinal

MODELS = {
    "treeboost ExtraTrees, max_bins=255": lambda s: tb.ExtraTreesClassifier(
        random_state=s, max_bins=255
    ),
    'treeboost ExtraTrees, "auto"': lambda s: tb.ExtraTreesClassifier(random_state=s),
    "scikit-learn ExtraTrees": lambda s: ske.ExtraTreesClassifier(random_state=s),
    "treeboost RandomForest, max_bins=255": lambda s: tb.RandomForestClassifier(
        random_state=s, max_bins=255
    ),
    'treeboost RandomForest, "auto"': lambda s: tb.RandomForestClassifier(random_state=s),
    "scikit-learn RandomForest": lambda s: ske.RandomForestClassifier(random_state=s),
}


def main():
    X, y, _ = default()
    X = ordinal(X)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    print("| model | log-loss | rows with p = 0 for their class |")
    print("|---|---|---|")
    for name, make in MODELS.items():
        losses, zero = [], 0
        for i, (train, test) in enumerate(folds):
            p = make(i).fit(X[train], y[train]).predict_proba(X[test])
            losses.append(log_loss(y[test], p, labels=[0, 1]))
            zero += int((p[np.arange(test.size), y[test]] == 0).sum())
        print(f"| {name} | {np.mean(losses):.3f} ± {np.std(losses):.3f} | {zero} |", flush=True)


if __name__ == "__main__":
    main()
