"""World rules every state of the travel world keeps (checked on the seed, on every task's
initial state and after every operation of the property tests)."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from pytest_crmbench import ToolEnvironment, Violation, invariant


class WorldInvariants(ToolEnvironment):
    @invariant
    def references_resolve(self) -> Iterator[Violation]:
        state = self.state
        for locator, booking in state["bookings"].items():
            if booking["traveller_id"] not in state["travellers"]:
                yield Violation(f"bookings.{locator}.traveller_id", "names no traveller")
            for flight_id in booking["segments"] + booking["rebooked_from"]:
                if flight_id not in state["flights"]:
                    yield Violation(f"bookings.{locator}.segments", f"{flight_id} names no flight")
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
