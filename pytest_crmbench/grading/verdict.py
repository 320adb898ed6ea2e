"""Verdicts: one per declared check, and the task-level outcome with its primary failure label."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench.core.evidence import Usage

Family = Literal["action", "forbidden", "state", "param", "reply", "order", "collateral"]
LABEL_PRIORITY: tuple[str, ...] = ("execution", "action", "forbidden", "state", "param", "reply", "order", "collateral")
"""Primary-label priority of spec §A.2, preceded by ``execution``: a model-attributable run failure
(non-convergence at the limits, an agent abort) fails the task whatever its checks say (spec §A.1)."""

CheckStatus = Literal["passed", "failed", "not_judged"]
Outcome = Literal["success", "failure", "infra", "not_judged"]


class CheckVerdict(BaseModel):
    """The result of one declared check, with a diff a human can act on."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    family: Family
    name: str = Field(description="Family and index plus a short subject, e.g. 'state[0] accounts.ACC-1002.balance'.")
    status: CheckStatus
    expected: Any = None
    actual: Any = None
    diff: str = Field("", description="Why it failed (or why it was not judged), naming paths and values.")

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def render(self) -> str:
        lines = [f"{self.name}: {self.status.upper().replace('_', ' ')}"]
        if self.diff:
            lines.extend(f"  {line}" for line in self.diff.splitlines())
        return "\n".join(lines)


class TaskVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    task_id: str
    outcome: Outcome
    primary_label: str | None = None
    checks: list[CheckVerdict] = Field(default_factory=list)
    termination: str
    detail: str | None = None
    judge_usage: Usage | None = Field(default=None, description="Model usage of the semantic judge, when one ran.")

    def failed_checks(self) -> list[CheckVerdict]:
        return [c for c in self.checks if c.status == "failed"]


def primary_label(failed_families: set[str]) -> str | None:
    """The highest-priority family among the failed ones."""
    return next((label for label in LABEL_PRIORITY if label in failed_families), None)
