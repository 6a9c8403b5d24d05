"""The models ``fit`` can fit (``--model``), their starting parameters and ``--param``, and
the thread options."""

from __future__ import annotations

import ast

from ._messages import UserError, _names, _quoted


def _trees_of(model):
    """The fitted trees of any treeboost model, in order."""
    if hasattr(model, "tree_"):
        return [model.tree_]
    if hasattr(model, "trees_"):
        return [t for trees in model.trees_ for t in trees]
    return [e.tree_ for e in getattr(model, "estimators_", []) if hasattr(e, "tree_")]


def _count(n, noun):
    """``1 tree``, ``2 trees``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _set_threads(args, model=None):
    """``--threads``: the engine's threads, and the jobs of an ensemble that has them."""
    n = getattr(args, "threads", None)
    if n is None:
        return
    if n < 1:
        raise UserError(f"--threads must be at least 1, got {n}")
    if model is None:
        import numba

        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    elif "n_jobs" in model.get_params(deep=False) and not any(
        p.startswith("n_jobs=") for p in getattr(args, "param", None) or []
    ):
        model.set_params(n_jobs=n)


MODELS = {
    "tree": ("DecisionTreeClassifier", "DecisionTreeRegressor"),
    "gbdt": ("GradientBoostingClassifier", "GradientBoostingRegressor"),
    "rf": ("RandomForestClassifier", "RandomForestRegressor"),
    "extratrees": ("ExtraTreesClassifier", "ExtraTreesRegressor"),
    "bagging": ("BaggingClassifier", "BaggingRegressor"),
    "adaboost": ("AdaBoostClassifier", "AdaBoostRegressor"),
}


#: parameters a model starts from before ``--param``: ``gbdt`` keeps the LightGBM-style
#: trees it has always fitted (31 leaves best-first, 20 rows per leaf, second-order gain)
#: rather than scikit-learn's depth-3 defaults of GradientBoosting*
MODEL_PARAMS = {
    "gbdt": {
        "max_depth": None,
        "max_leaf_nodes": 31,
        "min_samples_leaf": 20,
        "split_gain": "hessian",
    },
}


def _parse_params(pairs):
    params = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise UserError(f"--param takes key=value, got {_quoted(pair)}")
        key, value = pair.split("=", 1)
        try:
            params[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            params[key] = value
    return params


def _make_model(name, cls, pairs, base=None):
    """The estimator with the ``base`` parameters, then the ``--param`` values, checked
    before any fit."""
    params = _parse_params(pairs)
    model = cls(**(base or {}))
    known = model.get_params(deep=True)
    unknown = [k.split("__")[0] for k in params if k.split("__")[0] not in known]
    if unknown:
        raise UserError(
            f"bad --param for {name}: no parameter {_names(unknown)} (its "
            f"parameters: {', '.join(sorted(model.get_params(deep=False)))})"
        )
    for key in params:
        owner = key.split("__")[0]
        if "__" in key and known.get(owner) is None:
            raise UserError(
                f"bad --param for {name}: {key} sets a parameter of {owner}, which is None here"
            )
    try:
        model.set_params(**params)  # also nested ones: estimator__max_depth=3
    except (TypeError, ValueError) as exc:
        raise UserError(f"bad --param for {name}: {exc}") from None
    if hasattr(model, "_parameter_constraints"):
        try:
            model._validate_params()
        except (ValueError, TypeError) as exc:
            raise UserError(f"bad --param for {name}: {exc}") from None
    return model


def _base_params(model_name, n_train):
    """The parameters ``--model`` starts from (:data:`MODEL_PARAMS`), with a leaf size
    that lets a small file be learned from: at most a tenth of the training rows."""
    params = dict(MODEL_PARAMS.get(model_name, {}))
    if "min_samples_leaf" in params:
        params["min_samples_leaf"] = max(1, min(params["min_samples_leaf"], n_train // 10))
    return params
