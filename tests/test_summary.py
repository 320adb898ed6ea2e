from types import SimpleNamespace
from typing import Any

from pytest_crmbench.summary import NOT_JUDGED_PROPERTY, OUTCOME_PROPERTY, RunSummary


def report(outcome: str | None, not_judged: int = 0, when: str = "call") -> Any:
    properties = [] if outcome is None else [(OUTCOME_PROPERTY, outcome), (NOT_JUDGED_PROPERTY, not_judged)]
    return SimpleNamespace(when=when, user_properties=properties)


def test_tally_counts_each_task_once_and_explains_unjudged_criteria() -> None:
    summary = RunSummary()
    for rep in (
        report("success"),
        report("not_judged", 2),
        report("failure", 1),
        report("infra"),
        report("success", when="setup"),
        report(None),
    ):
        summary.pytest_runtest_logreport(rep)
    assert summary.lines() == [
        "4 task(s): 1 success, 1 failure, 1 not judged, 1 infra",
        "3 reply criteria in 2 task(s) were not judged (no judge model configured); 1 of those tasks passed every other check but are not counted as successes.",
    ]


def test_no_tasks_no_lines() -> None:
    summary = RunSummary()
    summary.pytest_runtest_logreport(report(None))
    assert summary.lines() == []
