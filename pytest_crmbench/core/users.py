"""The user side of an episode: a protocol, and the scripted user used when no model plays it.

A user sees only its private instruction and the visible conversation (never tool calls,
results, routing or state) and returns a structured decision, not a magic stop substring.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from pytest_crmbench.core.evidence import Message
from pytest_crmbench.core.spec import Task


@dataclass(frozen=True)
class UserDecision:
    """Continue with ``message``, or stop (a closing ``message`` is kept in the transcript)."""

    stop: bool
    message: str | None = None

    @classmethod
    def say(cls, message: str) -> UserDecision:
        return cls(stop=False, message=message)

    @classmethod
    def end(cls, message: str | None = None) -> UserDecision:
        return cls(stop=True, message=message)


class User(Protocol):
    def open(self) -> str:
        """The first user message."""
        ...

    def respond(self, conversation: Sequence[Message]) -> UserDecision:
        """The next decision, given the visible conversation so far."""
        ...


class ScriptedUser:
    """Says the task's opening line, then stops after the agent's first reply.

    Used with the gold and null agents, which need no conversation to act; it keeps gold replay
    free of model calls.
    """

    def __init__(self, task: Task) -> None:
        self._opening = task.user.opening or task.user.goal

    def open(self) -> str:
        return self._opening

    def respond(self, conversation: Sequence[Message]) -> UserDecision:
        return UserDecision.end()
