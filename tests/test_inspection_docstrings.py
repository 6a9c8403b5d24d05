"""The exports fill the description of ``tree_index`` into their docstrings; under
``python -OO`` there are none, and the modules must still import."""

from treeboost.inspection._tree_view import _INDEX_DOC, index_doc


def test_index_doc_fills_in_the_description():
    def f():
        """Pick a tree.

        %(tree_index)s
        """

    assert index_doc(f) is f
    assert _INDEX_DOC in f.__doc__ and "%(tree_index)s" not in f.__doc__


def test_index_doc_leaves_a_function_without_docstring_as_it_is():
    # what every function is under python -OO
    def f():
        pass

    assert index_doc(f) is f
    assert f.__doc__ is None
