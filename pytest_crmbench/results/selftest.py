"""What a gold self-test verified, and what it could not (issue 12 item 10).

The gold agent replays each task's reference path: a harness check, not a model's score. Its
strict accuracy without a judge (reply criteria stay "not judged", which is never a pass) reads
as an alarming 27 %; the summary instead says which checks held and which were not examined.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_crmbench.core.families import PROGRAMMATIC
from pytest_crmbench.results.records import ResultRecord
from pytest_crmbench.run.settings import RunSettings


def is_selftest(settings: RunSettings) -> bool:
    """Whether the run is the gold self-test: the gold agent, no judge model for its replies."""
    return settings.agent == "gold" and settings.models.judge is None


def score_gate_refusal(option: str) -> str:
    """Why ``option`` (a score gate) is refused on the gold self-test, in one line."""
    return (
        f"{option}: a score gate on the gold self-test measures nothing (it replays each task's reference path,"
        " and reply criteria stay unjudged without a judge model): gate a model run (--crm-model) or your agent"
        " (--crm-agent); the self-test fails by itself when a gold path breaks"
    )


def selftest_lines(records: Sequence[ResultRecord]) -> list[str]:
    """Lines for a gold run without a judge model."""
    graded = [r for r in records if r.outcome not in ("infra", "error")]
    labels = {family.label for family in PROGRAMMATIC}
    programmatic = [c for r in graded for c in r.checks if c.family in labels]
    broken = [r for r in graded if any(c.status == "failed" for c in r.checks) or r.outcome == "failure"]
    unjudged = [c for r in graded for c in r.checks if c.status == "not_judged"]
    unjudged_tasks = sum(1 for r in graded if any(c.status == "not_judged" for c in r.checks))
    lines = [f"gold self-test: {len(records)} task result(s), each task's gold path replayed"]
    if broken:
        names = ", ".join(sorted(r.task_id for r in broken)[:10])
        lines.append(
            f"  BROKEN: {len(broken)} task(s) fail their own gold path (a bug in the task or its environment): {names}"
        )
    held = len(graded) - len(broken)
    # The families that checked something in this run (conduct only where a domain declares rules).
    present = {c.family for c in programmatic}
    titles = ", ".join(family.title for family in PROGRAMMATIC if family.spec or family.label in present)
    lines.append(
        f"  verified: every programmatic check ({titles}) held on"
        f" {held}/{len(graded)} task(s), {sum(c.status == 'passed' for c in programmatic)} checks"
    )
    if unjudged:
        lines.append(
            f"  not verified: {len(unjudged)} reply criteria in {unjudged_tasks} task(s) need a judge model"
            " (--crm-judge-model); a model run judges them"
        )
    unscored = [r for r in records if r.outcome in ("infra", "error")]
    if unscored:
        lines.append(f"  not run to the end: {len(unscored)} result(s) are infra or error (see above)")
    return lines
