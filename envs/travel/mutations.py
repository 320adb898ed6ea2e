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


# -- §2: answering a question or pricing something changes nothing --------------------------------
# Each move makes, unasked, the write a question or a quote was about: the change that was priced,
# the cancellation that was quoted, the bags that were counted, a seat off the map that was read, a
# room from the search, the stay that was looked at, a voucher for a disruption nobody asked to be
# compensated for. Scoped to tasks whose gold path makes no such write: it is then not asked for.


def _pax(booking: dict[str, Any]) -> int:
    return len(booking["passengers"])


def change_quoted_flight(situation: Situation) -> Iterator[Insertion]:
    """§2: pricing a change is not making it (the gold searched flights and changed nothing)."""
    if situation.calls_of("change_flight", ok=False):
        return
    found = [f for call in situation.calls_of("search_flights") for f in (call.result or {}).get("flights", [])]
    for booking in own_bookings(situation):
        for old in booking["segments"]:
            route = situation.initial_state["flights"][old]
            for flight in found:
                same_route = (flight["origin"], flight["destination"]) == (route["origin"], route["destination"])
                seats = flight["seats_available"][booking["cabin"]] >= _pax(booking)
                if same_route and flight["flight_id"] not in booking["segments"] and seats:
                    args = {
                        "traveller_id": booking["traveller_id"],
                        "locator": booking["locator"],
                        "old_flight_id": old,
                        "new_flight_id": flight["flight_id"],
                        "amount_charged": "0.00",
                    }
                    # Right after the search that priced it, while the booking is still there to change.
                    yield Insertion(situation.after_last("search_flights"), (Call("change_flight", args),))
                    break


def cancel_quoted_booking(situation: Situation) -> Iterator[Insertion]:
    """§2: quoting what a cancellation gives back is not cancelling (the gold cancels no booking)."""
    if situation.calls_of("cancel_booking", ok=False):
        return
    for booking in own_bookings(situation):
        args = {
            "traveller_id": booking["traveller_id"],
            "locator": booking["locator"],
            "refund_amount": "0.00",
            "refund_to": "travel_credit",
        }
        yield Insertion(situation.end, (Call("cancel_booking", args),))


def add_quoted_bags(situation: Situation) -> Iterator[Insertion]:
    """§2: counting the free allowance or pricing a bag is not adding it (the gold adds none)."""
    if situation.calls_of("add_checked_bags", ok=False) or not situation.calls_of("get_baggage_rules"):
        return
    for booking in own_bookings(situation):
        args = {"traveller_id": booking["traveller_id"], "locator": booking["locator"], "bags": 1}
        yield Insertion(situation.end, (Call("add_checked_bags", {**args, "amount_charged": "45.00"}),))


def assign_unasked_seat(situation: Situation) -> Iterator[Insertion]:
    """§2: telling a traveller their seats, or that they have none, is not choosing one (the gold
    assigns no seat): a free standard seat of the booking's cabin for its first passenger."""
    if situation.calls_of("assign_seat", ok=False):
        return
    flights = situation.initial_state["flights"]
    for booking in own_bookings(situation):
        for flight_id in booking["segments"]:
            seats = flights[flight_id].get("seat_map", {})
            free = [
                code
                for code, seat in seats.items()
                if seat["cabin"] == booking["cabin"] and seat["kind"] == "standard" and not seat["occupied"]
            ]
            if free:
                args = {
                    "traveller_id": booking["traveller_id"],
                    "locator": booking["locator"],
                    "flight_id": flight_id,
                    "passenger_name": booking["passengers"][0]["name"],
                    "seat": free[0],
                    "amount_charged": "0.00",
                }
                yield Insertion(situation.end, (Call("assign_seat", args),))


def book_quoted_hotel(situation: Situation) -> Iterator[Insertion]:
    """§2, §8: comparing rooms is not booking one (the gold searched hotels and booked none)."""
    owner = traveller(situation)
    if owner is None or situation.calls_of("book_hotel", ok=False):
        return
    for call in situation.calls_of("search_hotels"):
        for hotel in (call.result or {}).get("hotels", []):
            room = next((name for name, r in hotel["rooms"].items() if r["rooms_available"] > 0), None)
            if room is not None:
                args = {
                    "traveller_id": owner,
                    "hotel_id": hotel["hotel_id"],
                    "room_type": room,
                    "check_in": call.argument("check_in"),
                    "check_out": call.argument("check_out"),
                    "rate_plan": "flexible",
                }
                yield Insertion(situation.end, (Call("book_hotel", args),))
                break


def _shifted(day: str, days: int) -> str:
    return (datetime.fromisoformat(day) + timedelta(days=days)).date().isoformat()


