"""The happy paths: the schedule, moves across offsets, bookings, parts and notifications."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from pytest_crmbench.env.environment import ToolEnvironment

from .helpers import code_of, make, ok


def board(env: ToolEnvironment, account_id: str, work_order_id: str, date: str) -> dict[str, Any]:
    return ok(env, "get_schedule", account_id=account_id, work_order_id=work_order_id, date=date)


def test_the_schedule_gives_the_raw_facts_of_the_territory() -> None:
    schedule = board(make(), "ACC-5006", "WO-00041206", "2026-03-05")
    assert (schedule["required_skills"], schedule["duration_minutes"], schedule["schedulable"]) == (["hvac"], 120, True)
    technicians = {t["technician_id"]: t for t in schedule["technicians"]}
    # every Denver technician, the unqualified electrician included: matching skills is the agent's job
    assert set(technicians) == {"SR-101", "SR-102", "SR-103", "SR-104", "SR-105"}
    # Tom is booked 10-12 (SA-1001, someone else's visit: a busy time, not an appointment id)
    assert technicians["SR-103"]["bookings"] == [
        {"start": "2026-03-05T10:00:00-07:00", "end": "2026-03-05T12:00:00-07:00"}
    ]
    assert technicians["SR-103"]["working_hours"] == {
        "days": ["Tue", "Wed", "Thu", "Fri", "Sat"],
        "start": "07:00",
        "end": "15:00",
    }


def test_the_schedule_names_only_the_customer_s_own_visit() -> None:
    schedule = board(make(), "ACC-5006", "WO-00041206", "2026-03-04")
    marcus = next(t for t in schedule["technicians"] if t["technician_id"] == "SR-101")
    # SA-1009 (Daniel's, 08-10) is a busy time; SA-1006 (Lena's own, 13-15) is named
    assert marcus["bookings"] == [
        {"start": "2026-03-04T08:00:00-07:00", "end": "2026-03-04T10:00:00-07:00"},
        {"start": "2026-03-04T13:00:00-07:00", "end": "2026-03-04T15:00:00-07:00", "appointment_id": "SA-1006"},
    ]


@pytest.mark.parametrize(
    ("date", "schedulable"),
    [("2026-03-02", False), ("2026-03-03", True), ("2026-03-06", True), ("2026-03-09", False)],
)
def test_schedulable_says_whether_the_day_lies_in_the_work_order_s_window(date: str, schedulable: bool) -> None:
    # SA-1004's work order: earliest start Tue 3 Mar, due Fri 6 Mar 17:00; today is Mon 2 Mar 09:00
    assert board(make(), "ACC-5004", "WO-00041204", date)["schedulable"] is schedulable


def test_every_start_that_fits_by_the_policy_can_be_taken() -> None:
    # Dana is the only plumber; on Friday the water heater visit (2 h) fits her 08-17 shift from
    # 09:00 (08:00 is where the visit already is) to 15:00, the last start before the 17:00 due date
    for hour in range(9, 16):
        start = f"2026-03-06T{hour:02d}:00:00-07:00"
        args = {"technician_id": "SR-104", "start": start}
        ok(make(), "reschedule_appointment", account_id="ACC-5004", appointment_id="SA-1004", **args)
    late = {"technician_id": "SR-104", "start": "2026-03-06T16:00:00-07:00"}
    assert code_of(make(), "reschedule_appointment", account_id="ACC-5004", appointment_id="SA-1004", **late)


def test_a_move_given_in_another_offset_is_stored_in_the_site_offset_with_its_window() -> None:
    env = make()
    # 19:00 UTC is noon in Denver
    ok(
        env,
        "reschedule_appointment",
        account_id="ACC-5004",
        appointment_id="SA-1004",
        technician_id="SR-104",
        start="2026-03-05T19:00:00Z",
    )
    visit = env.state["appointments"]["SA-1004"]
    assert visit["sched_start"] == "2026-03-05T12:00:00-07:00"
    assert visit["sched_end"] == "2026-03-05T14:00:00-07:00"
    assert (visit["arrival_window_start"], visit["arrival_window_end"]) == (
        "2026-03-05T11:00:00-07:00",
        "2026-03-05T13:00:00-07:00",
    )
    assert env.violations() == []


def test_a_dispatched_visit_moves_back_to_scheduled() -> None:
    env = make()
    ok(
        env,
        "reschedule_appointment",
        account_id="ACC-5003",
        appointment_id="SA-1003",
        technician_id="SR-201",
        start="2026-03-05T08:00:00-06:00",
    )
    assert env.state["appointments"]["SA-1003"]["status"] == "Scheduled"


def test_booking_then_reserving_parts_from_the_new_technician() -> None:
    env = make()
    booked = ok(
        env,
        "book_appointment",
        account_id="ACC-5002",
        work_order_id="WO-00041208",
        technician_id="SR-104",
        start="2026-03-04T14:00:00-07:00",
    )
    assert env.state["appointments"][booked["appointment_id"]]["status"] == "Scheduled"
    ok(env, "reserve_part", account_id="ACC-5002", work_order_id="WO-00041208", part_id="P-ANODE", quantity=2)
    order = env.state["work_orders"]["WO-00041208"]
    assert env.state["technicians"]["SR-104"]["van_stock"]["P-ANODE"] == 0
    total = sum(line["unit_price"] * line["quantity"] for line in order["line_items"])
    assert total == Decimal("178.80")
    assert env.violations() == []


def test_cancel_and_notify() -> None:
    env = make()
    ok(env, "cancel_appointment", account_id="ACC-5001", appointment_id="SA-1001", reason="unit replaced")
    note = ok(env, "notify_customer", account_id="ACC-5001", appointment_id="SA-1001", channel="sms")
    assert env.state["appointments"]["SA-1001"]["status"] == "Canceled"
    assert env.state["notifications"][note["notification_id"]]["channel"] == "sms"
    # a cancelled visit frees the technician's time
    tom = next(
        t for t in board(env, "ACC-5006", "WO-00041206", "2026-03-05")["technicians"] if t["technician_id"] == "SR-103"
    )
    assert tom["bookings"] == []
