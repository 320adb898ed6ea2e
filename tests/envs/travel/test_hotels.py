"""Hotel stays: each rule the hotel's system enforces with its code and an untouched world, and what
it leaves to the policy (refunds under the hotel's terms are the agent's amounts)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from .helpers import code_of, make, ok

HANNAH, DANIEL, AMARA, GRACE = "TRV-20419", "TRV-20418", "TRV-20417", "TRV-20423"


def test_search_shows_rates_rooms_and_terms_without_a_total() -> None:
    found = ok(make(), "search_hotels", city="london", check_in="2026-05-16", check_out="2026-05-18")
    hotels = {h["hotel_id"]: h for h in found["hotels"]}
    assert set(hotels) == {"HTL-LON-01", "HTL-LON-02"}
    assert hotels["HTL-LON-02"]["rooms"]["standard"]["rooms_available"] == 0
    assert hotels["HTL-LON-01"]["free_cancellation_hours"] == 48
    assert "total" not in str(found)


def test_a_stay_is_read_only_by_its_holder_with_the_hotels_terms() -> None:
    env = make()
    stay = ok(env, "get_hotel_stay", traveller_id=HANNAH, stay_id="HS-7TQ2LM")
    assert stay["hotel"]["check_in_time"] == "15:00" and stay["hotel"]["utc_offset"] == "+01:00"
    assert code_of(env, "get_hotel_stay", traveller_id=DANIEL, stay_id="HS-7TQ2LM") == "NOT_OWNER"
    assert code_of(env, "get_hotel_stay", traveller_id=DANIEL, stay_id="HS-000000") == "HOTEL_STAY_NOT_FOUND"
    listed = ok(env, "list_bookings", traveller_id=HANNAH)["hotel_stays"]
    assert [s["stay_id"] for s in listed] == ["HS-7TQ2LM"]


def test_booking_prices_the_nights_and_takes_a_room() -> None:
    env = make()
    args = {"traveller_id": DANIEL, "hotel_id": "HTL-LON-01", "room_type": "standard", "check_in": "2026-05-15"}
    stay = ok(env, "book_hotel", **args, check_out="2026-05-18", rate_plan="flexible")
    assert Decimal(str(stay["total_paid"])) == Decimal("630.00")
    assert env.state["hotels"]["HTL-LON-01"]["rooms"]["standard"]["rooms_available"] == 2
    assert env.state["hotel_stays"][stay["stay_id"]]["traveller_id"] == DANIEL
    prepaid = ok(env, "book_hotel", **args, check_out="2026-05-16", rate_plan="prepaid")
    assert Decimal(str(prepaid["total_paid"])) == Decimal("184.00")


@pytest.mark.parametrize(
    ("overrides", "code"),
    [
        ({"hotel_id": "HTL-XXX-01"}, "HOTEL_NOT_FOUND"),
        ({"room_type": "penthouse"}, "ROOM_TYPE_NOT_FOUND"),
        ({"check_in": "2026-05-10"}, "DATE_IN_PAST"),
        ({"check_out": "2026-05-15"}, "INVALID_DATES"),
        ({"check_out": "2026-06-20"}, "STAY_TOO_LONG"),
        ({"hotel_id": "HTL-LON-02"}, "NO_ROOMS"),
        ({"traveller_id": "TRV-1"}, "TRAVELLER_NOT_FOUND"),
    ],
)
def test_book_hotel_rejections(overrides: dict[str, str], code: str) -> None:
    env = make()
    before = env.state
    args: dict[str, Any] = {
        "traveller_id": DANIEL,
        "hotel_id": "HTL-LON-01",
        "room_type": "standard",
        "check_in": "2026-05-15",
        "check_out": "2026-05-18",
        "rate_plan": "flexible",
        **overrides,
    }
    assert code_of(env, "book_hotel", **args) == code
    assert env.state == before


def modify(env: Any, **overrides: str) -> str | None:
    args = {
        "traveller_id": HANNAH,
        "stay_id": "HS-7TQ2LM",
        "check_in": "2026-05-16",
        "check_out": "2026-05-18",
        "amount_charged": "0.00",
        "amount_refunded": "210.00",
        **overrides,
    }
    return code_of(env, "modify_hotel_stay", **args)


@pytest.mark.parametrize(
    ("overrides", "code"),
    [
        ({"traveller_id": DANIEL, "stay_id": "HS-5MV2NH", "amount_refunded": "0.00"}, "RATE_NOT_CHANGEABLE"),
        ({"traveller_id": GRACE, "stay_id": "HS-2RC6TF"}, "STAY_STARTED"),
        ({"check_in": "2026-05-15", "check_out": "2026-05-18"}, "SAME_DATES"),
        ({"check_out": "2026-05-16"}, "INVALID_DATES"),
        ({"amount_charged": "-1.00"}, "NEGATIVE_AMOUNT"),
        ({"amount_refunded": "630.01"}, "REFUND_EXCEEDS_PAID"),
        ({"traveller_id": DANIEL}, "NOT_OWNER"),
    ],
)
def test_modify_hotel_stay_rejections(overrides: dict[str, str], code: str) -> None:
    env = make()
    before = env.state
    assert modify(env, **overrides) == code
    assert env.state == before


def test_a_modification_takes_the_agents_amounts() -> None:
    env = make()
    assert modify(env) is None
    stay = env.state["hotel_stays"]["HS-7TQ2LM"]
    assert (stay["check_in"], stay["check_out"]) == ("2026-05-16", "2026-05-18")
    assert Decimal(str(stay["refunded"])) == Decimal("210.00")
    assert modify(env, check_out="2026-05-19", amount_charged="210.00", amount_refunded="0.00") is None
    assert Decimal(str(env.state["hotel_stays"]["HS-7TQ2LM"]["total_paid"])) == Decimal("840.00")


def test_cancelling_refunds_as_given_frees_the_room_and_only_once() -> None:
    env = make()
    args = {"traveller_id": AMARA, "stay_id": "HS-9XK4RB"}
    assert code_of(env, "cancel_hotel_stay", **args, refund_amount="496.01") == "REFUND_EXCEEDS_PAID"
    assert code_of(env, "cancel_hotel_stay", **args, refund_amount="-1") == "NEGATIVE_AMOUNT"
    ok(env, "cancel_hotel_stay", **args, refund_amount="248.00")
    stay = env.state["hotel_stays"]["HS-9XK4RB"]
    assert stay["status"] == "cancelled" and Decimal(str(stay["refunded"])) == Decimal("248.00")
    assert env.state["hotels"]["HTL-LAX-01"]["rooms"]["family"]["rooms_available"] == 2
    assert code_of(env, "cancel_hotel_stay", **args, refund_amount="0") == "STAY_NOT_ACTIVE"


def test_a_prepaid_stay_cancels_only_without_refund_and_not_once_begun() -> None:
    env = make()
    prepaid = {"traveller_id": DANIEL, "stay_id": "HS-5MV2NH"}
    assert code_of(env, "cancel_hotel_stay", **prepaid, refund_amount="259.00") == "REFUND_NOT_ALLOWED"
    begun = {"traveller_id": GRACE, "stay_id": "HS-2RC6TF"}
    assert code_of(env, "cancel_hotel_stay", **begun, refund_amount="0") == "STAY_STARTED"
    ok(env, "cancel_hotel_stay", **prepaid, refund_amount="0.00")
    assert env.state["hotel_stays"]["HS-5MV2NH"]["status"] == "cancelled"
