"""``tasks/manifest.yaml``: the benchmark version, release invariants and release targets.

The invariants are what a release promises about its own task set (counts per domain and
difficulty, tasks by number of capability tags, forbidden-action declarations, the rows of spec
table 2); ``crmbench
validate`` fails when the task files disagree, so adding a task forces a
deliberate manifest change (spec §A.5 step 4). The targets are the figures of the full 555-task
release that ``crmbench inventory`` compares against; they are copied into the manifest so the
project never reads the specification at run time.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_crmbench.core.display import shown
from pytest_crmbench.core.errors import SpecError, SpecErrors
from pytest_crmbench.core.loader import parse_yaml, validation_errors
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.taskfiles import MANIFEST_NAME as MANIFEST
from pytest_crmbench.release.tablerows import tasks_with
from pytest_crmbench.release.taskset import TaskSet


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Invariants(_Model):
    """Exact counts the task set must have; an undeclared invariant is not checked."""

    tasks_per_domain: dict[str, int] | None = None
    tasks_per_difficulty: dict[str, int] | None = None
    tasks_per_tag_count: dict[Literal["one", "two", "three", "four"], int] | None = Field(
        default=None, description="Tasks with one, two, three and four capability tags (spec §A.6: 422/73/41/19)."
    )
    forbidden_action_declarations: int | None = Field(
        default=None, description="Entries of every task's forbidden actions together (spec table 5: 206)."
    )
    tasks_with: dict[str, int] | None = Field(
        default=None,
        description="Tasks counted in each named row of spec table 2 (`crmbench inventory` shows them all).",
    )


class Manifest(_Model):
    benchmark: str = "crmbench"
    version: str = Field(description="The task-set version runs record; bump it whenever the lock changes.")
    invariants: Invariants = Field(default_factory=Invariants)
    targets: dict[str, Any] = Field(
        default_factory=dict, description="Figures of the full release, compared row by row by `crmbench inventory`."
    )


def manifest_path(tasks_dir: Path) -> Path:
    return tasks_dir / MANIFEST


def load_manifest(tasks_dir: Path) -> Manifest:
    """Parse and validate the manifest; errors name the file, line and field."""
    path = manifest_path(tasks_dir)
    name = shown(path)
    if not path.is_file():
        raise SpecErrors([SpecError("no release manifest (version, invariants, targets)", file=name)])
    data, root = parse_yaml(path.read_text(encoding="utf-8"), name)
    if not isinstance(data, dict) or root is None:
        raise SpecErrors([SpecError("the manifest must be a YAML mapping", file=name, line=1)])
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        raise SpecErrors(validation_errors(exc, root, name)) from None


def invariant_problems(manifest: Manifest, task_set: TaskSet) -> list[SpecError]:
    """Each declared count that the task files do not have."""
    name = shown(manifest_path(task_set.tasks_dir))
    tasks = [r.task for r in task_set.records]
    actual: dict[str, Counter[str]] = {
        "tasks_per_domain": Counter(t.domain for t in tasks),
        "tasks_per_difficulty": Counter(t.difficulty for t in tasks),
        "tasks_per_tag_count": Counter(TAG_COUNTS.get(len(t.capabilities), str(len(t.capabilities))) for t in tasks),
    }
    problems = []
    for invariant, counts in actual.items():
        declared: dict[str, int] | None = getattr(manifest.invariants, invariant)
        if declared is None:
            continue
        for key in sorted(set(declared) | set(counts)):
            if declared.get(key, 0) != counts.get(key, 0):
                problems.append(
                    _disagrees(name, f"{invariant}.{key}", declared.get(key, 0), counts.get(key, 0), "task(s)")
                )
    problems.extend(_row_problems(name, manifest.invariants.tasks_with, tasks))
    declarations = sum(len(t.contract.forbidden.actions) for t in tasks)
    promised = manifest.invariants.forbidden_action_declarations
    if promised is not None and promised != declarations:
        problems.append(_disagrees(name, "forbidden_action_declarations", promised, declarations, "declaration(s)"))
    return problems


def _row_problems(name: str, declared: dict[str, int] | None, tasks: list[Task]) -> list[SpecError]:
    """Each declared table-2 row the task files do not have; a row name that is not one is an error."""
    if declared is None:
        return []
    actual = tasks_with(tasks)
    problems = []
    for row, promised in declared.items():
        if row not in actual:
            known = ", ".join(actual)
            message = f"no table-2 row {row!r}; the rows are {known}"
            problems.append(SpecError(message, file=name, field=f"invariants.tasks_with.{row}"))
        elif actual[row] != promised:
            problems.append(_disagrees(name, f"tasks_with.{row}", promised, actual[row], "task(s)"))
    return problems


TAG_COUNTS = {1: "one", 2: "two", 3: "three", 4: "four"}


def _disagrees(name: str, invariant: str, declared: int, actual: int, unit: str) -> SpecError:
    return SpecError(
        f"the manifest declares {declared} {unit}, the task files have {actual} "
        "(a change to the task set needs a new version: update the manifest, then --write-lock)",
        file=name,
        field=f"invariants.{invariant}",
    )
