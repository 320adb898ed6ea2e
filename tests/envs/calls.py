"""One-line tool calls for the domain tests. Every call goes through ``env.call(name, args)``, the
entry point models use, so a test sees exactly what a model would."""

from __future__ import annotations

from typing import Any

from pytest_crmbench.env.environment import ToolEnvironment


def ok(env: ToolEnvironment, tool: str, /, **args: Any) -> Any:
    """The result of a call that must succeed."""
    call = env.call(tool, args)
    assert call.status == "ok", f"{tool}({args}) -> {call.status}: {call.error}"
    return call.result


def code_of(env: ToolEnvironment, tool: str, /, **args: Any) -> str | None:
    """The rejection code of a call, or None when it was not rejected."""
    call = env.call(tool, args)
    return str(call.error["code"]) if call.status == "rejected" and call.error else None
