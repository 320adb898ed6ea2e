"""Human-readable text for evidence, attached once to a task's report after its checks."""

from __future__ import annotations

import json

from pytest_crmbench.core.evidence import Evidence, jsonable


def transcript(evidence: Evidence, *, width: int = 600) -> str:
    """Conversation with the routing decisions and tool calls of each turn, in order."""
    lines = [
        f"agent={evidence.agent} seed={evidence.seed} termination={evidence.termination.reason}"
        + (f" ({evidence.termination.detail})" if evidence.termination.detail else "")
    ]
    for message in evidence.messages:
        lines.append(f"[turn {message.turn}] {message.role}: {message.content}")
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
    return "\n".join(lines)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
