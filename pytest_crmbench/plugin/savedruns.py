"""Saved runs this session reads (``--crm-compare``'s baseline, ``--crm-resume``'s run), each
re-graded from its trajectories against this session's contracts before it is trusted (issue 11
item 9). Every refusal is a UsageError naming the option."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.results.gates import not_gate_worthy
from pytest_crmbench.results.records import ResultRecord
from pytest_crmbench.results.rundir import RunDirError, SavedRun, load_run
from pytest_crmbench.results.runset import finished
from pytest_crmbench.results.runtasks import RunTasks
from pytest_crmbench.results.verify import Contracts, verified


def load(path: Path, option: str) -> SavedRun:
    try:
        return load_run(path)
    except RunDirError as exc:
        raise pytest.UsageError(f"{option}: {exc}") from None


Environments = Callable[[], dict[str, type[ToolEnvironment]]]
"""This session's environments, discovered only when a saved run is checked against them."""


def verify(saved: SavedRun, option: str, task_set: RunTasks | None, envs: Environments) -> None:
    """Check a saved run against its trajectories; without a task set (collection reports the
    broken task files) there is nothing to check it against."""
    if task_set is None:
        return
    try:
        verified(saved, Contracts(task_set.tasks, envs(), task_set.hash))
    except CrmbenchError as exc:
        raise pytest.UsageError(f"{option}: {exc}") from None


def baseline(path: Path, task_set: RunTasks | None, envs: Environments) -> list[ResultRecord]:
    """The records of ``--crm-compare``'s run: verified and finished."""
    saved = load(path, "--crm-compare")
    refusal = not_gate_worthy(saved.manifest)
    if refusal is not None:
        raise pytest.UsageError(f"--crm-compare: {saved.path}: {refusal}")
    verify(saved, "--crm-compare", task_set, envs)
    if not finished(saved):
        raise pytest.UsageError(f"--crm-compare: {saved.path} did not finish; complete it with --crm-resume first")
    return saved.records
