"""The walk over a model file's decoded JSON document that the checks and migrations share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["json_objects"]


def json_objects(doc: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object (dict) of the decoded document ``doc``, depth first, without
    recursion (a deep document does not reach Python's recursion limit).

    An object's values are queued before it is yielded, so that the caller may change its
    keys (a migration renames or adds some) while the walk still reaches what the object
    held; a nested object changed in place is walked as it is then.
    """
    stack = [doc]
    while stack:
        obj = stack.pop()
        if isinstance(obj, list):
            stack.extend(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.values())
            yield obj
