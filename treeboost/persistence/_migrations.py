"""Model files written before gradient boosting took scikit-learn's parameters.

Those files hold a ``GradientBoostingClassifier`` / ``Regressor`` with treeboost's former
parameters: an ``early_stopping`` flag (early stopping is now on when ``n_iter_no_change``
is set, as in scikit-learn) and none of ``min_samples_split``, ``min_weight_fraction_leaf``,
``min_impurity_decrease``, ``init`` and ``criterion``.  Their other parameters (the former defaults
included: 31 leaves, 20 rows a leaf, ``split_gain="hessian"``, ``tol=1e-7``) are stored, so
the model loads with the values it was fitted with; ``train_score_`` and
``validation_score_`` are brought to scikit-learn's scale (:attr:`Loss.score_scale`).
No format version changes: such a file is recognised by its ``early_stopping`` entry.

Parameters added later to other estimators (:data:`_ADDED_PARAMETERS`) are filled in with
the value that reproduces how an older file's model was fitted.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._walk import json_objects

_BOOSTERS = (
    "treeboost.ensembles.gradient_boosting.GradientBoostingClassifier",
    "treeboost.ensembles.gradient_boosting.GradientBoostingRegressor",
)

#: the parameters the former boosters lacked, at the values that fit as they did
#: (a node of 2 * min_samples_leaf rows was always split; no weight floor; no decrease
#: floor; the loss's constant initial score)
_NEW_PARAMETERS = {
    "min_samples_split": 2,
    "min_weight_fraction_leaf": 0.0,
    "min_impurity_decrease": 0.0,
    "init": None,
    "criterion": "deprecated",
}

#: losses that scikit-learn reports at twice treeboost's former scores
_DOUBLED = (
    "treeboost.losses.squared_error.SquaredError",
    "treeboost.losses.log_loss.BinaryLogLoss",
)


def migrate_gradient_boosting(obj, arrays):
    """Rewrite, in place, every former booster of the decoded JSON ``obj`` (and the
    score arrays of ``arrays`` it refers to) into the current parameters."""
    for obj in json_objects(obj):
        state = obj.get("state")
        if (
            obj.get("__object__") not in _BOOSTERS
            or not isinstance(state, dict)
            or "early_stopping" not in state
        ):
            continue
        if state.pop("early_stopping") is not True:
            state["n_iter_no_change"] = None
        for name, value in _NEW_PARAMETERS.items():
            state.setdefault(name, value)
        loss = state.get("_loss")
        if isinstance(loss, dict) and loss.get("__object__") in _DOUBLED:
            for name in ("train_score_", "validation_score_"):
                ref = state.get(name)
                key = ref.get("__array__") if isinstance(ref, dict) else None
                if isinstance(key, str) and key in arrays:
                    arrays[key] = 2.0 * np.asarray(arrays[key])


#: parameters added after files of these classes were written, each with the value the
#: older model was fitted with (no pruning before ``ccp_alpha`` existed)
_TREES = (
    "treeboost.trees.cart.DecisionTreeClassifier",
    "treeboost.trees.cart.DecisionTreeRegressor",
    "treeboost.trees.cart.ExtraTreeClassifier",
    "treeboost.trees.cart.ExtraTreeRegressor",
    "treeboost.ensembles.forest.RandomForestClassifier",
    "treeboost.ensembles.forest.RandomForestRegressor",
    "treeboost.ensembles.forest.ExtraTreesClassifier",
    "treeboost.ensembles.forest.ExtraTreesRegressor",
)
_ADDED_PARAMETERS: dict[str, dict[str, Any]] = {name: {"ccp_alpha": 0.0} for name in _TREES}
# trees and forests from before monotonic constraints: none
for _name in _TREES:
    _ADDED_PARAMETERS[_name]["monotonic_cst"] = None
# trees, forests and bagging from before the category guard: the exact subset search
for _name in _TREES + (
    "treeboost.ensembles.bagging.BaggingClassifier",
    "treeboost.ensembles.bagging.BaggingRegressor",
):
    _ADDED_PARAMETERS.setdefault(_name, {}).update(min_samples_per_category=0, cat_smooth=0.0)
# boosters from before the constraints: none
for _name in _BOOSTERS + (
    "treeboost.ensembles.hist_gradient_boosting.HistGradientBoostingClassifier",
    "treeboost.ensembles.hist_gradient_boosting.HistGradientBoostingRegressor",
):
    _ADDED_PARAMETERS.setdefault(_name, {}).update(monotonic_cst=None, interaction_cst=None)
# encoders from before allow_infinite refused infinity (a file names the encoder's module
# as it was when the file was written: before or after its move to treeboost._input)
for _name in (
    "treeboost.trees.encoding.FeatureEncoder",
    "treeboost._input.encoding.FeatureEncoder",
):
    _ADDED_PARAMETERS[_name] = {"allow_infinite": False}
# HistGradientBoostingClassifier files from before class_weight: no class weights
_ADDED_PARAMETERS.setdefault(
    "treeboost.ensembles.hist_gradient_boosting.HistGradientBoostingClassifier", {}
).update(class_weight=None)


def migrate_added_parameters(obj):
    """Fill in, in place, the parameters of :data:`_ADDED_PARAMETERS` that an object of
    the decoded JSON ``obj`` lacks."""
    for obj in json_objects(obj):
        added = _ADDED_PARAMETERS.get(obj["__object__"]) if "__object__" in obj else None
        state = obj.get("state")
        if added is not None and isinstance(state, dict):
            for name, value in added.items():
                state.setdefault(name, value)


# HistGradientBoosting files from before reg_alpha and colsample_bytree: no L1 penalty,
# every feature in every tree
for _name in (
    "treeboost.ensembles.hist_gradient_boosting.HistGradientBoostingClassifier",
    "treeboost.ensembles.hist_gradient_boosting.HistGradientBoostingRegressor",
    "treeboost.ensembles.ranking.HistGradientBoostingRanker",
):
    _ADDED_PARAMETERS.setdefault(_name, {}).update(reg_alpha=0.0, colsample_bytree=1.0)
