"""The flat baseline: the domain prompt and policy with every domain tool, one ReAct loop per turn."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_crmbench.core.evidence import Message
from pytest_crmbench.models.llm import ModelClient
from pytest_crmbench.reference.graph_agent import Reference, VisibleHistory, load_reference
from pytest_crmbench.reference.react import react_turn
from pytest_crmbench.run.episode import AgentContext, ToolBox

FLAT_NODE = "flat"
"""The routing-log entry of every flat turn (no routing happens; all tools are exposed)."""


class FlatAgent:
    name = "flat"

    def __init__(self, reference: Reference, client: ModelClient) -> None:
        self._reference = reference
        self._client = client
        self._system = reference.system_prompt()
        self._history = VisibleHistory()

    def respond(self, conversation: Sequence[Message], tools: ToolBox) -> str:
        self._history.sync(conversation)
        tools.route(FLAT_NODE)
        return react_turn(self._client, self._system, self._history.messages, tools, self._reference.max_iterations)


def make_flat_agent(context: AgentContext) -> FlatAgent:
    reference = load_reference(context)
    return FlatAgent(reference, ModelClient(reference.model, "agent", context.usage))
