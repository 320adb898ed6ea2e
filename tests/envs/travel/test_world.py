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
    assert set(TravelEnvironment.invariants) == {
        "references_resolve",
        "money_is_conserved",
        "capacity_holds",
        "seats_are_held_once",
        "hotel_stays_are_consistent",
        "claims_are_covered_by_a_loss",
    }
    assert env.state["flights"]["NA220-2026-05-12"]["status"] == "cancelled"


@pytest.mark.parametrize("record", TASK_RECORDS, ids=[r.task.id for r in TASK_RECORDS])
def test_every_task_starts_in_a_consistent_world(record: Any) -> None:
    assert make(record.task.initial_state).violations() == []


def hannah_in(flight_id: str, seat: str) -> dict[str, Any]:
    return {"name": "Hannah Lindqvist", "date_of_birth": "1992-07-28", "seats": {flight_id: seat}}


def claim(locator: str, amount: float) -> dict[str, Any]:
    return {
        "claim_id": "CLM-AAAAAA",
        "traveller_id": "TRV-20418",
        "locator": locator,
        "reason": "illness",
        "amount": amount,
        "status": "submitted",
        "filed_at": "2026-05-11T10:00:00-04:00",
    }


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
    (
        "seat-not-taken-on-the-map",
        {"flights": {"NA101-2026-05-14": {"seat_map": {"21A": {"occupied": False}}}}},
        "bookings.H4LM8P.passengers.0.seats.NA101-2026-05-14",
    ),
    (
        "seat-on-a-flight-not-booked",
        {"bookings": {"H4LM8P": {"passengers": [hannah_in("NA101-2026-05-15", "30A")]}}},
        "bookings.H4LM8P.passengers.0.seats.NA101-2026-05-15",
    ),
    (
        "seat-held-twice",
        {
            "bookings": {
                "F5ZC1J": {
                    "cabin": "economy",
                    "passengers": [
                        {"name": "Priya Natarajan", "date_of_birth": "1975-01-19", "seats": {"NA101-2026-05-14": "21A"}}
                    ],
                }
            }
        },
        "bookings.F5ZC1J.passengers.0.seats.NA101-2026-05-14",
    ),
    (
        "stay-refunded-more-than-paid",
        {"hotel_stays": {"HS-7TQ2LM": {"refunded": 630.01}}},
        "hotel_stays.HS-7TQ2LM.refunded",
    ),
    ("prepaid-stay-refunded", {"hotel_stays": {"HS-5MV2NH": {"refunded": 1}}}, "hotel_stays.HS-5MV2NH.refunded"),
    (
        "stay-ends-before-it-starts",
        {"hotel_stays": {"HS-7TQ2LM": {"check_out": "2026-05-15"}}},
        "hotel_stays.HS-7TQ2LM.check_out",
    ),
    ("stay-in-unknown-room", {"hotel_stays": {"HS-7TQ2LM": {"room_type": "attic"}}}, "hotel_stays.HS-7TQ2LM.hotel_id"),
    ("claim-on-live-booking", {"claims": {"CLM-AAAAAA": claim("D3RY6F", 100)}}, "claims.CLM-AAAAAA.locator"),
    (
        "claim-above-the-loss",
        {"bookings": {"D3RY6F": {"status": "cancelled"}}, "claims": {"CLM-AAAAAA": claim("D3RY6F", 1280.01)}},
        "claims.CLM-AAAAAA.amount",
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
    with pytest.raises(StateError):
        make({"hotels": {"HTL-LON-01": {"rooms": {"standard": {"rooms_available": -1}}}}})
