"""Where a task and each of its checks are written: the task files behind a report.

A result record names its checks (``state[0] accounts.ACC-1.balance``) but not the task's user
brief or the YAML line of each check; the report reads them from the task files. Files that fail
to load are reported, not fatal: a report of saved runs must still be written when someone has
since broken a task file.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pytest_crmbench.core.display import shown as display
from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.core.families import declared_at
from pytest_crmbench.core.loader import LineTree, line_of, parse_task_text
from pytest_crmbench.core.spec import Contract, Task
from pytest_crmbench.core.taskfiles import TaskFiles


@dataclass(frozen=True)
class TaskSource:
    """A task as written: the model, its file (as shown) and the line of every declared check."""

    task: Task
    file: str
    line: int
    lines: LineTree | None = field(default=None, repr=False, compare=False)

    def check_line(self, check_name: str) -> int:
        """The YAML line of the check a verdict is named after (the task's line when unknown)."""
        loc = check_location(check_name, self.task.contract)
        return line_of(self.lines, loc) if loc and self.lines is not None else self.line


@dataclass(frozen=True)
class Sources:
    tasks: dict[str, TaskSource]
    problems: list[str]


def check_location(name: str, contract: Contract) -> tuple[str | int, ...] | None:
    """The contract field a check verdict comes from, as a path into the task record."""
    return declared_at(contract, name) or None


def load_sources(files: Iterable[Path], root: Path | None = None) -> Sources:
    """Every task of ``files`` with its YAML nodes; files that do not load become problems."""
    tasks: dict[str, TaskSource] = {}
    problems: list[str] = []
    for path in files:
        shown = display(path, root)
        try:
            # By text, as collection parsed it: the report at a run's end reuses those records
            # (a 96-task file is 0.4 s to parse) and a file edited since parses anew.
            records = parse_task_text(path.read_text(encoding="utf-8"), path=path, display_path=shown)
        except (OSError, UnicodeDecodeError, CrmbenchError) as exc:
            problems.append(f"{shown}: not read ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})")
            continue
        for record in records:
            tasks[record.task.id] = TaskSource(record.task, shown, record.line, record.lines)
    return Sources(tasks, problems)


def task_files_in(folder: Path) -> list[Path]:
    """The task files of a folder (the one rule of :mod:`pytest_crmbench.core.taskfiles`)."""
    return TaskFiles.folder().find(folder)
