"""The README as a new user reads it: every Python snippet runs as written (each on its own,
as a script), its tables are whole, its set-up commands are the ones CI runs."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYTHON_BLOCKS = re.findall(r"^```python\n(.*?)^```", README, flags=re.S | re.M)
BASH_BLOCKS = re.findall(r"^```bash\n(.*?)^```", README, flags=re.S | re.M)


def test_the_readme_has_python_snippets():
    assert len(PYTHON_BLOCKS) >= 4


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_python_snippet_runs_as_a_script(index, tmp_path):
    """Each block in a fresh interpreter, as a file (``__name__ == "__main__"``, which
    the Dask block needs for its worker processes), pictures on the Agg backend."""
    code = PYTHON_BLOCKS[index]
    pytest.importorskip("pandas")           # load_titanic returns a DataFrame
    if "distributed" in code:
        pytest.importorskip("distributed")
    script = tmp_path / f"readme_snippet_{index}.py"
    script.write_text(code, encoding="utf-8")
    env = dict(os.environ, MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, f"README python block {index}:\n{code}\n{out.stderr[-3000:]}"


def test_tables_have_no_blank_line_inside():
    """A table row after a blank line starts a new table: it must be a header followed by
    its ``|---|`` line, or the row is printed as text (the table is broken in two)."""
    lines = README.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|") and (i == 0 or not lines[i - 1].strip()):
            assert i + 1 < len(lines) and re.match(r"^\|(\s*:?-+:?\s*\|)+\s*$", lines[i + 1]), \
                f"README line {i + 1} starts a table without a header: {line[:60]}"


def test_the_first_two_commands_are_the_set_up_commands():
    first, second = (block.strip() for block in BASH_BLOCKS[:2])
    assert first == 'python -m pip install ".[plot,pandas]" && python -m treeboost demo'
    assert second == 'python -m pip install -e ".[test,plot,distributed]" && python -m pytest -q'
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert second in ci.splitlines()
    head = README[:README.index("```bash")]
    assert "git clone" in head and "cd treeboost" in head


def test_no_time_of_day_wording():
    for word in ("this afternoon", "this morning", "afternoon)", "evening)", " today"):
        assert word not in README, word
