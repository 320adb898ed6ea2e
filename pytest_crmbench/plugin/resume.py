"""``--crm-resume``: a saved run is continued, not repeated.

The controller checks the saved run against this session (same settings, same contracts) and
merges its results; wherever items are collected (the controller alone, or every xdist worker,
which get the list in ``workerinput``) :class:`ResumeFilter` deselects the items it already has.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_crmbench.results.rundir import SavedRun, resume_mismatches

DONE_INPUT = "crm_done"
"""``workerinput`` key: the (task id, trial) pairs a resumed run already has."""
DESELECTED_OUTPUT = "crm_resume_deselected"
"""``workeroutput`` key: how many items a worker deselected because the run has them (a finished
run resumed under ``-n`` is complete, not "collected nothing": the controller collects nothing)."""


class ResumeFilter:
    """Deselects items that already have a scored result (infra and error results are re-run)."""

    def __init__(self, done: set[tuple[str, int]]) -> None:
        self.done = done
        self.deselected = 0
        """Items this process deselected because the saved run has them."""

    @pytest.hookimpl(trylast=True)  # after -k/-m: what it deselects is what the run already has
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        skipped = [item for item in items if self._done(item)]
        self.deselected += len(skipped)
        if skipped:
            items[:] = [item for item in items if not self._done(item)]
            config.hook.pytest_deselected(items=skipped)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        output = getattr(session.config, "workeroutput", None)
        if output is not None:
            output[DESELECTED_OUTPUT] = self.deselected

    def _done(self, item: pytest.Item) -> bool:
        record = getattr(item, "record", None)
        return record is not None and (record.task.id, getattr(item, "trial", 0)) in self.done


def register(config: pytest.Config, done: set[tuple[str, int]]) -> ResumeFilter:
    resume_filter = ResumeFilter(done)
    config.pluginmanager.register(resume_filter, "crmbench-resume")
    return resume_filter


def register_on_worker(config: pytest.Config) -> None:
    """On an xdist worker: the controller's list of finished items, if it sent one."""
    done = getattr(config, "workerinput", {}).get(DONE_INPUT)
    if done:
        register(config, {(task, int(trial)) for task, trial in done})


def deselected_by_worker(node: Any) -> int:
    """What a finished worker's :class:`ResumeFilter` deselected (0 if it sent nothing)."""
    output = getattr(node, "workeroutput", None) or {}
    return int(output.get(DESELECTED_OUTPUT, 0) or 0)


def send_to_worker(node: Any, done: set[tuple[str, int]]) -> None:
    """Workers collect; they deselect finished items with the controller's list, so every worker
    collects the same items."""
    node.workerinput[DONE_INPUT] = sorted(done)


def resumed_manifest(saved: SavedRun, manifest: dict[str, Any], now: str) -> dict[str, Any]:
    """The saved run's manifest, continued; a UsageError when this session would run it otherwise."""
    problems = resume_mismatches(saved.manifest, manifest)
    if problems:
        raise pytest.UsageError(
            f"--crm-resume: {saved.path} was run with other settings; start a new run instead:\n  "
            + "\n  ".join(problems)
        )
    return {**saved.manifest, "resumed_at": [*saved.manifest.get("resumed_at", []), now]}
