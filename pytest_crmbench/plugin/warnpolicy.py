"""A warning filter that raises does not decide a task item (issue 32 item 7).

A project's ``filterwarnings = error`` (or ``-W error``) is for its own tests. In a benchmark run it
would turn a framework's warning inside the agent into an ``agent_error`` (the agent's own calls are
guarded by :mod:`pytest_crmbench.run.agentcode` anyway), and an agent's unclosed socket, collected
during an item or at exit, into an unraisable-exception error that fails the item or makes pytest
exit 1 after the gate said it passed. So each task item carries a ``filterwarnings`` mark that
repeats the configured filters in their order with every ``error`` action made ``default``: every
other filter (``ignore::...``) means what it meant, and nothing raises. Other tests of the same
session are untouched. When the session ends (before the saved run is read back and re-graded)
and at exit, before pytest's own last collection, garbage is collected under the same filters.
"""

from __future__ import annotations

import gc
import re
import sys
import warnings

import pytest

lenient_key = pytest.StashKey[tuple[str, ...]]()
ran_tasks_key = pytest.StashKey[bool]()
collected_key = pytest.StashKey[bool]()


def _is_error(action: str) -> bool:
    action = action.strip()
    return bool(action) and "error".startswith(action)  # Python accepts abbreviations ("e")


def _unescaped(text: str) -> str:
    """A ``-W`` filter as a mark would read it: message and module are literal there (regexes in a mark)."""
    parts = [*text.split(":"), "", "", "", ""][:5]
    action, message, category, module, lineno = (part.strip() for part in parts)
    return ":".join(
        [action, re.escape(message) if message else "", category, f"{re.escape(module)}\\Z" if module else "", lineno]
    )


def lenient_filters(config: pytest.Config) -> tuple[str, ...]:
    """The configured filters (Python's ``-W``, the ini's, pytest's ``-W``; each later one wins) with
    ``error`` made ``default``; empty when none of them raises."""
    cached = config.stash.get(lenient_key, None)
    if cached is not None:
        return cached
    ini: list[str] = list(config.getini("filterwarnings"))
    literal: list[str] = list(config.getoption("pythonwarnings", None) or [])
    configured = [*(_unescaped(f) for f in sys.warnoptions), *ini, *(_unescaped(f) for f in literal)]
    filters: tuple[str, ...] = ()
    if any(_is_error(f.split(":", 1)[0]) for f in configured):
        filters = tuple(
            ":".join(["default", *f.split(":")[1:]]) if _is_error(f.split(":", 1)[0]) else f for f in configured
        )
    config.stash[lenient_key] = filters
    return filters


def mark_task_item(item: pytest.Item) -> None:
    """Give a task item the lenient filters (before any mark a conftest adds, which still wins)."""
    item.config.stash[ran_tasks_key] = True
    filters = lenient_filters(item.config)
    if filters:
        item.add_marker(pytest.mark.filterwarnings(*filters))


def collect_at_exit(config: pytest.Config) -> None:
    """After a run of task items under a filter that raises: collect what the agents left (unclosed
    sockets, say) with warnings shown, not raised, so pytest's own collection at exit finds nothing
    to turn into an error."""
    if not config.stash.get(ran_tasks_key, False) or config.stash.get(collected_key, False):
        return
    filters = lenient_filters(config)
    if not filters:
        return
    # Once per session: a full collection costs 0.1 s and more in a large process, and after the
    # session's end only the harness's own code runs, not an agent's.
    config.stash[collected_key] = True
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        gc.collect()
