"""Helpers for the pytester integration tests: an isolated crmbench project per test.

Each project is ``<pytester.path>/envs`` (a copy of ``tests/data/envs``, the ``mini`` domain),
``tasks/<name>.yaml`` task files and a ``pyproject.toml`` with ``strict = true``.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# httpcore: imported before any in-process run, never by one. pytester's in-process runs take the
# modules a run imported out of sys.modules afterwards; httpx imports httpcore lazily and keeps a
# map from the httpcore exception classes it saw first to its own. When that first import happened
# inside a run, a later run imported a second httpcore whose ConnectError httpx no longer mapped,
# and the raw httpcore error escaped every `except httpx.TransportError`.
import httpcore  # noqa: F401
import pytest

from pytest_crmbench.core.spec import Task
from pytest_crmbench.release.manifest import TAG_COUNTS
from pytest_crmbench.release.tablerows import tasks_with

DATA = Path(__file__).parents[1] / "data"
MINI_IDS = [
    "mini_transfer_retry_01",
    "mini_checkout_chain_01",
    "mini_balance_only_01",
    "mini_transfer_frozen_01",
    "mini_refusal_close_01",
    "mini_override_01",
]


def mini_text() -> str:
    return (DATA / "tasks" / "mini.yaml").read_text(encoding="utf-8")


def replace_once(text: str, old: str, new: str) -> str:
    """``text`` with the single occurrence of ``old`` replaced (fails loudly if the data moved)."""
    assert text.count(old) == 1, f"expected exactly one {old!r} in the task text"
    return text.replace(old, new)


class CrmProject:
    """A crmbench project inside ``pytester.path``."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.path = pytester.path
        self.tasks = self.path / "tasks"
        self.tasks.mkdir()
        shutil.copytree(DATA / "envs", self.path / "envs")
        self.write_config("")

    def write_config(self, extra: str) -> None:
        """``pyproject.toml`` with ``strict = true`` plus ``extra`` lines under ``[tool.pytest]``.

        ``crm_html = "no"``: drawing report.html costs about a second per run; the tests of the
        report turn it back on with ``--crm-html=yes``.
        """
        html = "" if "crm_html" in extra else 'crm_html = "no"\n'
        text = f"[tool.pytest]\nstrict = true\n{html}{extra}"
        (self.path / "pyproject.toml").write_text(text, encoding="utf-8")

    def add(self, name: str, source: Path | None = None) -> Path:
        """Copy a data file (default ``tests/data/tasks/<name>``) to ``tasks/<name>``."""
        target = self.tasks / name
        shutil.copyfile(source or DATA / "tasks" / name, target)
        return target

    def add_bad(self, name: str) -> Path:
        return self.add(name, DATA / "bad" / name)

    def write(self, name: str, text: str) -> Path:
        target = self.tasks / name
        target.write_text(text, encoding="utf-8")
        return target

    def run(self, *args: str) -> pytest.RunResult:
        # In-process runs re-load the already imported plugin: silence pytest's note that it
        # cannot be assertion-rewritten a second time (it would show up in every summary).
        # hypothesis' plugin is irrelevant here and costs a second per run.
        return self.pytester.runpytest(
            "-p", "no:hypothesispytest", "-W", "ignore::pytest.PytestAssertRewriteWarning", *args
        )

    def run_subprocess(self, *args: str) -> pytest.RunResult:
        return self.pytester.runpytest_subprocess("-p", "no:hypothesispytest", *args)


BY_TASK = '''
from pathlib import Path

from pytest_crmbench import GoldAgent
from pytest_crmbench.core.loader import load_task_file


def task_for(conversation):
    """The task a conversation belongs to, found by its opening line in the project's task files.

    Test agents only: no AgentContext carries the task (an agent under evaluation must not see it),
    but an agent in the harness's process can always read the files on disk.
    """
    opening = conversation[0].content
    for path in sorted(Path("tasks").glob("*.yaml")):
        for record in load_task_file(path):
            if opening in (record.task.user.opening, record.task.user.goal):
                return record.task
    raise LookupError(opening)


class ByTask:
    """Builds its real agent on the first turn, from the task: ``ByTask(lambda task: GoldAgent(task))``."""

    def __init__(self, choose):
        self.choose, self.agent = choose, None

    def respond(self, conversation, tools):
        if self.agent is None:
            self.agent = self.choose(task_for(conversation))
        return self.agent.respond(conversation, tools)
'''
"""Conftest text for test agents that behave per task (prefix a conftest with it)."""


def manifest_invariants(tasks: Sequence[Task]) -> dict[str, Any]:
    """The manifest's ``invariants`` for exactly these tasks: what an author sets after a change."""
    return {
        "tasks_per_domain": dict(Counter(t.domain for t in tasks)),
        "tasks_per_difficulty": dict(Counter(t.difficulty for t in tasks)),
        "tasks_per_tag_count": dict(Counter(TAG_COUNTS[len(t.capabilities)] for t in tasks)),
        "forbidden_action_declarations": sum(len(t.contract.forbidden.actions) for t in tasks),
        "tasks_with": tasks_with(tasks),
    }
