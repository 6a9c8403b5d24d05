"""Sphinx configuration of treeboost's documentation.

Build: ``python -m sphinx -W -E -b html docs docs/_build/html`` from the repository's root.
"""

import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the source tree, installed or not
os.environ.setdefault("MPLBACKEND", "Agg")

import treeboost  # noqa: E402

project = "treeboost"
author = "the treeboost developers"
copyright = "the treeboost developers, BSD-3-Clause"
release = treeboost.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    # MathJax copied into the site (_static/mathjax) instead of loaded from a CDN: the
    # formulas render offline, from a folder or a file:// URL
    "sphinx-mathjax-offline",
    "numpydoc",
    "myst_parser",
]
# the user guide and the changelog are Markdown (MyST), with $...$ formulas
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3

templates_path = ["_templates"]
exclude_patterns = ["_build"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"

autosummary_generate = True
autodoc_default_options = {"inherited-members": False}
# numpydoc lists a class's methods itself: no second autosummary table of members
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# an "Attributes" entry of one estimator (``feature_importances_``) finds the attribute of
# every sibling that documents a property of that name; Sphinx warns that it cannot pick
# one, although every one of them is the right page for the name
suppress_warnings = ["ref.python"]

intersphinx_mapping = {}  # the build reaches no network

html_theme = "pydata_sphinx_theme"
html_title = f"treeboost {release}"
html_static_path = []
html_theme_options = {
    "github_url": "https://github.com/treeboost/treeboost",
    "navigation_with_keys": False,
}


def _skip_metadata_requests(app, what, name, obj, skip, options):
    """scikit-learn's generated ``set_{method}_request`` methods cite its own glossary
    (metadata routing), which this site does not have: scikit-learn documents them."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


_SHAPE_ATTRIBUTE = re.compile(
    r"(?<=[( ,])([A-Za-z][A-Za-z0-9_]*[A-Za-z0-9])_(?=[,)]|\s*[-+*/]\s*\d)"
)
_SECTION_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
_TERM = re.compile(r"^(\s*)[A-Za-z_][\w, ]* : \S.*$")


def _blank_line_before_sections(app, what, name, obj, options, lines):
    """A docstring made by concatenation (a class's own summary followed by parameters
    shared with its siblings) may put a section's title right under the summary; numpydoc
    needs the blank line before it to see the section."""
    i = 1
    while i + 1 < len(lines):
        if _SECTION_UNDERLINE.match(lines[i + 1]) and lines[i].strip() and lines[i - 1].strip():
            lines.insert(i, "")
            i += 1
        i += 1


def _terms_without_description(app, what, name, obj, options, lines):
    """In a nested list of ``name : type`` entries (a Bunch's attributes), an entry without
    a description is followed by the next entry at its own indentation, which
    reStructuredText reads as one paragraph: blank lines around it make it a paragraph of
    its own between the entries."""
    i = 0
    while i + 2 < len(lines):
        term, nxt, body = _TERM.match(lines[i]), _TERM.match(lines[i + 1]), lines[i + 2]
        if (
            term
            and nxt
            and term.group(1) == nxt.group(1)
            and len(body) - len(body.lstrip()) > len(term.group(1))
            and body.strip()
        ):
            lines.insert(i + 1, "")
            if i > 0 and lines[i - 1].strip():
                lines.insert(i, "")
                i += 1
            i += 1
        i += 1


def _escape_fitted_attributes_in_shapes(app, what, name, obj, options, lines):
    """A shape such as ``(n_samples, n_estimators_)`` names a fitted attribute; to
    reStructuredText a word ending in ``_`` is a link to a target of that name."""
    lines[:] = [_SHAPE_ATTRIBUTE.sub(r"\1\\_", line) for line in lines]


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_requests)
    # before numpydoc turns the sections into reStructuredText (its handler: priority 500)
    app.connect("autodoc-process-docstring", _blank_line_before_sections, priority=400)
    app.connect("autodoc-process-docstring", _escape_fitted_attributes_in_shapes)
    app.connect("autodoc-process-docstring", _terms_without_description)
