"""The episode's MCP tool server (issue 31): served through the official MCP client, recorded by the referee."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.run.mcp_tools import EpisodeToolServer
from pytest_crmbench.run.referee import Referee

mcp_client = pytest.importorskip("mcp.client.client")


def served(env_class: type[ToolEnvironment]) -> tuple[Referee, EpisodeToolServer]:
    referee = Referee(env_class(seed=1))
    return referee, EpisodeToolServer(env_class.tool_schemas, episode="ep-1").start()


def test_calls_run_through_the_referee_stamped_by_the_harness(mini_env_class: type[ToolEnvironment]) -> None:
    referee, server = served(mini_env_class)
    notified: list[Any] = []

    async def handler(message: Any) -> None:
        notified.append(message)

    async def agent() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with mcp_client.Client(server.url, mode="legacy", message_handler=handler) as client:
            seen["before"] = await client.call_tool("get_balance", {"account_id": "ACC-1"})
            server.open_turn(referee.toolbox(0, time.monotonic() + 60, time.monotonic))
            seen["all"] = [tool.name for tool in (await client.list_tools()).tools]
            seen["ok"] = await client.call_tool("get_balance", {"account_id": "ACC-1"})
            seen["rejected"] = await client.call_tool("get_balance", {"account_id": "ACC-404"})
            seen["malformed"] = await client.call_tool("get_balance", {"account": 3})
            server.close_turn()
            toolbox = referee.toolbox(1, time.monotonic() + 60, time.monotonic)
            toolbox.route("balance", tools=["get_balance"])
            server.open_turn(toolbox)
            await asyncio.sleep(0.2)
            seen["narrowed"] = [tool.name for tool in (await client.list_tools()).tools]
            seen["turn1"] = await client.call_tool("get_balance", {"account_id": "ACC-1"})
            server.finish()
            seen["after"] = await client.call_tool("get_balance", {"account_id": "ACC-1"})
        return seen

    try:
        seen = asyncio.run(agent())
    finally:
        server.stop()
    assert seen["before"].is_error and "no user turn is open" in seen["before"].content[0].text
    assert "get_balance" in seen["all"] and len(seen["all"]) == len(mini_env_class.tool_schemas())
    ok = seen["ok"]
    assert not ok.is_error and ok.structured_content["account_id"] == "ACC-1"
    assert ok.meta["crmbench"] == {"episode": "ep-1", "turn": 0, "node": None, "index": 0, "status": "ok"}
    assert seen["rejected"].is_error and seen["rejected"].structured_content["error"]["status"] == 404
    assert seen["malformed"].is_error and "invalid_arguments" in seen["malformed"].content[0].text
    assert seen["narrowed"] == ["get_balance"]
    assert [type(m).__name__ for m in notified] == ["ToolListChangedNotification"]
    assert seen["turn1"].meta["crmbench"]["node"] == "balance"
    assert seen["after"].is_error and "the episode has finished" in seen["after"].content[0].text
    # The referee recorded the four calls made in open turns, with the harness's turn and node.
    assert [(c.turn, c.node, c.status) for c in referee.calls] == [
        (0, None, "ok"),
        (0, None, "rejected"),
        (0, None, "error"),
        (1, "balance", "ok"),
    ]
    assert server.refused == 2


def test_a_client_of_the_2026_protocol_hears_of_narrowed_tools_on_its_listen_stream(
    mini_env_class: type[ToolEnvironment],
) -> None:
    """The 2026-07-28 wire has no standing stream: a change reaches a client only on a
    ``subscriptions/listen`` stream (what openai-agents' modern-mode session would open)."""
    referee, server = served(mini_env_class)

    async def agent() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with mcp_client.Client(server.url, mode="2026-07-28") as client:
            server.open_turn(referee.toolbox(0, time.monotonic() + 60, time.monotonic))
            seen["all"] = [tool.name for tool in (await client.list_tools()).tools]
            async with client.listen(tools_list_changed=True) as subscription:
                seen["honored"] = subscription.honored.tools_list_changed
                toolbox = referee.toolbox(0, time.monotonic() + 60, time.monotonic)
                toolbox.route("balance", tools=["get_balance"])
                server.open_turn(toolbox)
                event = await asyncio.wait_for(subscription.__anext__(), timeout=10)
                seen["event"] = type(event).__name__
                seen["narrowed"] = [tool.name for tool in (await client.list_tools()).tools]
                server.stop()  # ends the open stream gracefully, rather than hanging the shutdown
                seen["ended"] = [type(e).__name__ async for e in subscription]
        return seen

    try:
        seen = asyncio.run(asyncio.wait_for(agent(), timeout=30))
    finally:
        server.stop()
    assert len(seen["all"]) == len(mini_env_class.tool_schemas())
    assert seen["honored"] is True
    assert seen["event"] == "ToolsListChanged"
    assert seen["narrowed"] == ["get_balance"]
    assert seen["ended"] == []


def test_a_wrong_token_reaches_nothing(mini_env_class: type[ToolEnvironment]) -> None:
    referee, server = served(mini_env_class)
    server.open_turn(referee.toolbox(0, time.monotonic() + 60, time.monotonic))
    try:
        wrong = server.url.rsplit("/", 1)[0] + "/not-the-token"
        request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        headers = {"accept": "application/json, text/event-stream"}
        answer = httpx.post(wrong, json=request, headers=headers, timeout=10)
        assert answer.status_code == 404
        two = EpisodeToolServer(mini_env_class.tool_schemas, episode="ep-2").start()
        try:
            assert two.url != server.url and two.url.split("/mcp/")[1] != server.url.split("/mcp/")[1]
        finally:
            two.stop()
    finally:
        server.stop()
    assert referee.calls == []
