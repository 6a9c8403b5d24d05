"""benchmarks/sklearn_conformance.py: the import rewriting and the failure grouping."""

import importlib.util
import pathlib

import pytest

_PATH = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "sklearn_conformance.py"


@pytest.fixture(scope="module")
def conformance():
    spec = importlib.util.spec_from_file_location("sklearn_conformance", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rewrites_only_the_classes_treeboost_has(conformance):
    source = (
        "import numpy as np\n"
        "from sklearn.ensemble import (\n    RandomForestClassifier,\n"
        "    RandomTreesEmbedding,\n)\n"
        "from sklearn.tree._tree import TREE_LEAF\n"
        "def test_x():\n    from sklearn.tree import DecisionTreeClassifier as T\n"
        "    return T\n"
    )
    new, theirs = conformance.rewrite_imports(
        source, {"RandomForestClassifier", "DecisionTreeClassifier"}
    )
    assert "from treeboost import RandomForestClassifier\n" in new
    assert "from sklearn.ensemble import RandomTreesEmbedding\n" in new
    assert "    from treeboost import DecisionTreeClassifier as T\n" in new
    assert "from sklearn.tree._tree import TREE_LEAF" in new
    assert theirs == {"RandomTreesEmbedding"}
    compile(new, "rewritten", "exec")
    assert conformance.private_names(source) == {"TREE_LEAF"}


def test_failures_group_by_their_line_without_numbers(conformance):
    R = conformance.ModuleResult
    results = [
        R(
            "tree",
            1,
            3,
            0,
            {},
            [("a", "assert 0.5 == 1"), ("b", "assert 2.25 == 3"), ("c", "KeyError: 'x'")],
            1.0,
        )
    ]
    text = conformance.failure_groups(results)
    assert text.splitlines()[0].split() == ["2", "assert", "#", "==", "#"]
    assert "tree::a, tree::b" in text
    table = conformance.table(results)
    assert "| tree | 4 | 1 | 3 | 25 |" in table and "| **total** | 4 | 1 | 3 | 25 |" in table
