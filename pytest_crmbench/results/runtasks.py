"""The tasks a run is measured against, and their content hash (recorded in the run manifest).

The hash covers every task file the configuration names (``crm_task_files`` minus
``crm_task_exclude``) and the source files of their domains' environments, not the ``-k``/``-m``
selection: a resumed run may select differently, but must run against the same contracts and
the same environments. It is recomputed from the working tree (unlike the committed release lock,
which ``crmbench validate --write-lock`` refreshes) so that an uncommitted edit refuses a resume.
It is computed on the controller, which under xdist collects nothing itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_crmbench.core.display import shown
from pytest_crmbench.core.hashing import combined_hash, content_hash
from pytest_crmbench.core.loader import load_task_files
from pytest_crmbench.core.spec import Task
from pytest_crmbench.release.lock import environment_files, lock_hash
from pytest_crmbench.run.settings import RunSettings


@dataclass(frozen=True)
class RunTasks:
    files: list[str]
    """Task files relative to the root, sorted."""
    tasks: dict[str, Task]
    environments: dict[str, dict[str, str]]
    """Domain -> relative source file -> hash, for the domains of the tasks."""
    lock: str | None
    """The overall hash of the release lock of the folder holding the task files (``tasks/lock.json``
    by default), when they are all in one folder and it has a lock; else None."""

    @property
    def hash(self) -> str:
        parts = {f"task:{task_id}": content_hash(task) for task_id, task in self.tasks.items()}
        parts.update({f"environment:{domain}": combined_hash(files) for domain, files in self.environments.items()})
        return combined_hash(parts)


def load_run_tasks(root: Path, settings: RunSettings) -> RunTasks:
    """Every task of the configured files (raises SpecErrors like collection would)."""
    files = settings.task_files.find(root)
    loaded = load_task_files(files, lambda path: shown(path, root))
    loaded.raise_problems()
    tasks = {record.task.id: record.task for record in loaded.records}
    domains = sorted({task.domain for task in tasks.values()})
    environments = {
        domain: environment_files(env_dir / domain)
        for env_dir in settings.env_dirs
        for domain in domains
        if (env_dir / domain).is_dir()
    }
    return RunTasks(
        files=[p.relative_to(root).as_posix() for p in files],
        tasks=tasks,
        environments=environments,
        lock=_release_lock(files),
    )


def _release_lock(files: list[Path]) -> str | None:
    """A lock describes one folder's task files (``crmbench validate --tasks DIR --write-lock``): a
    selection across folders has none, and a folder's lock is never another folder's."""
    folders = {path.parent for path in files}
    return lock_hash(folders.pop()) if len(folders) == 1 else None
