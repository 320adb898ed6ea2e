"""What every travel tool shares: the traveller's own records, money as Decimal, instants."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from pytest_crmbench import ToolEnvironment, require


def instant(value: str) -> datetime:
    """An ISO timestamp with its offset, as an aware datetime (compares across offsets)."""
    return datetime.fromisoformat(value)


def without_seat_map(flight: dict[str, Any]) -> dict[str, Any]:
    """A flight as searches and bookings show it (the seat map is get_seat_map's)."""
    return {k: v for k, v in flight.items() if k != "seat_map"}


class Desk(ToolEnvironment):
    """Shared lookups: a traveller's own booking or hotel stay, seats, and money as Decimal."""

    def booking_of(self, traveller_id: str, locator: str) -> dict[str, Any]:
        self.get("travellers", traveller_id, param="traveller_id")
        return self.get("bookings", locator, owner=traveller_id, param="locator")

    def stay_of(self, traveller_id: str, stay_id: str) -> dict[str, Any]:
        self.get("travellers", traveller_id, param="traveller_id")
        return self.get("hotel_stays", stay_id, owner=traveller_id, param="stay_id")

    def confirmed(self, booking: dict[str, Any]) -> None:
        require(
            booking["status"] == "confirmed",
            409,
            "BOOKING_NOT_ACTIVE",
            f"{booking['locator']} is {booking['status']}.",
            param="locator",
        )

    def release_seats(self, booking: dict[str, Any], flight_id: str) -> None:
        """Free every seat the booking's passengers hold on a flight (a change or a cancellation)."""
        seat_map = self.state["flights"][flight_id]["seat_map"]
        for passenger in booking["passengers"]:
            seat = passenger["seats"].pop(flight_id, None)
            if seat is not None and seat in seat_map:
                seat_map[seat]["occupied"] = False

    @staticmethod
    def money(value: Any) -> Decimal:
        return Decimal(str(value)).quantize(Decimal("0.01"))
