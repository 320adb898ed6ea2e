"""The ReAct loop both reference agents run inside one user turn: model -> tool calls -> observations.

Every tool attempt goes through :meth:`ToolBox.call`, so hallucinated names, malformed JSON
arguments and unexposed tools are recorded in the trace and come back to the model as structured
errors it can recover from. At most ``max_iterations`` model calls per turn; the turn's visible
reply is the first answer without tool calls. The last call of the budget is made with
``tool_choice="none"``, so a model that keeps calling tools still gives the user a reply (spec
§A.7: at most ten iterations *before the visible reply*); tool calls it makes anyway are ignored.
"""

from __future__ import annotations

import json
import time
from typing import Any

from pytest_crmbench.core.evidence import jsonable
from pytest_crmbench.models.llm import ModelClient
from pytest_crmbench.run.episode import ToolBox


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
    for iteration in range(max_iterations):
        if tools.time_left() <= 0:
            return ""  # the episode records the timeout
        last = iteration == max_iterations - 1
        completion = client.complete(
            [{"role": "system", "content": system}, *history],
            tools=schemas or None,
            tool_choice="none" if last else None,
            deadline=deadline,
        )
        if last and completion.tool_calls:
            # Unanswered tool calls would make the next turn's history invalid for the provider.
            completion = completion.without_tool_calls()
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
