"""Every rule the travel tools enforce, each rejection with its code, and what the tools leave to
the policy (amounts are the agent's: the tools take them as given)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from .helpers import code_of, make, ok

AMARA, HANNAH, DANIEL, OMAR = "TRV-20417", "TRV-20419", "TRV-20418", "TRV-20421"


def test_verification_checks_the_date_of_birth_without_revealing_it() -> None:
    env = make()
    assert ok(env, "verify_traveller", traveller_id=HANNAH, date_of_birth="1992-07-28")["verified"] is True
    wrong = ok(env, "verify_traveller", traveller_id=HANNAH, date_of_birth="1992-07-29")
    assert wrong == {"traveller_id": HANNAH, "verified": False, "name": None}
    assert code_of(env, "verify_traveller", traveller_id="TRV-1", date_of_birth="1992-07-28") == "TRAVELLER_NOT_FOUND"


def test_another_travellers_booking_is_refused() -> None:
    env = make()
    assert code_of(env, "get_booking", traveller_id=HANNAH, locator="D3RY6F") == "NOT_OWNER"
    assert (
        code_of(
            env, "cancel_booking", traveller_id=HANNAH, locator="D3RY6F", refund_amount="0", refund_to="travel_credit"
        )
        == "NOT_OWNER"
    )
    assert code_of(env, "get_booking", traveller_id=HANNAH, locator="ZZZZZZ") == "BOOKING_NOT_FOUND"


def test_search_lists_flights_of_the_local_departure_date() -> None:
    found = ok(make(), "search_flights", origin="jfk", destination="LHR", date="2026-05-15")
    assert [f["flight_id"] for f in found["flights"]] == ["NA101-2026-05-15", "NA105-2026-05-15"]


def change(env: object, **overrides: str) -> str | None:
    args = {
        "traveller_id": HANNAH,
        "locator": "H4LM8P",
        "old_flight_id": "NA101-2026-05-14",
        "new_flight_id": "NA101-2026-05-15",
        "amount_charged": "111.00",
        **overrides,
    }
    return code_of(env, "change_flight", **args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("overrides", "code"),
    [
        ({"new_flight_id": "NA105-2026-05-15"}, "NOT_ENOUGH_SEATS"),
        ({"new_flight_id": "NA224-2026-05-12"}, "ROUTE_MISMATCH"),
        ({"new_flight_id": "NA101-2026-05-14"}, "SAME_FLIGHT"),
        ({"old_flight_id": "NA430-2026-05-20"}, "FLIGHT_NOT_ON_BOOKING"),
        ({"new_flight_id": "NA999-2026-05-15"}, "FLIGHT_NOT_FOUND"),
        ({"amount_charged": "-1.00"}, "NEGATIVE_AMOUNT"),
    ],
)
def test_change_flight_rejections(overrides: dict[str, str], code: str) -> None:
    env = make()
    before = env.state
    assert change(env, **overrides) == code
    assert env.state == before


def test_a_change_moves_seats_and_adds_the_charge() -> None:
    env = make()
    assert change(env) is None
    booking = env.state["bookings"]["H4LM8P"]
    assert booking["segments"] == ["NA101-2026-05-15"]
    assert Decimal(str(booking["total_paid"])) == Decimal("723.00")
    assert env.state["flights"]["NA101-2026-05-15"]["seats_available"]["economy"] == 5
    assert env.state["flights"]["NA101-2026-05-14"]["seats_available"]["economy"] == 5


def test_a_basic_fare_changes_only_off_a_cancelled_flight() -> None:
    env = make()
    assert (
        code_of(
            env,
            "change_flight",
            traveller_id="TRV-20420",
            locator="Q9TB5W",
            old_flight_id="NA430-2026-05-20",
            new_flight_id="NA430-2026-05-20",
            amount_charged="0",
        )
        == "SAME_FLIGHT"
    )
    # K7Q2ZD is basic too, but its flight was cancelled: two passengers, one seat on NA224
    args = {"traveller_id": AMARA, "locator": "K7Q2ZD", "old_flight_id": "NA220-2026-05-12", "amount_charged": "0"}
    assert code_of(env, "change_flight", new_flight_id="NA224-2026-05-12", **args) == "NOT_ENOUGH_SEATS"
    assert code_of(env, "change_flight", new_flight_id="NA228-2026-05-12", **args) is None
    assert env.state["bookings"]["K7Q2ZD"]["rebooked_from"] == ["NA220-2026-05-12"]
    basic = {"traveller_id": DANIEL, "locator": "B6KP4T", "old_flight_id": "NA430-2026-05-20", "amount_charged": "75"}
    assert code_of(env, "change_flight", new_flight_id="NA430-2026-05-21", **basic) == "FARE_NOT_CHANGEABLE"


def test_no_change_onto_a_cancelled_or_departed_flight() -> None:
    env = make({"flights": {"NA101-2026-05-15": {"status": "cancelled", "disruption_cause": "technical"}}})
    assert change(env) == "FLIGHT_CANCELLED"
    env = make({"flights": {"NA101-2026-05-15": {"departs": "2026-05-11T09:30:00-04:00"}}})
    assert change(env) == "FLIGHT_DEPARTED"


def test_cancel_refunds_at_most_what_was_paid_and_only_once() -> None:
    env = make()
    args = {"traveller_id": AMARA, "locator": "P8NW3C", "refund_to": "original_payment"}
    assert code_of(env, "cancel_booking", refund_amount="312.41", **args) == "REFUND_EXCEEDS_PAID"
    assert code_of(env, "cancel_booking", refund_amount="-5", **args) == "NEGATIVE_AMOUNT"
    # the policy's rules on which refund a fare earns are not the tool's: it takes what it is given
    assert ok(env, "cancel_booking", refund_amount="312.40", **args)["status"] == "cancelled"
    assert env.state["flights"]["NA430-2026-05-20"]["seats_available"]["economy"] == 10
    assert code_of(env, "cancel_booking", refund_amount="0", **args) == "BOOKING_NOT_ACTIVE"
    assert env.state["credits"] == {}


def test_a_travel_credit_lands_on_the_profile() -> None:
    env = make()
    done = ok(
        env, "cancel_booking", traveller_id=AMARA, locator="P8NW3C", refund_amount="237.40", refund_to="travel_credit"
    )
    profile = ok(env, "get_traveller", traveller_id=AMARA)
    assert [(c["credit_id"], Decimal(str(c["amount"])), c["kind"]) for c in profile["credits"]] == [
        (done["credit_id"], Decimal("237.40"), "refund_credit")
    ]


def test_bags_are_limited_per_passenger_and_charged_as_given() -> None:
    env = make()
    args = {"traveller_id": DANIEL, "locator": "D3RY6F"}
    assert code_of(env, "add_checked_bags", bags=7, amount_charged="0", **args) == "TOO_MANY_BAGS"
    assert code_of(env, "add_checked_bags", bags=0, amount_charged="0", **args) == "INVALID_QUANTITY"
    assert code_of(env, "add_checked_bags", bags=1, amount_charged="-1", **args) == "NEGATIVE_AMOUNT"
    assert ok(env, "add_checked_bags", bags=4, amount_charged="90.00", **args)["checked_bags"] == 4
    assert Decimal(str(env.state["bookings"]["D3RY6F"]["total_paid"])) == Decimal("1370.00")
    assert code_of(env, "add_checked_bags", bags=3, amount_charged="0", **args) == "TOO_MANY_BAGS"


def test_compensation_only_for_a_disrupted_flight_and_once() -> None:
    env = make()
    assert code_of(env, "issue_compensation", traveller_id=HANNAH, locator="H4LM8P", amount="150") == (
        "FLIGHT_NOT_DISRUPTED"
    )
    assert code_of(env, "issue_compensation", traveller_id=OMAR, locator="G2HF7L", amount="0") == "INVALID_AMOUNT"
    # weather is the policy's rule, not the tool's
    assert ok(env, "issue_compensation", traveller_id=OMAR, locator="G2HF7L", amount="150.00")
    assert code_of(env, "issue_compensation", traveller_id=OMAR, locator="G2HF7L", amount="150") == (
        "ALREADY_COMPENSATED"
    )


def test_compensation_follows_a_rebooking_off_a_cancelled_flight() -> None:
    env = make()
    ok(
        env,
        "change_flight",
        traveller_id=AMARA,
        locator="K7Q2ZD",
        old_flight_id="NA220-2026-05-12",
        new_flight_id="NA228-2026-05-12",
        amount_charged="0.00",
    )
    assert ok(env, "issue_compensation", traveller_id=AMARA, locator="K7Q2ZD", amount="400.00")["amount"] == Decimal(
        "400.00"
    )


def test_transfer_needs_a_summary_and_queues_once() -> None:
    env = make()
    assert code_of(env, "transfer_to_agent", traveller_id=OMAR, summary="") is not None
    ok(env, "transfer_to_agent", traveller_id=OMAR, summary="expenses claim")
    assert code_of(env, "transfer_to_agent", traveller_id=OMAR, summary="again") == "ALREADY_ESCALATED"
