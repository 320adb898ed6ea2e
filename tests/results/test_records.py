"""Result records: built from an episode, JSON-only, and never lost to an unencodable value."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from pytest_crmbench.core.evidence import Evidence, Usage
from pytest_crmbench.core.spec import Task
from pytest_crmbench.core.users import ScriptedUser
from pytest_crmbench.env.environment import ToolEnvironment
from pytest_crmbench.grading import grade
from pytest_crmbench.grading.verdict import TaskVerdict
from pytest_crmbench.results.records import (
    RESULT_PROPERTY,
    TRACE_PROPERTY,
    build_record,
    decode_record,
    encode_record,
    finished_properties,
    result_properties,
    summary_of,
)
from pytest_crmbench.run.baselines import GoldAgent
from pytest_crmbench.run.episode import run_episode
from pytest_crmbench.run.settings import RunSettings


def gold_episode(task: Task, env_class: type[ToolEnvironment], trial: int = 0) -> tuple[Evidence, TaskVerdict]:
    evidence = run_episode(
        task, env_class(task.initial_state, seed=7), GoldAgent(task), ScriptedUser(task), agent_name="gold", trial=trial
    )
    return evidence, grade(task, evidence)


@pytest.fixture
def retry(mini_tasks: dict[str, Task], mini_env_class: type[ToolEnvironment]) -> tuple[Task, Evidence, TaskVerdict]:
    task = mini_tasks["mini_transfer_retry_01"]
    return (task, *gold_episode(task, mini_env_class, trial=2))


def test_record_fields_from_a_gold_episode(retry: tuple[Task, Evidence, TaskVerdict]) -> None:
    task, evidence, verdict = retry
    record = build_record(task, evidence, verdict, model=None, latency_s=0.5, nodeid="tasks/mini.yaml::x[t3]")
    assert (record.task_id, record.trial, record.seed, record.agent) == ("mini_transfer_retry_01", 2, 7, "gold")
    assert (record.domain, record.difficulty, record.capabilities) == ("mini", "medium", ["transfer", "balance"])
    assert (record.outcome, record.termination, record.primary_label) == ("not_judged", "user_stop", None)
    assert record.tool_calls == {"ok": 3, "rejected": 0, "error": 0}
    assert record.turns == 1 and record.latency_s == 0.5
    assert [c.family for c in record.checks] == [c.family for c in verdict.checks]
    # Decimals in expected/actual become exact strings.
    state = next(c for c in record.checks if c.name == "state[0] accounts.ACC-1.balance")
    assert (state.expected, state.actual) == ("130.00", "130.00")
    assert record.usage == {"agent": None, "user": None, "judge": None}
    assert decode_record(encode_record(record)) == record


def test_usage_per_role_keeps_exact_cost_and_unknown_price(retry: tuple[Task, Evidence, TaskVerdict]) -> None:
    task, evidence, verdict = retry
    evidence = evidence.model_copy(
        update={"usage": {"agent": Usage(calls=2, prompt_tokens=100, completion_tokens=20, cost_usd=Decimal("0.0012"))}}
    )
    verdict = verdict.model_copy(update={"judge_usage": Usage(calls=1, cost_usd=None)})
    record = build_record(task, evidence, verdict, model="m", latency_s=None)
    assert record.usage["agent"] is not None and record.usage["agent"].cost_usd == "0.0012"
    assert record.usage["judge"] is not None and record.usage["judge"].cost_usd is None
    assert record.usage["user"] is None
    assert record.model == "m"


def test_properties_are_json_text_with_the_trace(retry: tuple[Task, Evidence, TaskVerdict]) -> None:
    task, evidence, verdict = retry
    properties = dict(
        finished_properties(task, evidence, verdict, settings=RunSettings(), latency_s=0.1, nodeid="n", with_trace=True)
    )
    assert set(properties) == {RESULT_PROPERTY, TRACE_PROPERTY}
    trace = json.loads(properties[TRACE_PROPERTY])
    assert trace["evidence"]["final_state"]["accounts"]["ACC-1"]["balance"] == "130.00"
    assert trace["verdict"]["outcome"] == "not_judged"
    assert Evidence.model_validate(trace["evidence"]).task_id == task.id
    without = finished_properties(
        task, evidence, verdict, settings=RunSettings(), latency_s=0.1, nodeid="n", with_trace=False
    )
    assert [name for name, _ in without] == [RESULT_PROPERTY]


def test_an_unencodable_value_becomes_an_error_record_not_a_crash(retry: tuple[Task, Evidence, TaskVerdict]) -> None:
    task, evidence, verdict = retry
    record = build_record(task, evidence, verdict, model=None, latency_s=float("nan"))
    decoded = decode_record(encode_record(record))
    assert decoded.outcome == "error"
    assert decoded.key == record.key and decoded.domain == "mini"
    assert (
        decoded.error is not None
        and "not serialisable" in decoded.error
        and "original outcome not_judged" in decoded.error
    )


def test_a_record_that_cannot_be_built_still_yields_a_row(retry: tuple[Task, Evidence, TaskVerdict]) -> None:
    task, evidence, verdict = retry
    broken = verdict.model_copy(update={"outcome": "not-an-outcome"})
    properties = dict(
        finished_properties(task, evidence, broken, settings=RunSettings(), latency_s=0.1, nodeid="n", with_trace=True)
    )
    record = decode_record(properties[RESULT_PROPERTY])
    assert record.outcome == "error" and record.task_id == task.id
    assert record.error is not None and "could not be built" in record.error
    assert TRACE_PROPERTY not in properties


def test_an_unencodable_trace_is_noted_on_the_record(retry: tuple[Task, Evidence, TaskVerdict]) -> None:
    task, evidence, verdict = retry
    record = build_record(task, evidence, verdict, model=None, latency_s=None)
    properties = dict(result_properties(record, {"evidence": {"x": float("inf")}}))
    assert list(properties) == [RESULT_PROPERTY]
    saved = decode_record(properties[RESULT_PROPERTY])
    assert saved.outcome == "not_judged"  # the result itself is kept
    assert saved.error == "trajectory not serialisable; not saved"


def test_a_summary_keeps_what_the_leaderboard_reads_and_shares_its_checks(
    retry: tuple[Task, Evidence, TaskVerdict], mini_env_class: type[ToolEnvironment]
) -> None:
    task, evidence, verdict = retry
    record = build_record(task, evidence, verdict, model=None, latency_s=0.5)
    summary = summary_of(record)
    assert [(c.family, c.name, c.status) for c in summary.checks] == [
        (c.family, c.name, c.status) for c in record.checks
    ]
    assert all(c.expected is None and c.actual is None and c.diff == "" for c in summary.checks)
    assert any(c.expected is not None for c in record.checks)  # the record itself is left whole
    assert (summary.outcome, summary.task_id, summary.usage) == (record.outcome, record.task_id, record.usage)
    other_trial = build_record(task, *gold_episode(task, mini_env_class, trial=3), model=None, latency_s=0.1)
    assert all(a is b for a, b in zip(summary_of(other_trial).checks, summary.checks, strict=True))
