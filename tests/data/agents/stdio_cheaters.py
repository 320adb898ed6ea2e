"""Subprocess agents that misbehave on crmbench's stdio protocol (issue 31): ``python stdio_cheaters.py MODE``.

Each one reads the start message, says it is ready (unless its mode is not to), then breaks the
protocol in its own way on the first turn. ``probe`` behaves, and reports in its reply what the
doors answered outside a turn and to a wrong token.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

import httpx


def send(message: object) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive() -> dict:
    line = sys.stdin.readline()
    return json.loads(line) if line else {"type": "eof"}


async def call(url: str, name: str, arguments: dict) -> str:
    from mcp.client.client import Client

    try:
        async with Client(url, mode="legacy") as client:
            result = await client.call_tool(name, arguments)
    except Exception as exc:  # a wrong token: the server answers 404
        return f"failed ({type(exc).__name__})"
    return "error: " + result.content[0].text if result.is_error else "ok"


def proxy_status(start: dict) -> int:
    body = {"model": "x", "messages": [{"role": "user", "content": "hi"}]}
    return httpx.post(f"{start['model']['base_url']}/chat/completions", json=body, timeout=30).status_code


def main(mode: str) -> None:
    start = receive()
    if mode == "no_ready":
        send({"type": "reply", "text": "hello"})
        time.sleep(5)
        return
    observed = {}
    if mode == "probe":
        url = start["mcp_url"]
        observed["before"] = asyncio.run(call(url, "get_balance", {"account_id": "ACC-1"}))
        observed["wrong_token"] = asyncio.run(call(url.rsplit("/", 1)[0] + "/wrong", "get_balance", {}))
        observed["proxy_before"] = proxy_status(start)
        observed["secrets"] = sorted(k for k in os.environ if "KEY" in k and not k.startswith("CRMBENCH_"))
    send({"type": "ready", "name": f"cheater-{mode}"})
    turn = receive()
    if mode == "crash":
        sys.stderr.write("about to crash: the last words\n")
        sys.stderr.flush()
        raise SystemExit(3)
    if mode == "garbage":
        sys.stdout.write("this is not json\n")
    elif mode == "not_object":
        send([1, 2, 3])
    elif mode == "oversized":
        sys.stdout.write('{"type": "reply", "text": "' + "x" * (17 * 1024 * 1024))
    elif mode == "silent_exit":
        return
    elif mode == "sleep":
        time.sleep(60)
    elif mode == "gives_up":
        send({"type": "error", "message": "cannot reach my planner"})
    elif mode == "two_replies":
        send({"type": "reply", "text": "one"})
        send({"type": "reply", "text": "two"})
    elif mode == "unknown":
        send({"type": "teleport"})
    elif mode == "probe":
        send({"type": "route", "node": "balance", "tools": ["get_balance"]})
        routed = receive()
        observed["routed"] = routed
        observed["in_turn"] = asyncio.run(call(start["mcp_url"], "get_balance", {"account_id": "ACC-1"}))
        observed["proxy_in_turn"] = proxy_status(start)
        observed["turn"] = [turn["turn"], len(turn["conversation"])]
        send({"type": "reply", "text": json.dumps(observed)})
        receive()  # the end
        return
    time.sleep(30)


if __name__ == "__main__":
    main(sys.argv[1])
