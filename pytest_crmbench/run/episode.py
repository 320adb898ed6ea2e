"""One episode: user <-> agent <-> environment until a stop decision or a limit (spec §A.1, §A.7).

The loop owns the evidence: the visible conversation, the routing log (written through
:meth:`ToolBox.route`) and, through the environment, the tool trace. At the end the four channels
are frozen into an :class:`~pytest_crmbench.core.evidence.Evidence`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pytest_crmbench.core.errors import AgentAbort, InfraError
from pytest_crmbench.core.evidence import Evidence, Message, RoutingDecision, Termination, ToolCall
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.core.users import User
from pytest_crmbench.env.environment import ToolEnvironment

if TYPE_CHECKING:
    from pytest_crmbench.models.llm import ModelConfig


@dataclass(frozen=True)
class Limits:
    """Executor limits of spec table 3."""

    max_user_turns: int = 30
    max_react_iterations: int = 10
    task_timeout_s: float = 1200.0


class ToolBox:
    """What an agent may touch during one user turn: routing and the tools of the chosen node."""

    def __init__(
        self,
        env: ToolEnvironment,
        turn: int,
        routing: list[RoutingDecision],
        deadline: float,
        clock: Callable[[], float],
    ) -> None:
        self._env = env
        self._routing = routing
        self._clock = clock
        self.turn = turn
        self.deadline = deadline
        self.node: str | None = None
        self.exposed: frozenset[str] | None = None

    def route(self, node: str, *, tools: Collection[str] | None = None, detail: str | None = None) -> None:
        """Record a routing decision and expose only ``tools`` (None: every domain tool)."""
        self._routing.append(RoutingDecision(turn=self.turn, node=node, detail=detail))
        self.node = node
        self.exposed = None if tools is None else frozenset(tools)

    def schemas(self) -> list[dict[str, Any]]:
        """JSON schemas of the exposed tools."""
        return self._env.tool_schemas(self.exposed)

    def call(self, name: str, arguments: str | Mapping[str, Any] | None = None) -> ToolCall:
        """Attempt a tool call; the environment records it whatever happens."""
        return self._env.call(name, arguments, turn=self.turn, node=self.node, exposed=self.exposed)

    def time_left(self) -> float:
        return self.deadline - self._clock()


class Agent(Protocol):
    """Anything that answers one user turn. Implementations get a fresh instance per episode."""

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        """Act with ``tools`` (route first to narrow them) and return the visible reply."""
        ...


@dataclass(frozen=True)
class AgentContext:
    """What a factory may use to build an agent for one episode.

    ``task`` is there for oracle and baseline agents (gold, null); an agent under evaluation must
    not read it: it would see the contract and the gold path.
    """

    task: Task
    environment: type[ToolEnvironment]
    seed: int
    limits: Limits = field(default_factory=Limits)
    model: ModelConfig | None = None
    """The agent model (``--crm-model``) with the sampling settings and this episode's seed; None without one."""
    usage: UsageLedger = field(default_factory=UsageLedger)
    """Record model usage here (role ``agent``); it ends up in the evidence."""
    graph_dirs: tuple[Path, ...] = ()
    """Where capability graphs live (``crm_graph_dirs``), for agents that use them."""


AgentFactory = Callable[[AgentContext], Agent]


def run_episode(
    task: Task,
    env: ToolEnvironment,
    agent: Agent,
    user: User,
    *,
    agent_name: str,
    limits: Limits = Limits(),
    trial: int = 0,
    clock: Callable[[], float] = time.monotonic,
    usage: UsageLedger | None = None,
) -> Evidence:
    """Run the conversation and freeze its evidence. Never raises for agent or provider failures.

    ``usage`` is the ledger the agent and the user report model calls into (see
    :mod:`pytest_crmbench.core.usage`); its agent and user shares are copied into the evidence.
    """
    messages: list[Message] = []
    routing: list[RoutingDecision] = []
    deadline = clock() + limits.task_timeout_s
    try:
        termination = _converse(env, agent, user, messages, routing, limits, deadline, clock)
    except InfraError as exc:
        termination = Termination(reason="infra", detail=str(exc))
    except AgentAbort as exc:
        termination = Termination(reason="agent_abort", detail=str(exc))
    return Evidence(
        task_id=task.id,
        trial=trial,
        seed=env.seed,
        agent=agent_name,
        messages=messages,
        routing=routing,
        tool_calls=list(env.trace),
        initial_state=env.initial_state,
        final_state=env.state,
        termination=termination,
        usage=usage.snapshot() if usage is not None else {},
    )


def _converse(
    env: ToolEnvironment,
    agent: Agent,
    user: User,
    messages: list[Message],
    routing: list[RoutingDecision],
    limits: Limits,
    deadline: float,
    clock: Callable[[], float],
) -> Termination:
    text = user.open()
    for turn in range(limits.max_user_turns):
        messages.append(Message(role="user", content=text, turn=turn))
        reply = agent.respond(tuple(messages), ToolBox(env, turn, routing, deadline, clock))
        messages.append(Message(role="assistant", content=reply, turn=turn))
        if clock() > deadline:
            return Termination(reason="timeout", detail=f"task exceeded {limits.task_timeout_s:g}s during turn {turn}")
        decision = user.respond(tuple(messages))
        if clock() > deadline:
            # The agent's own time was checked above: the simulator (not under test) used up the
            # task's limit, so this episode says nothing about the agent.
            detail = f"the {limits.task_timeout_s:g}s task limit ran out while the user simulator answered turn {turn}"
            return Termination(reason="infra", detail=detail)
        if decision.stop:
            if decision.message:
                messages.append(Message(role="user", content=decision.message, turn=turn + 1))
            return Termination(reason="user_stop")
        text = decision.message or ""
    return Termination(reason="max_turns", detail=f"no stop decision within {limits.max_user_turns} user turns")
