"""The ReAct loop both reference agents run inside one user turn: model -> tool calls -> observations.

Every tool attempt goes through :meth:`ToolBox.call`, so hallucinated names, malformed JSON
arguments and unexposed tools are recorded in the trace and come back to the model as structured
errors it can recover from. At most ``max_iterations`` model calls per turn; the turn's visible
reply is the first answer without tool calls (an exhausted budget ends the turn with no reply).
"""

from __future__ import annotations

import json
import time
from typing import Any

from pytest_crmbench.episode import ToolBox
from pytest_crmbench.evidence import jsonable
from pytest_crmbench.llm import ModelClient


def react_turn(
    client: ModelClient,
    system: str,
    history: list[dict[str, Any]],
    tools: ToolBox,
    max_iterations: int,
) -> str:
    """Run one turn; ``history`` (the agent's own memory across turns) is extended in place."""
    schemas = tools.schemas()
    deadline = time.monotonic() + tools.time_left()
    for _ in range(max_iterations):
        if tools.time_left() <= 0:
            return ""  # the episode records the timeout
        completion = client.complete(
            [{"role": "system", "content": system}, *history], tools=schemas or None, deadline=deadline
        )
        history.append(completion.message)
        if not completion.tool_calls:
            return completion.content
        for request in completion.tool_calls:
            call = tools.call(request.name, request.arguments)
            history.append(
                {
                    "role": "tool",
                    "tool_call_id": request.id,
                    "content": json.dumps(jsonable(call.output()), ensure_ascii=False),
                }
            )
    return ""
