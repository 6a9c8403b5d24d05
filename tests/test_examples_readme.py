"""examples/README.md lists every example; the examples that write pictures say where,
into a git-ignored folder; the watermelon walkthrough prints the book's numbers."""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(EXAMPLES))


def test_examples_readme_lists_every_example():
    text = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    assert "placeholder" not in text
    scripts = sorted(p.name for p in EXAMPLES.glob("*.py"))
    assert scripts
    for name in scripts:
        row = next((line for line in text.splitlines() if line.startswith(f"| `{name}`")), None)
        assert row is not None, f"{name} is not in examples/README.md"
        assert f"python examples/{name}" in row  # how to run it
        assert row.rstrip().endswith("|") and len(row.split("|")) == 6


def test_picture_folders_are_git_ignored():
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    for script in EXAMPLES.glob("*.py"):
        for folder in re.findall(r'"--out", default="([^"]+)"', script.read_text("utf-8")):
            assert f"{folder}/" in ignored, (script.name, folder)
    assert "treeboost-demo/" in ignored


def test_parallel_forest_prints_where_its_picture_is(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    from parallel_forest import main

    monkeypatch.setitem(sys.modules, "distributed", None)  # the Dask part is skipped
    main(["--quick", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    picture = tmp_path / "forest_n_jobs.png"
    assert picture.exists() and f"picture written to {picture}" in out


def test_watermelon_walkthrough_prints_the_books_numbers(capsys):
    pytest.importorskip("pandas")
    from watermelon_pruning import main

    main()
    out = capsys.readouterr().out
    assert "Ent(D) = 0.998" in out
    assert "unpruned tree: validation accuracy 42.9%" in out
    assert "pre-pruning: 71.4%" in out and "post-pruning: 71.4%" in out
