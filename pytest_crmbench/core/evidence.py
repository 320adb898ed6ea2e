"""The four evidence channels an episode freezes: conversation, routing log, tool trace, final state.

Grading reads only these. The models are the public trajectory format (``crmbench schema``
will publish it); values inside ``arguments``, ``result`` and the states are the environment's own
Python values (money stays :class:`~decimal.Decimal`) until :func:`jsonable` serialises them.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench.core.conduct import Access, ConductRules

ToolStatus = Literal["ok", "rejected", "error"]

TerminationReason = Literal[
    "user_stop",  # the user (simulator or script) decided to stop
    "max_turns",  # the user-turn limit was reached before a stop decision
    "timeout",  # the per-task wall-clock limit was reached
    "agent_abort",  # the agent gave up (e.g. unrecoverable hallucinated tool use)
    "agent_error",  # the agent's code raised, or returned something that is not a reply
    "tampered",  # the world or the trace changed outside a tool call: the agent reached into the harness
    "infra",  # a provider, simulator or judge failure after retries; excluded from the score
    "harness_error",  # crmbench's own code or a domain's tool crashed; excluded from the score
]

FAILED_TERMINATIONS: frozenset[str] = frozenset({"max_turns", "timeout", "agent_abort", "agent_error", "tampered"})
"""Agent-attributable terminations: the task fails whatever its checks say (non-convergence, a crash
of the agent, tampering)."""

UNSCORED_TERMINATIONS: frozenset[str] = frozenset({"infra", "harness_error"})
"""Terminations that say nothing about the agent: not scored, always shown."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)


class _Frozen(_Record):
    # What the agent is handed (its conversation, the calls it made) cannot be edited in place.
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, frozen=True)


class Message(_Frozen):
    role: Literal["user", "assistant"]
    content: str
    turn: int = Field(description="Index of the user turn this message belongs to (0-based).")


class RoutingDecision(_Frozen):
    turn: int
    node: str = Field(description="The capability node chosen, or 'unsafe' / 'out_of_scope'.")
    detail: str | None = None


class ToolCall(_Frozen):
    """One attempt that reached the environment, whatever its outcome."""

    index: int
    turn: int
    node: str | None
    name: str
    arguments: Any = Field(description="Decoded arguments, or the raw string when they were undecodable.")
    effective_arguments: dict[str, Any] | None = Field(
        None, description="The arguments the tool ran with, defaults included; None when they never validated."
    )
    status: ToolStatus
    result: Any = None
    error: dict[str, Any] | None = Field(
        default=None,
        description="For 'rejected': {status: 403|404|409|422, code, message}; for 'error': {type, message}.",
    )
    access: Access | None = Field(
        None, description="Whose records a successful call read and wrote (domains declaring conduct rules)."
    )

    def argument(self, name: str) -> Any:
        """The value ``name`` had when the tool ran (None when absent, or when the call never validated)."""
        return (self.effective_arguments or {}).get(name)

    def result_field(self, name: str) -> Any:
        """Field ``name`` of a mapping result (None for any other result)."""
        return self.result.get(name) if isinstance(self.result, dict) else None

    def graded_arguments(self) -> Any:
        """What parameter checks read: the effective arguments when the call validated, else the raw ones."""
        return self.effective_arguments if self.effective_arguments is not None else self.arguments

    def output(self) -> Any:
        """What the model is shown as the tool's answer."""
        if self.status == "ok":
            return jsonable(self.result)
        shown = {k: v for k, v in (self.error or {}).items() if k != "traceback"}  # ours, not the model's
        return {"error": {"outcome": self.status, **shown}}


Role = Literal["agent", "user", "judge"]


class Usage(_Record):
    """Model usage of one role in one episode. Cost is cache-neutral (spec §A.3): prompt tokens x
    input price + completion tokens x output price, whatever the cache status; None when the
    price of some call is unknown (never reported as zero)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: Decimal | None = Decimal(0)
    latency_s: float = 0.0

    def add(self, *, prompt_tokens: int, completion_tokens: int, cost_usd: Decimal | None, latency_s: float) -> None:
        self.calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.cost_usd = None if self.cost_usd is None or cost_usd is None else self.cost_usd + cost_usd
        self.latency_s += latency_s

    def since(self, earlier: Usage | None) -> Usage:
        """What was used after ``earlier`` (a copy of this running total taken before)."""
        if earlier is None:
            return self.model_copy()
        cost = None if self.cost_usd is None or earlier.cost_usd is None else self.cost_usd - earlier.cost_usd
        return Usage(
            calls=self.calls - earlier.calls,
            prompt_tokens=self.prompt_tokens - earlier.prompt_tokens,
            completion_tokens=self.completion_tokens - earlier.completion_tokens,
            cost_usd=cost,
            latency_s=max(0.0, self.latency_s - earlier.latency_s),
        )


class Termination(_Record):
    reason: TerminationReason
    detail: str | None = None


class Evidence(_Record):
    """Everything grading may look at, frozen at the end of an episode."""

    task_id: str
    trial: int = 0
    seed: int = 0
    agent: str
    messages: list[Message] = Field(default_factory=list)
    routing: list[RoutingDecision] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    initial_state: dict[str, Any] = Field(default_factory=dict)
    final_state: dict[str, Any] = Field(default_factory=dict)
    termination: Termination
    conduct: ConductRules | None = Field(None, description="The conduct rules the domain holds the episode to.")
    usage: dict[Role, Usage] = Field(default_factory=dict, description="Model usage per role during the episode.")
    agent_turn_usage: list[Usage] = Field(
        default_factory=list,
        description="The agent's model usage while it answered each user turn, in turn order (its calls: the"
        " model requests the turn made), as the agent's own ledger, its isolated process or the model proxy"
        " reported it.",
    )
    agent_warnings: dict[str, int] = Field(
        default_factory=dict,
        description="Warnings the agent's code issued (factory and respond()), 'Category: message (file:line)' ->"
        " how often; recorded, never raised, and held against nothing.",
    )

    def assistant_messages(self) -> list[str]:
        return [m.content for m in self.messages if m.role == "assistant"]


_LEAVES = frozenset({str, int, float, bool, type(None)})


def jsonable(value: Any) -> Any:
    """A JSON-safe copy: Decimal becomes its exact string, tuples become lists, keys become strings."""
    # Exact built-in types by identity before the ABC checks: a finished episode's Evidence holds
    # thousands of values, and the ``Mapping`` check each went through first cost 4.4 ms a task.
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is Decimal:
        return str(value)
    if kind is dict or isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, BaseModel):
        return jsonable(value.model_dump())
    return repr(value)
