"""One episode: user <-> agent <-> environment until a stop decision or a limit (spec §A.1, §A.7).

The loop owns the visible conversation; the episode's :class:`~pytest_crmbench.run.referee.Referee`
owns the routing log (written through :meth:`ToolBox.route`), the tool trace and the state. At the
end the four channels are frozen into an :class:`~pytest_crmbench.core.evidence.Evidence`.
"""

from __future__ import annotations

import contextlib
import inspect
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pytest_crmbench.core.errors import (
    AgentAbort,
    AgentError,
    AgentTimedOut,
    HarnessError,
    InfraError,
    format_traceback,
)
from pytest_crmbench.core.evidence import Evidence, Message, Termination, Usage
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.usage import UsageLedger
from pytest_crmbench.core.users import User
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.run.agentcode import agent_code
from pytest_crmbench.run.referee import EpisodeTampered, Referee, ToolBox

if TYPE_CHECKING:
    from pytest_crmbench.models.llm import ModelConfig


T = TypeVar("T")

__all__ = ["Agent", "AgentContext", "AgentFactory", "Limits", "ToolBox", "run_episode"]


@dataclass(frozen=True)
class Limits:
    """Executor limits of spec table 3."""

    max_user_turns: int = 30
    max_react_iterations: int = 10
    task_timeout_s: float = 1200.0
    max_tool_calls: int = 200
    """Tool calls per user turn (``--crm-max-tool-calls``): later calls of the turn are refused
    with a ``tool_call_limit`` error, recorded; at twice the limit the episode ends as ``agent_error``."""


class Agent(Protocol):
    """Anything that answers one user turn. Implementations get a fresh instance per episode."""

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        """Act with ``tools`` (route first to narrow them) and return the visible reply."""
        ...


@dataclass(frozen=True)
class AgentContext:
    """What a factory may use to build an agent for one episode: only what an agent may see.

    The domain, its tool schemas and policy, the limits, the model and where the capability graphs
    live; never the task (its contract or gold path) and never the environment (its state, trace,
    id source or clock). The conversation reaches the agent turn by turn through ``respond``.
    """

    domain: str
    tools: tuple[Mapping[str, Any], ...] = ()
    """OpenAI-style function schemas of every tool of the domain (copies)."""
    policy: str = ""
    """The domain policy (``policy.md`` next to the domain's environment), the text an agent follows."""
    seed: int = 0
    limits: Limits = field(default_factory=Limits)
    model: ModelConfig | None = None
    """The agent model (``--crm-model``) with the sampling settings and this episode's seed; None without one."""
    usage: UsageLedger = field(default_factory=UsageLedger)
    """Record model usage here (role ``agent``); it ends up in the evidence."""
    graph_dirs: tuple[Path, ...] = ()
    """Where capability graphs live (``crm_graph_dirs``), for agents that use them."""

    @classmethod
    def for_domain(cls, environment: type[ToolEnvironment], **fields: Any) -> AgentContext:
        """The context of an episode in ``environment``'s domain (``fields``: seed, limits, model, ...)."""
        return cls(
            domain=environment.domain, tools=tuple(environment.tool_schemas()), policy=policy_of(environment), **fields
        )


def policy_of(environment: type[ToolEnvironment]) -> str:
    """``policy.md`` next to the module that defines the environment, or "" when there is none."""
    try:
        folder = Path(inspect.getfile(environment)).parent
    except (TypeError, OSError):
        return ""
    policy = folder / "policy.md"
    return policy.read_text(encoding="utf-8") if policy.is_file() else ""


AgentFactory = Callable[[AgentContext], Agent]


