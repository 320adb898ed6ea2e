"""Sparse dotted paths into a state tree: ``accounts.ACC-1002.balance``, ``transfers.0.amount``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_crmbench.core.matchers import MISSING


def resolve(tree: Any, path: str) -> Any:
    """The value at ``path``, or :data:`MISSING`. Integer segments index lists."""
    node = tree
    for segment in path.split("."):
        if isinstance(node, Mapping):
            if segment not in node:
                return MISSING
            node = node[segment]
        elif isinstance(node, list) and (index := list_index(segment)) is not None and index < len(node):
            node = node[index]
        else:
            return MISSING
    return node


def list_index(segment: str) -> int | None:
    """A list index written as ASCII digits without leading zeros (``"01"`` and ``"²"`` are not)."""
    if segment.isascii() and segment.isdigit() and (segment == "0" or not segment.startswith("0")):
        return int(segment)
    return None


def deepest_existing(tree: Any, path: str) -> str:
    """The longest prefix of ``path`` that exists, for diffs that say where a path broke off."""
    segments = path.split(".")
    for end in range(len(segments), 0, -1):
        prefix = ".".join(segments[:end])
        if resolve(tree, prefix) is not MISSING:
            return prefix
    return ""
