"""Hypothesis: random sequences of operations keep every world invariant and conserve parts;
reads change nothing; resets are isolated; the schedule's raw facts decide every booking."""

from __future__ import annotations

import copy
from datetime import datetime, time, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .helpers import FieldServiceEnvironment, make, ok

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
NOW = datetime.fromisoformat("2026-03-02T09:00:00-07:00")

ACCOUNTS = [f"ACC-50{i:02d}" for i in range(1, 12)]
APPOINTMENTS = [f"SA-10{i:02d}" for i in range(1, 11)]
WORK_ORDERS = [f"WO-000412{i:02d}" for i in range(1, 15)]
TECHNICIANS = ["SR-101", "SR-102", "SR-103", "SR-104", "SR-105", "SR-201", "SR-202", "SR-203"]
PARTS = ["P-FLT-1620", "P-IGN-HSI", "P-CAP-45", "P-BRK-20A", "P-ANODE"]
STARTS = st.builds(
    lambda day, hour, offset: f"2026-03-{day:02d}T{hour:02d}:00:00{offset}",
    st.integers(2, 13),
    st.integers(6, 18),
    st.sampled_from(["-07:00", "-06:00", "+00:00"]),
)

OPERATIONS = st.one_of(
    st.tuples(
        st.just("reschedule_appointment"),
        st.fixed_dictionaries(
            {
                "account_id": st.sampled_from(ACCOUNTS),
                "appointment_id": st.sampled_from(APPOINTMENTS),
                "technician_id": st.sampled_from(TECHNICIANS),
                "start": STARTS,
            }
        ),
    ),
    st.tuples(
        st.just("book_appointment"),
        st.fixed_dictionaries(
            {
                "account_id": st.sampled_from(ACCOUNTS),
                "work_order_id": st.sampled_from(WORK_ORDERS),
                "technician_id": st.sampled_from(TECHNICIANS),
                "start": STARTS,
            }
        ),
    ),
    st.tuples(
        st.just("cancel_appointment"),
        st.fixed_dictionaries(
            {
                "account_id": st.sampled_from(ACCOUNTS),
                "appointment_id": st.sampled_from(APPOINTMENTS),
                "reason": st.just("r"),
            }
        ),
    ),
    st.tuples(
        st.just("reserve_part"),
        st.fixed_dictionaries(
            {
                "account_id": st.sampled_from(ACCOUNTS),
                "work_order_id": st.sampled_from(WORK_ORDERS),
                "part_id": st.sampled_from(PARTS),
                "quantity": st.integers(-1, 5),
            }
        ),
    ),
)
READS = st.one_of(
    st.tuples(
        st.just("get_schedule"),
        st.fixed_dictionaries(
            {
                "account_id": st.sampled_from(ACCOUNTS),
                "work_order_id": st.sampled_from(WORK_ORDERS),
                "date": st.sampled_from(["2026-03-03", "2026-03-05", "2026-03-06", "2026-03-09"]),
            }
        ),
    ),
    st.tuples(st.just("list_appointments"), st.fixed_dictionaries({"account_id": st.sampled_from(ACCOUNTS)})),
    st.tuples(st.just("get_van_inventory"), st.fixed_dictionaries({"technician_id": st.sampled_from(TECHNICIANS)})),
)


def units(state: dict[str, Any], part_id: str) -> int:
    vans = sum(t["van_stock"].get(part_id, 0) for t in state["technicians"].values())
    reserved = sum(
        line["quantity"]
        for wo in state["work_orders"].values()
        for line in wo["line_items"]
        if line["part_id"] == part_id
    )
    return int(vans + reserved)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OPERATIONS, max_size=12))
def test_random_operations_keep_the_world_and_conserve_parts(operations: list[tuple[str, dict[str, Any]]]) -> None:
    env = make()
    totals = {p: units(env.state, p) for p in PARTS}
    for name, args in operations:
        before = copy.deepcopy(env.state)
        call = env.call(name, args)
        assert call.status in ("ok", "rejected"), call.error
        if call.status == "rejected":
            assert env.state == before
        assert env.violations() == []
        assert {p: units(env.state, p) for p in PARTS} == totals


@settings(max_examples=40, deadline=None)
@given(st.lists(READS, max_size=6))
def test_reads_change_nothing(reads: list[tuple[str, dict[str, Any]]]) -> None:
    env = make()
    before = copy.deepcopy(env.state)
    for name, args in reads:
        env.call(name, args)
    assert env.state == before


def test_each_reset_starts_from_the_same_world() -> None:
    first = make()
    first.call("cancel_appointment", {"account_id": "ACC-5001", "appointment_id": "SA-1001", "reason": "r"})
    assert make().state == FieldServiceEnvironment({}, seed=0).state
    assert make().state["appointments"]["SA-1001"]["status"] == "Scheduled"


def fits(schedule: dict[str, Any], technician: dict[str, Any], start: datetime) -> bool:
    """Whether a visit fits by the schedule's own facts (policy §3 less the skills, which the tools
    leave to the agent): bounds, 24-hour lead time, shift, no overlap with another booking."""
    end = start + timedelta(minutes=schedule["duration_minutes"])
    hours = technician["working_hours"]
    in_bounds = datetime.fromisoformat(schedule["earliest_start"]) <= start and end <= datetime.fromisoformat(
        schedule["due_date"]
    )
    in_shift = (
        WEEKDAYS[start.weekday()] in hours["days"]
        and time.fromisoformat(hours["start"]) <= start.time()
        and end.time() <= time.fromisoformat(hours["end"])
        and end.date() == start.date()
    )
    free = all(
        not (start < datetime.fromisoformat(b["end"]) and datetime.fromisoformat(b["start"]) < end)
        for b in technician["bookings"]
    )
    return start >= NOW + timedelta(hours=24) and in_bounds and in_shift and free


UNSCHEDULED = [
    ("ACC-5001", "WO-00041207"),
    ("ACC-5002", "WO-00041208"),
    ("ACC-5003", "WO-00041209"),
    ("ACC-5011", "WO-00041214"),
]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(UNSCHEDULED), st.integers(2, 14), st.integers(5, 19))
def test_the_schedule_s_facts_decide_every_booking(order: tuple[str, str], day: int, hour: int) -> None:
    # what the agent reads is enough to know which bookings the desk takes: every technician of
    # the territory, at one full hour of one day, is accepted exactly when the facts say it fits
    account, work_order = order
    date = f"2026-03-{day:02d}"
    schedule = ok(make(), "get_schedule", account_id=account, work_order_id=work_order, date=date)
    offset = schedule["utc_offset"]
    start = datetime.fromisoformat(f"{date}T{hour:02d}:00:00{offset}")
    for technician in schedule["technicians"]:
        args = {"work_order_id": work_order, "technician_id": technician["technician_id"], "start": start.isoformat()}
        call = make().call("book_appointment", {"account_id": account, **args})
        assert (call.status == "ok") is fits(schedule, technician, start), (technician["technician_id"], call.error)
    if not schedule["schedulable"]:
        assert not any(fits(schedule, t, start) for t in schedule["technicians"])