class EndsEpisode:
    """An agent stand-in that has the last word at the end of an episode (the isolated agent's
    process, :mod:`.isolation`; a subprocess agent, :mod:`.stdio_agent`): :meth:`end_episode` may
    still find the agent at fault, :meth:`close` ends what it started."""

    name: str | None = None
    """The agent's own name, as its process reported it (None: the run's agent name stands)."""

    _failed: str | None = None
    """Why the agent's process failed, once it has: every later turn fails alike."""

    @contextlib.contextmanager
    def _turn(self) -> Iterator[None]:
        """One user turn of the agent's process: a failed process fails every later turn, and
        whatever ends a turn abnormally (its own error, a timeout, an interrupt) ends the process."""
        if self._failed is not None:
            raise AgentError(self._failed)
        try:
            yield
        except AgentError as exc:
            self._failed = str(exc)
            self.close()
            raise
        except BaseException:
            self.close()
            raise

    def end_episode(self) -> None:
        """Called once the conversation is over, before the evidence is frozen; raises AgentError."""

    def close(self) -> None:
        """End the agent's process and whatever served it, whatever state they are in."""


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
    """Run the conversation and freeze its evidence. Never raises for agent, tool or provider failures.

    Who is to blame decides the termination: the agent's own exceptions (and its aborts) are its
    failure, an :class:`InfraError` is infrastructure, a :class:`HarnessError` (a tool or our
    model-calling code crashed) is ours; the :class:`~pytest_crmbench.run.referee.Referee` then
    overrides with ``tampered`` or a tool crash. ``usage`` is the ledger the agent and the user
    report model calls into; its agent and user shares are copied into the evidence, and so are
    the warnings the agent's code issued (counted there, never raised: :mod:`.agentcode`).
    """
    ledger = usage if usage is not None else UsageLedger()
    referee = Referee(env, max_tool_calls=limits.max_tool_calls)
    messages: list[Message] = []
    deadline = clock() + limits.task_timeout_s
    turn_usage: list[Usage] = []
    try:
        termination = _converse(referee, agent, user, messages, limits, deadline, clock, ledger, turn_usage)
        if isinstance(agent, EndsEpisode):
            agent.end_episode()
    except InfraError as exc:
        termination = Termination(reason="infra", detail=str(exc))
    except AgentAbort as exc:
        termination = Termination(reason="agent_abort", detail=str(exc))
    except AgentTimedOut as exc:
        termination = Termination(reason="timeout", detail=str(exc))
    except AgentError as exc:
        termination = Termination(reason="agent_error", detail=_with_traceback(str(exc), exc.traceback))
    except HarnessError as exc:
        termination = Termination(reason="harness_error", detail=_with_traceback(str(exc), exc.traceback))
    except EpisodeTampered as exc:
        termination = Termination(reason="tampered", detail=str(exc))
    return Evidence(
        task_id=task.id,
        trial=trial,
        seed=env.seed,
        agent=agent_name,
        messages=messages,
        routing=list(referee.routing),
        tool_calls=list(referee.calls),
        initial_state=referee.initial_state,
        final_state=referee.final_state(),
        termination=referee.verdict(termination),
        conduct=type(env).conduct,
        usage=usage.snapshot() if usage is not None else {},
        agent_turn_usage=turn_usage,
        agent_warnings=ledger.warnings(),
    )


def _used_since(ledger: UsageLedger, before: Usage | None) -> Usage:
    after = ledger.get("agent")
    return Usage() if after is None else after.since(before)


def _with_traceback(message: str, traceback: str) -> str:
    return f"{message}\n{traceback}".rstrip() if traceback else message


def _converse(
    referee: Referee,
    agent: Agent,
    user: User,
    messages: list[Message],
    limits: Limits,
    deadline: float,
    clock: Callable[[], float],
    ledger: UsageLedger,
    turn_usage: list[Usage],
) -> Termination:
    text = _user_says(user.open)
    for turn in range(limits.max_user_turns):
        messages.append(Message(role="user", content=text, turn=turn))
        before = ledger.get("agent")
        try:
            reply = _agent_replies(agent, tuple(messages), referee.toolbox(turn, deadline, clock), ledger)
        finally:  # a turn that failed used its tokens too
            turn_usage.append(_used_since(ledger, before))
        messages.append(Message(role="assistant", content=reply, turn=turn))
        if referee.crash is not None or referee.tampering is not None:
            # The agent swallowed what it was handed; the referee's verdict stands.
            return Termination(reason="user_stop")
        if clock() > deadline:
            return Termination(reason="timeout", detail=f"task exceeded {limits.task_timeout_s:g}s during turn {turn}")
        decision = _user_says(lambda: user.respond(tuple(messages)))
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


_PASSED_THROUGH = (InfraError, AgentAbort, AgentError, HarnessError, EpisodeTampered)
"""What an in-process agent's ``respond`` may raise with its own meaning. An isolated agent's
stand-in (:mod:`.isolation`) raises only AgentError, AgentTimedOut and AgentAbort for the agent."""


def _agent_replies(agent: Agent, conversation: tuple[Message, ...], tools: ToolBox, ledger: UsageLedger) -> str:
    """The agent's reply; whatever its code raises is its failure (issue 11 item 1), whatever it
    warns is counted, never raised (issue 32 item 7)."""
    try:
        with agent_code(ledger):
            reply = agent.respond(conversation, tools)
    except _PASSED_THROUGH:
        raise
    except Exception as exc:
        raise AgentError(f"the agent raised {type(exc).__name__}: {exc}", traceback=format_traceback(exc)) from exc
    if not isinstance(reply, str):
        raise AgentError(f"the agent's respond() returned {type(reply).__name__}, not the reply text")
    return reply


def _user_says(speak: Callable[[], T]) -> T:
    """The user's next move; a crash of the simulator (not under test) is a harness error."""
    try:
        return speak()
    except (InfraError, HarnessError):
        raise
    except Exception as exc:
        raise HarnessError(
            f"the user simulator raised {type(exc).__name__}: {exc}", traceback=format_traceback(exc)
        ) from exc
