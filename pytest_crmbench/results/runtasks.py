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
from pytest_crmbench.core.errors import SpecError, SpecErrors
from pytest_crmbench.core.hashing import combined_hash, content_hash
from pytest_crmbench.core.loader import load_task_file
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
    """The release lock's overall hash (``tasks/lock.json``), when the project has one."""

    @property
    def hash(self) -> str:
        parts = {f"task:{task_id}": content_hash(task) for task_id, task in self.tasks.items()}
        parts.update({f"environment:{domain}": combined_hash(files) for domain, files in self.environments.items()})
        return combined_hash(parts)


def load_run_tasks(root: Path, settings: RunSettings) -> RunTasks:
    """Every task of the configured files (raises SpecErrors like collection would)."""
    files = settings.task_files.find(root)
    tasks: dict[str, Task] = {}
    where: dict[str, str] = {}
    for path in files:
        for record in load_task_file(path, display_path=shown(path, root)):
            if record.task.id in where:
                raise SpecErrors(
                    [
                        SpecError(
                            f"duplicate task id (also defined at {where[record.task.id]})",
                            file=record.shown_path,
                            line=record.line,
                            task_id=record.task.id,
                            field="id",
                        )
                    ]
                )
            tasks[record.task.id] = record.task
            where[record.task.id] = record.location
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
        lock=lock_hash(root / "tasks"),
    )
