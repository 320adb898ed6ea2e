"""Shared by the itsm tests: the environment class, a builder and one-line call helpers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import discover
from tests.envs.calls import code_of as code_of
from tests.envs.calls import ok as ok

ROOT = Path(__file__).parents[3]
ENV_DIR = ROOT / "envs"
TASKS = ROOT / "tasks" / "itsm.yaml"
GRAPH = ROOT / "agents" / "itsm.yaml"

ItsmEnvironment: type[ToolEnvironment] = discover([ENV_DIR])["itsm"]


def make(override: dict[str, Any] | None = None, seed: int = 0) -> ToolEnvironment:
    return ItsmEnvironment(override or {}, seed=seed)
