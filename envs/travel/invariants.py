"""World rules every state of the travel world keeps (checked on the seed, on every task's
initial state and after every operation of the property tests)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from decimal import Decimal

from pytest_crmbench import ToolEnvironment, Violation, invariant


class WorldInvariants(ToolEnvironment):
    @invariant
    def references_resolve(self) -> Iterator[Violation]:
        state = self.state
        for locator, booking in state["bookings"].items():
            if set(booking["segment_fares"]) != set(booking["segments"]):
                yield Violation(f"bookings.{locator}.segment_fares", "has a fare for exactly each segment")
        for credit_id, credit in state["credits"].items():
            booking = state["bookings"].get(credit["locator"])
            if booking is None or booking["traveller_id"] != credit["traveller_id"]:
                yield Violation(f"credits.{credit_id}.locator", "names no booking of the credit's traveller")

    @invariant
    def money_is_conserved(self) -> Iterator[Violation]:
        """A booking never refunds more than was paid; refund credits never exceed what was refunded."""
        for locator, booking in self.state["bookings"].items():
            paid, refunded = Decimal(str(booking["total_paid"])), Decimal(str(booking["refunded"]))
            if refunded > paid:
                yield Violation(f"bookings.{locator}.refunded", f"{refunded} exceeds the {paid} paid")
            if refunded > 0 and booking["status"] != "cancelled":
                yield Violation(f"bookings.{locator}.status", "only a cancelled booking has been refunded")
            credited = sum(
                (
                    Decimal(str(c["amount"]))
                    for c in self.state["credits"].values()
                    if c["locator"] == locator and c["kind"] == "refund_credit"
                ),
                Decimal("0"),
            )
            if credited > refunded:
                yield Violation(f"bookings.{locator}.refunded", f"refund credits {credited} exceed it")
            vouchers = [
                c for c in self.state["credits"].values() if c["locator"] == locator and c["kind"] == "compensation"
            ]
            if len(vouchers) != int(booking["compensated"]):
                yield Violation(f"bookings.{locator}.compensated", f"disagrees with {len(vouchers)} vouchers")

    @invariant
    def capacity_holds(self) -> Iterator[Violation]:
        bag_limit = int(self.state["settings"]["max_bags_per_passenger"])
        for flight_id, flight in self.state["flights"].items():
            for cabin, seats in flight["seats_available"].items():
                if seats < 0:
                    yield Violation(f"flights.{flight_id}.seats_available.{cabin}", "is negative")
        for locator, booking in self.state["bookings"].items():
            if booking["checked_bags"] > bag_limit * len(booking["passengers"]):
                yield Violation(f"bookings.{locator}.checked_bags", "exceeds the per-passenger limit")

    @invariant
    def seats_are_held_once(self) -> Iterator[Violation]:
        """Every assigned seat is on a flight of the booking, in its cabin, taken, and held by one passenger."""
        holders: dict[tuple[str, str], str] = {}
        for locator, booking in self.state["bookings"].items():
            for index, passenger in enumerate(booking["passengers"]):
                for flight_id, seat in passenger["seats"].items():
                    path = f"bookings.{locator}.passengers.{index}.seats.{flight_id}"
                    place = self.state["flights"].get(flight_id, {}).get("seat_map", {}).get(seat)
                    if booking["status"] != "confirmed" or flight_id not in booking["segments"]:
                        yield Violation(path, "is a seat on a flight the booking does not hold")
                    elif place is None or not place["occupied"] or place["cabin"] != booking["cabin"]:
                        yield Violation(path, "names no taken seat of the booking's cabin")
                    elif (flight_id, seat) in holders:
                        yield Violation(path, f"is also held by {holders[(flight_id, seat)]}")
                    holders[(flight_id, seat)] = f"{locator} passenger {index}"

    @invariant
    def hotel_stays_are_consistent(self) -> Iterator[Violation]:
        for stay_id, stay in self.state["hotel_stays"].items():
            hotel = self.state["hotels"].get(stay["hotel_id"])
            if hotel is None or stay["room_type"] not in hotel["rooms"]:
                yield Violation(f"hotel_stays.{stay_id}.hotel_id", "names no room type of a partner hotel")
            if date.fromisoformat(stay["check_out"]) <= date.fromisoformat(stay["check_in"]):
                yield Violation(f"hotel_stays.{stay_id}.check_out", "is not after check_in")
            paid, refunded = Decimal(str(stay["total_paid"])), Decimal(str(stay["refunded"]))
            if refunded > paid:
                yield Violation(f"hotel_stays.{stay_id}.refunded", f"{refunded} exceeds the {paid} paid")
            if stay["rate_plan"] == "prepaid" and refunded > 0:
                yield Violation(f"hotel_stays.{stay_id}.refunded", "a prepaid stay is never refunded")

    @invariant
    def claims_are_covered_by_a_loss(self) -> Iterator[Violation]:
        """A claim is for an insured, cancelled booking of its traveller, once, at most what was not refunded."""
        seen: set[str] = set()
        for claim_id, claim in self.state["claims"].items():
            booking = self.state["bookings"].get(claim["locator"])
            path = f"claims.{claim_id}.locator"
            if booking is None or booking["traveller_id"] != claim["traveller_id"]:
                yield Violation(path, "names no booking of the claim's traveller")
                continue
            if not booking["insurance"] or booking["status"] != "cancelled":
                yield Violation(path, "names a booking that is not insured and cancelled")
            if claim["locator"] in seen:
                yield Violation(path, "has a second claim")
            seen.add(claim["locator"])
            loss = Decimal(str(booking["total_paid"])) - Decimal(str(booking["refunded"]))
            if Decimal(str(claim["amount"])) > loss:
                yield Violation(f"claims.{claim_id}.amount", f"exceeds the {loss} not refunded")
