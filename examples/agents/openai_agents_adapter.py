"""A crmbench agent built on the OpenAI Agents SDK (``openai-agents``): tools over MCP, model through the proxy.

Run it as ``pytest tasks/ --crm-model=<model> --crm-agent="cmd:python examples/agents/openai_agents_adapter.py"``
(``pip install 'crmbench[adapters]'``). The SDK is async, and so is the protocol loop
(:mod:`crmbench_stdio`): no event loop is started per turn. The MCP server and the agent are
built once per episode; the SDK keeps its own history (``to_input_list``) between turns. Tool
results reach the model as the MCP server's JSON text; the schemas are passed as they are
(``convert_schemas_to_strict`` is off by default, so the ``anyOf``-null defaults need no change).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from agents.mcp import MCPServerStreamableHttp
from crmbench_stdio import INSTRUCTIONS, Answer, run
from openai import AsyncOpenAI

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled


@asynccontextmanager
async def episode(start: dict[str, Any]) -> AsyncIterator[Answer]:
    set_tracing_disabled(True)  # the SDK would upload traces to OpenAI: nothing leaves the machine
    model = start["model"]
    client = AsyncOpenAI(base_url=model["base_url"], api_key=model["api_key"], max_retries=0)
    async with MCPServerStreamableHttp(
        params={"url": start["mcp_url"], "timeout": 60}, cache_tools_list=False, client_session_timeout_seconds=120
    ) as tools:
        agent = Agent(
            name="crm",
            instructions=INSTRUCTIONS + start["policy"],
            mcp_servers=[tools],
            model=OpenAIChatCompletionsModel(model=model["model"], openai_client=client),
        )
        history: list[Any] = []

        async def answer(text: str, turn: dict[str, Any]) -> str:
            nonlocal history
            result = await Runner.run(
                agent, [*history, {"role": "user", "content": text}], max_turns=start["limits"]["max_react_iterations"]
            )
            history = result.to_input_list()
            return str(result.final_output or "")

        yield answer
    await client.close()


if __name__ == "__main__":
    run("openai-agents", episode)
