"""A crmbench agent built on pydantic-ai: the episode's tools over MCP, its model through the proxy.

Run it as ``pytest tasks/ --crm-model=<model> --crm-agent="cmd:python examples/agents/pydantic_ai_adapter.py"``
(``pip install 'crmbench[adapters]'``). The MCP toolset and the agent are built once per episode
and the toolset is entered once (not reconnected per turn); pydantic-ai's own history
(``all_messages``) is carried between turns. A business rejection is an MCP error result, which
pydantic-ai would turn into a retry (and, past its retry budget, into an exception):
``tool_error_behavior="failed"`` shows it to the model as the tool's answer instead, as the
reference agents do.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from crmbench_stdio import INSTRUCTIONS, Answer, run
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider


@asynccontextmanager
async def episode(start: dict[str, Any]) -> AsyncIterator[Answer]:
    model = start["model"]
    provider = OpenAIProvider(base_url=model["base_url"], api_key=model["api_key"])
    tools = MCPToolset(start["mcp_url"], tool_error_behavior="failed", cache_tools=False)
    agent = Agent(
        OpenAIChatModel(model["model"], provider=provider),
        instructions=INSTRUCTIONS + start["policy"],
        toolsets=[tools],
    )
    async with agent:  # enters the toolset: one MCP session for the episode
        history: list[Any] = []

        async def answer(text: str, turn: dict[str, Any]) -> str:
            nonlocal history
            result = await agent.run(text, message_history=history)
            history = result.all_messages()
            return str(result.output)

        yield answer


if __name__ == "__main__":
    run("pydantic-ai", episode)
