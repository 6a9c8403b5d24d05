"""Docstring paragraphs that several estimators share, written once.

Estimators of one family take many of the same parameters (a forest's classifier and regressor,
the boosting classes and their Dask twins). Their numpydoc ``Parameters`` paragraphs are kept
here, or in a family's own module of fragments, and put into each class's docstring by
:func:`insert_docs`, so that ``help()`` and the API pages show the full text while the text is
written in one place.
"""

import textwrap

__all__ = ["insert_docs"]


def _placeholder(line):
    """The name in a line that holds only ``{name}``, else None."""
    text = line.strip()
    if len(text) > 2 and text[0] == "{" and text[-1] == "}" and text[1:-1].isidentifier():
        return text[1:-1]
    return None


def insert_docs(**fragments):
    """A class or function decorator that puts shared paragraphs into its docstring.

    A line of the docstring that holds only ``{name}`` is replaced by ``fragments[name]``,
    dedented and re-indented to that line's indentation. Other braces in the docstring (a
    set of choices such as ``{"gini", "entropy"}``) are left as they are.

    Parameters
    ----------
    **fragments : str
        The paragraphs by name.

    Raises
    ------
    ValueError
        If the docstring names a fragment that is not given, or a given fragment is not used:
        both are mistakes that would otherwise show as a missing paragraph.
    """

    def decorate(obj):
        doc = obj.__doc__ or ""
        used = set()
        out = []
        for line in doc.split("\n"):
            name = _placeholder(line)
            if name is None:
                out.append(line)
                continue
            if name not in fragments:
                raise ValueError(f"{obj.__qualname__}: no docstring fragment named {name!r}")
            used.add(name)
            indent = line[: len(line) - len(line.lstrip())]
            text = textwrap.dedent(fragments[name]).strip("\n")
            out.extend((indent + part) if part else "" for part in text.split("\n"))
        unused = sorted(set(fragments) - used)
        if unused:
            raise ValueError(f"{obj.__qualname__}: docstring fragments not used: {unused}")
        obj.__doc__ = "\n".join(out)
        return obj

    return decorate
