"""The progress line of long runs (issue 12 item 14): readable, and never a flood."""

from __future__ import annotations

from pytest_crmbench.results.progress import Progress, progress_line, spend
from pytest_crmbench.results.records import ResultRecord, UsageRecord


def record(task: str, outcome: str, cost: str | None = "0.10") -> ResultRecord:
    usage = {"agent": UsageRecord(calls=2, cost_usd=cost), "user": UsageRecord(calls=1, cost_usd="0.01"), "judge": None}
    return ResultRecord(task_id=task, outcome=outcome, usage=usage)  # type: ignore[arg-type]


def test_the_line_counts_done_success_infra_and_spend() -> None:
    records = [record("a", "success"), record("b", "failure"), record("c", "infra"), record("d", "success")]
    assert progress_line(records, 73, 125.0) == (
        "crmbench progress: 4/73 task results, 66.7% success (2/3 scored), 1 infra, $0.44 spent, 2m05s"
    )


def test_an_unknown_price_is_said_not_hidden() -> None:
    total, unknown = spend([record("a", "success", cost=None), record("b", "success")])
    assert (str(total), unknown) == ("0.12", True)
    assert "$0.01+ (some prices unknown) spent" in progress_line([record("a", "success", cost=None)], 2, 0)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_at_most_one_line_per_interval_and_none_without_news() -> None:
    clock = Clock()
    progress = Progress(10, 30.0, clock)
    clock.now = 500  # unit tests ran first: the interval counts from the first task result
    records = [record("a", "success")]
    assert progress.update(records) is None  # too soon
    clock.now = 531
    line = progress.update(records)
    assert line is not None and line.endswith(", 0m31s")  # elapsed since the first result
    progress = Progress(10, 30.0, clock)
    clock.now = 0
    assert progress.update(records) is None
    clock.now = 31
    assert progress.update(records) is not None
    records.append(record("b", "failure"))
    clock.now = 45
    assert progress.update(records) is None  # 14 s after the last line
    clock.now = 62
    assert progress.update(records) is not None
    clock.now = 200
    assert progress.update(records) is None  # nothing new since the last line
    lines = 0
    for second in range(300, 3600):  # one result per second for almost an hour
        clock.now = float(second)
        records.append(record(f"t{second}", "success"))
        lines += progress.update(records) is not None
    assert lines <= 3300 // 30 + 1


def test_zero_disables_it() -> None:
    clock = Clock()
    progress = Progress(10, 0.0, clock)
    clock.now = 1000
    assert progress.update([record("a", "success")]) is None
