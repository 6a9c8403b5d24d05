"""The shared docstring paragraphs land where their placeholders stand, indented."""

import pytest

from treeboost._docstrings import insert_docs

FRAGMENT = """
max_depth : int, default=None
    The deepest a tree grows.
"""


def test_a_placeholder_line_becomes_the_fragment_at_its_indentation():
    @insert_docs(depth=FRAGMENT)
    class Model:
        """A model.

        Parameters
        ----------
        {depth}
        criterion : {"gini", "entropy"}
            Braces that are not a placeholder stay.
        """

    lines = Model.__doc__.split("\n")
    i = lines.index("        max_depth : int, default=None")
    assert lines[i + 1] == "            The deepest a tree grows."
    assert '        criterion : {"gini", "entropy"}' in lines
    assert "{depth}" not in Model.__doc__


def test_a_missing_or_unused_fragment_is_refused():
    with pytest.raises(ValueError, match="no docstring fragment named 'other'"):

        @insert_docs(depth=FRAGMENT)
        class A:
            """{depth}
            {other}
            """

    with pytest.raises(ValueError, match="not used"):

        @insert_docs(depth=FRAGMENT, extra="x")
        class B:
            """{depth}"""
