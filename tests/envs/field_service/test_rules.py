"""Every rule a field service tool enforces: its rejection code, and an untouched state."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from .helpers import code_of, make

SLOT = {"account_id": "ACC-5006", "appointment_id": "SA-1006"}
CASES: list[tuple[str, dict[str, Any], str, dict[str, Any], str]] = [
    # (case, override, tool, arguments, code)
    (
        "not-owner",
        {},
        "reschedule_appointment",
        {**SLOT, "account_id": "ACC-5001", "technician_id": "SR-101", "start": "2026-03-05T10:00:00-07:00"},
        "NOT_OWNER",
    ),
    (
        "completed",
        {},
        "reschedule_appointment",
        {
            "account_id": "ACC-5005",
            "appointment_id": "SA-1005",
            "technician_id": "SR-202",
            "start": "2026-03-05T10:00:00-06:00",
        },
        "APPOINTMENT_NOT_RESCHEDULABLE",
    ),
    (
        "inside-window",
        {},
        "reschedule_appointment",
        {
            "account_id": "ACC-5002",
            "appointment_id": "SA-1002",
            "technician_id": "SR-102",
            "start": "2026-03-05T09:00:00-07:00",
        },
        "INSIDE_RESCHEDULE_WINDOW",
    ),
    (
        "same-slot",
        {},
        "reschedule_appointment",
        {**SLOT, "technician_id": "SR-101", "start": "2026-03-04T20:00:00+00:00"},
        "SAME_SLOT",
    ),
    (
        "lead-time",
        {},
        "reschedule_appointment",
        {**SLOT, "technician_id": "SR-101", "start": "2026-03-03T08:00:00-07:00"},
        "LEAD_TIME_TOO_SHORT",
    ),
    (
        "past-due",
        {},
        "reschedule_appointment",
        {
            "account_id": "ACC-5004",
            "appointment_id": "SA-1004",
            "technician_id": "SR-104",
            "start": "2026-03-06T16:00:00-07:00",
        },
        "OUTSIDE_SCHEDULING_WINDOW",
    ),
    (
        "territory",
        {},
        "reschedule_appointment",
        {**SLOT, "technician_id": "SR-201", "start": "2026-03-05T10:00:00-07:00"},
        "TERRITORY_MISMATCH",
    ),
    (
        "off-shift",
        {},
        "reschedule_appointment",
        {**SLOT, "technician_id": "SR-103", "start": "2026-03-05T14:00:00-07:00"},
        "OUTSIDE_WORKING_HOURS",
    ),
    (
        "off-day",
        {},
        "reschedule_appointment",
        {**SLOT, "technician_id": "SR-101", "start": "2026-03-07T10:00:00-07:00"},
        "OUTSIDE_WORKING_HOURS",
    ),
    (
        "double-booking",
        {},
        "reschedule_appointment",
        {**SLOT, "technician_id": "SR-103", "start": "2026-03-05T11:00:00-07:00"},
        "SLOT_TAKEN",
    ),
    (
        "open-visit-exists",
        {},
        "book_appointment",
        {
            "account_id": "ACC-5006",
            "work_order_id": "WO-00041206",
            "technician_id": "SR-101",
            "start": "2026-03-06T09:00:00-07:00",
        },
        "OPEN_APPOINTMENT_EXISTS",
    ),
    (
        "closed-work-order",
        {},
        "book_appointment",
        {
            "account_id": "ACC-5005",
            "work_order_id": "WO-00041205",
            "technician_id": "SR-202",
            "start": "2026-03-05T10:00:00-06:00",
        },
        "WORK_ORDER_CLOSED",
    ),
    (
        "cancel-completed",
        {},
        "cancel_appointment",
        {"account_id": "ACC-5005", "appointment_id": "SA-1005", "reason": "x"},
        "APPOINTMENT_NOT_CANCELABLE",
    ),
    (
        "cancel-no-reason",
        {},
        "cancel_appointment",
        {"account_id": "ACC-5001", "appointment_id": "SA-1001", "reason": " "},
        "REASON_REQUIRED",
    ),
    (
        "sms-without-phone",
        {},
        "notify_customer",
        {"account_id": "ACC-5005", "appointment_id": "SA-1005", "channel": "sms"},
        "NO_PHONE_ON_FILE",
    ),
    ("notify-other", {}, "notify_customer", {"account_id": "ACC-5001", "appointment_id": "SA-1006"}, "NOT_OWNER"),
    (
        "stock",
        {},
        "reserve_part",
        {"account_id": "ACC-5003", "work_order_id": "WO-00041203", "part_id": "P-IGN-HSI", "quantity": 4},
        "INSUFFICIENT_STOCK",
    ),
    (
        "no-technician",
        {},
        "reserve_part",
        {"account_id": "ACC-5001", "work_order_id": "WO-00041207", "part_id": "P-IGN-HSI", "quantity": 1},
        "NO_TECHNICIAN_ASSIGNED",
    ),
    (
        "zero-units",
        {},
        "reserve_part",
        {"account_id": "ACC-5001", "work_order_id": "WO-00041201", "part_id": "P-FLT-1620", "quantity": 0},
        "INVALID_QUANTITY",
    ),
    ("other-work-order", {}, "get_work_order", {"account_id": "ACC-5001", "work_order_id": "WO-00041206"}, "NOT_OWNER"),
    ("blank-summary", {}, "transfer_to_dispatcher", {"account_id": "ACC-5001", "summary": ""}, "SUMMARY_REQUIRED"),
    ("unknown-technician", {}, "get_van_inventory", {"technician_id": "SR-999"}, "TECHNICIAN_NOT_FOUND"),
    (
        "unknown-appointment",
        {},
        "get_appointment",
        {"account_id": "ACC-5001", "appointment_id": "SA-9999"},
        "APPOINTMENT_NOT_FOUND",
    ),
    ("unknown-territory", {}, "list_technicians", {"territory_id": "TER-XX-01"}, "TERRITORY_NOT_FOUND"),
    (
        "bad-date",
        {},
        "get_schedule",
        {"account_id": "ACC-5001", "work_order_id": "WO-00041201", "date": "2026-3-5"},
        "INVALID_DATE",
    ),
    (
        "book-other-work-order",
        {},
        "book_appointment",
        {
            "account_id": "ACC-5002",
            "work_order_id": "WO-00041207",
            "technician_id": "SR-101",
            "start": "2026-03-05T12:00:00-07:00",
        },
        "NOT_OWNER",
    ),
    (
        "start-without-offset",
        {},
        "reschedule_appointment",
        {**SLOT, "technician_id": "SR-101", "start": "2026-03-05T10:00:00"},
        "INVALID_TIMESTAMP",
    ),
]


@pytest.mark.parametrize(("case", "override", "tool", "args", "code"), CASES, ids=[c[0] for c in CASES])
def test_each_rule_rejects_with_its_code_and_changes_nothing(
    case: str, override: dict[str, Any], tool: str, args: dict[str, Any], code: str
) -> None:
    env = make(override)
    before = copy.deepcopy(env.state)
    assert code_of(env, tool, **args) == code
    assert env.state == before


def test_a_second_hand_off_for_the_same_customer_is_refused() -> None:
    env = make()
    assert code_of(env, "transfer_to_dispatcher", account_id="ACC-5001", summary="first") is None
    assert code_of(env, "transfer_to_dispatcher", account_id="ACC-5001", summary="again") == "ALREADY_ESCALATED"
    assert len(env.state["escalations"]) == 1


def test_verification_never_reveals_the_postal_code() -> None:
    env = make()
    result = env.call("verify_customer", {"account_id": "ACC-5006", "postal_code": "80212"}).result
    assert result == {"account_id": "ACC-5006", "verified": False, "name": None}


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        # an electrician on a heat pump visit, an HVAC-only technician on a gas furnace: the policy's
        # rule (§3), which only the tasks' checks stop; the desk may assign anyone of the territory
        ("reschedule_appointment", {**SLOT, "technician_id": "SR-102", "start": "2026-03-05T10:00:00-07:00"}),
        (
            "book_appointment",
            {
                "account_id": "ACC-5001",
                "work_order_id": "WO-00041207",
                "technician_id": "SR-103",
                "start": "2026-03-05T12:00:00-07:00",
            },
        ),
    ],
)
def test_skills_are_the_policy_s_rule_not_the_tool_s(tool: str, args: dict[str, Any]) -> None:
    env = make()
    assert code_of(env, tool, **args) is None
    assert env.violations() == []


def test_a_half_past_start_is_accepted_by_the_tool() -> None:
    # visits start on the full hour by policy (§3) only
    env = make()
    args = {"work_order_id": "WO-00041208", "technician_id": "SR-104", "start": "2026-03-04T09:30:00-07:00"}
    assert code_of(env, "book_appointment", account_id="ACC-5002", **args) is None
