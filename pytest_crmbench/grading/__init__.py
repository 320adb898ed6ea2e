"""Grading: evidence + contract -> one verdict per declared check -> task outcome (spec §A.2).

Strict success is the conjunction of every declared check. Undeclared families produce no
verdict at all (absent, never an automatic pass). Reply criteria need a semantic judge; without
one they are ``not_judged``, which is never a pass.
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_crmbench.core.errors import HarnessError, InfraError
from pytest_crmbench.core.evidence import FAILED_TERMINATIONS, UNSCORED_TERMINATIONS, Evidence
from pytest_crmbench.core.families import programmatic_checks
from pytest_crmbench.core.families.reply import FAMILY as REPLY
from pytest_crmbench.core.spec import Task
from pytest_crmbench.grading.verdict import CheckVerdict, Outcome, TaskVerdict, primary_label

ReplyJudge = Callable[[Task, Evidence], list[CheckVerdict]]
"""Grades ``task.contract.reply_criteria`` against the visible conversation (one verdict each)."""

__all__ = ["CheckVerdict", "ReplyJudge", "TaskVerdict", "grade", "grade_checks", "not_judged", "programmatic_checks"]

NO_JUDGE = "not judged (no judge model configured)"
JUDGE_FAILED = "not judged (judge failed"
"""How an unjudged reply criterion's ``diff`` begins when a configured judge failed (the reason follows)."""


def not_judged(task: Task, evidence: Evidence) -> list[CheckVerdict]:
    """The reply verdicts when no judge is configured."""
    return _unjudged(task, NO_JUDGE)


def grade_checks(task: Task, evidence: Evidence, judge: ReplyJudge = not_judged) -> list[CheckVerdict]:
    """Every declared check: the programmatic ones, then the reply criteria (raises the judge's InfraError)."""
    verdicts = programmatic_checks(task.contract, evidence)
    if task.contract.reply_criteria:
        verdicts.extend(judge(task, evidence))
    return verdicts


def grade(task: Task, evidence: Evidence, judge: ReplyJudge = not_judged) -> TaskVerdict:
    """The task verdict. Programmatic checks are authoritative; a judge only adds reply verdicts."""
    termination = evidence.termination
    if termination.reason in UNSCORED_TERMINATIONS:
        # Nothing was learnt about the agent: infrastructure failed, or our own code crashed.
        outcome: Outcome = "infra" if termination.reason == "infra" else "error"
        return TaskVerdict(task_id=task.id, outcome=outcome, termination=termination.reason, detail=termination.detail)
    verdicts = programmatic_checks(task.contract, evidence)
    failed: set[str] = {v.family for v in verdicts if v.status == "failed"}
    if termination.reason in FAILED_TERMINATIONS:
        failed.add("execution")
    detail = termination.detail
    if task.contract.reply_criteria:
        try:
            verdicts.extend(judge(task, evidence))
        except (InfraError, HarnessError) as exc:
            if not failed:
                # The judge failed (after its retries, or our code calling it crashed) and its
                # verdict would decide the task: the episode cannot be scored (spec §A.3), which is
                # not the model's fault.
                unscored: Outcome = "infra" if isinstance(exc, InfraError) else "error"
                trace = f"\n{exc.traceback}" if isinstance(exc, HarnessError) and exc.traceback else ""
                return TaskVerdict(
                    task_id=task.id, outcome=unscored, termination=termination.reason, detail=f"judge: {exc}{trace}"
                )
            # A programmatic failure already decides the task (§A.2: the judge cannot overturn
            # it), so a flaky judge must not take a real failure out of the denominator.
            verdicts.extend(_unjudged(task, f"{JUDGE_FAILED}: {exc})"))
            detail = f"judge: {exc}"
    failed |= {v.family for v in verdicts if v.status == "failed"}
    if failed:
        outcome = "failure"
    elif any(v.status == "not_judged" for v in verdicts):
        outcome = "not_judged"
    else:
        outcome = "success"
    # A tampered episode's checks read a world the agent put back by hand: they explain nothing.
    label = "execution" if termination.reason == "tampered" else primary_label(failed)
    return TaskVerdict(
        task_id=task.id,
        outcome=outcome,
        primary_label=label,
        checks=verdicts,
        termination=termination.reason,
        detail=detail,
    )


def _unjudged(task: Task, reason: str) -> list[CheckVerdict]:
    return REPLY.unjudged(task.contract, reason)
