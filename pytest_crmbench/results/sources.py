"""Where a task and each of its checks are written: the task files behind a report.

A result record names its checks (``state[0] accounts.ACC-1.balance``) but not the task's user
brief or the YAML line of each check; the report reads them from the task files. Files that fail
to load are reported, not fatal: a report of saved runs must still be written when someone has
since broken a task file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from pytest_crmbench.core.errors import CrmbenchError
from pytest_crmbench.core.loader import line_of, parse_yaml, task_records
from pytest_crmbench.core.spec import Contract, Task

_CHECK_NAME = re.compile(r"^(?P<kind>[a-z.]+)\[(?P<index>[^\]]+)\](?: (?P<subject>\S+))?")


@dataclass(frozen=True)
class TaskSource:
    """A task as written: the model, its file (as shown) and the line of every declared check."""

    task: Task
    file: str
    line: int
    node: yaml.Node = field(repr=False, compare=False)

    def check_line(self, check_name: str) -> int:
        """The YAML line of the check a verdict is named after (the task's line when unknown)."""
        loc = check_location(check_name, self.task.contract)
        return line_of(self.node, loc) if loc else self.line


@dataclass(frozen=True)
class Sources:
    tasks: dict[str, TaskSource]
    problems: list[str]


def check_location(name: str, contract: Contract) -> tuple[str | int, ...] | None:
    """The contract field a check verdict comes from, as a path into the task record."""
    match = _CHECK_NAME.match(name)
    if match is None:
        return None
    kind, index, subject = match["kind"], match["index"], match["subject"]
    number = int(index) if index.isdigit() else None
    if kind == "reply":
        return ("contract", "reply_criteria", number) if number is not None else ("contract", "reply_criteria")
    if kind == "action" and subject:
        tools = [action.tool for action in contract.expected_actions]
        return ("contract", "expected_actions", tools.index(subject)) if subject in tools else None
    keyed = {"state": ("expected_state",), "forbidden.state": ("forbidden", "state")}
    if kind in keyed and subject and number is not None:
        return ("contract", *keyed[kind], subject)
    listed = {
        "param": ("expected_params",),
        "order": ("action_order",),
        "forbidden.action": ("forbidden", "actions"),
        "forbidden.param": ("forbidden", "params"),
        "collateral": ("forbidden", "protected"),
    }
    if kind in listed and number is not None:
        return ("contract", *listed[kind], number)
    return None


def load_sources(files: Iterable[Path], root: Path | None = None) -> Sources:
    """Every task of ``files`` with its YAML nodes; files that do not load become problems."""
    tasks: dict[str, TaskSource] = {}
    problems: list[str] = []
    for path in files:
        shown = _shown(path, root)
        try:
            data, tree = parse_yaml(path.read_text(encoding="utf-8"), shown)
            records = task_records(data, tree, path=path, shown=shown)
        except (OSError, UnicodeDecodeError, CrmbenchError) as exc:
            problems.append(f"{shown}: not read ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})")
            continue
        nodes = tree.value if isinstance(tree, yaml.SequenceNode) else []
        for record in records:
            tasks[record.task.id] = TaskSource(record.task, shown, record.line, nodes[record.index])
    return Sources(tasks, problems)


def task_files_in(folder: Path) -> list[Path]:
    """The task files of a folder: every ``*.yaml`` except ``manifest.yaml`` (the default globs)."""
    return sorted(p for p in folder.glob("*.y*ml") if p.name not in ("manifest.yaml", "manifest.yml"))


def _shown(path: Path, root: Path | None) -> str:
    if root is not None and path.resolve().is_relative_to(root.resolve()):
        return path.resolve().relative_to(root.resolve()).as_posix()
    return str(path)
