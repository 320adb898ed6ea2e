"""A crmbench agent with no framework: the episode's tools over MCP, its model through the proxy.

Run it as ``pytest tasks/ --crm-model=<model> --crm-agent="cmd:python examples/agents/plain_agent.py"``.
It speaks crmbench's stdio protocol (docs/agents.md, "Agents in any language"): one JSON object
per line on stdin and stdout, logs on stderr. Each user turn it lists the MCP server's tools, then
asks the model and runs the tool calls it asks for, until the model answers with text. Needs
``mcp`` and ``httpx`` (``pip install 'crmbench[mcp]'``).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import httpx
from mcp.client.client import Client

SYSTEM = "You are a CRM support agent. Use the tools to act; follow the policy below.\n\n"


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


async def receive() -> dict[str, Any] | None:
    line = await asyncio.to_thread(sys.stdin.readline)
    return json.loads(line) if line else None


def openai_tool(tool: Any) -> dict[str, Any]:
    """An MCP tool as an OpenAI function schema (what the chat-completions API takes)."""
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description or "", "parameters": tool.input_schema},
    }


async def answer_turn(tools: Client, http: httpx.AsyncClient, start: dict[str, Any], history: list[Any]) -> str:
    model = start["model"]
    schemas = [openai_tool(tool) for tool in (await tools.list_tools()).tools]
    for _ in range(start["limits"]["max_react_iterations"]):
        request = {"model": model["model"], "messages": history, "tools": schemas}
        response = await http.post(f"{model['base_url']}/chat/completions", json=request)
        response.raise_for_status()
        message = response.json()["choices"][0]["message"]
        calls = message.get("tool_calls") or []
        history.append(
            {"role": "assistant", "content": message.get("content"), **({"tool_calls": calls} if calls else {})}
        )
        if not calls:
            return str(message.get("content") or "")
        for call in calls:
            try:
                arguments = json.loads(call["function"]["arguments"] or "{}")
            except ValueError:
                arguments = None
            if isinstance(arguments, dict):
                result = await tools.call_tool(call["function"]["name"], arguments)
                text = result.content[0].text if result.content else ""
            else:
                text = json.dumps({"error": "the arguments were not a JSON object; call the tool again"})
            history.append({"role": "tool", "tool_call_id": call["id"], "content": text})
    return "I'm sorry, I could not finish this request."


async def main() -> None:
    start = await receive()
    assert start is not None and start["type"] == "start" and start["protocol"] == 1, start
    if start["model"] is None:
        send({"type": "error", "message": "this agent needs a model: run with --crm-model"})
        return
    headers = {"authorization": f"Bearer {start['model']['api_key']}"}
    async with (
        Client(start["mcp_url"], mode="legacy") as tools,
        httpx.AsyncClient(timeout=300, headers=headers) as http,
    ):
        send({"type": "ready", "name": "plain-mcp"})
        history: list[Any] = [{"role": "system", "content": SYSTEM + start["policy"]}]
        while (message := await receive()) is not None and message["type"] != "end":
            if message["type"] != "turn":
                continue
            # The conversation holds every message so far; this agent's own replies are in its
            # history already, so only the user's new message is added.
            history.append({"role": "user", "content": message["conversation"][-1]["content"]})
            send({"type": "reply", "text": await answer_turn(tools, http, start, history)})


if __name__ == "__main__":
    asyncio.run(main())
