"""Shared by the payments tests: the environment class, builders and one-line call helpers.

Every call goes through ``env.call(name, args)``, the entry point models use.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import ROUND_FLOOR, Decimal
from pathlib import Path
from typing import Any

from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import discover

ROOT = Path(__file__).parents[3]
ENV_DIR = ROOT / "envs"
SEED = ENV_DIR / "payments" / "seed.json"
TASKS = ROOT / "tasks" / "payments.yaml"
GRAPH = ROOT / "agents" / "payments.yaml"

PaymentsEnvironment: type[ToolEnvironment] = discover([ENV_DIR])["payments"]


def make(override: dict[str, Any] | None = None, seed: int = 0) -> ToolEnvironment:
    return PaymentsEnvironment(override or {}, seed=seed)


def ok(env: ToolEnvironment, name: str, **args: Any) -> Any:
    call = env.call(name, args)
    assert call.status == "ok", f"{name}({args}) -> {call.status}: {call.error}"
    return call.result


def code_of(env: ToolEnvironment, name: str, **args: Any) -> str | None:
    """The rejection code of a call, or None when it was not rejected."""
    call = env.call(name, args)
    return str(call.error["code"]) if call.status == "rejected" and call.error else None


def floor_points(amount: Decimal) -> int:
    return int((amount * 10).to_integral_value(rounding=ROUND_FLOOR))


def walk(tree: Any) -> Iterator[Any]:
    """Every leaf of a state tree."""
    if isinstance(tree, dict):
        for value in tree.values():
            yield from walk(value)
    elif isinstance(tree, list):
        for value in tree:
            yield from walk(value)
    else:
        yield tree
