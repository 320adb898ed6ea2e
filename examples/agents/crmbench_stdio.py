"""The agent's side of crmbench's stdio protocol (version 1), for adapters written in Python.

An adapter gives :func:`serve` its name and an *episode opener*: an async context manager that
receives the ``start`` message once (``mcp_url``, ``model``, ``policy``, ``limits``, ...) and
yields ``answer(text, turn) -> reply``, called once per user turn with the user's new message.
Everything built inside the opener (the MCP connection, the model client, the framework's agent
and its history) lives for the whole episode and is not rebuilt per turn. ``serve`` writes only
protocol lines to stdout; log to stderr.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

Answer = Callable[[str, dict[str, Any]], Awaitable[str]]
Opener = Callable[[dict[str, Any]], AbstractAsyncContextManager[Answer]]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


async def receive() -> dict[str, Any] | None:
    line = await asyncio.to_thread(sys.stdin.readline)
    return json.loads(line) if line else None


async def serve(name: str, open_episode: Opener) -> None:
    start = await receive()
    if start is None or start.get("type") != "start" or start.get("protocol") != 1:
        raise SystemExit(f"expected crmbench's start message (protocol 1), got {start!r}")
    if start["model"] is None:
        send({"type": "error", "message": f"{name} needs a model: run crmbench with --crm-model"})
        return
    async with open_episode(start) as answer:
        send({"type": "ready", "name": name})
        while (message := await receive()) is not None and message["type"] != "end":
            if message["type"] == "turn":
                text = message["conversation"][-1]["content"]  # the user's new message
                send({"type": "reply", "text": await answer(text, message)})


def run(name: str, open_episode: Opener) -> None:
    asyncio.run(serve(name, open_episode))


INSTRUCTIONS = "You are a CRM support agent. Use the tools to act; follow the policy below.\n\n"
