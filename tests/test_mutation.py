"""A seeded sample of the mutation test of model files (``tools/mutate_models.py`` runs
all of them): every mutant is refused with a ValueError, or loads and gives finite outputs
in a child process with numba's bounds checks on."""

import importlib.util
import pathlib

import pytest

_TOOL = pathlib.Path(__file__).resolve().parents[1] / "tools" / "mutate_models.py"
#: models of the sample: each kind of tree and of ensemble, kept small
_MODELS = [
    "cart_classifier",
    "cart_regressor",
    "c45",
    "rule_list",
    "random_forest_classifier",
    "bagging_regressor",
    "adaboost_classifier",
    "gradient_boosting_multiclass",
]
_SAMPLE = 160


def _tool():
    spec = importlib.util.spec_from_file_location("mutate_models", _TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(not _TOOL.exists(), reason="tools/ is not installed with the package")
def test_sampled_mutants_are_refused_or_work(tmp_path):
    tool = _tool()
    made, x_file = tool.make_all(str(tmp_path), seed=14, sample=_SAMPLE, names=_MODELS)
    assert len(made) == _SAMPLE
    # one child checks them all: the bounds-checked kernels compile once
    results = tool.run_checks(
        [p for _, _, p in made], x_file, per_file_timeout=60, compile_timeout=600
    )
    label = {p: f"{m}: {lab}" for m, lab, p in made}
    failed = [
        f"{label[p]}: {detail}" for p, (status, detail) in results.items() if status == "failed"
    ]
    assert not failed, "\n".join(failed)
    statuses = [s for s, _ in results.values()]
    assert len(results) == _SAMPLE
    # the sample holds both kinds: harmless edits that work, and refused ones
    assert statuses.count("refused") > 0 and statuses.count("worked") > 0
