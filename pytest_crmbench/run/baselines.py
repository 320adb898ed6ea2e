"""The oracle and baseline agents: gold (replays the task's gold path) and null (does nothing).

Agents that call a model live in :mod:`pytest_crmbench.reference`; every agent is resolved by name
in :mod:`pytest_crmbench.reference.catalog`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_crmbench.core.errors import AgentAbort, AgentError, HarnessError, InfraError, format_traceback
from pytest_crmbench.core.evidence import Message
from pytest_crmbench.core.matchers import MISSING
from pytest_crmbench.core.paths import resolve
from pytest_crmbench.core.spec import REPLY_REFERENCE, GoldCall, Task, gold_reference
from pytest_crmbench.run.episode import ToolBox


@dataclass(frozen=True)
class GoldMismatch:
    step: int
    call: GoldCall
    status: str
    detail: str


class GoldAgent:
    """Replays the gold path on the first turn and answers with the gold reply.

    Every step's status is compared to the status the gold path declares (``expect``); a
    mismatch means the task's ground truth is broken, and is reported as such.
    """

    name = "gold"

    def __init__(self, task: Task) -> None:
        self._task = task
        self.mismatches: list[GoldMismatch] = []
        self._replied = False

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        if self._replied:
            return ""
        self._replied = True
        tools.route("gold")
        results: list[Any] = []
        for step, gold in enumerate(self._task.gold.path):
            args = {name: self._resolve(value, results) for name, value in gold.args.items()}
            call = tools.call(gold.tool, args)
            results.append(call.result)
            if call.status != gold.expect:
                detail = (call.error or {}).get("message", "") if call.error else f"result {call.result!r}"
                self.mismatches.append(GoldMismatch(step, gold, call.status, str(detail)))
        return REPLY_REFERENCE.sub(
            lambda m: str(self._resolve({"$from": m.group(1) + m.group(2)}, results)), self._task.gold.reply
        )

    @staticmethod
    def _resolve(value: Any, results: list[Any]) -> Any:
        reference = gold_reference(value)
        if reference is None:
            return value
        step, path = reference
        found = resolve(results[step], path)
        # An unresolvable reference becomes a visibly wrong argument, so the step's status
        # (and the mismatch report) shows it rather than silently sending nothing.
        return f"<unresolved $from {step}.{path}>" if found is MISSING else found


class NullAgent:
    """Does nothing and says nothing useful: every task with a positive check must fail it."""

    name = "null"
    REPLY = "I'm sorry, I can't help with that."

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        return self.REPLY


class BrokenAgent:
    """Stands in for an agent whose factory raised: its first turn fails the episode with that error.

    Building the agent is the agent's own code, so its crash is the agent's failure (``agent_error``),
    not an unscored error. Infrastructure and harness errors keep their own meaning.
    """

    def __init__(self, error: Exception) -> None:
        self._error = error
        self._traceback = format_traceback(error)

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        if isinstance(self._error, (InfraError, HarnessError, AgentAbort)):
            raise self._error
        kind = type(self._error).__name__
        raise AgentError(f"building the agent raised {kind}: {self._error}", traceback=self._traceback)
