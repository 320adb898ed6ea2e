"""What the contract mutation audit needs to know about the travel policy (``policy.md``).

Identity tool, the reads the policy requires before a write (a flight change only onto a flight
the agent searched; bags only after reading the allowance; a seat after the seat map; a hotel after
searching; a stay's change after reading its terms), the reads that look at what a write changed,
and the moves the policy forbids in a task's situation. See docs/release.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from pytest_crmbench.core.evidence import ToolCall
from pytest_crmbench.release.mutation import Call, ForbiddenMove, Insertion, MutationHints, Situation

from .conduct import VERIFY

IDENTITY = VERIFY.tool
NOW = datetime.fromisoformat("2026-05-11T10:00:00-04:00")
"""The domain clock's start (environment.py): the 24-hour rule is measured from it."""


def traveller(situation: Situation) -> str | None:
    """The verified traveller: the first verification that succeeded."""
    for call in situation.calls_of(IDENTITY):
        if isinstance(call.result, dict) and call.result.get("verified") is True:
            return str(call.result["traveller_id"])
    return None


def own_bookings(situation: Situation) -> Iterator[dict[str, Any]]:
    owner = traveller(situation)
    for locator in situation.mentioned("bookings"):
        booking = situation.initial_state["bookings"][locator]
        if owner is not None and booking["traveller_id"] == owner and booking["status"] == "confirmed":
            yield booking


def compensate_weather(situation: Situation) -> Iterator[Insertion]:
    """Policy §5: a weather disruption earns no compensation."""
    if situation.calls_of("issue_compensation", ok=False):
        return
    flights = situation.initial_state["flights"]
    for booking in own_bookings(situation):
        if any(flights[f]["disruption_cause"] == "weather" for f in booking["segments"]):
            args = {"traveller_id": booking["traveller_id"], "locator": booking["locator"], "amount": "150.00"}
            yield Insertion(situation.end, (Call("issue_compensation", args),))


def within_24_hour_rule(booking: dict[str, Any], flights: dict[str, Any]) -> bool:
    """Policy §3: cancelled within 24 hours of booking, for a booking made at least 7 days before
    its first flight departs."""
    made = datetime.fromisoformat(booking["created_at"])
    departs = datetime.fromisoformat(flights[booking["segments"][0]]["departs"])
    return NOW - made < timedelta(hours=24) and departs - made >= timedelta(days=7)


def refund_booked_too_close(situation: Situation) -> Iterator[Insertion]:
    """Policy §3: a booking made less than 7 days before departure gets no 24-hour refund, even
    when it was made less than 24 hours ago (scoped to tasks whose gold cancels nothing)."""
    if situation.calls_of("cancel_booking", ok=False):
        return
    flights = situation.initial_state["flights"]
    for booking in own_bookings(situation):
        made = datetime.fromisoformat(booking["created_at"])
        if NOW - made < timedelta(hours=24) and not within_24_hour_rule(booking, flights):
            args = {
                "traveller_id": booking["traveller_id"],
                "locator": booking["locator"],
                "refund_amount": str(booking["total_paid"]),
                "refund_to": "original_payment",
            }
            yield Insertion(situation.end, (Call("cancel_booking", args),))


def refund_standard_to_card(situation: Situation) -> Iterator[Insertion]:
    """Policy §3: outside the 24-hour rule a standard fare is never refunded to the original payment
    (scoped to tasks that cancel one)."""
    for call in situation.calls_of("cancel_booking"):
        locator = (call.effective_arguments or {}).get("locator")
        booking = situation.initial_state["bookings"].get(locator)
        if booking is None or booking["fare_brand"] != "standard":
            continue
        if within_24_hour_rule(booking, situation.initial_state["flights"]):
            continue
        args = {
            **(call.effective_arguments or {}),
            "refund_to": "original_payment",
            "refund_amount": str(booking["total_paid"]),
        }
        yield Insertion(call.index, (Call("cancel_booking", args),))


