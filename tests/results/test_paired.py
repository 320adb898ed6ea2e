"""Paired comparison of two runs: pairing by task, the test chosen, the flipped tasks."""

from __future__ import annotations

import pytest

from pytest_crmbench.results.paired import BOOTSTRAP, MCNEMAR, by_domain, compare, flip_lines, pair_tasks
from pytest_crmbench.results.records import ResultRecord


def rec(task: str, outcome: str = "success", trial: int = 0, domain: str = "d1") -> ResultRecord:
    return ResultRecord(task_id=task, trial=trial, domain=domain, outcome=outcome)  # type: ignore[arg-type]


def test_single_runs_use_exact_mcnemar_on_discordant_tasks() -> None:
    before = [rec("a"), rec("b"), rec("c", "failure"), rec("d", "failure", domain="d2")]
    now = [rec("a"), rec("b", "failure"), rec("c"), rec("d", "failure", domain="d2")]
    comparison = compare(now, before)
    assert comparison is not None and comparison.test == MCNEMAR
    assert comparison.p_value == 1.0  # one worse, one better
    assert [p.task_id for p in comparison.worse] == ["b"]
    assert [p.task_id for p in comparison.better] == ["c"]
    assert comparison.difference == 0
    assert set(by_domain(comparison)) == {"d1", "d2"}


def test_tasks_scored_on_one_side_only_are_left_out_of_both() -> None:
    before = [rec("a"), rec("b"), rec("c")]
    now = [rec("a"), rec("b", "infra"), rec("z", "failure")]
    assert [p.task_id for p in pair_tasks(now, before)] == ["a"]
    assert compare([rec("a", "error")], before) is None


def test_trials_use_the_paired_bootstrap_and_rank_flips_by_size() -> None:
    before = [rec(t, trial=i) for t in ("a", "b", "c") for i in range(3)]
    now = [rec("a", trial=i) for i in range(3)]
    now += [rec("b", "failure" if i == 0 else "success", trial=i) for i in range(3)]
    now += [rec("c", "failure", trial=i) for i in range(3)]
    comparison = compare(now, before)
    assert comparison is not None and comparison.test == BOOTSTRAP
    assert [p.shown() for p in comparison.worse] == ["c (3/3 -> 0/3)", "b (3/3 -> 2/3)"]
    assert comparison.difference == pytest.approx(5 / 9 - 1)
    assert comparison.as_json()["worse"][0] == {"task_id": "c", "domain": "d1", "now": [0, 3], "before": [3, 3]}


def test_flip_lines_name_at_most_the_limit() -> None:
    before = [rec(f"t{i}") for i in range(5)]
    now = [rec(f"t{i}", "failure") for i in range(5)]
    comparison = compare(now, before)
    assert comparison is not None
    assert flip_lines(comparison, limit=2) == [
        "worse (5): t0 (1/1 -> 0/1), t1 (1/1 -> 0/1), and 3 more",
        "better: none",
    ]
    assert comparison.summary().endswith("over 5 paired task(s); exact McNemar p = 0.062")


def test_a_small_p_value_reads_as_a_sentence() -> None:
    from pytest_crmbench.results.paired import format_p, p_phrase

    assert p_phrase(0.0004) == "p < 0.001"
    assert p_phrase(0.0312) == "p = 0.031"
    assert format_p(0.0004) == "< 0.001"  # a table cell, under a "p" heading
