"""docs/user_guide/custom_losses.md as a reader runs it: each Python block, in order in
one namespace, prints the output block that follows it (an error: its last line)."""

import contextlib
import io
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "user_guide" / "custom_losses.md"
#: a Python block and the plain block right after it (the output it prints)
PAIRS = re.findall(
    r"^```python\n(.*?)^```\n+(?:^```\n(.*?)^```)?", PAGE.read_text(encoding="utf-8"), re.S | re.M
)


def test_the_page_has_its_examples():
    assert len(PAIRS) >= 5
    assert sum(out is not None and out != "" for _, out in PAIRS) >= 5


def test_every_block_prints_what_the_page_shows():
    namespace = {"__name__": "__main__"}
    for index, (code, shown) in enumerate(PAIRS):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                exec(compile(code, f"custom_losses.md block {index}", "exec"), namespace)
            except Exception as exc:  # the page shows the error a block raises
                print(f"{type(exc).__name__}: {exc}")
        if shown:
            assert out.getvalue().strip() == shown.strip(), f"block {index}"
        elif out.getvalue().strip():
            pytest.fail(f"block {index} prints output the page does not show")
