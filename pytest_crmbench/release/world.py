"""The world a task starts in: the domain's state model and invariants (spec §A.5 step 2).

The seed must pass both, once per domain. A task's ``initial_state`` override must keep the world
consistent: every value valid for the state model, and no invariant broken that the seed keeps
(a transfer record without the matching balance change is a broken world). Each problem names
the dotted path: ``envs/bank: field 'seed.accounts.ACC-1.balance': ...`` for the seed, and
``tasks/bank.yaml:120: task 'x': field 'initial_state.accounts.ACC-1.balance': ...`` for a task.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_crmbench.core.display import shown
from pytest_crmbench.core.errors import SpecError
from pytest_crmbench.core.loader import TaskRecord
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.env.state import StateError
from pytest_crmbench.release.taskset import problem


def seed_problems(environment: type[ToolEnvironment], folder: Path) -> list[SpecError]:
    """Every field of the domain's default state the model refuses, or every invariant it breaks."""
    where = shown(folder)
    try:
        violations = environment.default_violations()
    except StateError as exc:
        return [SpecError(message, file=where, field=_field("seed", path)) for path, message in exc.problems]
    except Exception as exc:  # a crashing default_state() is a broken domain, reported, not raised
        return [SpecError(f"default_state() failed: {type(exc).__name__}: {exc}", file=where)]
    return [SpecError(v.message, file=where, field=_field("seed", v.path)) for v in violations]


def initial_state(
    record: TaskRecord, environment: type[ToolEnvironment]
) -> tuple[dict[str, Any] | None, list[SpecError]]:
    """The state the task resets to and its problems; None when it cannot be built.

    Problems of the seed itself are left to :func:`seed_problems` (reported once, not per task).
    """
    override = record.task.initial_state
    try:
        seed_violations = set(environment.default_violations())
    except Exception:
        return None, []  # the seed is broken: reported once for the domain
    try:
        env = environment(override)
    except StateError as exc:
        return None, [problem(record, _loc(path), message) for path, message in exc.problems]
    except Exception as exc:  # a bad override must be reported, not crash the whole validation
        return None, [problem(record, ("initial_state",), f"cannot build the reset state: {type(exc).__name__}: {exc}")]
    # The live state of an environment nobody plays is already a private copy of the reset state:
    # ``env.initial_state`` would clone it once more (73 clones a payments collection).
    if not override:
        return env.state, []
    broken = [v for v in env.violations() if v not in seed_violations]
    return env.state, [problem(record, _loc(v.path), f"breaks a world invariant: {v.message}") for v in broken]


def _field(root: str, path: str) -> str:
    return f"{root}.{path}" if path else root


def _loc(path: str) -> tuple[int | str, ...]:
    parts = [int(part) if part.isascii() and part.isdigit() else part for part in path.split(".") if part]
    return ("initial_state", *parts)
