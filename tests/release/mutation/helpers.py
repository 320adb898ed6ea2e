"""Build a mini task, replay its gold path and derive its trajectories, without any files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_crmbench.core.loader import TaskRecord
from pytest_crmbench.core.spec import Task
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.release.mutation.hints import MutationHints, Situation
from pytest_crmbench.release.mutation.operators import Gold, Mutant, derive
from pytest_crmbench.release.mutation.run import TaskAudit, audit_task
from pytest_crmbench.release.mutation.trajectory import replay, steps_of

TRANSFER_50 = [
    {"tool": "validate_transfer", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount": 50}},
    {"tool": "execute_transfer", "args": {"from_account": "ACC-1", "to_account": "ACC-2", "amount": 50}},
]


def mini_task(path: list[dict[str, Any]], contract: dict[str, Any] | None = None, **fields: Any) -> Task:
    return Task.model_validate(
        {
            "id": "mini_audit_case_01",
            "domain": "mini",
            "capabilities": ["transfer"],
            "difficulty": "easy",
            "user": {"persona": "Ada, owner of ACC-1.", "goal": "Send $50 from ACC-1 to ACC-2.", "stop": "When done."},
            "contract": contract or {"expected_actions": ["execute_transfer"]},
            "gold": {"path": path, "reply": "Done."},
            **fields,
        }
    )


def prepared(task: Task, environment: type[ToolEnvironment]) -> tuple[Gold, Situation]:
    played = replay(task, environment, steps_of(task.gold.path))
    gold = Gold(played.steps, tuple(played.evidence.tool_calls))
    kinds = {name: spec.kind for name, spec in environment.tools.items()}
    evidence = played.evidence
    return gold, Situation(task, gold.calls, evidence.initial_state, evidence.final_state, {}, kinds)


def mutants(task: Task, environment: type[ToolEnvironment], hints: MutationHints | None = None) -> dict[str, Mutant]:
    gold, situation = prepared(task, environment)
    return {m.id: m for m in derive(environment, hints or MutationHints(), gold, situation)}


def audited(
    task: Task | TaskRecord, environment: type[ToolEnvironment], hints: MutationHints | None = None
) -> TaskAudit:
    """The mutation audit of one task (a bare task is given a record of its own), after its gold replay."""
    record = task if isinstance(task, TaskRecord) else TaskRecord(task, Path(f"{task.domain}.yaml"), 1)
    gold = replay(record.task, environment, steps_of(record.task.gold.path)).evidence
    return audit_task(record, environment, hints or MutationHints(), gold)


def tools_of(mutant: Mutant) -> list[str]:
    return [step.tool for step in mutant.steps]
