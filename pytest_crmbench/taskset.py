"""The task set a run is measured against, and its content hash (recorded in the manifest).

The hash covers every task file the configuration names (``crm_task_files`` minus
``crm_task_exclude``), not the ``-k``/``-m`` selection: a resumed run may select differently, but
must run against the same contracts. It is computed on the controller, which under xdist
collects nothing itself. The release lock (``tasks/lock.json``, issue 6) will supersede
:func:`task_set_hash`; it is the one function to point at it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_crmbench.hashing import combined_hash, content_hash
from pytest_crmbench.loader import load_task_file
from pytest_crmbench.settings import RunSettings
from pytest_crmbench.spec import Task


@dataclass(frozen=True)
class TaskSet:
    files: list[str]
    """Paths relative to the root, sorted."""
    tasks: dict[str, Task]

    @property
    def hash(self) -> str:
        return task_set_hash(self.tasks)


def task_files(root: Path, settings: RunSettings) -> list[Path]:
    excluded = {p for pattern in settings.task_exclude for p in root.glob(pattern)}
    found = {p for pattern in settings.task_globs for p in root.glob(pattern) if p.is_file()}
    return sorted(found - excluded)


def load_task_set(root: Path, settings: RunSettings) -> TaskSet:
    """Every task of the configured files (raises SpecErrors like collection would)."""
    files = task_files(root, settings)
    tasks: dict[str, Task] = {}
    for path in files:
        for record in load_task_file(path):
            tasks[record.task.id] = record.task
    return TaskSet(files=[p.relative_to(root).as_posix() for p in files], tasks=tasks)


def task_set_hash(tasks: dict[str, Task]) -> str:
    return combined_hash({task_id: content_hash(task) for task_id, task in tasks.items()})
