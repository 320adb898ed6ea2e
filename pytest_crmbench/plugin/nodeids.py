"""Task items by node id: what the xdist controller knows of items it never collected."""

from __future__ import annotations

import re

_TRIAL_SUFFIX = re.compile(r"^(?P<task>.+)\[t(?P<trial>\d+)\]$")


def split_nodeid(nodeid: str) -> tuple[str, int]:
    """(task id, 0-based trial) of a task item's node id (``...::id`` or ``...::id[t2]``)."""
    name = nodeid.rsplit("::", 1)[-1]
    match = _TRIAL_SUFFIX.match(name)
    return (match["task"], int(match["trial"]) - 1) if match else (name, 0)


def is_task_nodeid(nodeid: str) -> bool:
    return nodeid.split("::", 1)[0].endswith((".yaml", ".yml")) and "::" in nodeid
