"""Every error crmbench raises on purpose derives from :class:`CrmbenchError`.

Errors carry enough context (file, line, task id, field) to be printed as one line; the CLI and
the pytest plugin never show a traceback for them.
"""

from __future__ import annotations

import traceback as _traceback
from pathlib import Path

from pytest_crmbench.core.redaction import redacted_text

MAX_TRACEBACK_CHARS = 8_000


class CrmbenchError(Exception):
    """Base class for errors that are the user's input, not a bug in crmbench."""


class SpecError(CrmbenchError):
    """A task file or task record is malformed.

    Rendered as ``file:line: task 'id': field 'a.b[0]': message`` with the parts that are known.
    """

    def __init__(
        self,
        message: str,
        *,
        file: Path | str | None = None,
        line: int | None = None,
        task_id: str | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.task_id = task_id
        self.field = field
        super().__init__(self.render())

    def render(self) -> str:
        parts = []
        if self.file is not None:
            parts.append(f"{self.file}:{self.line}" if self.line is not None else self.file)
        if self.task_id is not None:
            parts.append(f"task {self.task_id!r}")
        if self.field:
            parts.append(f"field {self.field!r}")
        parts.append(self.message)
        return ": ".join(parts)


class SpecErrors(CrmbenchError):
    """Several :class:`SpecError` found in one pass; all are reported together."""

    def __init__(self, errors: list[SpecError]) -> None:
        self.errors = errors
        super().__init__("\n".join(e.render() for e in errors))


class EnvironmentDefinitionError(CrmbenchError):
    """A ToolEnvironment subclass or a domain folder is malformed (a bug in the domain, not a task)."""


class UnknownDomainError(CrmbenchError):
    """No environment is registered for a task's domain."""


class AgentConfigError(CrmbenchError):
    """An agent cannot be built from the given name or factory path."""


class InfraError(CrmbenchError):
    """A failure outside the model's control (provider outage, judge failure) after retries.

    Episodes ending in an InfraError are excluded from the scored denominator and counted.
    """


class AgentAbort(CrmbenchError):
    """The agent under test gave up in a way that is its own fault (e.g. unrecoverable tool misuse).

    The episode ends with termination ``agent_abort`` and the task fails (spec §A.1).
    """


class AgentError(CrmbenchError):
    """The agent's own code raised (or its factory did, or it returned no text): the agent's failure.

    The episode ends with termination ``agent_error``; ``traceback`` is shown with the failure.
    """

    def __init__(self, message: str, *, traceback: str = "") -> None:
        self.traceback = traceback
        super().__init__(message)


class AgentTimedOut(AgentError):
    """The agent did not answer within the task's time limit and its process was killed (issue 30).

    The episode ends with termination ``timeout``: a failure, like any limit the agent reaches.
    """


class HarnessError(CrmbenchError):
    """crmbench's own code (a tool, the model-calling code, the simulator) crashed: a bug, not a result.

    The episode ends as outcome ``error``: never scored, always shown with its ``traceback``.
    """

    def __init__(self, message: str, *, traceback: str = "") -> None:
        self.traceback = traceback
        super().__init__(message)


def format_traceback(exc: BaseException) -> str:
    """The exception's traceback as text, secrets redacted and the tail kept when long."""
    text = redacted_text("".join(_traceback.format_exception(exc)))
    return text if len(text) <= MAX_TRACEBACK_CHARS else "…" + text[-MAX_TRACEBACK_CHARS:]
