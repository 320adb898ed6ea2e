"""Hypothesis: random sequences of operations keep every world invariant and conserve parts;
reads change nothing; resets are isolated."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .helpers import FieldServiceEnvironment, make

ACCOUNTS = ["ACC-5001", "ACC-5002", "ACC-5003", "ACC-5004", "ACC-5005", "ACC-5006"]
APPOINTMENTS = ["SA-1001", "SA-1002", "SA-1003", "SA-1004", "SA-1005", "SA-1006"]
WORK_ORDERS = [f"WO-0004120{i}" for i in range(1, 10)]
TECHNICIANS = ["SR-101", "SR-102", "SR-103", "SR-104", "SR-201", "SR-202"]
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
