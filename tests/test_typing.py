"""The type hints of the public API: mypy passes on the modules ``mypy.ini`` names (and on
``tests/typing_usage.py``, uses of the API it must accept and mistakes it must refuse), and
every public function and method of the annotated modules has its annotations."""

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: the modules whose public functions and methods must be annotated (mypy.ini checks them)
ANNOTATED_MODULES = (
    "treeboost.ensembles._base",
    "treeboost.ensembles.adaboost",
    "treeboost.ensembles.bagging",
    "treeboost.ensembles.forest",
    "treeboost.ensembles.gradient_boosting",
    "treeboost.ensembles._boosting",
    "treeboost.ensembles._boosting_records",
    "treeboost.ensembles._boosted_model",
    "treeboost.ensembles._boosted_outputs",
    "treeboost.ensembles._booster_params",
    "treeboost.ensembles.hist_gradient_boosting",
    "treeboost.persistence",
    "treeboost.persistence._checks",
    "treeboost.persistence._registry",
    "treeboost.datasets._base",
    "treeboost.cli",
    "treeboost.trees.cart",
    "treeboost.trees.classic",
    "treeboost.trees.pruning",
    "treeboost.trees.rules",
    "treeboost.trees.constraints",
    "treeboost.inspection.rules",
    "treeboost.inspection.export",
    "treeboost.inspection.drawing",
    "treeboost.inspection._tree_view",
    "treeboost.inspection._shap",
    "treeboost.inspection._dataframe",
    "treeboost.plotting",
)

#: the public API of those modules: the estimators, the model files, the data sets, the
#: command's entry
PUBLIC = (
    *(
        ("treeboost.ensembles", name)
        for name in importlib.import_module("treeboost.ensembles").__all__
    ),
    ("treeboost.persistence", "PersistenceMixin"),
    *(
        ("treeboost.persistence", name)
        for name in importlib.import_module("treeboost.persistence").__all__
    ),
    *(
        ("treeboost.datasets", name)
        for name in importlib.import_module("treeboost.datasets").__all__
    ),
    ("treeboost.cli", "main"),
    *(
        (module, name)
        for module in ("treeboost.trees", "treeboost.inspection", "treeboost.plotting")
        for name in importlib.import_module(module).__all__
    ),
)


def _missing_annotations(func):
    """The parameters (and ``return``) of ``func`` without an annotation."""
    sig = inspect.signature(func)
    missing = [
        name
        for i, (name, p) in enumerate(sig.parameters.items())
        if p.annotation is inspect.Parameter.empty and not (i == 0 and name in ("self", "cls"))
    ]
    if sig.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def _public_callables():
    """``(qualified name, function)`` of every public function, method and property of
    :data:`PUBLIC` defined in one of :data:`ANNOTATED_MODULES` (inherited methods of
    scikit-learn or of the modules not yet annotated are left out)."""
    for module, name in PUBLIC:
        obj = getattr(importlib.import_module(module), name)
        if inspect.isfunction(obj):
            if obj.__module__ in ANNOTATED_MODULES:
                yield f"{module}.{name}", obj
            continue
        if not inspect.isclass(obj):
            continue
        for attr, value in inspect.getmembers(obj):
            if attr.startswith("_") and attr not in ("__init__", "__len__", "__getitem__"):
                continue
            func = value.fget if isinstance(value, property) else value
            func = getattr(func, "__wrapped__", func)
            if inspect.isfunction(func) and func.__module__ in ANNOTATED_MODULES:
                yield f"{obj.__name__}.{attr}", func


def test_the_public_api_is_annotated():
    seen = dict(_public_callables())
    # the estimators' constructors and their fit/predict, the model files, the loaders
    for name in (
        "RandomForestClassifier.__init__",
        "RandomForestClassifier.fit",
        "RandomForestClassifier.predict_proba",
        "HistGradientBoostingClassifier.fit",
        "GradientBoostingClassifier.staged_predict",
        "AdaBoostRegressor.staged_score",
        "BaggingClassifier.decision_function",
        "PersistenceMixin.save",
        "treeboost.persistence.load",
        "treeboost.datasets.load_titanic",
        "treeboost.cli.main",
    ):
        assert name in seen, name
    missing = {name: m for name, func in seen.items() if (m := _missing_annotations(func))}
    assert not missing, f"public functions without annotations: {missing}"


def test_mypy_passes(request, tmp_path):
    pytest.importorskip("mypy")
    # a cache of its own (kept in pytest's cache between runs): a mypy run of someone else
    # in the same tree does not write under it
    cache = getattr(request.config, "cache", None)
    cache_dir = cache.mkdir("mypy") if cache is not None else tmp_path
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(cache_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
