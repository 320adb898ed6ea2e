"""Typed stash keys: crmbench keeps its per-run and per-item data here, never on attributes."""

from __future__ import annotations

from concurrent.futures import Future

import pytest

from pytest_crmbench.core.evidence import Evidence
from pytest_crmbench.core.loader import TaskIds
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import discover
from pytest_crmbench.grading.verdict import TaskVerdict
from pytest_crmbench.run.play import Played
from pytest_crmbench.run.settings import RunSettings

settings_key = pytest.StashKey[RunSettings]()
environments_key = pytest.StashKey[dict[str, type[ToolEnvironment]]]()
registered_markers_key = pytest.StashKey[set[str]]()
task_ids_key = pytest.StashKey[TaskIds]()
"""Where each collected task id was defined, to refuse the same id in two files."""
evidence_key = pytest.StashKey[Evidence]()  # on item.stash
verdict_key = pytest.StashKey[TaskVerdict]()  # on item.stash
played_key = pytest.StashKey[Future[Played]]()  # on item.stash, under --crm-concurrency


def environments(config: pytest.Config) -> dict[str, type[ToolEnvironment]]:
    """Domain environments, discovered once per process on first use (not for unit-test-only runs)."""
    if environments_key not in config.stash:
        extra: list[type[ToolEnvironment]] = []
        config.hook.pytest_crmbench_update_environments(environments=extra, config=config)
        config.stash[environments_key] = discover(config.stash[settings_key].env_dirs, extra)
    return config.stash[environments_key]
