"""Shared by the customer-support tests: the environment class, builders and one-line call helpers.

Every call goes through ``env.call(name, args)``, the entry point models use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import discover
from tests.envs.calls import code_of as code_of
from tests.envs.calls import ok as ok

ROOT = Path(__file__).parents[3]
ENV_DIR = ROOT / "envs"
SEED = ENV_DIR / "customer_support" / "seed.json"
TASKS = ROOT / "tasks" / "customer_support.yaml"
GRAPH = ROOT / "agents" / "customer_support.yaml"

SupportEnvironment: type[ToolEnvironment] = discover([ENV_DIR])["customer_support"]


def make(override: dict[str, Any] | None = None, seed: int = 0) -> ToolEnvironment:
    return SupportEnvironment(override or {}, seed=seed)
