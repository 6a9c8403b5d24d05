"""Uses of treeboost's public API that a type checker accepts, and mistakes it refuses.

mypy checks this file (``mypy.ini``; ``tests/test_typing.py`` runs it); it is never run.
A line marked ``# type: ignore[code]`` is a mistake the hints must catch: with
``warn_unused_ignores`` a hint that stopped catching it fails the check.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from typing_extensions import assert_type

from treeboost import (
    AdaBoostClassifier,
    AdaBoostRegressor,
    BaggingClassifier,
    BaggingRegressor,
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
    load,
    save,
)
from treeboost.cli import main
from treeboost.datasets import load_titanic, load_watermelon

X = np.zeros((4, 2))
y = np.array([0, 1, 0, 1])

# fit returns the estimator, typed as its own class (its own methods follow)
forest = RandomForestClassifier(n_estimators=10, max_features="sqrt", n_jobs=-1).fit(X, y)
assert_type(forest, RandomForestClassifier)
forest_proba = forest.predict_proba(X)
extra = ExtraTreesRegressor(criterion="absolute_error", max_samples=0.5).fit(X, y)
assert_type(extra, ExtraTreesRegressor)
assert_type(RandomForestRegressor(oob_score=True).fit(X, y).predict(X), NDArray[np.float64])
assert_type(
    ExtraTreesClassifier(class_weight="balanced_subsample").fit(X, y).apply(X), NDArray[np.int64]
)

bagging = BaggingClassifier(voting="hard", max_features=0.5).fit(X, y, sample_weight=None)
assert_type(bagging, BaggingClassifier)
assert_type(bagging.predict_proba(X), NDArray[np.float64])
assert_type(BaggingRegressor(estimator=None).fit(X, y), BaggingRegressor)

ada = AdaBoostClassifier(n_estimators=5, boosting="resample").fit(X, y)
assert_type(ada, AdaBoostClassifier)
assert_type(ada.staged_predict_proba(X), Iterator[NDArray[np.float64]])
assert_type(ada.staged_score(X, y), Iterator[float])
assert_type(AdaBoostRegressor(loss="square").fit(X, y), AdaBoostRegressor)


def stop_early(i: int, model: object, frame: dict[str, object]) -> bool:
    return i >= 10


gb = GradientBoostingClassifier(loss="exponential", interaction_cst="pairwise")
assert_type(gb.fit(X, y, monitor=stop_early), GradientBoostingClassifier)
assert_type(gb.decision_function(X), NDArray[np.float64])
assert_type(gb.staged_predict(X), Iterator[NDArray[Any]])
assert_type(GradientBoostingRegressor(loss="huber", alpha=0.8).fit(X, y), GradientBoostingRegressor)

hist = HistGradientBoostingClassifier(early_stopping=True, monotonic_cst={"a": 1})
assert_type(hist.fit(X, y, X_val=X, y_val=y), HistGradientBoostingClassifier)
assert_type(hist.n_iter_, int)
hist_reg = HistGradientBoostingRegressor(loss="quantile", quantile=0.9, scoring=None)
assert_type(hist_reg.fit(X, y), HistGradientBoostingRegressor)

# model files: save returns the path it was given; load returns an estimator
path = save(forest, Path("model.tbm"))
assert_type(path, Path)
assert_type(forest.save("model.tbm"), str)
loaded = load(path)

# the data sets: a Bunch, or (data, target) with return_X_y=True
titanic = load_titanic()
data, target = load_watermelon(return_X_y=True, as_frame=False)

# the command line's entry returns its exit status
status: int = main(["--version"])

# mistakes the hints catch
RandomForestClassifier(criterion="gni")  # type: ignore[arg-type]
RandomForestRegressor(criterion="gini")  # type: ignore[arg-type]
GradientBoostingRegressor(loss="log_loss")  # type: ignore[arg-type]
HistGradientBoostingClassifier(early_stopping="yes")  # type: ignore[arg-type]
BaggingClassifier(voting="majority")  # type: ignore[arg-type]
AdaBoostClassifier(n_estimators="50")  # type: ignore[arg-type]
HistGradientBoostingRegressor().fit(X, y, monitor=stop_early)  # type: ignore[call-arg]
load_titanic(return_X_y=True).data  # type: ignore[attr-defined]
save(forest, 3)  # type: ignore[type-var]
