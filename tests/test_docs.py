"""The documentation covers the package and speaks to its users: every public name is in
the API reference, every example and benchmark script is shown, and no page a user reads
carries the words of the project's own working process.  (CI builds the site itself with
warnings as errors: ``.ci/run``.)"""

import importlib
import importlib.util
import re
from pathlib import Path

import pytest

import treeboost

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
API = (DOCS / "api.rst").read_text(encoding="utf-8")

#: the public modules and the names they export (those without ``__all__``: their public
#: functions)
MODULES = {
    "treeboost": [n for n in treeboost.__all__ if n != "__version__"],
    "treeboost.trees": None,
    "treeboost.inspection": None,
    "treeboost.losses": None,
    "treeboost.datasets": None,
    "treeboost.persistence": None,
    "treeboost.oblique": None,
    "treeboost.export": None,
    "treeboost.metrics": None,
    "treeboost.callbacks": None,
    "treeboost.plotting": [
        "plot_importance",
        "plot_learning_curve",
        "plot_shap_summary",
        "plot_tree",
    ],
}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_public_name_is_in_the_api_reference(module):
    names = MODULES[module] or importlib.import_module(module).__all__
    if module != "treeboost":  # re-exported estimators are documented under treeboost
        names = [n for n in names if n not in treeboost.__all__ or n in ("load", "save")]
    section = API[API.index(f".. currentmodule:: {module}\n") :] if module != "treeboost" else API
    missing = [
        n for n in names if not re.search(rf"(^|\W){re.escape(n)}(\W|$)", section, flags=re.M)
    ]
    assert not missing, f"{module}: {missing} not in docs/api.rst"


def test_every_example_is_on_the_examples_page():
    page = (DOCS / "examples.md").read_text(encoding="utf-8")
    for script in sorted((ROOT / "examples").glob("*.py")):
        assert f"literalinclude}} ../examples/{script.name}" in page, script.name


def test_every_benchmark_script_is_in_the_benchmarks_index():
    index = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    for script in sorted((ROOT / "benchmarks").glob("*.py")):
        if not script.name.startswith("_"):
            assert f"| `{script.name}`" in index, script.name


def _user_pages():
    pages = [
        ROOT / "README.md",
        ROOT / "CHANGELOG.md",
        ROOT / "benchmarks" / "README.md",
        ROOT / "examples" / "README.md",
        *sorted((ROOT / "examples").glob("*.py")),
    ]
    pages += sorted(
        p
        for p in DOCS.rglob("*")
        if p.suffix in (".md", ".rst", ".py")
        and "_build" not in p.parts
        and "generated" not in p.parts
    )
    return pages


@pytest.mark.parametrize("page", _user_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_working_process_words_where_users_read(page):
    """Benchmarks name their machine and script, not the day they ran or who ran them."""
    text = page.read_text(encoding="utf-8")
    for pattern in (
        r"\bsessions?\b",
        r"\bhelpers? (?:ran|run)",
        r"\b20\d\d-\d\d-\d\d\b",
        r"\bcommit [0-9a-f]{7,40}\b",
        r"\bRerun\b",
        r"\bbranch `",
    ):
        found = re.search(pattern, text, flags=re.I)
        assert found is None, f"{page.name}: {found.group(0)!r}"


def test_formulas_render_without_a_network():
    """MathJax comes with the site (the sphinx-mathjax-offline extension copies it into
    ``_static``), not from a CDN: the guide's formulas render offline."""
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert '"sphinx-mathjax-offline"' in conf
    ext = importlib.util.find_spec("sphinx-mathjax-offline")
    if ext is None:
        pytest.skip("the docs extra is not installed")
    static = Path(ext.origin).parent / "static" / "mathjax" / "tex-chtml.js"
    assert static.is_file()


def test_the_guides_demo_table_is_what_the_demo_prints(capsys):
    """The quick start's table of the demo: its accuracies and ROC AUCs are the ones
    ``treeboost demo`` prints with its defaults (the times are the machine's)."""
    pytest.importorskip("pandas")
    from treeboost.cli import FEATURES, _titanic_features
    from treeboost.demo import run_demo

    page = (DOCS / "user_guide" / "quickstart.md").read_text(encoding="utf-8")
    guide = {
        cells[1]: cells[2:4]
        for cells in (line.split("|") for line in page.splitlines())
        if len(cells) > 5 and re.match(r"\s*\d\.\d{3} ± \d\.\d{3}\s*$", cells[2])
    }
    assert len(guide) == 6
    X, y, categorical = _titanic_features()
    run_demo(X, y, categorical, FEATURES, plots=False)
    printed = {
        cells[1]: cells[2:4]
        for cells in (line.split("|") for line in capsys.readouterr().out.splitlines())
        if len(cells) > 5 and cells[1] in guide
    }
    assert {k: [c.strip() for c in v] for k, v in printed.items()} == {
        k: [c.strip() for c in v] for k, v in guide.items()
    }
