"""Shared by the field service tests: the environment class, builders and one-line call helpers.

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
SEED = ENV_DIR / "field_service" / "seed.json"
README = ENV_DIR / "field_service" / "README.md"
TASKS = ROOT / "tasks" / "field_service.yaml"
GRAPH = ROOT / "agents" / "field_service.yaml"

FieldServiceEnvironment: type[ToolEnvironment] = discover([ENV_DIR])["field_service"]


def make(override: dict[str, Any] | None = None, seed: int = 0) -> ToolEnvironment:
    return FieldServiceEnvironment(override or {}, seed=seed)
