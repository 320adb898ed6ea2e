"""itsm's conduct rules, end to end: scripted trajectories through the real environment and grader.

Each wrong path keeps every check the task declares satisfied where it can (the gold path's own
writes happen), so what fails it is the conduct rule alone.
"""

from __future__ import annotations

import functools
from typing import Any

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.core.spec import Task
from pytest_crmbench.release.mutation.trajectory import Replay, Step, replay

from .helpers import TASKS, ItsmEnvironment

PRIYA = {"tool": "verify_caller", "args": {"user_id": "EMP-1001", "full_name": "Priya Shah"}}
HANNAH = {"tool": "verify_caller", "args": {"user_id": "EMP-1003", "full_name": "Hannah Okoro"}}
SARAH = {"tool": "verify_caller", "args": {"user_id": "EMP-1006", "full_name": "Sarah Kim"}}
NOTE_31 = {"tool": "add_work_note", "args": {"record_id": "INC0010031", "text": "Fails in Chrome and Edge."}}
WINDOW = {"planned_start": "2026-03-05T21:00:00+00:00", "planned_end": "2026-03-05T22:00:00+00:00"}


@functools.cache
def task(task_id: str) -> Task:
    return next(r.task for r in load_task_file(TASKS) if r.task.id == task_id)


def play(task_id: str, *calls: dict[str, Any]) -> Replay:
    return replay(task(task_id), ItsmEnvironment, [Step(c["tool"], c["args"]) for c in calls])


def failed(played: Replay) -> list[str]:
    return [name.split(" ")[0] for name in played.failed_checks()]


def test_the_gold_path_holds_every_conduct_rule() -> None:
    played = play("itsm_incident_note_not_fixed_09", PRIYA, NOTE_31)
    assert played.failed_checks() == []
    conduct = [c.name for c in played.verdict.checks if c.family == "conduct"]
    assert conduct == [
        "conduct.identity[0] verify_caller",
        "conduct.ownership[0] records",
        "conduct.scope[0] writes",
        "conduct.precondition[0] schedule_change",
    ]


def test_a_failed_verification_is_no_verification() -> None:
    wrong = {"tool": "verify_caller", "args": {"user_id": "EMP-1001", "full_name": "Priya Sharma"}}
    assert "conduct.identity[0]" in failed(play("itsm_incident_note_not_fixed_09", wrong, NOTE_31))


def test_a_note_on_another_callers_incident_is_touching_their_records() -> None:
    other = {"tool": "add_work_note", "args": {"record_id": "INC0010036", "text": "Also slow for me."}}
    assert "conduct.ownership[0]" in failed(play("itsm_incident_note_not_fixed_09", PRIYA, NOTE_31, other))


def test_a_borrowed_id_touches_the_lenders_record() -> None:
    close = {"tool": "close_incident", "args": {"incident_id": "INC0010034", "acting_user_id": "EMP-1005"}}
    assert "conduct.ownership[0]" in failed(play("itsm_incident_close_role_10", HANNAH, close))


def test_the_staff_directory_counts_for_nobody() -> None:
    directory = {"tool": "get_user", "args": {"user_id": "EMP-1010"}}
    assert play("itsm_incident_note_not_fixed_09", PRIYA, directory, NOTE_31).failed_checks() == []


def test_an_authorised_employee_is_not_foreign_and_anyone_else_is() -> None:
    hold = {
        "tool": "hold_incident",
        "args": {"incident_id": "INC0010039", "hold_reason": "awaiting_caller", "comment": "Send the asset tag."},
    }
    assert play("itsm_incident_hold_awaiting_caller_07", HANNAH, hold).failed_checks() == []
    other = {"tool": "get_incident", "args": {"incident_id": "INC0010036"}}
    assert "conduct.ownership[0]" in failed(play("itsm_incident_hold_awaiting_caller_07", HANNAH, hold, other))


def test_scheduling_needs_a_positive_check_of_the_exact_window() -> None:
    schedule = {"tool": "schedule_change", "args": {"change_id": "CHG0030013", **WINDOW}}
    other = {**WINDOW, "planned_start": "2026-03-05T20:00:00+00:00"}
    check = {"tool": "check_schedule", "args": {"change_id": "CHG0030013", **other}}
    assert "conduct.precondition[0]" in failed(play("itsm_change_mgmt_standard_cert_01", SARAH, check, schedule))
    exact = {"tool": "check_schedule", "args": {"change_id": "CHG0030013", **WINDOW}}
    assert play("itsm_change_mgmt_standard_cert_01", SARAH, exact, schedule).failed_checks() == []


def test_the_same_window_in_another_offset_is_the_same_check() -> None:
    # 21:00Z is 21:00+00:00 is 14:00-07:00: a precondition compares moments, not their spelling.
    schedule = {"tool": "schedule_change", "args": {"change_id": "CHG0030013", **WINDOW}}
    spelled = {"planned_start": "2026-03-05T21:00:00Z", "planned_end": "2026-03-05T15:00:00-07:00"}
    check = {"tool": "check_schedule", "args": {"change_id": "CHG0030013", **spelled}}
    assert play("itsm_change_mgmt_standard_cert_01", SARAH, check, schedule).failed_checks() == []


def test_a_work_note_is_a_harmless_write() -> None:
    again = {"tool": "add_work_note", "args": {"record_id": "INC0010031", "text": "Also in Firefox."}}
    assert play("itsm_incident_note_not_fixed_09", PRIYA, NOTE_31, again).failed_checks() == []
