"""The outputs docs/user_guide/command_line.md shows are what its commands print.

Each ```bash block of the guide that a ```text block follows is run, in the guide's order
and in one folder laid out as the clone is (its copy of the bundled Titanic file where the
guide names it): ``treeboost`` lines by :func:`treeboost.cli.main` in this process (their
standard output and error in one stream, in the order a terminal shows them), the others
by a shell.  The text block must be their output, numbers included; only the seconds a fit
took ("in 0.30 s") are masked.
"""

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from treeboost.cli import main

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "user_guide" / "command_line.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
TIME = re.compile(r"\bin \d+\.\d+ s\.")


def _examples():
    """``(commands, shown)`` for each bash block directly followed by a text block."""
    text = GUIDE.read_text(encoding="utf-8")
    blocks = list(FENCE.finditer(text))
    pairs = []
    for first, second in zip(blocks, blocks[1:]):
        between = text[first.end() : second.start()]
        if first.group(1) == "bash" and second.group(1) == "text" and not between.strip():
            pairs.append((first.group(2).strip().splitlines(), second.group(2)))
    return pairs


def _masked(text):
    return TIME.sub("in <seconds> s.", text).rstrip()


def _run(command, folder):
    """The output of one line of a bash block, run in ``folder``."""
    if command.startswith("treeboost "):
        stream = io.StringIO()
        cwd = os.getcwd()
        os.chdir(folder)
        try:
            with contextlib.redirect_stdout(stream), contextlib.redirect_stderr(stream):
                code = main(shlex.split(command)[1:])
        finally:
            os.chdir(cwd)
        assert code == 0, (command, stream.getvalue()[-2000:])
        return stream.getvalue()
    # the interpreter running the tests first on the PATH, for `python -c`
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(command, shell=True, cwd=folder, env=env, capture_output=True, text=True)
    assert done.returncode == 0, (command, done.stderr[-2000:])
    return done.stdout + done.stderr


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    """``[(commands, shown, printed)]`` for every example, run in order in one folder."""
    pytest.importorskip("pandas")
    folder = tmp_path_factory.mktemp("guide")
    data = folder / "treeboost" / "datasets" / "data"
    data.mkdir(parents=True)
    shutil.copy(ROOT / "treeboost" / "datasets" / "data" / "titanic.csv", data)
    runs = []
    for commands, shown in _examples():
        out = "".join(_run(line.split("  #", 1)[0].strip(), folder) for line in commands)
        runs.append((commands, shown, out))
    return folder, runs


def test_the_guide_shows_the_titanic_examples_with_their_outputs():
    commands = [line for commands, _ in _examples() for line in commands]
    assert commands[:2] == [
        "cp treeboost/datasets/data/titanic.csv train.csv",
        "treeboost fit train.csv --target Survived -o model.tbm",
    ]
    for expected in ("treeboost predict", "treeboost explain", "--target Fare", "--target SibSp"):
        assert any(expected in line for line in commands), expected


def test_every_output_the_guide_shows_is_printed(printed):
    _, runs = printed
    wrong = [
        f"$ {' && '.join(commands)}\n--- the guide shows\n{_masked(shown)}\n--- printed\n"
        f"{_masked(out)}"
        for commands, shown, out in runs
        if _masked(shown) != _masked(out)
    ]
    assert not wrong, "\n\n".join(wrong)


def test_dropping_the_cabins_gives_the_same_scores(printed):
    """What the prose after the first fit says: ``--drop Cabin`` gives the same scores."""
    folder, runs = printed
    assert "`--drop Cabin` gives\nthe same scores" in GUIDE.read_text(encoding="utf-8")

    def scores(text):
        return [line for line in text.splitlines() if line.startswith("  ")]

    out = _run("treeboost fit train.csv --target Survived --drop Cabin -o no-cabin.tbm", folder)
    assert scores(out) == scores(runs[0][2]) and len(scores(out)) == 4
