"""The README as a new user reads it: every Python snippet runs as written (each on its own,
as a script), its tables are whole, its set-up commands are the ones CI runs."""

import os
import re
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")  # before any block imports pyplot
ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYTHON_BLOCKS = re.findall(r"^```python\n(.*?)^```", README, flags=re.S | re.M)
BASH_BLOCKS = re.findall(r"^```bash\n(.*?)^```", README, flags=re.S | re.M)


def test_the_readme_has_python_snippets():
    assert len(PYTHON_BLOCKS) >= 4


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_python_snippet_runs(index, tmp_path, monkeypatch):
    """Each block on its own, in a fresh namespace named ``__main__`` as a script's is
    (the Dask block runs under ``if __name__ == "__main__":``), in an empty working
    directory, pictures on the Agg backend.  In this process: a new interpreter per block
    would spend most of the test importing treeboost again."""
    code = PYTHON_BLOCKS[index]
    pytest.importorskip("pandas")  # load_titanic returns a DataFrame
    if "distributed" in code:
        pytest.importorskip("distributed")
    if "matplotlib" in code or "plot" in code:
        matplotlib = pytest.importorskip("matplotlib")
        matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    exec(compile(code, f"README.md python block {index}", "exec"), namespace)


def test_tables_have_no_blank_line_inside():
    """A table row after a blank line starts a new table: it must be a header followed by
    its ``|---|`` line, or the row is printed as text (the table is broken in two)."""
    lines = README.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|") and (i == 0 or not lines[i - 1].strip()):
            assert i + 1 < len(lines) and re.match(r"^\|(\s*:?-+:?\s*\|)+\s*$", lines[i + 1]), (
                f"README line {i + 1} starts a table without a header: {line[:60]}"
            )


def test_the_first_two_commands_are_the_set_up_commands():
    first, second = (block.strip() for block in BASH_BLOCKS[:2])
    assert first == 'python -m pip install ".[plot,pandas]" && python -m treeboost demo'
    assert second == (
        'python -m pip install -e ".[test,plot,distributed]" && python -m pytest -q -n 2'
    )
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert second in ci.splitlines()
    head = README[: README.index("```bash")]
    assert "git clone" in head and "cd treeboost" in head


def test_the_third_command_builds_the_docs_as_ci_does():
    """CI builds the documentation (warnings as errors) before it runs the tests."""
    docs = BASH_BLOCKS[2].strip()
    assert docs == (
        'python -m pip install -e ".[docs]" && python -m sphinx -W -E -b html docs docs/_build/html'
    )
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    docs_line = next(i for i, line in enumerate(ci) if line.endswith(docs))
    tests_line = ci.index(BASH_BLOCKS[1].strip())
    assert docs_line < tests_line


def test_the_readme_is_short_and_names_its_benchmark_machine():
    assert len(README.splitlines()) <= 300
    # the speed table names the machine it was measured on and the script that prints it
    section = README.split("## Benchmark", 1)[1].split("\n## ", 1)[0]
    assert "benchmarks/bench_speed.py" in section
    assert re.search(r"\d+-core (Intel Xeon|AMD EPYC)", section)
    for word in ("session", "helper", "commit ", "2026-", "Rerun"):
        assert word not in README, word


def test_no_time_of_day_wording():
    for word in ("this afternoon", "this morning", "afternoon)", "evening)", " today"):
        assert word not in README, word


def test_the_command_line_block_runs_as_written(tmp_path):
    """The README's ``treeboost`` block, line by line in a shell, from a folder laid out as
    the clone is (its copy of the Titanic file where the block names it)."""
    import shutil
    import subprocess
    import sys

    block = next(b for b in BASH_BLOCKS if b.startswith("treeboost fit"))
    data = tmp_path / "treeboost" / "datasets" / "data"
    data.mkdir(parents=True)
    shutil.copy(ROOT / "treeboost" / "datasets" / "data" / "titanic.csv", data)
    # the console script of the interpreter running the tests, first on the PATH
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for line in block.strip().splitlines():
        command = line.split("#", 1)[0].strip()
        done = subprocess.run(
            command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, (command, done.stderr[-2000:])
    assert (tmp_path / "model.tbm").is_file()
    assert len((tmp_path / "predictions.csv").read_text().splitlines()) == 892
    assert "PassengerId 3:" in done.stdout  # the three rows of rows.csv explained
