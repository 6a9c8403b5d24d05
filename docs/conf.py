"""Sphinx configuration of treeboost's documentation.

Build: ``python -m sphinx -W -b html docs docs/_build/html`` from the repository's root.
"""
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))            # the source tree, installed or not
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

intersphinx_mapping = {}                 # the build reaches no network

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


_SHAPE_ATTRIBUTE = re.compile(r"(?<=[( ,])([A-Za-z][A-Za-z0-9_]*[A-Za-z0-9])_(?=[,)])")


def _escape_fitted_attributes_in_shapes(app, what, name, obj, options, lines):
    """A shape such as ``(n_samples, n_estimators_)`` names a fitted attribute; to
    reStructuredText a word ending in ``_`` is a link to a target of that name."""
    lines[:] = [_SHAPE_ATTRIBUTE.sub(r"\1\\_", line) for line in lines]


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_requests)
    app.connect("autodoc-process-docstring", _escape_fitted_attributes_in_shapes)
