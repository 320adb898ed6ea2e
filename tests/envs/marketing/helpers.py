"""Shared by the marketing tests: the environment class, builders and one-line call helpers.

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
SEED = ENV_DIR / "marketing" / "seed.json"
TASKS = ROOT / "tasks" / "marketing.yaml"
GRAPH = ROOT / "agents" / "marketing.yaml"

MarketingEnvironment: type[ToolEnvironment] = discover([ENV_DIR])["marketing"]


def make(override: dict[str, Any] | None = None, seed: int = 0) -> ToolEnvironment:
    return MarketingEnvironment(override or {}, seed=seed)
