"""Built-in agents and the factory seam for everyone else's.

An agent is built once per episode by a factory ``(AgentContext) -> Agent``. Names resolve as:
``gold`` (replay the task's gold path), ``null`` (do nothing), ``graph`` and ``flat`` (the
reference scaffolds in :mod:`pytest_crmbench.reference`, which call ``--crm-model``),
``package.module:factory`` (your own), or whatever a ``pytest_crmbench_make_agent`` hook
implementation returns first.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_crmbench.environment import ToolEnvironment
from pytest_crmbench.episode import Agent, Limits, ToolBox
from pytest_crmbench.errors import AgentConfigError
from pytest_crmbench.evidence import Message
from pytest_crmbench.grading.paths import resolve
from pytest_crmbench.matchers import MISSING
from pytest_crmbench.spec import REPLY_REFERENCE, GoldCall, Task, gold_reference
from pytest_crmbench.usage import UsageLedger

if TYPE_CHECKING:
    from pytest_crmbench.llm import ModelConfig


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


def _graph_agent(context: AgentContext) -> Agent:
    # Imported on use: the reference agents need the model layer, gold and null runs do not.
    from pytest_crmbench.reference.graph_agent import make_graph_agent

    return make_graph_agent(context)


def _flat_agent(context: AgentContext) -> Agent:
    from pytest_crmbench.reference.flat_agent import make_flat_agent

    return make_flat_agent(context)


BUILTIN_AGENTS: dict[str, AgentFactory] = {
    "gold": lambda context: GoldAgent(context.task),
    "null": lambda context: NullAgent(),
    "graph": _graph_agent,
    "flat": _flat_agent,
}
MODEL_AGENTS = frozenset({"graph", "flat"})
"""Built-in agents that call ``--crm-model``."""


def load_factory(name: str) -> AgentFactory:
    """Resolve a built-in name or a ``package.module:factory`` path."""
    if name in BUILTIN_AGENTS:
        return BUILTIN_AGENTS[name]
    module_name, sep, attr = name.partition(":")
    if not sep or not module_name or not attr:
        raise AgentConfigError(
            f"unknown agent {name!r}: use one of {', '.join(BUILTIN_AGENTS)} or 'package.module:factory'"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise AgentConfigError(f"agent {name!r}: cannot import {module_name!r}: {exc}") from exc
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise AgentConfigError(f"agent {name!r}: {module_name!r} has no callable {attr!r}")
    return factory  # type: ignore[no-any-return]
