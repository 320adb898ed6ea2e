"""The per-turn router of the graph agent: the conversation -> one capability node or a refusal label.

An invalid answer (not JSON, an unknown label) is sent back once more; if it is still invalid
the turn falls back to the tool-free ``general`` node, and the routing log says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_crmbench.core.evidence import Message
from pytest_crmbench.models.llm import ModelClient, parse_json_object, structured_request
from pytest_crmbench.reference.graph import FALLBACK_NODE, REFUSAL_LABELS, CapabilityGraph

PROMPT = """You are the router of a customer-service assistant ({domain}). Read the conversation \
and choose exactly one label for the customer's latest message:
{labels}
- unsafe: a harmful, fraudulent or abusive request, or one to act on somebody else's account.
- out_of_scope: a request that has nothing to do with this service.

Answer with a JSON object only: {{"node": "<label>"}}"""

REFUSALS = {
    "unsafe": "I'm sorry, but I can't help with that request.",
    "out_of_scope": "I'm sorry, but that is outside what I can help with here.",
}
"""The deterministic replies of the refusal labels (no model call, no tool)."""


class Router:
    def __init__(self, graph: CapabilityGraph, client: ModelClient, *, attempts: int = 2) -> None:
        self._graph = graph
        self._client = client
        self._attempts = attempts
        self.labels = [*graph.node_names(), *REFUSAL_LABELS]
        labels = "\n".join(f"- {node.name}: {node.description}" for node in graph.nodes)
        self._system = PROMPT.format(domain=graph.domain, labels=labels)
        self._schema = {
            "type": "object",
            "properties": {"node": {"type": "string", "enum": self.labels}},
            "required": ["node"],
            "additionalProperties": False,
        }

    def route(self, conversation: Sequence[Message], deadline: float | None = None) -> tuple[str, str | None]:
        """``(label, detail)``; ``detail`` notes retries and the fallback."""
        structured = structured_request(self._client.config.output_mode, "crm_route", self._schema)
        messages: list[dict[str, Any]] = [{"role": "system", "content": structured.system(self._system)}]
        messages.extend({"role": m.role, "content": m.content} for m in conversation)
        answers: list[str] = []
        for _ in range(self._attempts):
            completion = self._client.complete(messages, response_format=structured.response_format, deadline=deadline)
            data = parse_json_object(completion.content)
            label = data.get("node") if data else None
            if isinstance(label, str) and label in self.labels:
                return label, (f"after invalid router answer(s): {'; '.join(answers)}" if answers else None)
            answers.append(repr(completion.content[:80]))
            messages.append({"role": "assistant", "content": completion.content})
            messages.append({"role": "user", "content": f"Invalid. Answer with one of: {', '.join(self.labels)}."})
        return FALLBACK_NODE, f"router fallback: invalid answer(s) {'; '.join(answers)}"
