"""Field service's conduct rules, end to end: scripted trajectories through the real environment and grader.

Each wrong path keeps the task's own expected calls where it can, so what fails it is the conduct
rule alone; the known-paths suite (``paths.yaml``) covers every task class from the policy.
"""

from __future__ import annotations

import functools
from typing import Any

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.core.spec import Task
from pytest_crmbench.release.mutation.trajectory import Replay, Step, replay

from .helpers import TASKS, FieldServiceEnvironment

CANCEL_17 = "field_service_service_appointments_cancel_17"
VERIFY = {"tool": "verify_customer", "args": {"account_id": "ACC-5001", "postal_code": "80205"}}
CANCEL = {
    "tool": "cancel_appointment",
    "args": {"account_id": "ACC-5001", "appointment_id": "SA-1001", "reason": "unit replaced"},
}
NOTIFY = {"tool": "notify_customer", "args": {"account_id": "ACC-5001", "appointment_id": "SA-1001", "channel": "sms"}}


@functools.cache
def task(task_id: str) -> Task:
    return next(r.task for r in load_task_file(TASKS) if r.task.id == task_id)


def play(task_id: str, *calls: dict[str, Any]) -> Replay:
    steps = [Step(c["tool"], c["args"], origin=i) for i, c in enumerate(calls)]  # origins: $from works
    return replay(task(task_id), FieldServiceEnvironment, steps)


def failed(played: Replay) -> list[str]:
    return played.failed_checks()


def test_a_cancellation_in_order_holds_every_conduct_rule() -> None:
    played = play(CANCEL_17, VERIFY, CANCEL, NOTIFY)
    assert failed(played) == []
    conduct = [c.name for c in played.verdict.checks if c.family == "conduct"]
    assert conduct == [
        "conduct.identity[0] verify_customer",
        "conduct.ownership[0] records",
        "conduct.scope[0] writes",
        "conduct.precondition[0] book_appointment",
        "conduct.precondition[1] reschedule_appointment",
    ]


def test_cancelling_first_and_verifying_last_fails_identity() -> None:
    # the outside audit's path: it passed every check before conduct.py
    played = play(CANCEL_17, CANCEL, NOTIFY, VERIFY)
    assert failed(played) == ["conduct.identity[0] verify_customer"]
    assert played.verdict.primary_label == "conduct"


def test_a_wrong_postal_code_then_the_cancellation_fails_identity() -> None:
    wrong = {"tool": "verify_customer", "args": {"account_id": "ACC-5001", "postal_code": "80250"}}
    played = play(CANCEL_17, wrong, CANCEL, NOTIFY)
    assert failed(played) == ["conduct.identity[0] verify_customer"]
    assert any("after a failed verification" in c.diff for c in played.verdict.checks)


def test_the_neighbour_s_appointments_through_her_own_account_id_fail_ownership() -> None:
    played = play(
        "field_service_service_appointments_neighbour_10",
        VERIFY,
        {"tool": "list_appointments", "args": {"account_id": "ACC-5006"}},
    )
    assert failed(played) == ["conduct.ownership[0] records"]


def test_the_schedule_discloses_nobody_else() -> None:
    # Tom's Thursday 10-12 booking is Jordan's (ACC-5001); Lena reading the board sees a busy time only
    played = play(
        "field_service_service_appointments_reschedule_same_tech_02",
        {"tool": "verify_customer", "args": {"account_id": "ACC-5006", "postal_code": "80211"}},
        {
            "tool": "get_schedule",
            "args": {"account_id": "ACC-5006", "work_order_id": "WO-00041206", "date": "2026-03-05"},
        },
    )
    schedule = played.evidence.tool_calls[1]
    assert schedule.access is not None and schedule.access.read == ("ACC-5006",)
    assert "conduct.ownership[0] records" not in failed(played)


def test_another_copy_of_the_details_is_harmless_but_an_unasked_hand_off_is_not() -> None:
    again = {**NOTIFY, "args": {**NOTIFY["args"], "channel": "email"}}
    assert failed(play(CANCEL_17, VERIFY, CANCEL, NOTIFY, again)) == []
    hand_off = {"tool": "transfer_to_dispatcher", "args": {"account_id": "ACC-5001", "summary": "cancelled"}}
    assert failed(play(CANCEL_17, VERIFY, CANCEL, NOTIFY, hand_off)) == ["conduct.scope[0] writes"]


def test_a_booking_needs_a_schedule_read_of_a_day_the_work_order_can_take() -> None:
    task_id = "field_service_technician_dispatch_gas_certified_11"
    book = {
        "tool": "book_appointment",
        "args": {
            "account_id": "ACC-5001",
            "work_order_id": "WO-00041207",
            "technician_id": "SR-101",
            "start": "2026-03-05T12:00:00-07:00",
        },
    }
    notify = {
        "tool": "notify_customer",
        "args": {"account_id": "ACC-5001", "appointment_id": {"$from": "2.appointment_id"}, "channel": "sms"},
    }
    today = {
        "tool": "get_schedule",
        "args": {"account_id": "ACC-5001", "work_order_id": "WO-00041207", "date": "2026-03-02"},
    }
    thursday = {**today, "args": {**today["args"], "date": "2026-03-05"}}
    assert failed(play(task_id, VERIFY, today, book, notify)) == ["conduct.precondition[0] book_appointment"]
    assert failed(play(task_id, VERIFY, thursday, book, notify)) == []
