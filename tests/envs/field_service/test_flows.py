"""The happy paths: slots, moves across offsets, bookings, parts and notifications."""

from __future__ import annotations

from decimal import Decimal

from .helpers import make, ok


def test_slots_honour_skills_shift_and_other_bookings() -> None:
    env = make()
    slots = ok(env, "get_available_slots", account_id="ACC-5006", work_order_id="WO-00041206", date="2026-03-05")[
        "slots"
    ]
    tom = [s["start"] for s in slots if s["technician_id"] == "SR-103"]
    # Tom works 07-15 and is booked 10-12 (SA-1001): a two-hour job fits at 07, 08, 12 and 13 only
    assert [t[11:16] for t in tom] == ["07:00", "08:00", "12:00", "13:00"]
    assert {s["technician_id"] for s in slots} == {"SR-101", "SR-103", "SR-104"}  # no electrician, no Chicago
    assert all(s["start"].endswith("-07:00") for s in slots)


def test_every_offered_slot_can_be_taken() -> None:
    env = make()
    slots = ok(env, "get_available_slots", account_id="ACC-5004", work_order_id="WO-00041204", date="2026-03-06")[
        "slots"
    ]
    assert slots[-1]["start"] == "2026-03-06T15:00:00-07:00"  # the latest start before the 17:00 due date
    for slot in slots:
        fresh = make()
        args = {"technician_id": slot["technician_id"], "start": slot["start"]}
        ok(fresh, "reschedule_appointment", account_id="ACC-5004", appointment_id="SA-1004", **args)


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
        start="2026-03-04T13:00:00-07:00",
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
    slots = ok(env, "get_available_slots", account_id="ACC-5006", work_order_id="WO-00041206", date="2026-03-05")[
        "slots"
    ]
    assert "2026-03-05T10:00:00-07:00" in [s["start"] for s in slots if s["technician_id"] == "SR-103"]
