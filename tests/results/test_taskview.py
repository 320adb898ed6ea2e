"""A result as its task page shows it: clipping, what the model saw of each tool call, contract paths."""

from __future__ import annotations

from typing import Any

from pytest_crmbench.results.records import CheckRecord, ResultRecord
from pytest_crmbench.results.sources import load_sources
from pytest_crmbench.results.taskview import clipped, contract_state, index_row, task_detail
from tests.conftest import DATA


def test_clipped_says_how_much_was_cut() -> None:
    assert clipped({"b": 1, "a": "é"}) == '{"a": "é", "b": 1}'
    assert clipped("plain") == "plain"
    text = clipped("x" * 30, limit=10)
    assert text == "xxxxxxxxxx … (20 more characters in the run directory)"


def evidence(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "messages": [{"role": "user", "content": "hi", "turn": 0}, {"role": "assistant", "content": "ok", "turn": 0}],
        "routing": [{"turn": 0, "node": "transfer", "detail": None}],
        "tool_calls": [
            {
                "index": 0,
                "turn": 0,
                "node": "transfer",
                "name": "execute_transfer",
                "arguments": {"amount": 1000},
                "status": "rejected",
                "result": None,
                "error": {"status": 422, "code": "INSUFFICIENT_FUNDS", "message": "no"},
            }
        ],
        "initial_state": {"accounts": {"ACC-1": {"balance": "180.00", "status": "active"}}},
        "final_state": {"accounts": {"ACC-1": {"balance": "130.00"}}},
        "termination": {"reason": "user_stop", "detail": None},
    }
    return {**base, **changes}


def test_a_rejected_call_shows_the_structured_error_the_model_saw() -> None:
    record = ResultRecord(task_id="mini_transfer_retry_01", outcome="failure")
    detail = task_detail(record, {"evidence": evidence()}, None)
    (tool,) = detail["trajectory"]["tools"]
    assert tool["status"] == "rejected"
    assert (
        tool["output"]
        == '{"error": {"code": "INSUFFICIENT_FUNDS", "message": "no", "outcome": "rejected", "status": 422}}'
    )
    assert detail["task"] is None and detail["state"] == []


def test_contract_paths_initial_and_final_including_absent_ones() -> None:
    source = load_sources([DATA / "tasks" / "mini.yaml"]).tasks["mini_transfer_retry_01"]
    rows = {row["path"]: row for row in contract_state(source, evidence())}
    assert rows["accounts.ACC-1.balance"] == {
        "path": "accounts.ACC-1.balance",
        "kind": "expected",
        "wanted": "130.00",
        "initial": "180.00",
        "final": "130.00",
        "changed": True,
    }
    assert rows["transfers"]["initial"] == rows["transfers"]["final"] == "(absent)"
    assert not rows["transfers"]["changed"]


def test_without_a_trajectory_the_page_says_why() -> None:
    record = ResultRecord(task_id="t", outcome="error", error="no result received (lost with its worker?)")
    detail = task_detail(record, None, None)
    assert detail["trajectory"] is None and detail["record"]["error"].startswith("no result received")


def test_judge_verdicts_carry_the_quote_only_when_judged() -> None:
    checks = [
        CheckRecord(family="reply", name="reply[0]", status="passed", expected="Says done", actual="Done: sent"),
        CheckRecord(family="reply", name="reply[1]", status="not_judged", expected="Says why", diff="not judged"),
        CheckRecord(family="reply", name="reply[contradiction]", status="passed", expected=False, actual=False),
    ]
    detail = task_detail(ResultRecord(task_id="t", outcome="not_judged", checks=checks), None, None)
    assert [(v["criterion"], v["quote"]) for v in detail["judge"]] == [("Says done", "Done: sent"), ("Says why", "")]


def test_index_row_counts_failed_checks_and_tool_calls() -> None:
    record = ResultRecord(
        task_id="t",
        trial=1,
        domain="d",
        difficulty="hard",
        capabilities=["transfer"],
        outcome="failure",
        primary_label="state",
        checks=[
            CheckRecord(family="state", name="state[0] a", status="failed"),
            CheckRecord(family="action", name="action[0] x x1", status="passed"),
        ],
        turns=2,
        tool_calls={"ok": 3, "rejected": 1, "error": 0},
    )
    assert index_row(record, 1, 7) == [1, "t", 1, "d", "hard", ["transfer"], "failure", "state", 1, 2, 2, 4, 7]
