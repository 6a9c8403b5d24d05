"""The guide's Dask examples of a custom loss (parallel.md) and the ranker (ranking.md)
print what the pages show."""

import contextlib
import io
import re
import sys
import types
from pathlib import Path

import pytest

pytest.importorskip("distributed")

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "user_guide"


def _example(page, heading):
    """The first Python block after ``heading`` and the output block after it."""
    text = (GUIDE / page).read_text(encoding="utf-8")
    found = re.search(r"```python\n(.*?)```\n+```text\n(.*?)```", text[text.index(heading) :], re.S)
    return found.group(1), found.group(2)


@pytest.mark.parametrize(
    "page, heading",
    [
        ("parallel.md", "### A custom loss and ranking on a cluster"),
        ("ranking.md", "## On a Dask cluster"),
    ],
)
def test_the_dask_example_prints_what_the_page_shows(page, heading):
    code, shown = _example(page, heading)
    # a module pickle can find, as a reader's script is (its functions travel by name)
    module = types.ModuleType("treeboost_docs_example")
    sys.modules[module.__name__] = module
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"{page} ({heading})", "exec"), module.__dict__)
    finally:
        del sys.modules[module.__name__]
    assert out.getvalue().strip() == shown.strip()
