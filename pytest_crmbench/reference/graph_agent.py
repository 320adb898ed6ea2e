"""The graph-routed reference agent (spec §A.7): per user turn, route, then one node's ReAct loop.

A router call maps the conversation to exactly one node of ``agents/<domain>.yaml`` or to
``unsafe`` / ``out_of_scope``, which end the turn with a deterministic refusal and no tool. The
chosen node sees the domain prompt, the domain policy and its own instruction, and only its tools;
there is no node-to-node handoff within a turn. The agent keeps its own history (tool calls,
observations, provider reasoning) across turns.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_crmbench.core.errors import AgentConfigError, CrmbenchError
from pytest_crmbench.core.evidence import Message
from pytest_crmbench.models.llm import ModelClient, ModelConfig
from pytest_crmbench.reference.graph import REFUSAL_LABELS, CapabilityGraph, find_graph, load_graph
from pytest_crmbench.reference.react import react_turn
from pytest_crmbench.reference.router import REFUSALS, Router
from pytest_crmbench.run.episode import AgentContext, ToolBox


@dataclass(frozen=True)
class Reference:
    """What both reference agents are built from."""

    graph: CapabilityGraph
    policy: str
    model: ModelConfig
    max_iterations: int

    def system_prompt(self, instruction: str | None = None) -> str:
        parts = [self.graph.prompt.strip()]
        if self.policy:
            parts.append(f"# Policy\n\n{self.policy.strip()}")
        if instruction:
            parts.append(f"# Your capability this turn\n\n{instruction.strip()}")
        return "\n\n".join(parts)


def load_reference(context: AgentContext) -> Reference:
    """The domain's graph (``<graph dir>/<domain>.yaml``) and policy (``policy.md`` next to the environment)."""
    if context.model is None:
        raise AgentConfigError("the graph and flat agents need a model: pass --crm-model")
    domain = context.environment.domain
    path = find_graph(context.graph_dirs, domain)
    if path is None:
        searched = ", ".join(str(d) for d in context.graph_dirs) or "(no crm_graph_dirs)"
        raise AgentConfigError(f"no capability graph {domain}.yaml in {searched}")
    try:
        graph = load_graph(path)
    except CrmbenchError as exc:
        raise AgentConfigError(str(exc)) from None
    policy_file = Path(inspect.getfile(context.environment)).parent / "policy.md"
    policy = policy_file.read_text(encoding="utf-8") if policy_file.is_file() else ""
    return Reference(graph, policy, context.model, context.limits.max_react_iterations)


class VisibleHistory:
    """The agent's own chat history, fed with the user messages of the visible conversation."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self._seen = 0

    def sync(self, conversation: Sequence[Message]) -> None:
        for message in conversation[self._seen :]:
            if message.role == "user":
                self.messages.append({"role": "user", "content": message.content})
        self._seen = len(conversation) + 1  # + the reply this turn produces


class GraphAgent:
    name = "graph"

    def __init__(self, reference: Reference, client: ModelClient) -> None:
        self._reference = reference
        self._client = client
        self._router = Router(reference.graph, client)
        self._history = VisibleHistory()

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        self._history.sync(conversation)
        label, detail = self._router.route(conversation, deadline=time.monotonic() + tools.time_left())
        if label in REFUSAL_LABELS:
            tools.route(label, tools=(), detail=detail)
            reply = REFUSALS[label]
            self._history.messages.append({"role": "assistant", "content": reply})
            return reply
        node = self._reference.graph.node(label)
        tools.route(node.name, tools=node.tools, detail=detail)
        system = self._reference.system_prompt(node.instruction)
        return react_turn(self._client, system, self._history.messages, tools, self._reference.max_iterations)


def make_graph_agent(context: AgentContext) -> GraphAgent:
    reference = load_reference(context)
    return GraphAgent(reference, ModelClient(reference.model, "agent", context.usage))
