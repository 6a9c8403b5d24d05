"""Bundled data sets: the Titanic passengers and the watermelon data set 2.0."""

from ._base import load_titanic, load_watermelon

__all__ = ["load_titanic", "load_watermelon"]