def claim_uncovered(situation: Situation) -> Iterator[Insertion]:
    """Policy §9: no claim for a reason that is not covered (scoped to tasks that cancel an insured
    booking and file nothing: the traveller's reason was not covered)."""
    if situation.calls_of("file_insurance_claim", ok=False):
        return
    for call in situation.calls_of("cancel_booking"):
        locator = call.argument("locator")
        booking = situation.initial_state["bookings"].get(locator)
        if booking is None or not booking["insurance"]:
            continue
        final = situation.final_state["bookings"][locator]
        loss = Decimal(str(final["total_paid"])) - Decimal(str(final["refunded"]))
        if loss > 0:
            args = {"traveller_id": booking["traveller_id"], "locator": locator, "reason": "other", "amount": str(loss)}
            yield Insertion(situation.end, (Call("file_insurance_claim", args),))


def waive_hotel_terms(situation: Situation) -> Iterator[Insertion]:
    """Policy §8: the hotel's late-cancellation nights are never waived (scoped to tasks whose
    gold cancels a flexible stay for less than it cost)."""
    for call in situation.calls_of("cancel_hotel_stay"):
        stay = situation.initial_state["hotel_stays"].get(call.argument("stay_id"))
        if stay is None or stay["rate_plan"] != "flexible":
            continue
        left = Decimal(str(stay["total_paid"])) - Decimal(str(stay["refunded"]))
        if Decimal(str(call.argument("refund_amount"))) < left:
            args = {**(call.effective_arguments or {}), "refund_amount": str(left)}
            yield Insertion(call.index, (Call("cancel_hotel_stay", args),))


def _booking(call: ToolCall) -> list[Call]:
    return [Call("get_booking", {"traveller_id": call.argument("traveller_id"), "locator": call.argument("locator")})]


def _stay(call: ToolCall) -> list[Call]:
    return [
        Call("get_hotel_stay", {"traveller_id": call.argument("traveller_id"), "stay_id": call.argument("stay_id")})
    ]


def _trips(call: ToolCall) -> list[Call]:
    return [Call("list_bookings", {"traveller_id": call.argument("traveller_id")})]


HINTS = MutationHints(
    # The identity tool comes from conduct.py.
    # §5 and §3: a change goes onto a flight the agent searched; §4: bags after reading the allowance;
    # §7: a seat after reading the seat map; §8: a hotel after searching, a stay's change after reading its terms.
    requires_before={
        "change_flight": ("search_flights",),
        "add_checked_bags": ("get_baggage_rules",),
        "assign_seat": ("get_seat_map",),
        "book_hotel": ("search_hotels",),
        "modify_hotel_stay": ("get_hotel_stay",),
        "cancel_hotel_stay": ("get_hotel_stay",),
    },
    harmless_repeats=frozenset(),
    rereads={
        "change_flight": _booking,
        "cancel_booking": _booking,
        "add_checked_bags": _booking,
        "issue_compensation": _booking,
        "assign_seat": _booking,
        "file_insurance_claim": _booking,
        "book_hotel": _trips,
        "modify_hotel_stay": _stay,
        "cancel_hotel_stay": _stay,
    },
    forbidden_moves=(
        ForbiddenMove("compensate_weather", "policy §5: no compensation for weather", compensate_weather),
        ForbiddenMove(
            "refund_standard_to_card",
            "policy §3: a standard fare is refunded as travel credit only",
            refund_standard_to_card,
        ),
        ForbiddenMove(
            "refund_booked_too_close",
            "policy §3: no 24-hour refund for a booking made less than 7 days before departure",
            refund_booked_too_close,
        ),
        ForbiddenMove("claim_uncovered", "policy §9: no claim for a reason that is not covered", claim_uncovered),
        ForbiddenMove(
            "waive_hotel_terms", "policy §8: the hotel's late-cancellation nights are kept", waive_hotel_terms
        ),
    ),
)
