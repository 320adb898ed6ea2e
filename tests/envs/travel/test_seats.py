"""Seats: each rule the airline's system enforces with its code and an untouched world; prices are
the agent's (tier benefits, children beside an adult are policy)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from .helpers import code_of, make, ok

HANNAH, DANIEL, MEI, GRACE, AMARA = "TRV-20419", "TRV-20418", "TRV-20420", "TRV-20423", "TRV-20417"


def test_the_seat_map_lists_prices_and_taken_seats_and_flights_do_not() -> None:
    env = make()
    seats = ok(env, "get_seat_map", flight_id="NA101-2026-05-14")["seats"]
    assert seats["14A"] == {"cabin": "economy", "kind": "extra_legroom", "price": Decimal("39.00"), "occupied": False}
    assert seats["21A"]["occupied"] is True
    booking = ok(env, "get_booking", traveller_id=HANNAH, locator="H4LM8P")
    assert "seat_map" not in booking["flights"][0]
    assert code_of(env, "get_seat_map", flight_id="NA999-2026-05-14") == "FLIGHT_NOT_FOUND"


def assign(env: Any, **overrides: str) -> str | None:
    args = {
        "traveller_id": HANNAH,
        "locator": "H4LM8P",
        "flight_id": "NA101-2026-05-14",
        "passenger_name": "Hannah Lindqvist",
        "seat": "14A",
        "amount_charged": "39.00",
        **overrides,
    }
    return code_of(env, "assign_seat", **args)


@pytest.mark.parametrize(
    ("overrides", "code"),
    [
        ({"flight_id": "NA101-2026-05-15"}, "FLIGHT_NOT_ON_BOOKING"),
        ({"passenger_name": "Sofia Reyes"}, "PASSENGER_NOT_ON_BOOKING"),
        ({"seat": "99Z"}, "SEAT_NOT_FOUND"),
        ({"seat": "2A"}, "CABIN_MISMATCH"),
        ({"seat": "14B"}, "SEAT_TAKEN"),
        ({"seat": "21A"}, "SAME_SEAT"),
        ({"amount_charged": "-0.01"}, "NEGATIVE_AMOUNT"),
        ({"traveller_id": DANIEL}, "NOT_OWNER"),
        (
            {
                "traveller_id": MEI,
                "locator": "Q9TB5W",
                "flight_id": "NA430-2026-05-20",
                "passenger_name": "Mei Tanaka",
                "seat": "24E",
            },
            "SEAT_SELECTION_NOT_ALLOWED",
        ),
        (
            {
                "traveller_id": GRACE,
                "locator": "T3JW9E",
                "flight_id": "NA512-2026-05-11",
                "passenger_name": "Lily Whitfield",
                "seat": "9C",
            },
            "EXIT_ROW_AGE",
        ),
    ],
)
def test_assign_seat_rejections(overrides: dict[str, str], code: str) -> None:
    env = make()
    before = env.state
    assert assign(env, **overrides) == code
    assert env.state == before


def test_a_new_seat_frees_the_old_one_and_adds_the_charge() -> None:
    env = make()
    assert assign(env) is None
    flight = env.state["flights"]["NA101-2026-05-14"]
    assert flight["seat_map"]["14A"]["occupied"] and not flight["seat_map"]["21A"]["occupied"]
    booking = env.state["bookings"]["H4LM8P"]
    assert booking["passengers"][0]["seats"] == {"NA101-2026-05-14": "14A"}
    assert Decimal(str(booking["total_paid"])) == Decimal("651.00")


def test_an_adult_may_sit_in_the_exit_row_and_names_match_without_case() -> None:
    env = make()
    args = {"traveller_id": GRACE, "locator": "T3JW9E", "flight_id": "NA512-2026-05-11", "seat": "9c"}
    assert ok(env, "assign_seat", **args, passenger_name="grace whitfield", amount_charged="29.00")["seat"] == "9C"


def test_a_flight_change_or_a_cancellation_frees_the_seats() -> None:
    env = make()
    ok(
        env,
        "change_flight",
        traveller_id=HANNAH,
        locator="H4LM8P",
        old_flight_id="NA101-2026-05-14",
        new_flight_id="NA101-2026-05-15",
        amount_charged="111.00",
    )
    assert env.state["bookings"]["H4LM8P"]["passengers"][0]["seats"] == {}
    assert not env.state["flights"]["NA101-2026-05-14"]["seat_map"]["21A"]["occupied"]
    other = make()
    ok(other, "cancel_booking", traveller_id=AMARA, locator="P8NW3C", refund_amount="0", refund_to="travel_credit")
    assert not other.state["flights"]["NA430-2026-05-20"]["seat_map"]["24F"]["occupied"]
    assert other.violations() == []
