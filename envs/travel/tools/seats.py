"""Seats: a flight's seat map and assigning a passenger a seat.

The airline's system enforces the fare brand's seat selection, the cabin, a seat nobody holds and
the exit-row age; the seat's price is on the map, and what the traveller pays for it (tier
benefits, one seat per passenger per flight) is the policy's (the agent computes it).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from pytest_crmbench import Money, require, tool
from pytest_crmbench.env.values import ZERO

from .base import Desk, instant

EXIT_ROW_MIN_AGE = 15


def age_on(date_of_birth: str, day: date) -> int:
    born = date.fromisoformat(date_of_birth)
    return day.year - born.year - ((day.month, day.day) < (born.month, born.day))


class SeatTools(Desk):
    """Seat maps and seat assignments."""

    @tool(kind="read")
    def get_seat_map(self, flight_id: str) -> dict[str, Any]:
        """The seats of a flight the desk can assign: cabin, kind (standard, extra_legroom,
        exit_row), price per passenger before any tier benefit, and whether it is taken. In economy
        A-C and D-F are the two sides of the aisle: A and F are windows, C and D aisle seats.

        Args:
            flight_id: e.g. "NA101-2026-05-14".
        """
        flight = self.get("flights", flight_id)
        return {"flight_id": flight_id, "seats": flight["seat_map"]}

    @tool(kind="write")
    def assign_seat(
        self, traveller_id: str, locator: str, flight_id: str, passenger_name: str, seat: str, amount_charged: Money
    ) -> dict[str, Any]:
        """Give one passenger of the booking a seat on one of its flights (their old seat on that
        flight is freed), charging the amount the policy says (the tool does not work it out).
        After the explicit yes.

        Args:
            traveller_id: The verified traveller, holder of the booking.
            locator: The record locator.
            flight_id: A flight of the booking.
            passenger_name: The passenger's full name as on the booking.
            seat: The seat, e.g. "14A".
            amount_charged: What the traveller pays for this seat, 0.00 when nothing.
        """
        booking = self.booking_of(traveller_id, locator)
        self.confirmed(booking)
        require(
            flight_id in booking["segments"],
            422,
            "FLIGHT_NOT_ON_BOOKING",
            f"{flight_id} is not on {locator}.",
            param="flight_id",
        )
        brand = self.state["settings"]["fare_brands"][booking["fare_brand"]]
        require(
            brand["seat_selection"],
            422,
            "SEAT_SELECTION_NOT_ALLOWED",
            f"A {booking['fare_brand']} fare gets its seats at check-in.",
            param="locator",
        )
        flight = self.state["flights"][flight_id]
        require(
            flight["status"] != "cancelled", 409, "FLIGHT_CANCELLED", f"{flight_id} is cancelled.", param="flight_id"
        )
        require(
            instant(flight["departs"]) > self.now(), 422, "FLIGHT_DEPARTED", f"{flight_id} has left.", param="flight_id"
        )
        wanted = passenger_name.strip().lower()
        passenger = next((p for p in booking["passengers"] if p["name"].lower() == wanted), None)
        require(
            passenger is not None,
            422,
            "PASSENGER_NOT_ON_BOOKING",
            f"No passenger named {passenger_name!r} on {locator}.",
            param="passenger_name",
        )
        assert passenger is not None  # for the type checker: require raised otherwise
        code = seat.strip().upper()
        place = flight["seat_map"].get(code)
        require(place is not None, 404, "SEAT_NOT_FOUND", f"{flight_id} has no assignable seat {code}.", param="seat")
        assert place is not None
        require(
            place["cabin"] == booking["cabin"],
            422,
            "CABIN_MISMATCH",
            f"{code} is in {place['cabin']}; {locator} flies {booking['cabin']}.",
            param="seat",
        )
        require(
            not place["occupied"] or passenger["seats"].get(flight_id) == code,
            409,
            "SEAT_TAKEN",
            f"{code} is taken.",
            param="seat",
        )
        require(
            passenger["seats"].get(flight_id) != code,
            409,
            "SAME_SEAT",
            f"{passenger['name']} already has {code}.",
            param="seat",
        )
        departure = instant(flight["departs"]).date()
        require(
            place["kind"] != "exit_row" or age_on(passenger["date_of_birth"], departure) >= EXIT_ROW_MIN_AGE,
            422,
            "EXIT_ROW_AGE",
            f"Exit-row passengers must be at least {EXIT_ROW_MIN_AGE}.",
            param="seat",
        )
        charge = self.money(amount_charged)
        require(charge >= ZERO, 422, "NEGATIVE_AMOUNT", "amount_charged cannot be negative.", param="amount_charged")
        old = passenger["seats"].get(flight_id)
        if old is not None and old in flight["seat_map"]:
            flight["seat_map"][old]["occupied"] = False
        place["occupied"] = True
        passenger["seats"][flight_id] = code
        booking["total_paid"] = self.money(booking["total_paid"]) + charge
        return {
            "locator": locator,
            "flight_id": flight_id,
            "passenger_name": passenger["name"],
            "seat": code,
            "total_paid": booking["total_paid"],
        }
