"""Human-readable text for evidence, attached once to a task's report after its checks."""

from __future__ import annotations

import json

from pytest_crmbench.core.evidence import Evidence, jsonable
from pytest_crmbench.core.redaction import redact, redacted_text


def transcript(evidence: Evidence, *, width: int = 600) -> str:
    """Conversation with the routing decisions and tool calls of each turn, in order."""
    lines = [
        f"agent={evidence.agent} seed={evidence.seed} termination={evidence.termination.reason}"
        + (f" ({evidence.termination.detail.splitlines()[0]})" if evidence.termination.detail else "")
    ]
    if evidence.agent_warnings:
        lines.append(
            f"the agent's code issued {sum(evidence.agent_warnings.values())} warning(s), recorded and not held against it:"
        )
        lines.extend(f"    {count}x {line}" for line, count in evidence.agent_warnings.items())
    for message in evidence.messages:
        lines.append(f"[turn {message.turn}] {message.role}: {message.content}")
        if message.role == "assistant":
            lines.extend(_model_use(evidence, message.turn))
        if message.role != "user":
            continue
        for decision in evidence.routing:
            if decision.turn == message.turn:
                lines.append(f"    route -> {decision.node}" + (f" ({decision.detail})" if decision.detail else ""))
        for call in evidence.tool_calls:
            if call.turn == message.turn:
                shown = json.dumps(jsonable(call.output()), sort_keys=True)
                lines.append(
                    _clip(
                        f"    #{call.index} {call.name}({json.dumps(jsonable(call.arguments), sort_keys=True)}) -> {call.status} {shown}",
                        width,
                    )
                )
    return redact("\n".join(lines))


def _model_use(evidence: Evidence, turn: int) -> list[str]:
    """The agent's model use in ``turn``, as the episode measured it (nothing when it made no request)."""
    if turn >= len(evidence.agent_turn_usage) or not (usage := evidence.agent_turn_usage[turn]).calls:
        return []
    tokens = f"{usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens"
    return [f"    (the agent's model: {usage.calls} request(s), {tokens})"]


def _clip(text: str, width: int) -> str:
    return redacted_text(text, width)
