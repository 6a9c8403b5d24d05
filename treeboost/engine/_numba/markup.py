"""numba's error-message markup without re-initialising colorama, the same text.

While it types a kernel, numba tries the candidate implementations of each operation in
turn and writes a message for every one it rejects, whether or not the message is ever
shown.  When colorama is installed (it often is, for other tools), each piece of each
message goes through ``HighlightColorScheme._markup``, which wraps and unwraps
``sys.stdout`` and ``sys.stderr`` with colorama (``init()``/``deinit()``) only to
concatenate three strings: the colour and style codes, the text, and colorama's
``Style.RESET_ALL``.  A first fit marks up some twenty thousand pieces
(``python benchmarks/compile_time.py`` times a first fit's compilation).

:func:`mark_up_without_colorama_init` gives numba's class a ``_markup`` that returns the
same concatenation without touching the streams.  Nothing is patched when numba does not
use colorama (it is not installed, or another numba version).
"""

from numba.core import errors as _errors


def _make_markup(reset):
    def _markup(self, msg, color=None, style=None):
        return (color or "") + (style or "") + msg + reset

    return _markup


def mark_up_without_colorama_init():
    """Install the cheaper ``_markup`` on numba's ``HighlightColorScheme`` (once; a no-op
    without colorama).  Returns whether it is installed."""
    cls = getattr(_errors, "HighlightColorScheme", None)
    style = getattr(_errors, "Style", None)
    if cls is None or style is None or not callable(getattr(cls, "_markup", None)):
        return False
    if getattr(cls._markup, "_treeboost_numba_markup", None) is not None:
        return True
    numba_markup = cls._markup
    default_style = numba_markup.__defaults__[-1] if numba_markup.__defaults__ else None
    markup = _make_markup(style.RESET_ALL)
    markup.__defaults__ = (None, default_style)
    markup._treeboost_numba_markup = numba_markup
    cls._markup = markup
    return True
