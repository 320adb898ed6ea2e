"""Every agent by name: the built-in ones and the factory seam for everyone else's.

Names resolve as ``gold`` (replay the task's gold path), ``null`` (do nothing), ``graph`` and
``flat`` (the reference scaffolds, which call ``--crm-model``), ``package.module:factory`` (your
own), or whatever a ``pytest_crmbench_make_agent`` hook implementation returns first.

``gold`` is an oracle: it needs the task, which no :class:`AgentContext` carries (an agent under
evaluation must not see the contract or the gold path). The harness builds it itself, through
:func:`make_oracle`, from the task it holds.
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_crmbench.core.errors import AgentConfigError
from pytest_crmbench.core.spec import Task
from pytest_crmbench.run.baselines import GoldAgent, NullAgent
from pytest_crmbench.run.episode import Agent, AgentContext, AgentFactory
from pytest_crmbench.run.factory import import_factory


def _graph_agent(context: AgentContext) -> Agent:
    # Imported on use: the reference agents need the model layer, gold and null runs do not.
    from pytest_crmbench.reference.graph_agent import make_graph_agent

    return make_graph_agent(context)


def _flat_agent(context: AgentContext) -> Agent:
    from pytest_crmbench.reference.flat_agent import make_flat_agent

    return make_flat_agent(context)


def _oracle_only(context: AgentContext) -> Agent:
    raise AgentConfigError("the gold agent replays the task's gold path: only the harness can build it")


ORACLE_AGENTS: dict[str, Callable[[Task], Agent]] = {"gold": GoldAgent}
"""Agents built from the task itself, through a channel no other agent has (:func:`make_oracle`)."""

BUILTIN_AGENTS: dict[str, AgentFactory] = {
    "gold": _oracle_only,
    "null": lambda context: NullAgent(),
    "graph": _graph_agent,
    "flat": _flat_agent,
}
MODEL_AGENTS = frozenset({"graph", "flat"})
"""Built-in agents that call ``--crm-model``."""


def make_oracle(name: str, task: Task) -> Agent | None:
    """The oracle agent ``name`` for ``task``, or None when ``name`` is no oracle."""
    oracle = ORACLE_AGENTS.get(name)
    return oracle(task) if oracle is not None else None


def load_factory(name: str) -> AgentFactory:
    """Resolve a built-in name or a ``package.module:factory`` path."""
    if name in BUILTIN_AGENTS:
        return BUILTIN_AGENTS[name]
    return import_factory(name, ", ".join(BUILTIN_AGENTS))


def agent_label(agent: Agent, option: str) -> str:
    """The agent's name for evidence: its own ``name``, else the option that built it, else its type."""
    name = getattr(agent, "name", None)
    if isinstance(name, str) and name:
        return name
    return option if option not in BUILTIN_AGENTS else type(agent).__qualname__
