"""numba's error-message markup without colorama's init (engine/_numba/markup.py) gives
numba's own text."""

import pytest
from hypothesis import given, strategies as st
from numba.core import errors

from treeboost.engine import speed_up_compilation

# the shortcuts are never applied on import (engine/_numba/compilation.py): applied here, in
# this test process only
speed_up_compilation()
from treeboost.engine._numba.markup import mark_up_without_colorama_init

colorama = pytest.importorskip("colorama")

CODES = st.sampled_from(
    [None, "", colorama.Fore.RED, colorama.Fore.BLUE, colorama.Style.BRIGHT, colorama.Style.DIM]
)


def _numbas():
    return errors.HighlightColorScheme._markup._treeboost_numba_markup


def test_installed_on_numbas_class():
    assert mark_up_without_colorama_init()
    assert errors.HighlightColorScheme._markup is not _numbas()


@given(msg=st.text(), color=CODES, style=CODES)
def test_same_text_as_numbas(msg, color, style):
    scheme = errors.HighlightColorScheme()
    assert scheme._markup(msg, color, style) == _numbas()(scheme, msg, color, style)
    assert scheme._markup(msg, color) == _numbas()(scheme, msg, color)
    assert scheme._markup(msg) == _numbas()(scheme, msg)


def test_every_public_method_as_numbas():
    scheme = errors.HighlightColorScheme(errors.themes["dark_bg"])
    for name in ("code", "errmsg", "filename", "indicate", "highlight", "reset"):
        color = getattr(scheme, "_" + name)
        assert getattr(scheme, name)("x = 1") == _numbas()(scheme, "x = 1", color)
