"""The travel world: the seed and every task's initial state pass the state model and the world
invariants, and each invariant can fail."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_crmbench.core.loader import load_task_file
from pytest_crmbench.env.state import StateError

from .helpers import TASKS, TravelEnvironment, make

TASK_RECORDS = load_task_file(TASKS)


def test_seed_keeps_every_world_invariant() -> None:
    env = make()
    assert env.violations() == []
    assert set(TravelEnvironment.invariants) == {"references_resolve", "money_is_conserved", "capacity_holds"}
    assert env.state["flights"]["NA220-2026-05-12"]["status"] == "cancelled"


@pytest.mark.parametrize("record", TASK_RECORDS, ids=[r.task.id for r in TASK_RECORDS])
def test_every_task_starts_in_a_consistent_world(record: Any) -> None:
    assert make(record.task.initial_state).violations() == []


BROKEN_WORLDS: list[tuple[str, dict[str, Any], str]] = [
    (
        "booking-of-unknown-traveller",
        {"bookings": {"H4LM8P": {"traveller_id": "TRV-1"}}},
        "bookings.H4LM8P.traveller_id",
    ),
    (
        "segment-without-fare",
        {"bookings": {"H4LM8P": {"segment_fares": {"NA430-2026-05-20": 10}}}},
        "bookings.H4LM8P.segment_fares",
    ),
    (
        "refunded-more-than-paid",
        {"bookings": {"H4LM8P": {"status": "cancelled", "refunded": 700}}},
        "bookings.H4LM8P.refunded",
    ),
    ("refund-on-live-booking", {"bookings": {"H4LM8P": {"refunded": 10}}}, "bookings.H4LM8P.status"),
    ("compensated-without-voucher", {"bookings": {"K7Q2ZD": {"compensated": True}}}, "bookings.K7Q2ZD.compensated"),
    (
        "negative-seats",
        {"flights": {"NA224-2026-05-12": {"seats_available": {"economy": -1, "business": 2}}}},
        "flights.NA224-2026-05-12.seats_available.economy",
    ),
    ("too-many-bags", {"bookings": {"H4LM8P": {"checked_bags": 4}}}, "bookings.H4LM8P.checked_bags"),
    (
        "credit-of-another-traveller",
        {
            "credits": {
                "CR-AAAAAA": {
                    "credit_id": "CR-AAAAAA",
                    "traveller_id": "TRV-20418",
                    "locator": "H4LM8P",
                    "kind": "compensation",
                    "amount": 50,
                    "issued_at": "2026-05-11T10:00:00-04:00",
                }
            }
        },
        "credits.CR-AAAAAA.locator",
    ),
]


@pytest.mark.parametrize(("case", "override", "path"), BROKEN_WORLDS, ids=[c for c, _, _ in BROKEN_WORLDS])
def test_each_invariant_catches_a_broken_world(case: str, override: dict[str, Any], path: str) -> None:
    assert path in [v.path for v in make(override).violations()]


def test_the_state_model_refuses_unknown_fields_and_statuses() -> None:
    with pytest.raises(StateError):
        make({"bookings": {"H4LM8P": {"status": "on_hold"}}})
    with pytest.raises(StateError):
        make({"travellers": {"TRV-20419": {"passport": "X"}}})
