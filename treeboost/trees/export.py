"""Moved: the text and rule exports live in :mod:`treeboost.inspection`; this module keeps
old imports working, with a FutureWarning, until treeboost 0.3."""

from .._moved import moved_names

__getattr__ = moved_names(
    __name__,
    {
        **dict.fromkeys(
            ["Condition", "Rule", "extract_rules", "export_rules", "export_text"],
            "treeboost.inspection",
        ),
        "MAX_TEXT_INDENT": "treeboost.inspection.export",
    },
)