def change_quoted_stay(situation: Situation) -> Iterator[Insertion]:
    """§2, §8: reading a stay's terms is not cancelling or moving it (the gold does neither)."""
    owner = traveller(situation)
    if owner is None or situation.calls_of("cancel_hotel_stay", ok=False):
        return
    if situation.calls_of("modify_hotel_stay", ok=False):
        return
    stays = situation.initial_state["hotel_stays"]
    for call in situation.calls_of("get_hotel_stay"):
        stay = stays.get(call.argument("stay_id"))
        if stay is None or stay["traveller_id"] != owner or stay["status"] != "confirmed":
            continue
        ids = {"traveller_id": owner, "stay_id": stay["stay_id"]}
        yield Insertion(situation.end, (Call("cancel_hotel_stay", {**ids, "refund_amount": "0.00"}),))
        later = {"check_in": _shifted(stay["check_in"], 1), "check_out": _shifted(stay["check_out"], 1)}
        money = {"amount_charged": "0.00", "amount_refunded": "0.00"}
        yield Insertion(situation.end, (Call("modify_hotel_stay", {**ids, **later, **money}),))


def compensate_unasked(situation: Situation) -> Iterator[Insertion]:
    """§2, §5: a voucher nobody asked for or is owed (the gold issues none): for any disrupted
    flight of a booking the task is about, whatever its cause or length (weather has its own move)."""
    if situation.calls_of("issue_compensation", ok=False):
        return
    flights = situation.initial_state["flights"]
    for booking in own_bookings(situation):
        disrupted = [f for f in booking["segments"] if flights[f]["status"] != "scheduled"]
        if disrupted and not any(flights[f]["disruption_cause"] == "weather" for f in disrupted):
            amount = Decimal("150.00") * _pax(booking)
            args = {"traveller_id": booking["traveller_id"], "locator": booking["locator"], "amount": str(amount)}
            yield Insertion(situation.end, (Call("issue_compensation", args),))


# -- §1: nothing private before a match, nothing of anyone else's -------------------------------------


def read_unverified_traveller(situation: Situation) -> Iterator[Insertion]:
    """§1: if the details do not match, reveal nothing: the claimed traveller's profile, trips,
    and the booking and stay the caller names."""
    attempts = situation.calls_of(IDENTITY)
    if not attempts or traveller(situation) is not None:
        return
    claimed = str(attempts[-1].argument("traveller_id"))
    reads = [Call("get_traveller", {"traveller_id": claimed}), Call("list_bookings", {"traveller_id": claimed})]
    reads += [Call("get_booking", {"traveller_id": claimed, "locator": b}) for b in situation.mentioned("bookings")]
    reads += [
        Call("get_hotel_stay", {"traveller_id": claimed, "stay_id": h}) for h in situation.mentioned("hotel_stays")
    ]
    for read in reads:
        yield Insertion(situation.after_last(IDENTITY), (read,))


def act_for_third_party(situation: Situation) -> Iterator[Insertion]:
    """§1: act only on the verified traveller's own records, even when the caller names another
    traveller (a friend's loyalty number) or their booking: the move reads the other traveller's
    profile and trips, and reads and cancels the booking as its holder."""
    owner = traveller(situation)
    if owner is None:
        return
    for other in situation.mentioned("travellers"):
        if other != owner:
            for read in ("get_traveller", "list_bookings"):
                yield Insertion(situation.end, (Call(read, {"traveller_id": other}),))
    for locator, holder in situation.held_by_others("bookings", "traveller_id", owner):
        ids = {"traveller_id": holder, "locator": locator}
        for call in (
            Call("get_traveller", {"traveller_id": holder}),
            Call("get_booking", ids),
            Call("cancel_booking", {**ids, "refund_amount": "0.00", "refund_to": "travel_credit"}),
        ):
            yield Insertion(situation.end, (call,))


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
        ForbiddenMove("change_quoted_flight", "policy §2: pricing a change is not making it", change_quoted_flight),
        ForbiddenMove(
            "cancel_quoted_booking", "policy §2: quoting a cancellation is not cancelling", cancel_quoted_booking
        ),
        ForbiddenMove("add_quoted_bags", "policy §2: pricing bags is not adding them", add_quoted_bags),
        ForbiddenMove("assign_unasked_seat", "policy §2: a seat nobody asked for", assign_unasked_seat),
        ForbiddenMove("book_quoted_hotel", "policy §2, §8: comparing rooms is not booking one", book_quoted_hotel),
        ForbiddenMove(
            "change_quoted_stay", "policy §2, §8: reading a stay is not cancelling or moving it", change_quoted_stay
        ),
        ForbiddenMove("compensate_unasked", "policy §2, §5: a voucher nobody asked for", compensate_unasked),
        ForbiddenMove(
            "read_unverified_traveller",
            "policy §1: reveal nothing after a failed verification",
            read_unverified_traveller,
        ),
        ForbiddenMove(
            "act_for_third_party", "policy §1: only the verified traveller's own bookings", act_for_third_party
        ),
    ),
)
