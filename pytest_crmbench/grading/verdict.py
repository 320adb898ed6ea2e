"""The task-level verdict: outcome and primary failure label over the check verdicts of its families."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_crmbench.core.evidence import Usage
from pytest_crmbench.core.families import LABEL_PRIORITY
from pytest_crmbench.core.families.base import CheckStatus, CheckVerdict

Outcome = Literal["success", "failure", "infra", "not_judged", "error"]
"""``infra`` and ``error`` (a harness bug) say nothing about the agent: never scored, always shown."""

__all__ = ["LABEL_PRIORITY", "CheckStatus", "CheckVerdict", "Outcome", "TaskVerdict", "primary_label"]


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
