"""The whole task set of a release: every task file, the domain environments and graphs.

Loading never stops at the first problem: every file is read, and every problem (a malformed
record, a duplicate id across files, a missing environment or graph) is collected as a
:class:`~pytest_crmbench.core.errors.SpecError` so ``crmbench validate`` reports them together.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pytest_crmbench.core.display import shown
from pytest_crmbench.core.errors import CrmbenchError, SpecError, SpecErrors
from pytest_crmbench.core.loader import TaskRecord, field_line, format_loc, load_task_files
from pytest_crmbench.core.taskfiles import TaskFiles
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.registry import discover
from pytest_crmbench.reference.graph import CapabilityGraph, find_graph, load_graph


@dataclass
class TaskSet:
    """Loaded content plus the problems found while loading it."""

    tasks_dir: Path
    envs_dir: Path | None
    records: list[TaskRecord] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    environments: dict[str, type[ToolEnvironment]] = field(default_factory=dict)
    graphs: dict[str, CapabilityGraph] = field(default_factory=dict)
    graph_files: dict[str, Path] = field(default_factory=dict)
    problems: list[SpecError] = field(default_factory=list)

    def domains(self) -> list[str]:
        return sorted({record.task.domain for record in self.records})


def problem(record: TaskRecord, loc: tuple[int | str, ...], message: str) -> SpecError:
    """A problem located at a field of a record (file, line, task id, dotted field)."""
    return SpecError(
        message,
        file=record.shown_path or record.path,
        line=field_line(record, loc),
        task_id=record.task.id,
        field=format_loc(loc) or None,
    )


def task_files(tasks_dir: Path) -> list[Path]:
    """Every task file of the tasks folder (the one rule of :mod:`pytest_crmbench.core.taskfiles`)."""
    return TaskFiles.folder().find(tasks_dir)


def load_task_set(tasks_dir: Path, envs_dir: Path | None, agents_dir: Path) -> TaskSet:
    """Load every task file, environment and graph; problems are collected, not raised.

    Without ``envs_dir`` no environment is imported (the exposure audit reads tasks and graphs only).
    """
    task_set = TaskSet(tasks_dir, envs_dir, files=task_files(tasks_dir))
    if not tasks_dir.is_dir():
        task_set.problems.append(SpecError("no such tasks directory", file=shown(tasks_dir)))
    loaded = load_task_files(task_set.files, shown)
    task_set.records = loaded.records
    task_set.problems.extend(loaded.problems)
    if envs_dir is not None:
        try:
            task_set.environments = discover([envs_dir])
        except CrmbenchError as exc:
            task_set.problems.append(SpecError(str(exc), file=shown(envs_dir)))
    _load_graphs(task_set, agents_dir)
    return task_set


def _load_graphs(task_set: TaskSet, agents_dir: Path) -> None:
    for domain in task_set.domains():
        path = find_graph([agents_dir], domain)
        if path is None:
            continue  # reported per task by the structural checks, where the domain is named
        try:
            task_set.graphs[domain] = load_graph(path, display_path=shown(path))
        except SpecErrors as exc:
            task_set.problems.extend(exc.errors)
        task_set.graph_files[domain] = path
