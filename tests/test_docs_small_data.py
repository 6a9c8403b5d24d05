"""docs/user_guide/small_data.md as a reader runs it: its script prints the table the
page shows, digit for digit."""

import contextlib
import io
import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "user_guide" / "small_data.md"


def test_the_script_prints_the_pages_table():
    text = PAGE.read_text(encoding="utf-8")
    (code,) = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "small_data.md", "exec"), {"__name__": "__main__"})
    printed = out.getvalue().strip().splitlines()
    assert len(printed) >= 10
    shown = [line for line in text.splitlines() if line.startswith("|")]
    assert printed == shown
