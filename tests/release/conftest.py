"""A task directory built per test from fixture files, validated against the mini domain."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_crmbench.cli.main import main

DATA = Path(__file__).parents[1] / "data"
FIXTURES = DATA / "release"
MINI_TASKS = DATA / "tasks" / "mini.yaml"
ENVS, AGENTS = DATA / "envs", DATA / "agents"

MakeTasks = Callable[..., Path]


@pytest.fixture
def make_tasks(tmp_path: Path) -> MakeTasks:
    """``make_tasks("unknown_tool.yaml", ...)``: a tasks dir with those files and the fixture manifest."""

    def make(*names: str, mini: bool = False) -> Path:
        tasks = tmp_path / "tasks"
        tasks.mkdir(exist_ok=True)
        shutil.copy(FIXTURES / "manifest.yaml", tasks / "manifest.yaml")
        for name in names:
            shutil.copy(FIXTURES / name, tasks / name)
        if mini:
            shutil.copy(MINI_TASKS, tasks / "mini.yaml")
        return tasks

    return make


def content_args(tasks: Path) -> list[str]:
    return ["--tasks", str(tasks), "--envs", str(ENVS), "--agents", str(AGENTS)]


def run_validate(tasks: Path, *flags: str, fuzz: bool = False) -> int:
    """``crmbench validate``; without the tool fuzz unless asked (the mini domain's broken_tool
    crashes on purpose, and test_fuzz.py covers the fuzz)."""
    cache = [] if any(f.startswith("--cache-dir") for f in flags) else ["--no-cache"]  # never the checkout's cache
    return main(["validate", *flags, *cache, *([] if fuzz else ["--fuzz-examples=0"]), *content_args(tasks)])
