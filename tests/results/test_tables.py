"""The terminal's tables and lines say what happened (issue 32 item 8: why replies went unjudged)."""

from __future__ import annotations

from pytest_crmbench.grading import JUDGE_FAILED, NO_JUDGE
from pytest_crmbench.results.leaderboard import summarize
from pytest_crmbench.results.records import CheckRecord, ResultRecord
from pytest_crmbench.results.tables import not_judged_line


def result(task: str, outcome: str, *reply_diffs: str) -> ResultRecord:
    checks = [CheckRecord(family="action", name="action[0]", status="failed" if outcome == "failure" else "passed")]
    checks += [
        CheckRecord(family="reply", name=f"reply[{i}]", status="not_judged", diff=diff)
        for i, diff in enumerate(reply_diffs)
    ]
    return ResultRecord(task_id=task, outcome=outcome, checks=checks)  # type: ignore[arg-type]


def test_a_run_without_a_judge_says_none_was_configured() -> None:
    line = not_judged_line(summarize([result("a", "not_judged", f"{NO_JUDGE}: polite")]))
    assert line == (
        "1 reply criteria in 1 task(s) were not judged (no judge model configured); 1 of those tasks passed"
        " every other check but are not counted as successes."
    )


def test_a_judge_that_failed_is_not_reported_as_missing() -> None:
    invalid = f"{JUDGE_FAILED}: judge output invalid after 3 attempts: not JSON): polite"
    line = not_judged_line(summarize([result("a", "failure", invalid, invalid)]))
    assert line == (
        "2 reply criteria in 1 task(s) were not judged (the judge model failed on 2 after its retries; each"
        " task's detail says how)."
    )
    both = not_judged_line(summarize([result("a", "failure", invalid), result("b", "not_judged", f"{NO_JUDGE}: x")]))
    assert both is not None and "(the judge model failed on 1 after its retries; each task's detail says how;" in both
    assert "no judge model configured for 1); 1 of those tasks passed every other check" in both


def test_nothing_unjudged_says_nothing() -> None:
    assert not_judged_line(summarize([result("a", "success")])) is None
