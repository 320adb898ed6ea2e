"""A crmbench agent served over A2A: the episode's tools over MCP, its model through crmbench's proxy.

Start it, then point crmbench at it::

    python examples/agents/a2a_agent.py 8765          # or CRMBENCH_A2A_PORT=8765
    pytest tasks/ --crm-model=<model> --crm-agent=a2a:http://127.0.0.1:8765

It speaks crmbench's A2A protocol (docs/agents.md, "An agent over A2A"): per user turn crmbench
sends one blocking ``SendMessage`` whose text part is the user's message and whose data part is
``{"crmbench": {"start"?: {...}, "turn": {...}}}`` (``start`` on an episode's first message only).
One episode is one ``contextId``. The reply here is an agent ``Message`` with one text part.
Each turn it connects to the episode's MCP server (``start["mcp_url"]``), lists the tools, and runs
a ReAct loop with the model at ``start["model"]["base_url"]`` until the model answers in text.
Needs ``a2a-sdk[http-server]``, ``mcp``, ``uvicorn`` and ``openai``
(``pip install 'crmbench[a2a]' openai``).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import uvicorn
from a2a.helpers import get_data_parts, get_text_parts, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from mcp.client.client import Client
from openai import AsyncOpenAI
from starlette.applications import Starlette

SYSTEM = "You are a CRM support agent. Use the tools to act; follow the policy below.\n\n"
EPISODES: dict[str, dict[str, Any]] = {}
"""Per contextId (one crmbench episode): its ``start`` message and the model's history so far."""


def openai_tool(tool: Any) -> dict[str, Any]:
    """An MCP tool as an OpenAI function schema (what the chat-completions API takes)."""
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description or "", "parameters": tool.input_schema},
    }


async def answer_turn(start: dict[str, Any], history: list[Any]) -> str:
    model = start["model"]
    # Numbers in a data part arrive as protobuf doubles (10.0): cast what must be an int.
    iterations = int(start["limits"]["max_react_iterations"])
    async with (
        Client(start["mcp_url"], mode="legacy") as tools,
        AsyncOpenAI(base_url=model["base_url"], api_key=model["api_key"]) as llm,
    ):
        schemas = [openai_tool(tool) for tool in (await tools.list_tools()).tools]
        for _ in range(iterations):
            response = await llm.chat.completions.create(model=model["model"], messages=history, tools=schemas)
            message = response.choices[0].message
            calls = message.tool_calls or []
            history.append(message.model_dump(include={"role", "content", "tool_calls"}, exclude_none=True))
            if not calls:
                return message.content or ""
            for call in calls:
                try:
                    arguments = json.loads(call.function.arguments or "{}")
                except ValueError:
                    arguments = None
                if isinstance(arguments, dict):
                    # Its text is the tool's result as JSON; a refusal is an isError result to read.
                    result = await tools.call_tool(call.function.name, arguments)
                    text = result.content[0].text if result.content else ""
                else:
                    text = json.dumps({"error": "the arguments were not a JSON object; call the tool again"})
                history.append({"role": "tool", "tool_call_id": call.id, "content": text})
    return "I'm sorry, I could not finish this request."


class CrmAgent(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None and context.context_id is not None
        ours = next(
            d["crmbench"] for d in get_data_parts(context.message.parts) if isinstance(d, dict) and "crmbench" in d
        )
        episode = EPISODES.setdefault(context.context_id, {})
        if "start" in ours:  # the episode's first message: what lives for the whole episode
            episode["start"] = ours["start"]
            episode["history"] = [{"role": "system", "content": SYSTEM + ours["start"]["policy"]}]
        start = episode["start"]
        if start["model"] is None:
            text = "This agent needs a model: run crmbench with --crm-model."
        else:
            # crmbench's conversation holds every visible message; this agent's own replies are in
            # its history already, so only the user's new message (the text part) is added.
            episode["history"].append({"role": "user", "content": "\n".join(get_text_parts(context.message.parts))})
            text = await answer_turn(start, episode["history"])
        await event_queue.enqueue_event(new_text_message(text, context_id=context.context_id))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        # crmbench cancels a turn that ran out of time; the running execute() was cancelled already.
        await TaskUpdater(event_queue, str(context.task_id), str(context.context_id)).cancel()


def app(port: int) -> Starlette:
    card = AgentCard(
        name="a2a-example",
        description="crmbench's example A2A agent: MCP tools, an OpenAI-compatible model",
        version="1.0",
        supported_interfaces=[
            AgentInterface(url=f"http://127.0.0.1:{port}/", protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=False),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="crm-support", name="CRM support", description="One CRM support turn", tags=["crm"])],
    )
    handler = DefaultRequestHandler(agent_executor=CrmAgent(), task_store=InMemoryTaskStore(), agent_card=card)
    return Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")])


if __name__ == "__main__":
    port = int(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CRMBENCH_A2A_PORT", "8765"))
    uvicorn.run(app(port), host="127.0.0.1", port=port, log_level="warning")
