"""``tasks/manifest.yaml``: the benchmark version, release invariants and release targets.

The invariants are what a release promises about its own task set (counts per domain and
difficulty); ``crmbench validate`` fails when the task files disagree, so adding a task forces a
deliberate manifest change (spec §A.5 step 4). The targets are the figures of the full 555-task
release that ``crmbench inventory`` compares against; they are copied into the manifest so the
project never reads the specification at run time.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_crmbench.core.display import shown
from pytest_crmbench.core.errors import SpecError, SpecErrors
from pytest_crmbench.core.loader import parse_yaml, validation_errors
from pytest_crmbench.core.taskfiles import MANIFEST_NAME as MANIFEST
from pytest_crmbench.release.taskset import TaskSet


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Invariants(_Model):
    """Exact counts the task set must have; an undeclared invariant is not checked."""

    tasks_per_domain: dict[str, int] | None = None
    tasks_per_difficulty: dict[str, int] | None = None


class Manifest(_Model):
    benchmark: str = "crmbench"
    version: str = Field(description="The task-set version runs record; bump it whenever the lock changes.")
    invariants: Invariants = Field(default_factory=Invariants)
    free_text_arguments: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Domain -> 'tool.argument' whose values are prose the agent composes (memos, reasons); "
        "the information-sufficiency audit does not look for them in the user instruction.",
    )
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
    actual: dict[str, Counter[str]] = {
        "tasks_per_domain": Counter(r.task.domain for r in task_set.records),
        "tasks_per_difficulty": Counter(r.task.difficulty for r in task_set.records),
    }
    problems = []
    for invariant, counts in actual.items():
        declared: dict[str, int] | None = getattr(manifest.invariants, invariant)
        if declared is None:
            continue
        for key in sorted(set(declared) | set(counts)):
            if declared.get(key, 0) != counts.get(key, 0):
                problems.append(
                    SpecError(
                        f"the manifest declares {declared.get(key, 0)} task(s), the task files have {counts.get(key, 0)} "
                        "(a change to the task set needs a new version: update the manifest, then --write-lock)",
                        file=name,
                        field=f"invariants.{invariant}.{key}",
                    )
                )
    return problems


def free_text_problems(manifest: Manifest, task_set: TaskSet) -> list[SpecError]:
    """Free-text declarations that name no argument of the domain's tools (a typo exempts nothing)."""
    name = shown(manifest_path(task_set.tasks_dir))
    problems = []
    for domain, arguments in manifest.free_text_arguments.items():
        environment = task_set.environments.get(domain)
        for argument in arguments:
            tool, _, arg = argument.partition(".")
            spec = environment.tools.get(tool) if environment else None
            if spec is None or arg not in spec.args_model.model_fields:
                problems.append(
                    SpecError(
                        f"{argument!r} is not an argument of a {domain} tool", file=name, field="free_text_arguments"
                    )
                )
    return problems
