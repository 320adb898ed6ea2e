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
from tests.envs.calls import code_of as code_of
from tests.envs.calls import ok as ok

ROOT = Path(__file__).parents[3]
ENV_DIR = ROOT / "envs"
SEED = ENV_DIR / "payments" / "seed.json"
TASKS = ROOT / "tasks" / "payments.yaml"
GRAPH = ROOT / "agents" / "payments.yaml"

PaymentsEnvironment: type[ToolEnvironment] = discover([ENV_DIR])["payments"]


def make(override: dict[str, Any] | None = None, seed: int = 0) -> ToolEnvironment:
    return PaymentsEnvironment(override or {}, seed=seed)


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
