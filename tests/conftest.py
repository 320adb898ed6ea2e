"""Shared fixtures for crmbench's own tests: the mini domain and a scripted agent."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_crmbench.core.evidence import Message
from pytest_crmbench.core.loader import TaskRecord, load_task_file
from pytest_crmbench.core.spec import Task
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import discover
from pytest_crmbench.run.episode import ToolBox

DATA = Path(__file__).parent / "data"
TESTS = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Our own tests are strict about warnings: each warning is an error (issue 32 item 7).

    Not ``filterwarnings = ["error"]`` in pyproject.toml: that configuration applies to every pytest
    run from the checkout, ``pytest tasks/`` too, where a framework's warning inside a user's agent
    would have been scored and an agent's unclosed socket would have made pytest exit 1 after the
    gate passed. This conftest is loaded only when tests/ is collected, and the mark goes only on
    the items under tests/. It goes first among the item's marks, and the configured filters
    (crmbench's own ``ignore`` of litellm's pydantic warning, say) are repeated after "error": as in
    the configuration it replaces, they and a test's own ``filterwarnings`` marks still win.
    """
    strict = pytest.mark.filterwarnings("error", *config.getini("filterwarnings"))
    for item in items:
        if item.path.is_relative_to(TESTS):
            item.add_marker(strict, append=False)


@pytest.fixture(scope="session")
def mini_env_class() -> type[ToolEnvironment]:
    return discover([DATA / "envs"])["mini"]


@pytest.fixture(scope="session")
def mini_records() -> list[TaskRecord]:
    return load_task_file(DATA / "tasks" / "mini.yaml")


@pytest.fixture(scope="session")
def mini_tasks(mini_records: list[TaskRecord]) -> dict[str, Task]:
    return {record.task.id: record.task for record in mini_records}


class ScriptedAgent:
    """Plays fixed tool calls and replies, one list per user turn (for trajectories like spec §D)."""

    def __init__(
        self, turns: Sequence[Sequence[tuple[str, Any]]], replies: Sequence[str], node: str = "scripted"
    ) -> None:
        self.turns, self.replies, self.node = list(turns), list(replies), node

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        tools.route(self.node)
        for name, args in self.turns[tools.turn] if tools.turn < len(self.turns) else []:
            tools.call(name, args)
        return self.replies[tools.turn] if tools.turn < len(self.replies) else ""


class ListUser:
    """Says its lines in order, then stops."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = list(lines)

    def open(self) -> str:
        return self.lines[0]

    def respond(self, conversation: Sequence[Message]) -> Any:
        from pytest_crmbench.core.users import UserDecision

        user_turns = sum(1 for m in conversation if m.role == "user")
        return (
            UserDecision.say(self.lines[user_turns])
            if user_turns < len(self.lines)
            else UserDecision.end("Thanks, bye.")
        )
